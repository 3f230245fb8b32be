//! Accuracy on a labelled set of public kernels: the labels (`evaluation/unseen/*.toml`) give
//! every global access of each chosen kernel its expected class and sectors per request,
//! written before the tool was run on that code; this compares them with what `accesses
//! --format json` reports on checkouts of the same commits, and counts right / total per
//! dialect.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One dialect's labels.
#[derive(Debug, Deserialize)]
pub struct Labels {
    pub dialect: String,
    pub rule: String,
    #[serde(default)]
    pub repo: Vec<Repo>,
}

/// A repository at one commit.
#[derive(Debug, Deserialize)]
pub struct Repo {
    pub name: String,
    pub commit: String,
    #[serde(default)]
    pub kernel: Vec<LabelledKernel>,
}

/// A kernel and the block size it is launched with.
#[derive(Debug, Deserialize)]
pub struct LabelledKernel {
    pub file: String,
    pub name: String,
    #[serde(default)]
    pub block: Option<[u32; 3]>,
    #[serde(default)]
    pub access: Vec<LabelledAccess>,
}

/// What one global access is expected to be.
#[derive(Debug, Deserialize)]
pub struct LabelledAccess {
    /// The file the access is written in when it is a helper's in another file than the
    /// kernel's.
    #[serde(default)]
    pub access_file: Option<String>,
    pub line: u32,
    #[serde(default)]
    pub column: Option<u32>,
    pub op: String,
    pub access: String,
    pub class: String,
    /// A count, or `"depends"` (a figure per value of a runtime parameter) or `"unknown"`.
    pub sectors: toml::Value,
}

/// How one labelled access compared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Right,
    /// Reported, with another class or count: what was reported.
    Wrong(String),
    /// No access reported at that place.
    Missed,
}

/// Right, total and false broadcasts of one dialect.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    pub right: usize,
    pub total: usize,
    pub false_broadcasts: usize,
}

/// Reads every `*.toml` of a folder of labels.
pub fn read_labels(folder: &Path) -> Result<Vec<Labels>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|e| format!("cannot read {}: {e}", folder.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect()
}

/// Compares one labelled access with the accesses the tool reported for its kernel.
pub fn compare(label: &LabelledAccess, reported: &[Value]) -> Verdict {
    let global = |a: &&Value| a["op"] == label.op.as_str() && a["space"] == "global";
    let mut at_line: Vec<&Value> = reported
        .iter()
        .filter(global)
        .filter(|a| a["line"].as_u64() == Some(u64::from(label.line)))
        .filter(|a| match (&label.access_file, a["access_file"].as_str()) {
            (Some(want), Some(got)) => got.ends_with(want.as_str()),
            (None, None) => true,
            _ => false,
        })
        .collect();
    // An access made inside a helper, labelled where the helper is called.
    if at_line.is_empty() {
        let called_here = |call: &Value| {
            call["line"].as_u64() == Some(u64::from(label.line))
                && label
                    .column
                    .is_none_or(|c| call["column"].as_u64() == Some(u64::from(c)))
                && label
                    .access_file
                    .as_ref()
                    .is_none_or(|f| call["file"].as_str().is_some_and(|g| g.ends_with(f.as_str())))
        };
        at_line = reported
            .iter()
            .filter(global)
            .filter(|a| a["via"].as_array().is_some_and(|v| v.iter().any(called_here)))
            .collect();
    }
    // Several accesses may start at one column (a pointer read from a struct, then the
    // element it indexes): the one whose span is the labelled expression's text comes first.
    let spans_label = |a: &Value| {
        let one_line = a["end_line"].as_u64() == a["line"].as_u64();
        let length = a["end_column"]
            .as_u64()
            .zip(a["column"].as_u64())
            .map(|(e, c)| e.saturating_sub(c));
        one_line && length == Some(label.access.chars().count() as u64)
    };
    let chosen = match label.column {
        Some(column) => {
            let at_column: Vec<&Value> = at_line
                .iter()
                .copied()
                .filter(|a| a["column"].as_u64() == Some(u64::from(column)))
                .collect();
            at_column
                .iter()
                .copied()
                .find(|a| spans_label(a))
                .or(at_column.first().copied())
        }
        None => None,
    }
    .or_else(|| {
        at_line
            .iter()
            .find(|a| label.access.starts_with(a["array"].as_str().unwrap_or("\u{0}")))
            .copied()
    })
    .or_else(|| at_line.first().copied());
    let Some(access) = chosen else {
        return Verdict::Missed;
    };
    let class = access["class"].as_str().unwrap_or("?");
    let sectors = access["sectors_per_request"].as_f64();
    let cases = access["cases"].as_array().map_or(0, Vec::len);
    let sectors_right = match &label.sectors {
        toml::Value::Integer(n) => sectors.is_some_and(|s| (s - *n as f64).abs() < 0.01),
        toml::Value::Float(n) => sectors.is_some_and(|s| (s - n).abs() < 0.01),
        toml::Value::String(s) if s == "depends" => sectors.is_none() && cases > 0,
        toml::Value::String(_) => sectors.is_none(),
        _ => false,
    };
    // A figure that depends on a value has a verdict per case: the label's verdict is right
    // when it is the access's or one of its cases'.
    let depends = matches!(&label.sectors, toml::Value::String(s) if s == "depends");
    let case_class = depends
        && access["cases"]
            .as_array()
            .is_some_and(|cases| cases.iter().any(|c| c["class"] == label.class.as_str()));
    if (class == label.class || case_class) && sectors_right {
        Verdict::Right
    } else {
        let figure = sectors.map_or_else(|| format!("{cases} cases"), |s| format!("{s}"));
        Verdict::Wrong(format!("{class} {figure}"))
    }
}

/// Runs the tool on each labelled repository's checkout (`checkouts/OWNER+REPO`) and returns
/// the tally per dialect and one line per access that was not right.
pub fn measure(labels: &[Labels], checkouts: &Path, tool: &Path) -> (BTreeMap<String, Tally>, String) {
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    let mut misses = String::new();
    // The tool runs in each checkout: a path relative to here must not be read from there.
    let tool = std::fs::canonicalize(tool).unwrap_or_else(|_| tool.to_path_buf());
    let tool = tool.as_path();
    for set in labels {
        let tally = tallies.entry(set.dialect.clone()).or_default();
        for repo in &set.repo {
            let root = checkouts.join(repo.name.replace('/', "+"));
            let mut files: Vec<&str> = repo.kernel.iter().map(|k| k.file.as_str()).collect();
            files.sort_unstable();
            files.dedup();
            let report = run(tool, &root, &files);
            for kernel in &repo.kernel {
                let instances: Vec<&Value> = report
                    .iter()
                    .filter(|k| {
                        k["name"] == kernel.name.as_str()
                            && k["file"].as_str().is_some_and(|f| f.ends_with(&kernel.file))
                    })
                    .collect();
                // Kernels of one name in one file (a `macro_rules!` that writes a kernel per
                // call): the instance whose accesses lie where the labels are, then the one
                // launched with the labelled block.
                let placed = |k: &Value| {
                    let lines: Vec<u64> = k["accesses"]
                        .as_array()
                        .map(|a| a.iter().filter_map(|a| a["line"].as_u64()).collect())
                        .unwrap_or_default();
                    kernel
                        .access
                        .iter()
                        .filter(|l| lines.contains(&u64::from(l.line)))
                        .count()
                };
                let most = instances.iter().map(|k| placed(k)).max().unwrap_or(0);
                let instances: Vec<&Value> = instances.into_iter().filter(|k| placed(k) == most).collect();
                let instance = instances
                    .iter()
                    .find(|k| kernel.block.is_some_and(|b| k["block"] == serde_json::json!(b)))
                    .or(instances.first());
                let reported: &[Value] = instance
                    .and_then(|k| k["accesses"].as_array())
                    .map_or(&[], Vec::as_slice);
                for label in &kernel.access {
                    tally.total += 1;
                    let verdict = compare(label, reported);
                    if verdict == Verdict::Right {
                        tally.right += 1;
                        continue;
                    }
                    // Broadcast where the lanes touch different addresses: the one wrong
                    // answer that hides a cost.
                    let broadcast = matches!(&verdict, Verdict::Wrong(w) if w.starts_with("broadcast "));
                    if broadcast && label.class != "broadcast" {
                        tally.false_broadcasts += 1;
                    }
                    let got = match verdict {
                        Verdict::Wrong(w) => w,
                        _ => "not reported".to_string(),
                    };
                    let want = format!("{} {}", label.class, label.sectors);
                    let _ = writeln!(
                        misses,
                        "{} {}:{} {} `{}`: want {want}, got {got}",
                        repo.name, kernel.file, label.line, kernel.name, label.access
                    );
                }
            }
        }
    }
    (tallies, misses)
}

/// The kernels `accesses --format json` reports for some files of a checkout; none when it
/// could not run.
fn run(tool: &Path, root: &Path, files: &[&str]) -> Vec<Value> {
    let output = Command::new(tool)
        .arg("kernel-lint")
        .args(["accesses", "--format", "json", "--no-cache"])
        .args(files)
        .current_dir(root)
        .output();
    let Ok(output) = output else {
        return Vec::new();
    };
    serde_json::from_slice::<Value>(&output.stdout)
        .ok()
        .and_then(|v| v["kernels"].as_array().cloned())
        .unwrap_or_default()
}
