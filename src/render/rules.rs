//! `rule` output: one lint's documentation, or a table of all lints.

use kernel_lint_lints::{Lint, LINTS};

/// The documentation of one lint, under a heading line.
pub fn docs(lint: &Lint) -> String {
    let mut out = format!(
        "{} {} (default level: {})\n\n",
        lint.code,
        lint.name,
        lint.default_level.as_str()
    );
    for line in lint.docs.lines() {
        // Doc comments keep the space after `///`.
        out.push_str(line.strip_prefix(' ').unwrap_or(line).trim_end());
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// Every lint: code, name, default level and summary, aligned.
pub fn table() -> String {
    let name_width = LINTS.iter().map(|l| l.name.len()).max().unwrap_or(0).max("name".len());
    let code_width = LINTS.iter().map(|l| l.code.len()).max().unwrap_or(0).max("code".len());
    let mut out = format!(
        "{:code_width$}  {:name_width$}  {:7}  summary\n",
        "code", "name", "default"
    );
    for lint in LINTS {
        let level = lint.default_level.as_str();
        out.push_str(&format!(
            "{:code_width$}  {:name_width$}  {level:7}  {}\n",
            lint.code,
            lint.name,
            lint.summary()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_whole_sentences() {
        for lint in LINTS {
            let summary = lint.summary();
            assert!(summary.ends_with('.'), "{}: {summary}", lint.code);
        }
    }
}
