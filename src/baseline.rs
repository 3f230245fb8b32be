//! Fingerprints of findings, and the baseline file that lets a codebase adopt kernel-lint with
//! its existing findings hidden, so that only new ones are reported.
//!
//! A fingerprint hashes what identifies a finding without its place: the lint's code, the
//! kernel's name, the flagged source text with its whitespace normalized, and which occurrence
//! of that text it is among the run's findings of that lint and kernel. Lines added above a
//! kernel, or a function added beside it, leave every fingerprint as it was.

use crate::cli::Format;
use crate::error::CliError;
use crate::exit::Status;
use crate::session::{Entry, Outcome};
use kernel_lint_analyzer::SourceFile;
use kernel_lint_lints::Diagnostic;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;

/// Schema name of the baseline file.
pub const SCHEMA: &str = "kernel-lint/baseline/v1";

/// The name under which SARIF's `partialFingerprints` carries a finding's fingerprint.
pub const SARIF_KEY: &str = "kernelLint/v1";

/// The baseline file: one entry per finding, sorted.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    schema: String,
    findings: Vec<Known>,
}

/// A finding of the baseline; only the fingerprint is matched, the rest is for people.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
struct Known {
    file: String,
    kernel: String,
    code: String,
    fingerprint: String,
    message: String,
}

/// The fingerprints a baseline file lists.
#[derive(Debug, Default)]
pub struct Baseline {
    fingerprints: BTreeSet<String>,
}

impl Baseline {
    /// Reads a baseline file written by `--write-baseline`.
    pub fn read(path: &Path) -> Result<Baseline, CliError> {
        let text = std::fs::read_to_string(path).map_err(|err| CliError::read(path, &err))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|err| CliError::malformed(path, format!("not a kernel-lint baseline: {err}")))?;
        let schema = value.get("schema").and_then(serde_json::Value::as_str);
        if schema != Some(SCHEMA) {
            let found = schema.map_or_else(|| "no `schema`".to_string(), |s| format!("schema `{s}`"));
            return Err(CliError::malformed(
                path,
                format!("not a kernel-lint baseline: {found}, expected `{SCHEMA}` (write one with `--write-baseline`)"),
            ));
        }
        let file: File = serde_json::from_value(value)
            .map_err(|err| CliError::malformed(path, format!("not a kernel-lint baseline: {err}")))?;
        Ok(Baseline {
            fingerprints: file.findings.into_iter().map(|k| k.fingerprint).collect(),
        })
    }

    /// Removes the findings the baseline lists; returns how many were hidden.
    pub fn hide_known(&self, outcome: &mut Outcome) -> usize {
        let fingerprints = fingerprints(outcome);
        let mut hidden = 0;
        for (entry, prints) in outcome.entries.iter_mut().zip(fingerprints) {
            if let Entry::Ok(file) = entry {
                let mut prints = prints.into_iter();
                let before = file.diagnostics.len();
                file.diagnostics
                    .retain(|_| prints.next().is_none_or(|p| !self.fingerprints.contains(&p)));
                hidden += before - file.diagnostics.len();
            }
        }
        hidden
    }
}

/// Writes the baseline of a run's findings; returns how many it lists.
pub fn write(outcome: &Outcome, path: &Path) -> Result<usize, CliError> {
    let mut findings: Vec<Known> = Vec::new();
    for (entry, prints) in outcome.entries.iter().zip(fingerprints(outcome)) {
        if let Entry::Ok(file) = entry {
            findings.extend(file.diagnostics.iter().zip(prints).map(|(d, fingerprint)| Known {
                file: d.file.clone(),
                kernel: d.kernel.clone(),
                code: d.code.to_string(),
                fingerprint,
                message: d.message.clone(),
            }));
        }
    }
    findings.sort();
    let count = findings.len();
    let doc = File {
        schema: SCHEMA.to_string(),
        findings,
    };
    // Strings and lists only: serializing cannot fail.
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    std::fs::write(path, text).map_err(|err| CliError::write(path, &err))?;
    Ok(count)
}

/// `--write-baseline`: writes the baseline and says so on stderr. Exits 0, or 2 when some
/// input could not be analyzed (its findings are then missing from the baseline).
pub fn write_reporting(outcome: &Outcome, path: &Path) -> Result<Status, CliError> {
    for err in outcome.errors() {
        eprintln!("error: {err}");
    }
    let count = write(outcome, path)?;
    let noun = if count == 1 { "finding" } else { "findings" };
    eprintln!("kernel-lint: wrote {count} {noun} to the baseline `{}`", path.display());
    Ok(Status::of_run(outcome.has_errors(), false))
}

/// Says how many findings the baseline hid: at the end of the summary line for people, on
/// stderr for the machine formats (their stdout is a document).
pub fn mention_hidden(text: &mut String, format: Format, hidden: usize) {
    let noun = if hidden == 1 { "finding" } else { "findings" };
    if format == Format::Human && text.ends_with('\n') {
        text.pop();
        text.push_str(&format!("; {hidden} hidden by the baseline\n"));
    } else {
        eprintln!("kernel-lint: {hidden} {noun} hidden by the baseline");
    }
}

/// The fingerprint of every finding of a run, per entry (empty for failed ones) in the order
/// of its findings.
pub fn fingerprints(outcome: &Outcome) -> Vec<Vec<String>> {
    // Occurrences are counted over the whole run in (file, offset) order, so that two kernels of
    // one name in two files, or one expression flagged twice, still get distinct fingerprints.
    let mut keys: Vec<(usize, usize, (String, usize), String)> = Vec::new();
    for (e, entry) in outcome.entries.iter().enumerate() {
        if let Entry::Ok(file) = entry {
            for (i, d) in file.diagnostics.iter().enumerate() {
                let text = normalized(outcome.source(&d.file).unwrap_or(&file.source), d);
                keys.push((e, i, (d.file.clone(), d.primary.span.start), text));
            }
        }
    }
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].2.cmp(&keys[b].2).then(a.cmp(&b)));
    let mut seen: HashMap<(&str, &str, &str), usize> = HashMap::new();
    let mut out: Vec<Vec<String>> = outcome
        .entries
        .iter()
        .map(|entry| match entry {
            Entry::Ok(file) => vec![String::new(); file.diagnostics.len()],
            Entry::Failed(..) => Vec::new(),
        })
        .collect();
    for k in order {
        let (e, i, _, text) = &keys[k];
        let Entry::Ok(file) = &outcome.entries[*e] else {
            continue;
        };
        let d = &file.diagnostics[*i];
        let occurrence = seen.entry((d.code, d.kernel.as_str(), text.as_str())).or_default();
        out[*e][*i] = fingerprint(d.code, &d.kernel, text, *occurrence);
        *occurrence += 1;
    }
    out
}

/// The fingerprint of one finding: 16 hex digits of a 64-bit FNV-1a hash, stable across runs,
/// platforms and versions of Rust (unlike the standard library's hasher).
pub fn fingerprint(code: &str, kernel: &str, text: &str, occurrence: usize) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let occurrence = occurrence.to_string();
    for part in [code, kernel, text, &occurrence] {
        for byte in part.bytes().chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

/// The flagged text with whitespace dropped, except one space between two word characters:
/// `a[ i *2]` and `a[i * 2]` are the same expression.
fn normalized(source: &SourceFile, d: &Diagnostic) -> String {
    normalize(source.snippet(d.primary.span))
}

/// Source text with whitespace dropped, except one space between two word characters.
pub fn normalize(text: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in text.chars() {
        if c.is_whitespace() {
            gap = true;
            continue;
        }
        let word = |c: char| c.is_alphanumeric() || c == '_';
        if gap && out.chars().last().is_some_and(word) && word(c) {
            out.push(' ');
        }
        gap = false;
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_fixed_values() {
        // A change here invalidates every baseline written before: bump `SCHEMA` then.
        assert_eq!(fingerprint("KL002", "k", "p[i].x", 0), "a5d0a14cdd8f98a2");
        assert_ne!(
            fingerprint("KL002", "k", "p[i].x", 0),
            fingerprint("KL002", "k", "p[i].x", 1)
        );
        assert_ne!(
            fingerprint("KL002", "k", "p[i].x", 0),
            fingerprint("KL001", "k", "p[i].x", 0)
        );
        // The separators keep `ab`+`c` apart from `a`+`bc`.
        assert_ne!(fingerprint("KL002", "ab", "c", 0), fingerprint("KL002", "a", "bc", 0));
    }

    #[test]
    fn whitespace_does_not_count_between_symbols() {
        let source = SourceFile::new("a.rs", "a[ i *\n   2 ] as usize");
        let mut d = Diagnostic {
            code: "KL001",
            name: "strided-access",
            level: kernel_lint_lints::Level::Warn,
            file: "a.rs".into(),
            kernel: "k".into(),
            message: String::new(),
            primary: kernel_lint_lints::Label {
                span: kernel_lint_analyzer::Span {
                    start: 0,
                    end: 22,
                    line: 1,
                    column: 1,
                },
                message: String::new(),
            },
            secondary: Vec::new(),
            help: None,
            notes: Vec::new(),
            fixes: Vec::new(),
            impact: None,
        };
        assert_eq!(normalized(&source, &d), "a[i*2]as usize");
        d.primary.span.end = 4;
        assert_eq!(normalized(&source, &d), "a[i");
    }
}
