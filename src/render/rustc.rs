//! `check --message-format json`: each finding as a rustc JSON diagnostic, one object a line,
//! wrapped in cargo's `compiler-message` when a package owns its file: what rust-analyzer
//! reads from `check.overrideCommand`.
//!
//! Fixes become `help` children carrying their replacements: safe ones `MachineApplicable`,
//! unsafe ones `MaybeIncorrect`; display-only ones carry no replacement.

use crate::cargo_check::{Owner, Packages};
use crate::session::{Entry, Outcome};
use kernel_lint_analyzer::{FileError, SourceFile};
use kernel_lint_lints::{Applicability, Diagnostic, Fix, Level};
use serde::Serialize;

/// cargo's wrapper around a diagnostic of a package's target.
#[derive(Serialize)]
struct CompilerMessage<'a> {
    reason: &'static str,
    package_id: &'a str,
    manifest_path: &'a str,
    target: &'a serde_json::Value,
    message: &'a RustcDiagnostic,
}

/// rustc's diagnostic (`rustc_errors::json::Diagnostic`).
#[derive(Serialize)]
struct RustcDiagnostic {
    #[serde(rename = "$message_type")]
    message_type: &'static str,
    message: String,
    code: Option<Code>,
    level: &'static str,
    spans: Vec<SpanJson>,
    children: Vec<RustcDiagnostic>,
    rendered: Option<String>,
}

#[derive(Serialize)]
struct Code {
    code: String,
    explanation: Option<String>,
}

/// rustc's `DiagnosticSpan`: bytes from the file's start, lines and columns 1-based, columns
/// in characters.
#[derive(Serialize)]
struct SpanJson {
    file_name: String,
    byte_start: usize,
    byte_end: usize,
    line_start: usize,
    line_end: usize,
    column_start: usize,
    column_end: usize,
    is_primary: bool,
    text: Vec<LineJson>,
    label: Option<String>,
    suggested_replacement: Option<String>,
    suggestion_applicability: Option<&'static str>,
    expansion: Option<()>,
}

/// rustc's `DiagnosticSpanLine`: a line the span covers, and the characters of it that it
/// covers (1-based, end exclusive).
#[derive(Serialize)]
struct LineJson {
    text: String,
    highlight_start: usize,
    highlight_end: usize,
}

/// Every failure and finding of the run, one JSON object a line, in the order of `check`.
pub fn messages(outcome: &Outcome, packages: &Packages) -> String {
    let mut out = String::new();
    let mut push = |file: &str, diagnostic: RustcDiagnostic| {
        let line = match owner(outcome, packages, file) {
            Some(owner) => serde_json::to_string(&CompilerMessage {
                reason: "compiler-message",
                package_id: owner.package_id,
                manifest_path: owner.manifest_path,
                target: owner.target,
                message: &diagnostic,
            }),
            None => serde_json::to_string(&diagnostic),
        };
        // Strings, numbers and cargo's own JSON values: serializing cannot fail.
        if let Ok(line) = line {
            out.push_str(&line);
            out.push('\n');
        }
    };
    for entry in &outcome.entries {
        match entry {
            Entry::Ok(file) => {
                for err in &file.report.errors {
                    push(&err.path, error(err, outcome.source(&err.path).or(Some(&file.source))));
                }
                for diagnostic in &file.diagnostics {
                    let source = outcome.source(&diagnostic.file).unwrap_or(&file.source);
                    push(&diagnostic.file, finding(diagnostic, source, outcome));
                }
            }
            Entry::Failed(err, source) => push(&err.path, error(err, source.as_ref())),
        }
    }
    out
}

/// The package and target of a file, through the crate its module tree put it in.
fn owner<'a>(outcome: &Outcome, packages: &'a Packages, file: &str) -> Option<Owner<'a>> {
    let path = outcome
        .paths
        .iter()
        .find(|(display, _)| display == file)
        .map(|(_, p)| p)?;
    let module = outcome
        .modules
        .iter()
        .find(|(display, _)| display == file)
        .map(|(_, m)| m)?;
    packages.owner(path, module.first()?)
}

fn finding(diagnostic: &Diagnostic, source: &SourceFile, outcome: &Outcome) -> RustcDiagnostic {
    let primary = &diagnostic.primary;
    let label = (!primary.message.is_empty()).then(|| primary.message.clone());
    let mut spans = vec![span(source, primary.span.start, primary.span.end, true, label)];
    spans.extend(diagnostic.secondary.iter().map(|secondary| {
        let label = (!secondary.message.is_empty()).then(|| secondary.message.clone());
        span(source, secondary.span.start, secondary.span.end, false, label)
    }));
    let mut children: Vec<RustcDiagnostic> = diagnostic.notes.iter().map(|note| child("note", note)).collect();
    children.extend(diagnostic.help.iter().map(|help| child("help", help)));
    for fix in &diagnostic.fixes {
        children.push(suggestion(fix, outcome));
        children.extend(
            fix.follow_up
                .iter()
                .map(|step| child("note", &format!("then by hand: {step}"))),
        );
    }
    RustcDiagnostic {
        message_type: "diagnostic",
        message: diagnostic.message.clone(),
        code: Some(Code {
            // A scoped code, as clippy's: rust-analyzer shows the tool as the source and the
            // code after `::`, the one a suppression names (`allow(KL004)`).
            code: format!("kernel_lint::{}", diagnostic.code),
            explanation: kernel_lint_lints::find(diagnostic.code).map(crate::render::rules::docs),
        }),
        level: match diagnostic.level {
            Level::Deny => "error",
            Level::Warn => "warning",
            Level::Note | Level::Allow => "note",
        },
        spans,
        children,
        rendered: Some(crate::render::human::finding(diagnostic, source, outcome)),
    }
}

/// A fix as rustc writes a suggestion; a display-only one is advice without a replacement.
fn suggestion(fix: &Fix, outcome: &Outcome) -> RustcDiagnostic {
    let applicability = match fix.applicability {
        Applicability::Safe => "MachineApplicable",
        Applicability::Unsafe => "MaybeIncorrect",
        Applicability::DisplayOnly => return child("help", &fix.one_line_title()),
    };
    let spans = fix
        .edits
        .iter()
        .filter_map(|edit| {
            let source = outcome.source(&edit.file)?;
            let mut span = span(source, edit.span.start, edit.span.end, true, None);
            span.suggested_replacement = Some(edit.replacement.clone());
            span.suggestion_applicability = Some(applicability);
            Some(span)
        })
        .collect();
    RustcDiagnostic {
        spans,
        ..child("help", &fix.one_line_title())
    }
}

/// A file that could not be read or analyzed, or an item left out of one; a failure without a
/// place points at the file's start, so that an editor still shows it.
fn error(err: &FileError, source: Option<&SourceFile>) -> RustcDiagnostic {
    let empty;
    let source = match source {
        Some(source) => source,
        None => {
            empty = SourceFile::new(err.path.clone(), String::new());
            &empty
        }
    };
    let (start, end) = err.span.map_or((0, 0), |s| (s.start, s.end));
    RustcDiagnostic {
        message_type: "diagnostic",
        message: err.message.clone(),
        code: None,
        level: "error",
        spans: vec![span(source, start, end, true, None)],
        children: Vec::new(),
        rendered: Some(format!("error: {err}\n")),
    }
}

fn child(level: &'static str, message: &str) -> RustcDiagnostic {
    RustcDiagnostic {
        message_type: "diagnostic",
        message: message.to_string(),
        code: None,
        level,
        spans: Vec::new(),
        children: Vec::new(),
        rendered: None,
    }
}

/// The span of bytes `start..end` of a file, clamped to its text and character boundaries.
fn span(source: &SourceFile, start: usize, end: usize, is_primary: bool, label: Option<String>) -> SpanJson {
    let text = source.text.as_str();
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(start);
    let end = floor(end.max(start));
    let (line_start, column_start) = source.line_column(start);
    let (line_end, column_end) = source.line_column(end);
    let lines = (line_start..=line_end)
        .filter_map(|line| {
            let text = source.line_text(line)?;
            let highlight_start = if line == line_start { column_start } else { 1 };
            let highlight_end = if line == line_end {
                column_end
            } else {
                text.chars().count() + 1
            };
            Some(LineJson {
                text: text.to_string(),
                highlight_start,
                highlight_end,
            })
        })
        .collect();
    SpanJson {
        file_name: source.path.clone(),
        byte_start: start,
        byte_end: end,
        line_start,
        line_end,
        column_start,
        column_end,
        is_primary,
        text: lines,
        label,
        suggested_replacement: None,
        suggestion_applicability: None,
        expansion: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_lint_analyzer::Span;
    use kernel_lint_lints::Edit;

    fn outcome() -> Outcome {
        Outcome {
            context: vec![SourceFile::new("k.rs", "// ½\nlet v = a[2 * i];\n")],
            ..Outcome::default()
        }
    }

    fn fix(applicability: Applicability) -> Fix {
        Fix {
            title: "read `a` with unit stride".to_string(),
            applicability,
            edits: vec![Edit {
                file: "k.rs".to_string(),
                span: Span {
                    start: 16,
                    end: 21,
                    line: 2,
                    column: 11,
                },
                replacement: "i".to_string(),
            }],
            gain: None,
            follow_up: Vec::new(),
        }
    }

    #[test]
    fn safe_fixes_are_machine_applicable_and_unsafe_ones_maybe_incorrect() {
        let outcome = outcome();
        for (applicability, expected) in [
            (Applicability::Safe, "MachineApplicable"),
            (Applicability::Unsafe, "MaybeIncorrect"),
        ] {
            let help = suggestion(&fix(applicability), &outcome);
            assert_eq!(
                (help.level, help.message.as_str()),
                ("help", "read `a` with unit stride")
            );
            assert_eq!(help.spans.len(), 1);
            let span = &help.spans[0];
            assert_eq!(span.suggestion_applicability, Some(expected));
            assert_eq!(span.suggested_replacement.as_deref(), Some("i"));
            assert_eq!(&outcome.context[0].text[span.byte_start..span.byte_end], "2 * i");
            assert_eq!((span.line_start, span.column_start, span.column_end), (2, 11, 16));
        }
    }

    #[test]
    fn display_only_fixes_are_help_without_a_replacement() {
        let help = suggestion(&fix(Applicability::DisplayOnly), &outcome());
        assert_eq!(help.level, "help");
        assert_eq!(help.message, "read `a` with unit stride");
        assert!(help.spans.is_empty());
    }
}
