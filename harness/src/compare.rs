//! Predictions against measurements: per access, predicted and measured sectors per request,
//! how well they agree, and the confusion matrix of verdicts.

use crate::manifest::Manifest;
use crate::reduce::MeasuredRow;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// How a prediction and a measurement agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agreement {
    /// Equal to two decimals.
    Exact,
    /// Within 10 % of the measurement.
    Within10,
    /// Further off.
    Wrong,
    /// Predicted, but the hardware executed no such instruction on that line.
    NotMeasured,
    /// Measured, but no access was predicted on that line.
    NotPredicted,
    /// Measured; the analysis reports the figure as unknowable (a data-dependent gather).
    Unknowable,
    /// Below a figure predicted as an upper bound (lanes masked by data).
    UnderBound,
}

impl Agreement {
    /// The word used in tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Agreement::Exact => "exact",
            Agreement::Within10 => "within 10%",
            Agreement::Wrong => "wrong",
            Agreement::NotMeasured => "not measured",
            Agreement::NotPredicted => "not predicted",
            Agreement::Unknowable => "data-dependent",
            Agreement::UnderBound => "under its bound",
        }
    }
}

/// One (launch, line, op) compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparedLine {
    /// Launch index.
    pub launch: usize,
    /// Kernel.
    pub kernel: String,
    /// File.
    pub file: String,
    /// Line.
    pub line: usize,
    /// `load` or `store`.
    pub op: String,
    /// The predicted class (`mixed` when accesses on the line differ).
    pub class: Option<String>,
    /// Predicted sectors per request (mean over the line's accesses).
    pub predicted: Option<f64>,
    /// Measured sectors per request.
    pub measured: Option<f64>,
    /// Measured ideal.
    pub measured_ideal: Option<f64>,
    /// The line the compiler attributed the measured instructions to, when not the predicted
    /// one.
    pub measured_line: Option<usize>,
    /// Verdict.
    pub agreement: Agreement,
}

/// The whole comparison.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Comparison {
    /// Every line, in launch and line order.
    pub lines: Vec<ComparedLine>,
}

impl Comparison {
    /// How many lines have each agreement.
    pub fn counts(&self) -> BTreeMap<Agreement, usize> {
        let mut counts = BTreeMap::new();
        for l in &self.lines {
            *counts.entry(l.agreement).or_insert(0) += 1;
        }
        counts
    }

    /// Lines both predicted and measured.
    pub fn scored(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| {
                matches!(
                    l.agreement,
                    Agreement::Exact | Agreement::Within10 | Agreement::Wrong | Agreement::UnderBound
                )
            })
            .count()
    }

    /// Exact lines over scored lines.
    pub fn exact_fraction(&self) -> f64 {
        let exact = self.lines.iter().filter(|l| l.agreement == Agreement::Exact).count();
        exact as f64 / self.scored().max(1) as f64
    }

    /// Predicted class against the measured verdict (`efficient` when the measured sectors
    /// equal the measured ideal, `wasteful` otherwise).
    pub fn confusion(&self) -> BTreeMap<(String, &'static str), usize> {
        let mut matrix = BTreeMap::new();
        for l in &self.lines {
            let (Some(class), Some(measured), Some(ideal)) = (&l.class, l.measured, l.measured_ideal) else {
                continue;
            };
            let verdict = if measured <= ideal + 0.01 {
                "efficient"
            } else {
                "wasteful"
            };
            *matrix.entry((class.clone(), verdict)).or_insert(0) += 1;
        }
        matrix
    }

    /// A table for people: one row per line, then the totals and the confusion matrix.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:>6}  {:<28} {:>5}  {:<5}  {:<10}  {:>9}  {:>8}  agreement",
            "launch", "kernel", "line", "op", "class", "predicted", "measured"
        );
        let figure = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
        for l in &self.lines {
            let _ = writeln!(
                out,
                "{:>6}  {:<28} {:>5}  {:<5}  {:<10}  {:>9}  {:>8}  {}",
                l.launch,
                l.kernel,
                l.line,
                l.op,
                l.class.as_deref().unwrap_or("-"),
                figure(l.predicted),
                figure(l.measured),
                match l.measured_line {
                    Some(line) => format!("{} (measured on line {line})", l.agreement.as_str()),
                    None => l.agreement.as_str().to_string(),
                }
            );
        }
        let counts = self.counts();
        let count = |a| counts.get(&a).copied().unwrap_or(0);
        let _ = writeln!(
            out,
            "\n{} of {} measured accesses exact, {} within 10%, {} wrong{}; {} data-dependent (not predicted by design); {} predicted but not measured, {} measured but not predicted",
            count(Agreement::Exact),
            self.scored(),
            count(Agreement::Within10),
            count(Agreement::Wrong),
            match count(Agreement::UnderBound) {
                0 => String::new(),
                n => format!(", {n} under their upper bound"),
            },
            count(Agreement::Unknowable),
            count(Agreement::NotMeasured),
            count(Agreement::NotPredicted)
        );
        let _ = writeln!(out, "\npredicted class vs measured verdict:");
        let _ = writeln!(out, "  {:<12} {:>9} {:>9}", "class", "efficient", "wasteful");
        let matrix = self.confusion();
        let mut classes: Vec<&String> = matrix.keys().map(|(c, _)| c).collect();
        classes.dedup();
        for class in classes {
            let cell = |v| matrix.get(&(class.clone(), v)).copied().unwrap_or(0);
            let _ = writeln!(out, "  {:<12} {:>9} {:>9}", class, cell("efficient"), cell("wasteful"));
        }
        out
    }
}

/// One access's predicted sectors per request and class.
/// Sectors per request, class and whether the figure is an upper bound.
type LinePrediction = (Option<f64>, Option<String>, bool);

/// Joins the manifest's predictions with measured rows on (launch, file, line, op), global
/// memory only.
pub fn compare(manifest: &Manifest, measured: &[MeasuredRow]) -> Comparison {
    let mut lines = Vec::new();
    for launch in &manifest.launches {
        let mut predicted: BTreeMap<(usize, String), Vec<LinePrediction>> = BTreeMap::new();
        let mut widths: BTreeMap<(usize, String), Vec<u64>> = BTreeMap::new();
        for access in launch.accesses.iter().filter(|a| a.space == "global") {
            let key = (access.line, access.op.clone());
            predicted.entry(key.clone()).or_default().push((
                access.sectors_per_request,
                access.class.clone(),
                access.upper_bound,
            ));
            widths.entry(key).or_default().push(access.elem_bytes);
        }
        let rows = rows_of_launch(measured, launch.index, &launch.file);
        let moved = moved_lines(&predicted, &widths, &rows);
        let mut keys: Vec<(usize, String)> = predicted.keys().cloned().collect();
        for m in &rows {
            let key = (m.line, m.op.clone());
            if !keys.contains(&key) && !moved.values().any(|r| r.line == m.line && r.op == m.op) {
                keys.push(key);
            }
        }
        keys.sort();
        for key in keys {
            let row = rows
                .iter()
                .find(|m| m.line == key.0 && m.op == key.1)
                .or_else(|| moved.get(&key));
            let entries = predicted.get(&key);
            let bound = entries.is_some_and(|e| e.iter().any(|(_, _, b)| *b));
            let prediction = entries.and_then(|e| {
                let values: Option<Vec<f64>> = e.iter().map(|(s, _, _)| *s).collect();
                values.map(|v| (v.iter().sum::<f64>() / v.len() as f64 * 100.0).round() / 100.0)
            });
            let class = entries.map(|e| {
                let first = e[0].1.clone().unwrap_or_default();
                if e.iter().all(|(_, c, _)| c.as_deref() == Some(first.as_str())) {
                    first
                } else {
                    "mixed".to_string()
                }
            });
            let measured_value = row.map(|m| m.sectors_per_request());
            let agreement = match (entries, prediction, measured_value) {
                (None, _, _) => Agreement::NotPredicted,
                (Some(_), _, None) => Agreement::NotMeasured,
                (Some(_), None, Some(_)) => Agreement::Unknowable,
                (Some(_), Some(p), Some(m)) if (p * 100.0).round() == (m * 100.0).round() => Agreement::Exact,
                (Some(_), Some(p), Some(m)) if bound && m < p => Agreement::UnderBound,
                (Some(_), Some(p), Some(m)) if (p - m).abs() <= 0.1 * m => Agreement::Within10,
                _ => Agreement::Wrong,
            };
            lines.push(ComparedLine {
                launch: launch.index,
                kernel: launch.kernel.clone(),
                file: launch.file.clone(),
                line: key.0,
                op: key.1,
                class,
                predicted: prediction,
                measured: measured_value,
                measured_ideal: row.map(|m| m.ideal_sectors_per_request()),
                measured_line: row.map(|m| m.line).filter(|&l| l != key.0),
                agreement,
            });
        }
    }
    Comparison { lines }
}

/// Accesses the compiler attributed to another line. An optimizing compiler may give a store
/// the line of the statement that computed its address or value (a reference taken before a
/// loop whose result is folded). When, for one operation, exactly one predicted line has no
/// measured instructions and exactly one measured line has no prediction, with the same access
/// width, they are the same access.
fn moved_lines<'a>(
    predicted: &BTreeMap<(usize, String), Vec<LinePrediction>>,
    widths: &BTreeMap<(usize, String), Vec<u64>>,
    rows: &[&'a MeasuredRow],
) -> BTreeMap<(usize, String), &'a MeasuredRow> {
    let mut moved = BTreeMap::new();
    for op in ["load", "store", "atomic"] {
        let unmeasured: Vec<&(usize, String)> = predicted
            .keys()
            .filter(|(line, o)| o == op && !rows.iter().any(|m| m.line == *line && m.op == op))
            .collect();
        let unpredicted: Vec<&&MeasuredRow> = rows
            .iter()
            .filter(|m| m.op == op && !predicted.contains_key(&(m.line, m.op.clone())))
            .collect();
        if let ([key], [row]) = (unmeasured.as_slice(), unpredicted.as_slice()) {
            if widths
                .get(*key)
                .is_some_and(|w| w.iter().all(|&b| b == row.access_bytes))
            {
                moved.insert((*key).clone(), **row);
            }
        }
    }
    moved
}

/// The measured global rows of one launch in its kernel's file. The profiler names a launch's
/// file by its base name when several compiled files share one (every `src/lib.rs` of a
/// workspace becomes the first of them), so when no row carries the kernel's path, the rows
/// whose file has the same base name are the launch's.
fn rows_of_launch<'a>(measured: &'a [MeasuredRow], launch: usize, file: &str) -> Vec<&'a MeasuredRow> {
    let of_launch = || {
        measured
            .iter()
            .filter(move |m| m.launch == launch && m.space == "global")
    };
    let by_path: Vec<&MeasuredRow> = of_launch().filter(|m| same_file(&m.file, file)).collect();
    if !by_path.is_empty() {
        return by_path;
    }
    of_launch().filter(|m| base_name(&m.file) == base_name(file)).collect()
}

fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Paths as the compiler recorded them may be relative or absolute.
fn same_file(measured: &str, given: &str) -> bool {
    let (a, b) = (measured.replace('\\', "/"), given.replace('\\', "/"));
    let b = b.trim_start_matches("./");
    a == b || a.ends_with(&format!("/{b}")) || b.ends_with(&format!("/{a}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(launch: usize, file: &str, line: usize) -> MeasuredRow {
        MeasuredRow {
            launch,
            kernel: "vec_add".into(),
            file: file.into(),
            line,
            space: "global".into(),
            op: "load".into(),
            access_bytes: 4,
            instructions: 1,
            requests: 10,
            sectors: 40,
            ideal_sectors: 40,
            wavefronts: 0,
            ideal_wavefronts: 0,
            source: String::new(),
        }
    }

    fn prediction(line: usize, op: &str) -> ((usize, String), Vec<LinePrediction>) {
        ((line, op.into()), vec![(Some(4.0), Some("coalesced".into()), false)])
    }

    #[test]
    fn one_unmatched_access_of_an_operation_on_each_side_is_the_same_access() {
        let mut store = row(0, "k.rs", 190);
        store.op = "store".into();
        let load = row(0, "k.rs", 120);
        let predicted: BTreeMap<_, _> = [prediction(197, "store"), prediction(122, "load")].into();
        let widths: BTreeMap<_, _> = predicted.keys().map(|k| (k.clone(), vec![4])).collect();
        let rows = [&store, &load];
        let moved = moved_lines(&predicted, &widths, &rows);
        let pairs: Vec<_> = moved
            .iter()
            .map(|((line, op), m)| (*line, op.as_str(), m.line))
            .collect();
        assert_eq!(pairs, [(122, "load", 120), (197, "store", 190)]);
        // Another width is another access.
        let wide: BTreeMap<_, _> = predicted.keys().map(|k| (k.clone(), vec![8])).collect();
        assert!(moved_lines(&predicted, &wide, &rows).is_empty());
        // Two candidates on one side: which is which cannot be told.
        let two: BTreeMap<_, _> = [prediction(197, "store"), prediction(198, "store")].into();
        let widths: BTreeMap<_, _> = two.keys().map(|k| (k.clone(), vec![4])).collect();
        assert!(moved_lines(&two, &widths, &[&store]).is_empty());
    }

    #[test]
    fn rows_are_found_by_path_first() {
        let measured = [
            row(0, "/w/vec_add/gpu_code/src/lib.rs", 21),
            row(0, "/w/vec_add/gpu_code/src/helpers.rs", 5),
            row(1, "/w/vec_add/gpu_code/src/lib.rs", 22),
        ];
        let rows = rows_of_launch(&measured, 0, "vec_add/gpu_code/src/lib.rs");
        assert_eq!(rows.iter().map(|r| r.line).collect::<Vec<_>>(), [21]);
    }

    #[test]
    fn a_file_named_by_a_namesake_is_matched_by_its_base_name() {
        // Two crates' `gpu_code/src/lib.rs` compiled together: the profiler names both by the
        // first.
        let measured = [
            row(4, "/w/iterated_random_access/gpu_code/src/lib.rs", 21),
            row(4, "/w/iterated_random_access/gpu_code/src/main.rs", 3),
            row(5, "/w/iterated_random_access/gpu_code/src/lib.rs", 22),
        ];
        let rows = rows_of_launch(&measured, 4, "vec_add/gpu_code/src/lib.rs");
        assert_eq!(rows.iter().map(|r| r.line).collect::<Vec<_>>(), [21]);
        assert!(rows_of_launch(&measured, 4, "vec_add/gpu_code/src/kernels.rs").is_empty());
    }
}
