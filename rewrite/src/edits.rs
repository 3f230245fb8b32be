//! Applying a rewrite's edits to a file's text, and following offsets through them.

use kernel_lint_analyzer::{SourceFile, Span};
use kernel_lint_lints::Edit;

/// One replacement in one file, by byte range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Splice {
    /// The bytes replaced.
    pub range: std::ops::Range<usize>,
    /// The new text.
    pub text: String,
}

/// The file's text with the splices made (sorted by start; they must not overlap), or `None`
/// when two overlap or one lies outside the text.
pub fn apply(text: &str, splices: &[Splice]) -> Option<String> {
    let mut sorted: Vec<&Splice> = splices.iter().collect();
    sorted.sort_by_key(|s| (s.range.start, s.range.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for s in sorted {
        if s.range.start < at || s.range.end > text.len() || s.range.start > s.range.end {
            return None;
        }
        out.push_str(text.get(at..s.range.start)?);
        out.push_str(&s.text);
        at = s.range.end;
    }
    out.push_str(text.get(at..)?);
    Some(out)
}

/// Where a byte offset of the old text lies in the new one: `Ok` outside every splice,
/// `Err(i)` inside splice `i` (whose new text starts at [`new_start`]).
pub fn map_offset(offset: usize, splices: &[Splice]) -> Result<usize, usize> {
    let mut shift: isize = 0;
    for (i, s) in splices.iter().enumerate() {
        // Text at an insertion point moves after the inserted text.
        if offset >= s.range.end {
            shift += s.text.len() as isize - (s.range.end - s.range.start) as isize;
        } else if offset >= s.range.start {
            return Err(i);
        }
    }
    Ok((offset as isize + shift) as usize)
}

/// The new-text range a splice's replacement occupies.
pub fn new_range(index: usize, splices: &[Splice]) -> std::ops::Range<usize> {
    let s = &splices[index];
    let before: isize = splices
        .iter()
        .filter(|o| o.range.end <= s.range.start && o.range != s.range)
        .map(|o| o.text.len() as isize - (o.range.end - o.range.start) as isize)
        .sum();
    let start = (s.range.start as isize + before) as usize;
    start..start + s.text.len()
}

/// `text` with non-overlapping `edits` applied: each offset refers to the original text.
pub fn splice(text: &str, edits: &[&Edit]) -> String {
    let mut sorted = edits.to_vec();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in sorted {
        out.push_str(&text[at..edit.span.start]);
        out.push_str(&edit.replacement);
        at = edit.span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// A unified diff of a file before and after, with `a/` and `b/` headers.
pub fn unified_diff(path: &str, original: &str, fixed: &str) -> String {
    similar::TextDiff::from_lines(original, fixed)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// The lints' edit for a splice of `file`.
pub fn edit(file: &SourceFile, splice: &Splice) -> Edit {
    let (line, column) = file.line_column(splice.range.start);
    Edit {
        file: file.path.clone(),
        span: Span {
            start: splice.range.start,
            end: splice.range.end,
            line,
            column,
        },
        replacement: splice.text.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn splice(start: usize, end: usize, text: &str) -> Splice {
        Splice {
            range: start..end,
            text: text.into(),
        }
    }

    #[test]
    fn splices_apply_in_order_and_offsets_follow() {
        let text = "let a = p[i].x; let b = q;";
        let splices = vec![splice(8, 14, "p_x[i]"), splice(0, 0, "// soa\n")];
        assert_eq!(
            apply(text, &splices).as_deref(),
            Some("// soa\nlet a = p_x[i]; let b = q;")
        );
        // `q` at 24 moves by the 7 inserted bytes and the 0 net bytes of the first splice.
        assert_eq!(map_offset(24, &splices), Ok(31));
        assert_eq!(map_offset(10, &splices), Err(0));
        assert_eq!(new_range(0, &splices), 15..21);
    }

    #[test]
    fn overlapping_splices_are_refused() {
        assert_eq!(apply("abcdef", &[splice(1, 3, "x"), splice(2, 4, "y")]), None);
    }
}
