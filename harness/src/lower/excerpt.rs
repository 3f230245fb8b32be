//! Reasons stay one short line: source quoted in them is cut to an excerpt.

/// The most characters of source a reason quotes.
const QUOTE: usize = 60;

/// `reason` on one line, each quoted piece of source (between backticks) at most [`QUOTE`]
/// characters, cut with `..`.
pub(super) fn short_reason(reason: &str) -> String {
    let one_line = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::new();
    for (i, piece) in one_line.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        // Odd pieces are quoted.
        if i % 2 == 1 && piece.chars().count() > QUOTE {
            out.extend(piece.chars().take(QUOTE - 2));
            out.push_str("..");
        } else {
            out.push_str(piece);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::short_reason;

    #[test]
    fn long_quotes_are_cut_and_lines_joined() {
        let long = format!("`{}` is not lowered", "x + ".repeat(30));
        let short = short_reason(&long);
        assert_eq!(short, format!("`{}..` is not lowered", &"x + ".repeat(30)[..58]));
        assert_eq!(short_reason("`a\n    b` is\nnot"), "`a b` is not");
    }
}
