//! Matching the findings of the base with those of the working tree: kernels by file and name
//! (through file renames, and by their accesses when a kernel was renamed), then findings
//! within a kernel by lint and access text, which survive lines moving.

use crate::baseline::normalize;
use crate::session::Outcome;
use kernel_lint_analyzer::{BankPrediction, Prediction, SourceFile};
use kernel_lint_lints::{Fix, Level};
use std::collections::HashMap;

/// What a change did to a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum State {
    /// Found in the working tree only.
    Introduced,
    /// Found in both, with other figures.
    Changed,
    /// Found in the base only.
    Fixed,
    /// Found in both, the same.
    Unchanged,
}

impl State {
    /// The word in the reports.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Introduced => "introduced",
            State::Changed => "changed",
            State::Fixed => "fixed",
            State::Unchanged => "unchanged",
        }
    }
}

/// One finding of one side, with what the report shows of it.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Lint code.
    pub code: &'static str,
    /// Lint name.
    pub name: &'static str,
    /// Level it was reported at.
    pub level: Level,
    /// The flagged source text, whitespace normalized: what matches a finding across sides.
    pub text: String,
    /// The access as the report shows it: the flagged text with its array when only the index
    /// is flagged (`a[idx * 3]`), on one line, at most [`SHOWN_CHARS`] characters.
    pub shown: String,
    /// The whole access the finding is about, whitespace normalized (the flagged text may be
    /// its index alone): what finds the same access on the other side.
    pub access: Option<String>,
    /// 1-based line of the flagged text.
    pub line: usize,
    /// The finding's message.
    pub message: String,
    /// The prediction of the flagged access.
    pub prediction: Option<Prediction>,
    /// The banks of the flagged access, for a shared-memory one.
    pub banks: Option<BankPrediction>,
    /// Suggested rewrites, each edit with the text it replaces.
    pub fixes: Vec<(Fix, Vec<String>)>,
}

/// One kernel of one side.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// The file, as printed.
    pub file: String,
    /// The kernel's name.
    pub name: String,
    /// Its findings in source order.
    pub findings: Vec<Finding>,
    /// Every access (normalized text, prediction), flagged or not.
    pub accesses: Vec<(String, Option<Prediction>)>,
}

/// One row of a kernel's table.
#[derive(Debug, Clone)]
pub struct Row {
    /// What the change did.
    pub state: State,
    /// The finding in the working tree (introduced, changed, unchanged) or in the base (fixed).
    pub finding: Finding,
    /// The access's prediction in the base, when it existed there.
    pub before: Option<Prediction>,
    /// Whether the access exists in the working tree.
    pub after_exists: bool,
    /// Its prediction in the working tree.
    pub after: Option<Prediction>,
    /// The banks of a shared-memory access on the side the row shows (the base for a fixed
    /// finding, else the working tree).
    pub banks: Option<BankPrediction>,
}

/// The rows of one kernel.
#[derive(Debug, Clone)]
pub struct KernelReview {
    /// The file in the working tree (or in the base, for a kernel that is gone).
    pub file: String,
    /// The kernel's name now.
    pub name: String,
    /// Its name in the base, when it was renamed.
    pub renamed_from: Option<String>,
    /// Its file in the base, when the file was renamed.
    pub file_renamed_from: Option<String>,
    /// Its findings, introduced first.
    pub rows: Vec<Row>,
}

/// The longest access text a review shows.
pub const SHOWN_CHARS: usize = 80;

/// `text` on one line (runs of whitespace as one space), cut at [`SHOWN_CHARS`] with `…`.
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= SHOWN_CHARS {
        return joined;
    }
    let cut: String = joined.chars().take(SHOWN_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

/// The kernels of a run, with their findings and accesses.
pub fn kernels(outcome: &Outcome) -> Vec<Kernel> {
    let mut out: Vec<Kernel> = Vec::new();
    for file in outcome.analyzed() {
        for report in &file.report.kernels {
            // Launches of one kernel are reported apart; the review keeps the first.
            if out.iter().any(|k| k.file == file.source.path && k.name == report.name) {
                continue;
            }
            let source_of =
                |path: Option<&str>| -> &SourceFile { path.and_then(|p| outcome.source(p)).unwrap_or(&file.source) };
            let accesses = report
                .accesses
                .iter()
                .map(|a| {
                    let text = normalize(source_of(a.file.as_deref()).snippet(a.span));
                    (text, a.prediction.clone())
                })
                .collect();
            let findings = file
                .diagnostics
                .iter()
                .filter(|d| d.kernel == report.name)
                .map(|d| {
                    let source = source_of(Some(&d.file));
                    let access = report.accesses.iter().find(|a| a.span == d.primary.span).or_else(|| {
                        report
                            .accesses
                            .iter()
                            .find(|a| a.span.start <= d.primary.span.start && d.primary.span.end <= a.span.end)
                    });
                    let fixes = d
                        .fixes
                        .iter()
                        .map(|fix| {
                            let old = fix
                                .edits
                                .iter()
                                .map(|e| source_of(Some(&e.file)).snippet(e.span).to_string())
                                .collect();
                            (fix.clone(), old)
                        })
                        .collect();
                    let snippet = source.snippet(d.primary.span);
                    // A finding that underlines the index alone is shown with its array.
                    let shown = match access {
                        Some(a) if a.index_span == d.primary.span && !a.array.is_empty() => {
                            format!("{}[{}]", a.array, snippet)
                        }
                        _ => snippet.to_string(),
                    };
                    Finding {
                        code: d.code,
                        name: d.name,
                        level: d.level,
                        text: normalize(snippet),
                        shown: one_line(&shown),
                        access: access.map(|a| normalize(source_of(a.file.as_deref()).snippet(a.span))),
                        line: d.primary.span.line,
                        message: d.message.clone(),
                        prediction: access.and_then(|a| a.prediction.clone()),
                        banks: access.and_then(|a| a.banks.clone()),
                        fixes,
                    }
                })
                .collect();
            out.push(Kernel {
                file: file.source.path.clone(),
                name: report.name.clone(),
                findings,
                accesses,
            });
        }
    }
    out
}

/// Matches the kernels of the base (their files already mapped through renames: `base_file`
/// gives the base's own path of each) with those of the working tree.
pub fn review(base: &[Kernel], base_file: &HashMap<String, String>, head: &[Kernel]) -> Vec<KernelReview> {
    let mut pairs: Vec<(Option<usize>, Option<usize>, bool)> = Vec::new();
    let mut base_used = vec![false; base.len()];
    for (h, kernel) in head.iter().enumerate() {
        let found = base.iter().position(|b| b.file == kernel.file && b.name == kernel.name);
        if let Some(b) = found {
            base_used[b] = true;
        }
        pairs.push((found, Some(h), false));
    }
    // A kernel renamed in its file: the same accesses under another name.
    for pair in pairs.iter_mut().filter(|p| p.0.is_none()) {
        let kernel = &head[pair.1.unwrap_or_default()];
        let shape = access_texts(kernel);
        let found = base.iter().enumerate().position(|(b, old)| {
            !base_used[b] && old.file == kernel.file && !shape.is_empty() && access_texts(old) == shape
        });
        if let Some(b) = found {
            base_used[b] = true;
            *pair = (Some(b), pair.1, true);
        }
    }
    for (b, used) in base_used.iter().enumerate() {
        if !used {
            pairs.push((Some(b), None, false));
        }
    }
    let mut out = Vec::new();
    for (b, h, renamed) in pairs {
        let old = b.map(|b| &base[b]);
        let new = h.map(|h| &head[h]);
        let rows = rows(old, new);
        if rows.is_empty() {
            continue;
        }
        let Some(named) = new.or(old) else { continue };
        out.push(KernelReview {
            file: named.file.clone(),
            name: named.name.clone(),
            renamed_from: old.filter(|_| renamed).map(|k| k.name.clone()),
            file_renamed_from: old
                .and_then(|k| base_file.get(&k.file))
                .filter(|path| **path != named.file)
                .cloned(),
            rows,
        });
    }
    out
}

fn access_texts(kernel: &Kernel) -> Vec<&str> {
    let mut texts: Vec<&str> = kernel.accesses.iter().map(|(t, _)| t.as_str()).collect();
    texts.sort_unstable();
    texts
}

/// Each finding keyed by lint, text and which occurrence of that pair it is.
fn keyed(kernel: Option<&Kernel>) -> Vec<((&'static str, String, usize), &Finding)> {
    let mut seen: HashMap<(&'static str, &str), usize> = HashMap::new();
    let mut out = Vec::new();
    for finding in kernel.map(|k| k.findings.as_slice()).unwrap_or_default() {
        let n = seen.entry((finding.code, finding.text.as_str())).or_default();
        out.push(((finding.code, finding.text.clone(), *n), finding));
        *n += 1;
    }
    out
}

/// The prediction of the access with this text in a kernel, when it has one.
fn access<'k>(kernel: Option<&'k Kernel>, text: &str) -> Option<&'k (String, Option<Prediction>)> {
    kernel?.accesses.iter().find(|(t, _)| t == text)
}

fn rows(old: Option<&Kernel>, new: Option<&Kernel>) -> Vec<Row> {
    let before = keyed(old);
    let after = keyed(new);
    let mut rows = Vec::new();
    for (key, finding) in &after {
        let matched = before.iter().find(|(k, _)| k == key).map(|(_, f)| *f);
        let state = match matched {
            None => State::Introduced,
            Some(was) if sectors(&was.prediction) != sectors(&finding.prediction) => State::Changed,
            Some(was) if wavefronts(&was.banks) != wavefronts(&finding.banks) => State::Changed,
            Some(_) => State::Unchanged,
        };
        let base_access = access(old, finding.access.as_deref().unwrap_or(&finding.text));
        rows.push(Row {
            state,
            finding: (*finding).clone(),
            before: matched
                .and_then(|f| f.prediction.clone())
                .or_else(|| base_access.and_then(|(_, p)| p.clone())),
            after_exists: true,
            after: finding.prediction.clone(),
            banks: finding.banks.clone(),
        });
    }
    for (key, finding) in &before {
        if after.iter().any(|(k, _)| k == key) {
            continue;
        }
        let head_access = access(new, finding.access.as_deref().unwrap_or(&finding.text));
        rows.push(Row {
            state: State::Fixed,
            finding: (*finding).clone(),
            before: finding.prediction.clone(),
            after_exists: head_access.is_some(),
            after: head_access.and_then(|(_, p)| p.clone()),
            banks: finding.banks.clone(),
        });
    }
    rows.sort_by_key(|r| (r.state, r.finding.line));
    rows
}

fn wavefronts(banks: &Option<BankPrediction>) -> Option<u64> {
    Some((banks.as_ref()?.wavefronts_per_request? * 100.0).round() as u64)
}

fn sectors(prediction: &Option<Prediction>) -> Option<(u64, u64)> {
    let p = prediction.as_ref()?;
    Some((
        (p.sectors_per_request? * 100.0).round() as u64,
        (p.ideal_sectors_per_request? * 100.0).round() as u64,
    ))
}

/// How many findings of each state, and the introduced ones by lint.
#[derive(Debug, Default, Clone)]
pub struct Counts {
    /// Introduced findings by lint name, in order of first appearance.
    pub introduced: Vec<(&'static str, usize)>,
    /// Changed findings.
    pub changed: usize,
    /// Fixed findings.
    pub fixed: usize,
    /// Unchanged findings.
    pub unchanged: usize,
    /// Introduced findings at warn or deny level.
    pub failing: usize,
}

/// Counts the rows of a review.
pub fn counts(kernels: &[KernelReview]) -> Counts {
    let mut counts = Counts::default();
    for row in kernels.iter().flat_map(|k| &k.rows) {
        match row.state {
            State::Introduced => {
                match counts.introduced.iter_mut().find(|(name, _)| *name == row.finding.name) {
                    Some((_, n)) => *n += 1,
                    None => counts.introduced.push((row.finding.name, 1)),
                }
                if row.finding.level >= Level::Warn {
                    counts.failing += 1;
                }
            }
            State::Changed => counts.changed += 1,
            State::Fixed => counts.fixed += 1,
            State::Unchanged => counts.unchanged += 1,
        }
    }
    counts
}

/// "1 new array-of-structs access, 2 fixed, 3 unchanged".
pub fn summary(counts: &Counts) -> String {
    let mut parts: Vec<String> = counts
        .introduced
        .iter()
        .map(|(name, n)| {
            let (what, plural) = match name.strip_suffix("-access") {
                Some(kind) => (format!("{kind} access"), format!("{kind} accesses")),
                None => (format!("{name} finding"), format!("{name} findings")),
            };
            format!("{n} new {}", if *n == 1 { what } else { plural })
        })
        .collect();
    if counts.introduced.is_empty() {
        parts.push("nothing new".to_string());
    }
    for (n, word) in [
        (counts.fixed, "fixed"),
        (counts.changed, "changed"),
        (counts.unchanged, "unchanged"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {word}"));
        }
    }
    parts.join(", ")
}

/// "12.5 %", or what stands in for a figure the side has not got.
pub fn efficiency(prediction: Option<&Prediction>) -> String {
    match prediction.and_then(|p| p.efficiency) {
        Some(e) => percent(e),
        None => "unknown".to_string(),
    }
}

/// A fraction as a percentage with at most one decimal.
pub fn percent(fraction: f64) -> String {
    let value = (fraction * 1000.0).round() / 10.0;
    if value.fract() == 0.0 {
        format!("{value:.0} %")
    } else {
        format!("{value:.1} %")
    }
}

/// A sector count with at most two decimals.
pub fn figure(value: f64) -> String {
    let text = format!("{value:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// "before -> after" efficiency of a row.
pub fn before_after(row: &Row) -> String {
    // A shared access: the bank efficiency of the side shown.
    if let Some(e) = row.banks.as_ref().and_then(BankPrediction::efficiency) {
        return match row.state {
            State::Fixed => format!("{} -> fixed", percent(e)),
            State::Introduced => format!("new -> {}", percent(e)),
            _ => format!("-> {}", percent(e)),
        };
    }
    let before = match (&row.before, row.state) {
        (None, State::Introduced) => "new".to_string(),
        (before, _) => efficiency(before.as_ref()),
    };
    let after = if row.after_exists {
        efficiency(row.after.as_ref())
    } else {
        "removed".to_string()
    };
    format!("{before} -> {after}")
}

/// "8 (ideal 2)" sectors per request of the row's side; "32 wavefronts (ideal 1)" for a
/// shared-memory access.
pub fn sectors_text(row: &Row) -> String {
    if let Some(b) = &row.banks {
        return match (b.wavefronts_per_request, b.ideal_wavefronts_per_request) {
            (Some(w), Some(ideal)) => format!("{} wavefronts (ideal {})", figure(w), figure(ideal)),
            _ => "unknown".to_string(),
        };
    }
    let prediction = match row.state {
        State::Fixed => row.before.as_ref(),
        _ => row.after.as_ref(),
    };
    match prediction.and_then(|p| Some((p.sectors_per_request?, p.ideal_sectors_per_request?))) {
        Some((s, ideal)) => format!("{} (ideal {})", figure(s), figure(ideal)),
        None => "unknown".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_names_the_new_kinds() {
        let counts = Counts {
            introduced: vec![("array-of-structs-access", 1), ("data-dependent-gather", 2)],
            fixed: 2,
            ..Counts::default()
        };
        assert_eq!(
            summary(&counts),
            "1 new array-of-structs access, 2 new data-dependent-gather findings, 2 fixed"
        );
        assert_eq!(summary(&Counts::default()), "nothing new");
        assert_eq!(percent(0.125), "12.5 %");
        assert_eq!(percent(1.0), "100 %");
        assert_eq!(figure(8.0), "8");
        assert_eq!(figure(4.5), "4.5");
    }
}
