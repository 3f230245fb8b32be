//! Pair benchmarks: a kernel and its better version (or an original and its rewrite), each
//! launched on bandwidth-bound data, timed with CUDA events and profiled with Nsight Compute,
//! next to the speedup the analyzer predicts from the L2 sectors each side moves.

use crate::driver::{launcher, LaunchMode, LoweredSet, PlannedLaunch};
use crate::manifest::LaunchRecord;
use kernel_lint_analyzer::SourceFile;
use kernel_lint_analyzer::{BlockSource, ResolvedLaunch};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Warm-up launches before timing.
pub const WARMUPS: u32 = 3;
/// Timed launches; the median is reported.
pub const RUNS: u32 = 25;

/// The pairs file: `[[pair]]` entries.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairsFile {
    /// The pairs, in order.
    pub pair: Vec<PairSpec>,
}

/// One pair.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairSpec {
    /// What the pair shows.
    pub name: String,
    /// The speedup a published source reports, for comparison.
    pub published: Option<f64>,
    /// Where the published figure comes from.
    pub published_source: Option<String>,
    /// The original kernel.
    pub before: SideSpec,
    /// The better version.
    pub after: SideSpec,
}

/// One side of a pair: a kernel and its launch.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SideSpec {
    /// Kernel function name.
    pub kernel: String,
    /// File path, as given on the command line (or a suffix of it).
    pub file: String,
    /// Block extents.
    pub block: [u32; 3],
    /// Grid extents.
    pub grid: [u32; 3],
    /// Scalar parameter values.
    #[serde(default)]
    pub params: BTreeMap<String, i64>,
    /// Which of kernel-lint's own rewrites of `kernel` this side is: 1 for the first rewrite
    /// offered for each finding of the kernel, 2 for its alternative (where a finding has one),
    /// and so on. The side is then `kernel` in the rewritten text of `file`.
    #[serde(default)]
    pub rewrite: Option<usize>,
}

/// The printed path under which the text of `file` with `kernel` rewritten is lowered: a file
/// of its own, so that the original and its rewrite are two namespaces, as two files would be.
pub fn rewritten_path(file: &str, kernel: &str, rewrite: usize) -> String {
    let stem = file.strip_suffix(".rs").unwrap_or(file);
    format!("{stem}.{kernel}.rewrite{rewrite}.rs")
}

/// What `harness bench` writes besides the program: the planned launches of every side.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchManifest {
    /// `kernel-lint/bench-manifest/v1`.
    pub schema: String,
    /// Pairs in order.
    pub pairs: Vec<BenchPair>,
}

/// A planned pair.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BenchPair {
    /// Name.
    pub name: String,
    /// Published speedup.
    pub published: Option<f64>,
    /// Its source.
    pub published_source: Option<String>,
    /// The original's launch and predictions.
    pub before: LaunchRecord,
    /// The better version's.
    pub after: LaunchRecord,
}

/// The generated benchmark program and its manifest.
pub struct BenchPlan {
    /// CUDA C++ source.
    pub program: String,
    /// Planned pairs.
    pub manifest: BenchManifest,
    /// Problems: files that did not parse, kernels not found or not lowered.
    pub problems: Vec<String>,
}

/// Parses a pairs file.
pub fn parse_pairs(text: &str) -> Result<PairsFile, String> {
    toml::from_str(text).map_err(|e| e.to_string())
}

/// Lowers both sides of every pair and writes one program that times them all.
pub fn plan(files: &[SourceFile], pairs: &PairsFile) -> BenchPlan {
    let set = LoweredSet::new(files, &Default::default());
    let mut problems: Vec<String> = set.errors.iter().map(|e| e.to_string()).collect();
    for n in &set.not_lowered {
        problems.push(format!(
            "{}:{}:{}: kernel `{}` not lowered: {}",
            n.file, n.line, n.column, n.kernel, n.reason
        ));
    }
    let mut program = set.code.clone();
    let mut calls = Vec::new();
    let mut planned_pairs = Vec::new();
    let mut index = 0;
    for (p, pair) in pairs.pair.iter().enumerate() {
        let mut sides = Vec::new();
        for (label, side) in [("before", &pair.before), ("after", &pair.after)] {
            let wanted = match side.rewrite {
                Some(n) => rewritten_path(&side.file, &side.kernel, n),
                None => side.file.clone(),
            };
            let file = files
                .iter()
                .map(|f| f.path.as_str())
                .find(|path| path.replace('\\', "/").ends_with(&wanted));
            let launch = ResolvedLaunch {
                block: side.block,
                grid: Some(side.grid),
                block_source: BlockSource::Config,
                params: side.params.clone(),
                float_params: BTreeMap::new(),
                unknown_block: [false; 3],
            };
            match file.and_then(|path| set.plan(path, &side.kernel, launch, index)) {
                Some(PlannedLaunch {
                    oversized: Some(reason),
                    ..
                }) => problems.push(format!(
                    "pair `{}`: kernel `{}` in `{}` cannot be launched: {reason}",
                    pair.name, side.kernel, side.file
                )),
                Some(planned) => {
                    let mode = LaunchMode::Timed {
                        label: format!("{p},{label},{}", side.kernel),
                        warmups: WARMUPS,
                        runs: RUNS,
                    };
                    program.push_str(&launcher(&planned, &mode));
                    calls.push(format!("{}::kl_bench_{index}", planned.namespace));
                    sides.push(planned.record);
                    index += 1;
                }
                None => problems.push(format!(
                    "pair `{}`: kernel `{}` in `{}` was not found or not lowered",
                    pair.name, side.kernel, side.file
                )),
            }
        }
        // A pair with a side missing is skipped (reported above).
        if let Ok([before, after]) = <[LaunchRecord; 2]>::try_from(sides) {
            planned_pairs.push(BenchPair {
                name: pair.name.clone(),
                published: pair.published,
                published_source: pair.published_source.clone(),
                before,
                after,
            });
        }
    }
    program.push_str("int main() {\n  printf(\"timing,pair,side,kernel,median_ms,min_ms,runs\\n\");\n");
    for call in calls {
        let _ = writeln!(program, "  {call}();");
    }
    program.push_str("  return 0;\n}\n");
    BenchPlan {
        program,
        manifest: BenchManifest {
            schema: "kernel-lint/bench-manifest/v1".to_string(),
            pairs: planned_pairs,
        },
        problems,
    }
}

/// One timed side: `timing,<pair>,<side>,<kernel>,<median ms>,<min ms>,<runs>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Pair index.
    pub pair: usize,
    /// `before` or `after`.
    pub side: String,
    /// Median of the timed runs, milliseconds.
    pub median_ms: f64,
    /// Fastest run.
    pub min_ms: f64,
    /// Number of timed runs.
    pub runs: usize,
}

/// Reads the `timing,` lines a benchmark program printed.
pub fn parse_timings(output: &str) -> Vec<Timing> {
    output
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.strip_prefix("timing,")?.split(',').collect();
            Some(Timing {
                pair: cells.first()?.parse().ok()?,
                side: cells.get(1)?.to_string(),
                median_ms: cells.get(3)?.parse().ok()?,
                min_ms: cells.get(4)?.parse().ok()?,
                runs: cells.get(5)?.parse().ok()?,
            })
        })
        .collect()
}

/// Per-launch metrics from `ncu --csv --metrics ...` (one launch per side, in program order):
/// metric name to value, by launch.
pub fn parse_metrics(export: &str) -> Result<Vec<BTreeMap<String, f64>>, String> {
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(export.as_bytes());
    let headers = reader.headers().map_err(|e| e.to_string())?.clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    let (id, metric, value) = (column("ID"), column("Metric Name"), column("Metric Value"));
    let (Some(id), Some(metric), Some(value)) = (id, metric, value) else {
        return Err("not an ncu --csv metrics export (no ID, Metric Name, Metric Value columns)".to_string());
    };
    let mut launches: BTreeMap<usize, BTreeMap<String, f64>> = BTreeMap::new();
    for record in reader.records() {
        let record = record.map_err(|e| e.to_string())?;
        let (Some(i), Some(m), Some(v)) = (record.get(id), record.get(metric), record.get(value)) else {
            continue;
        };
        let Ok(i) = i.trim().parse::<usize>() else { continue };
        let v: f64 = v.replace(',', "").trim().parse().unwrap_or(0.0);
        launches.entry(i).or_default().insert(m.to_string(), v);
    }
    Ok(launches.into_values().collect())
}

/// Metrics read for each side.
pub const METRICS: &[&str] = &[
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
];

/// The Markdown table of measured against predicted speedups.
pub fn table(manifest: &BenchManifest, timings: &[Timing], metrics: &[BTreeMap<String, f64>]) -> String {
    let mut out = String::new();
    out.push_str("| pair | before | after | time before (ms) | time after (ms) | measured speedup | predicted speedup (L2 sectors) | measured L2 sector ratio | predicted DRAM bytes ratio | measured DRAM bytes ratio | published |\n");
    out.push_str("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    let sectors = |m: &BTreeMap<String, f64>| {
        m.get(METRICS[0]).copied().unwrap_or(0.0) + m.get(METRICS[1]).copied().unwrap_or(0.0)
    };
    let dram = |m: &BTreeMap<String, f64>| {
        m.get(METRICS[4]).copied().unwrap_or(0.0) + m.get(METRICS[5]).copied().unwrap_or(0.0)
    };
    for (i, pair) in manifest.pairs.iter().enumerate() {
        let time = |side: &str| {
            timings
                .iter()
                .find(|t| t.pair == i && t.side == side)
                .map(|t| t.median_ms)
        };
        let (before, after) = (time("before"), time("after"));
        let measured = before.zip(after).map(|(b, a)| b / a);
        let predicted = pair
            .before
            .predicted_sectors
            .zip(pair.after.predicted_sectors)
            .map(|(b, a)| b / a);
        let predicted_dram = pair
            .before
            .predicted_dram_bytes
            .zip(pair.after.predicted_dram_bytes)
            .map(|(b, a)| b / a);
        let (mb, ma) = (metrics.get(2 * i), metrics.get(2 * i + 1));
        let sector_ratio = mb.zip(ma).map(|(b, a)| sectors(b) / sectors(a).max(1.0));
        let dram_ratio = mb.zip(ma).map(|(b, a)| dram(b) / dram(a).max(1.0));
        let x = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}x"));
        let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
        let _ = writeln!(
            out,
            "| {} | `{}` | `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
            pair.name,
            pair.before.kernel,
            pair.after.kernel,
            ms(before),
            ms(after),
            x(measured),
            x(predicted),
            x(sector_ratio),
            x(predicted_dram),
            x(dram_ratio),
            x(pair.published)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timings_are_read_from_program_output() {
        let out = "timing,pair,side,kernel,median_ms,min_ms,runs\ntiming,0,before,aos,1.500000,1.400000,25\nnoise\ntiming,0,after,soa,0.250000,0.240000,25\n";
        let t = parse_timings(out);
        assert_eq!(t.len(), 2);
        assert_eq!(
            (t[0].pair, t[0].side.as_str(), t[0].median_ms, t[0].runs),
            (0, "before", 1.5, 25)
        );
        assert_eq!(t[1].min_ms, 0.24);
    }

    #[test]
    fn metrics_are_grouped_by_launch() {
        let export = "\"ID\",\"Process ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n\
                      \"0\",\"1\",\"k\",\"dram__bytes_read.sum\",\"byte\",\"1,024\"\n\
                      \"0\",\"1\",\"k\",\"dram__bytes_write.sum\",\"byte\",\"512\"\n\
                      \"1\",\"1\",\"k\",\"dram__bytes_read.sum\",\"byte\",\"256\"\n";
        let m = parse_metrics(export).unwrap();
        assert_eq!(m.len(), 2);
        assert_eq!(m[0]["dram__bytes_read.sum"], 1024.0);
        assert_eq!(m[1]["dram__bytes_read.sum"], 256.0);
    }
}
