//! SARIF 2.1.0 output, for code scanning (GitHub's `upload-sarif`, Azure DevOps, IDE viewers).
//!
//! One run: the driver lists every lint as a rule (documentation as help), each finding is a
//! result with its region, its fingerprint under `partialFingerprints`, its safe fixes and its
//! predicted figures as properties. Paths are relative to `%SRCROOT%`, the folder kernel-lint
//! ran in; columns count Unicode code points, as `run.columnKind` says.

use crate::baseline;
use crate::session::Outcome;
use kernel_lint_analyzer::{FileError, SourceFile, Span};
use kernel_lint_lints::{Applicability, Diagnostic, Fix, Level, Lint, LINTS};
use serde_json::{json, Map, Value};
use std::path::{Component, Path};

/// The schema the log names in `$schema`.
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The base every relative artifact URI is resolved against.
const SRCROOT: &str = "%SRCROOT%";

/// The project's page, from `package.repository` in Cargo.toml; empty when it has none, and then
/// the log has no `informationUri` and no `helpUri`.
const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// The SARIF log of a run.
pub fn log(outcome: &Outcome) -> String {
    let fingerprints = baseline::fingerprints(outcome);
    let mut results = Vec::new();
    for (entry, prints) in outcome.entries.iter().zip(&fingerprints) {
        if let crate::session::Entry::Ok(file) = entry {
            for (d, print) in file.diagnostics.iter().zip(prints) {
                let source = outcome.source(&d.file).unwrap_or(&file.source);
                results.push(result(d, source, print, outcome));
            }
        }
    }
    let notifications: Vec<Value> = outcome.errors().map(|err| notification(err, outcome)).collect();
    let mut driver = Map::new();
    driver.insert("name".into(), json!("kernel-lint"));
    driver.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    if !REPOSITORY.is_empty() {
        driver.insert("informationUri".into(), json!(REPOSITORY));
    }
    driver.insert(
        "rules".into(),
        LINTS.iter().map(|lint| rule(lint, REPOSITORY)).collect(),
    );
    let doc = json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": driver },
            "originalUriBaseIds": {
                SRCROOT: { "description": { "text": "The folder kernel-lint ran in." } }
            },
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": notifications.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }]
    });
    // Only strings, numbers and maps with string keys: serializing cannot fail.
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    text
}

/// A lint as a SARIF rule.
fn rule(lint: &Lint, repository: &str) -> Value {
    let mut rule = Map::new();
    rule.insert("id".into(), json!(lint.code));
    rule.insert("name".into(), json!(lint.name));
    rule.insert("shortDescription".into(), json!({ "text": lint.summary() }));
    rule.insert("fullDescription".into(), json!({ "text": first_paragraph(lint) }));
    let docs = super::rules::docs(lint);
    // The heading line repeats the code and name the rule already has.
    let body = docs.split_once("\n\n").map_or(docs.as_str(), |(_, body)| body);
    rule.insert("help".into(), json!({ "text": body, "markdown": body }));
    if let Some(uri) = help_uri(repository) {
        rule.insert("helpUri".into(), json!(uri));
    }
    let mut configuration = json!({ "level": level(lint.default_level) });
    if lint.default_level == Level::Allow {
        configuration["enabled"] = json!(false);
    }
    rule.insert("defaultConfiguration".into(), configuration);
    Value::Object(rule)
}

/// Where the lints are documented online: the README's table of lints on the project's page.
fn help_uri(repository: &str) -> Option<String> {
    (!repository.is_empty()).then(|| format!("{}#lints", repository.trim_end_matches('/')))
}

/// The first paragraph of a lint's documentation, under its first heading, on one line.
fn first_paragraph(lint: &Lint) -> String {
    let lines: Vec<&str> = lint
        .docs
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty() || l.starts_with('#'))
        .take_while(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    lines.join(" ")
}

fn level(level: Level) -> &'static str {
    match level {
        Level::Deny => "error",
        Level::Warn => "warning",
        Level::Note => "note",
        Level::Allow => "none",
    }
}

/// One finding as a SARIF result.
fn result(d: &Diagnostic, source: &SourceFile, fingerprint: &str, outcome: &Outcome) -> Value {
    let mut primary = json!({
        "physicalLocation": physical(&d.file, d.primary.span, source),
        "logicalLocations": [{ "name": d.kernel, "kind": "function" }],
    });
    if !d.primary.message.is_empty() {
        primary["message"] = json!({ "text": d.primary.message });
    }
    let mut result = Map::new();
    result.insert("ruleId".into(), json!(d.code));
    if let Some(index) = LINTS.iter().position(|l| l.code == d.code) {
        result.insert("ruleIndex".into(), json!(index));
    }
    result.insert("level".into(), json!(level(d.level)));
    result.insert("message".into(), json!({ "text": super::github::text(d) }));
    result.insert("locations".into(), json!([primary]));
    if !d.secondary.is_empty() {
        let related: Vec<Value> = d
            .secondary
            .iter()
            .enumerate()
            .map(|(i, label)| {
                json!({
                    "id": i + 1,
                    "physicalLocation": physical(&d.file, label.span, source),
                    "message": { "text": label.message },
                })
            })
            .collect();
        result.insert("relatedLocations".into(), json!(related));
    }
    result.insert(
        "partialFingerprints".into(),
        json!({ baseline::SARIF_KEY: fingerprint }),
    );
    let fixes: Vec<Value> = d
        .fixes
        .iter()
        .filter(|f| f.applicability == Applicability::Safe)
        .filter_map(|f| fix(f, outcome))
        .collect();
    if !fixes.is_empty() {
        result.insert("fixes".into(), json!(fixes));
    }
    result.insert("properties".into(), properties(d));
    Value::Object(result)
}

/// The kernel and the predicted figures.
fn properties(d: &Diagnostic) -> Value {
    let mut properties = Map::new();
    properties.insert("kernel".into(), json!(d.kernel));
    if let Some(impact) = &d.impact {
        let figures = [
            ("efficiency", impact.efficiency),
            ("wastedSectorsPerRequest", impact.wasted_sectors_per_request),
            ("requestsPerLaunch", impact.requests_per_launch),
            ("wastedSectorsPerLaunch", impact.wasted_sectors_per_launch),
            ("wavefrontsPerRequest", impact.wavefronts_per_request),
            ("idealWavefrontsPerRequest", impact.ideal_wavefronts_per_request),
            ("bankDegree", impact.bank_degree.map(f64::from)),
            ("wastedWavefrontsPerRequest", impact.wasted_wavefronts_per_request),
            ("wastedWavefrontsPerLaunch", impact.wasted_wavefronts_per_launch),
        ];
        for (name, value) in figures {
            if let Some(value) = value {
                properties.insert(name.into(), json!(value));
            }
        }
        properties.insert("loopDepth".into(), json!(impact.loop_depth));
    }
    Value::Object(properties)
}

/// A fix as SARIF artifact changes; none when a file it edits was not read.
fn fix(fix: &Fix, outcome: &Outcome) -> Option<Value> {
    let mut changes: Vec<(String, Vec<Value>)> = Vec::new();
    for edit in &fix.edits {
        let source = outcome.source(&edit.file)?;
        let replacement = json!({
            "deletedRegion": region(edit.span, source),
            "insertedContent": { "text": edit.replacement },
        });
        match changes.iter_mut().find(|(file, _)| *file == edit.file) {
            Some((_, replacements)) => replacements.push(replacement),
            None => changes.push((edit.file.clone(), vec![replacement])),
        }
    }
    let changes: Vec<Value> = changes
        .into_iter()
        .map(|(file, replacements)| {
            json!({
                "artifactLocation": artifact(&file),
                "replacements": replacements,
            })
        })
        .collect();
    Some(json!({
        "description": { "text": fix.title },
        "artifactChanges": changes,
    }))
}

/// A file that could not be analyzed, as a notification of the invocation.
fn notification(err: &FileError, outcome: &Outcome) -> Value {
    let mut value = json!({ "level": "error", "message": { "text": err.message } });
    let location = match (err.span, outcome.source(&err.path)) {
        (Some(span), Some(source)) => physical(&err.path, span, source),
        _ => json!({ "artifactLocation": artifact(&err.path) }),
    };
    value["locations"] = json!([{ "physicalLocation": location }]);
    value
}

fn physical(file: &str, span: Span, source: &SourceFile) -> Value {
    json!({ "artifactLocation": artifact(file), "region": region(span, source) })
}

/// 1-based lines and columns; the end column is the one after the region's last character.
fn region(span: Span, source: &SourceFile) -> Value {
    let (start_line, start_column) = source.line_column(span.start);
    let (end_line, end_column) = source.line_column(span.end.max(span.start));
    json!({
        "startLine": start_line,
        "startColumn": start_column,
        "endLine": end_line,
        "endColumn": end_column,
    })
}

/// A path as given, as a URI relative to `%SRCROOT%` (the folder kernel-lint ran in).
fn artifact(path: &str) -> Value {
    artifact_in(path, std::env::current_dir().ok().as_deref())
}

/// A path as a URI relative to `root`: a file outside it (another crate of the workspace, run
/// from a member's folder) climbs out with `..`, so that the log names no folder of the
/// machine it was made on; a `file:` URI only when no relative path reaches it (another
/// drive).
fn artifact_in(path: &str, root: Option<&Path>) -> Value {
    let relative = match Path::new(path).is_absolute() {
        true => root.and_then(|root| relative_to(Path::new(path), root)),
        false => Some(path.to_string()),
    };
    match relative {
        Some(relative) => {
            let slashed = relative.replace('\\', "/");
            let relative = slashed.trim_start_matches("./");
            json!({ "uri": percent_encoded(relative), "uriBaseId": SRCROOT })
        }
        None => {
            let slashed = path.replace('\\', "/");
            let rooted = if slashed.starts_with('/') {
                slashed
            } else {
                format!("/{slashed}")
            };
            json!({ "uri": format!("file://{}", percent_encoded(&rooted)) })
        }
    }
}

/// `path` written relative to `root`, both absolute; `None` when they share no root.
fn relative_to(path: &Path, root: &Path) -> Option<String> {
    let path: Vec<Component> = path.components().filter(|c| *c != Component::CurDir).collect();
    let root: Vec<Component> = root.components().filter(|c| *c != Component::CurDir).collect();
    let shared = path.iter().zip(&root).take_while(|(a, b)| a == b).count();
    if shared == 0 || path[..shared].iter().all(|c| !matches!(c, Component::RootDir)) {
        return None;
    }
    let up = root.len() - shared;
    let down = path[shared..]
        .iter()
        .map(|c| c.as_os_str().to_string_lossy().into_owned());
    Some(
        std::iter::repeat_n("..".to_string(), up)
            .chain(down)
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// Escapes what may not stand in a URI path (RFC 3986: unreserved characters, `/` and the
/// sub-delimiters stay).
fn percent_encoded(path: &str) -> String {
    let mut out = String::new();
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&byte) {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_links_to_the_lint_table_when_the_project_has_a_page() {
        assert_eq!(help_uri(""), None);
        assert_eq!(
            help_uri("https://example.org/kernel-lint/").as_deref(),
            Some("https://example.org/kernel-lint#lints")
        );
    }

    #[test]
    fn paths_become_uris() {
        assert_eq!(
            artifact("./src/my kernels.rs"),
            json!({ "uri": "src/my%20kernels.rs", "uriBaseId": "%SRCROOT%" })
        );
        let root = Some(Path::new("/work/app/kernels"));
        assert_eq!(
            artifact_in("/work/app/kernels/src/a#b.rs", root),
            json!({ "uri": "src/a%23b.rs", "uriBaseId": "%SRCROOT%" })
        );
        assert_eq!(
            artifact_in("/work/app/common/src/lib.rs", root),
            json!({ "uri": "../common/src/lib.rs", "uriBaseId": "%SRCROOT%" })
        );
        assert_eq!(
            artifact_in("/opt/vendor/x.rs", root),
            json!({ "uri": "../../../opt/vendor/x.rs", "uriBaseId": "%SRCROOT%" })
        );
        assert_eq!(artifact_in("/tmp/a.rs", None), json!({ "uri": "file:///tmp/a.rs" }));
    }

    #[test]
    fn only_safe_fixes_become_artifact_changes() {
        let source = SourceFile::new("a.rs", "let v = p[i].x;\n");
        let mut outcome = Outcome::default();
        outcome.context.push(source.clone());
        let span = Span {
            start: 8,
            end: 14,
            line: 1,
            column: 9,
        };
        let edit = kernel_lint_lints::Edit {
            file: "a.rs".into(),
            span,
            replacement: "p_x[i]".into(),
        };
        let make = |applicability| Fix {
            title: "read the field's own array".into(),
            applicability,
            edits: vec![edit.clone()],
            gain: None,
            follow_up: Vec::new(),
        };
        let d = Diagnostic {
            code: "KL002",
            name: "array-of-structs-access",
            level: Level::Deny,
            file: "a.rs".into(),
            kernel: "k".into(),
            message: "array-of-structs access".into(),
            primary: kernel_lint_lints::Label {
                span,
                message: "one struct apart".into(),
            },
            secondary: vec![kernel_lint_lints::Label {
                span: Span {
                    start: 4,
                    end: 5,
                    line: 1,
                    column: 5,
                },
                message: "bound here".into(),
            }],
            help: None,
            notes: Vec::new(),
            fixes: vec![make(Applicability::Unsafe), make(Applicability::Safe)],
            impact: None,
        };
        let value = result(&d, &source, "0123456789abcdef", &outcome);
        assert_eq!(value["level"], json!("error"));
        assert_eq!(value["ruleIndex"], json!(1));
        assert_eq!(
            value["fixes"],
            json!([{
                "description": { "text": "read the field's own array" },
                "artifactChanges": [{
                    "artifactLocation": { "uri": "a.rs", "uriBaseId": "%SRCROOT%" },
                    "replacements": [{
                        "deletedRegion": { "startLine": 1, "startColumn": 9, "endLine": 1, "endColumn": 15 },
                        "insertedContent": { "text": "p_x[i]" },
                    }],
                }],
            }])
        );
        assert_eq!(
            value["relatedLocations"],
            json!([{
                "id": 1,
                "physicalLocation": {
                    "artifactLocation": { "uri": "a.rs", "uriBaseId": "%SRCROOT%" },
                    "region": { "startLine": 1, "startColumn": 5, "endLine": 1, "endColumn": 6 },
                },
                "message": { "text": "bound here" },
            }])
        );
        assert_eq!(
            value["partialFingerprints"],
            json!({ "kernelLint/v1": "0123456789abcdef" })
        );
    }
}
