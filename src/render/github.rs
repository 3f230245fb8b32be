//! GitHub Actions workflow commands: one `::warning` (or `::error`, `::notice`) line per
//! finding, which the runner turns into an annotation on the file and line of the pull request.
//!
//! Values are escaped as the Actions toolkit does: `%`, CR and LF in the message; those and
//! `:` and `,` in the properties.

use crate::session::{Entry, Outcome};
use kernel_lint_analyzer::{FileError, SourceFile};
use kernel_lint_lints::{Diagnostic, Level};

/// The longest message an annotation carries, in characters: the rest of a finding (its notes,
/// the cases of a long headline) is in the log, where the annotation's line points.
const MAX_MESSAGE: usize = 600;

/// Every warning and error of a run as an annotation, then every file that could not be
/// analyzed. Notes are plain log lines: GitHub shows only a handful of annotations per step,
/// and those are for what fails the job or may.
pub fn annotations(outcome: &Outcome) -> String {
    let mut out = String::new();
    for entry in &outcome.entries {
        if let Entry::Ok(file) = entry {
            for d in &file.diagnostics {
                let source = outcome.source(&d.file).unwrap_or(&file.source);
                out.push_str(&match d.level {
                    Level::Note | Level::Allow => log_line(d),
                    Level::Warn | Level::Deny => annotation(d, source),
                });
                out.push('\n');
            }
        }
    }
    for err in outcome.errors() {
        out.push_str(&error(err));
        out.push('\n');
    }
    out
}

/// A note as the log shows it, not a workflow command: `note: src/k.rs:8:21: KL007 name: message`.
fn log_line(d: &Diagnostic) -> String {
    let span = d.primary.span;
    let message = d.message.replace(['\r', '\n'], " ");
    format!(
        "note: {}:{}:{}: {} {}: {message}",
        d.file, span.line, span.column, d.code, d.name
    )
}

/// `::warning file=F,line=L,col=C,endLine=L,endColumn=C,title=KL002 name::message`.
fn annotation(d: &Diagnostic, source: &SourceFile) -> String {
    let command = match d.level {
        Level::Deny => "error",
        Level::Warn | Level::Note | Level::Allow => "warning",
    };
    let span = d.primary.span;
    let (end_line, end_column) = source.line_column(span.end.max(span.start));
    let mut properties = vec![("file", d.file.clone()), ("line", span.line.to_string())];
    // GitHub takes columns only on a one-line annotation; its end column is the last
    // character's, where SARIF's is the one after it.
    if end_line == span.line {
        properties.push(("col", span.column.to_string()));
        properties.push(("endColumn", (end_column - 1).max(span.column).to_string()));
    } else {
        properties.push(("endLine", end_line.to_string()));
    }
    properties.push(("title", format!("{} {}", d.code, d.name)));
    command_line(command, &properties, &capped(&text(d)))
}

/// `text` cut at [`MAX_MESSAGE`] characters, on a word boundary, with `…` where it was cut.
fn capped(text: &str) -> String {
    if text.chars().count() <= MAX_MESSAGE {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_MESSAGE).collect();
    let end = cut.rfind([' ', '\n']).unwrap_or(cut.len());
    format!("{}…", cut[..end].trim_end_matches([',', ';', ':']))
}

/// A file or item that could not be analyzed.
fn error(err: &FileError) -> String {
    let mut properties = vec![("file", err.path.clone())];
    if let Some(span) = err.span {
        properties.push(("line", span.line.to_string()));
        properties.push(("col", span.column.to_string()));
    }
    properties.push(("title", "kernel-lint".to_string()));
    command_line("error", &properties, &err.message)
}

fn command_line(command: &str, properties: &[(&str, String)], message: &str) -> String {
    let properties: Vec<String> = properties
        .iter()
        .map(|(key, value)| format!("{key}={}", escape_property(value)))
        .collect();
    format!("::{command} {}::{}", properties.join(","), escape_data(message))
}

/// The message with its help and notes, one per line, as the human output shows them.
pub fn text(d: &Diagnostic) -> String {
    let mut text = d.message.clone();
    if let Some(help) = &d.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    for note in &d.notes {
        text.push_str("\nnote: ");
        text.push_str(note);
    }
    text
}

/// Escapes a message: `%`, CR and LF.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a property value: as a message, and `:` and `,`.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_the_actions_toolkit() {
        assert_eq!(escape_data("50% of a\r\nb: c, d"), "50%25 of a%0D%0Ab: c, d");
        assert_eq!(escape_property("C:\\a,b%\n"), "C%3A\\a%2Cb%25%0A");
    }

    #[test]
    fn a_long_message_is_cut_at_a_word_with_an_ellipsis() {
        let long = format!("sectors per request: {}", "4 when w == 1, ".repeat(60));
        let cut = capped(&long);
        // 599 characters up to the last space within the first 600, then the ellipsis.
        assert_eq!(cut.chars().count(), 600);
        assert!(cut.ends_with("w == 1, 4 when w…"), "{cut}");
        assert_eq!(capped("short"), "short");
    }

    #[test]
    fn a_deny_finding_over_two_lines_is_an_error_without_columns() {
        let source = SourceFile::new("src/a b.rs", "let v = p[\n  i].x;\n");
        let d = Diagnostic {
            code: "KL002",
            name: "array-of-structs-access",
            level: Level::Deny,
            file: "src/a,b.rs".into(),
            kernel: "k".into(),
            message: "array-of-structs access to `p[i].x`: 100% wasted".into(),
            primary: kernel_lint_lints::Label {
                span: kernel_lint_analyzer::Span {
                    start: 8,
                    end: 16,
                    line: 1,
                    column: 9,
                },
                message: String::new(),
            },
            secondary: Vec::new(),
            help: Some("use a structure of arrays".into()),
            notes: vec!["block (256, 1, 1): the default".into()],
            fixes: Vec::new(),
            impact: None,
        };
        assert_eq!(
            annotation(&d, &source),
            "::error file=src/a%2Cb.rs,line=1,endLine=2,title=KL002 array-of-structs-access::\
             array-of-structs access to `p[i].x`: 100%25 wasted%0Ahelp: use a structure of arrays\
             %0Anote: block (256, 1, 1): the default"
        );
    }
}
