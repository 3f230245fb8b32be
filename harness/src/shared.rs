//! Shared-memory predictions against measurements: per source line, predicted wavefronts per
//! request against Nsight Compute's "L1 Wavefronts Shared" over the instructions executed;
//! per launch, the kernel-level metrics of the shared-memory pipeline.
//!
//! The kernel-level metrics add to what the addresses give: every kernel measured,
//! conflict-free ones too, shows a small excess of wavefronts (0.001 to 0.17 per request on an
//! H200 and an H100) that Nsight Compute counts as bank conflicts, from the L1 data banks that
//! global loads and stores occupy at the same time; the per-line source counters show none. A
//! prediction agrees when the measurement lies between it and [`EXCESS`] above.

use crate::manifest::Manifest;
use crate::reduce::MeasuredRow;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Wavefronts per request the hardware may add to what the addresses give.
pub const EXCESS: f64 = 0.2;

/// The kernel-level metrics of the shared-memory pipeline, read per launch.
pub const METRICS: &[&str] = &[
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
];

/// One (launch, line, op) of shared memory compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SharedLine {
    /// Launch index.
    pub launch: usize,
    /// Kernel.
    pub kernel: String,
    /// Line.
    pub line: usize,
    /// `load` or `store`.
    pub op: String,
    /// Predicted wavefronts per request (mean over the line's accesses).
    pub predicted: Option<f64>,
    /// Measured wavefronts per request.
    pub measured: Option<f64>,
    /// Whether the measurement lies within [`EXCESS`] above the prediction.
    pub agrees: bool,
}

/// Every shared line of every launch that has a prediction or a measurement.
pub fn compare_lines(manifest: &Manifest, measured: &[MeasuredRow]) -> Vec<SharedLine> {
    let mut lines = Vec::new();
    for launch in &manifest.launches {
        let mut predicted: BTreeMap<(usize, String), Vec<Option<f64>>> = BTreeMap::new();
        for a in launch.accesses.iter().filter(|a| a.space == "shared") {
            predicted
                .entry((a.line, a.op.clone()))
                .or_default()
                .push(a.wavefronts_per_request);
        }
        let rows: Vec<&MeasuredRow> = measured
            .iter()
            .filter(|m| m.launch == launch.index && m.space == "shared" && m.wavefronts > 0)
            .collect();
        let mut keys: Vec<(usize, String)> = predicted.keys().cloned().collect();
        keys.extend(rows.iter().map(|m| (m.line, m.op.clone())));
        keys.sort();
        keys.dedup();
        for key in keys {
            let prediction = predicted.get(&key).and_then(|values| {
                let known: Option<Vec<f64>> = values.iter().copied().collect();
                known.map(|v| v.iter().sum::<f64>() / v.len() as f64)
            });
            let measured = rows
                .iter()
                .find(|m| m.line == key.0 && m.op == key.1)
                .map(|m| m.wavefronts_per_request());
            lines.push(SharedLine {
                launch: launch.index,
                kernel: launch.kernel.clone(),
                line: key.0,
                op: key.1,
                predicted: prediction,
                measured,
                agrees: prediction.zip(measured).is_some_and(|(p, m)| within_excess(p, m)),
            });
        }
    }
    lines
}

/// Whether a measured figure lies between the prediction and [`EXCESS`] above it.
pub fn within_excess(predicted: f64, measured: f64) -> bool {
    let excess = measured - predicted;
    (-0.005..=EXCESS + 1e-9).contains(&excess)
}

/// A table for people, with the count of lines that agree.
pub fn render(lines: &[SharedLine]) -> String {
    let mut out = String::new();
    if lines.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\nshared memory, wavefronts per request:\n{:>6}  {:<28} {:>5}  {:<5}  {:>9}  {:>8}  agreement",
        "launch", "kernel", "line", "op", "predicted", "measured"
    );
    let figure = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
    for l in lines {
        let agreement = match (l.predicted, l.measured) {
            (Some(_), Some(_)) if l.agrees => "within the excess",
            (Some(_), Some(_)) => "wrong",
            (None, Some(_)) => "not predicted",
            (Some(_), None) => "not measured",
            (None, None) => "-",
        };
        let _ = writeln!(
            out,
            "{:>6}  {:<28} {:>5}  {:<5}  {:>9}  {:>8}  {agreement}",
            l.launch,
            l.kernel,
            l.line,
            l.op,
            figure(l.predicted),
            figure(l.measured)
        );
    }
    let scored = lines
        .iter()
        .filter(|l| l.predicted.is_some() && l.measured.is_some())
        .count();
    let agree = lines.iter().filter(|l| l.agrees).count();
    let _ = writeln!(
        out,
        "\n{agree} of {scored} measured shared lines within {EXCESS} wavefronts per request above the prediction"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_excess_is_one_sided() {
        assert!(within_excess(32.0, 32.129));
        assert!(within_excess(1.0, 1.0));
        assert!(within_excess(1.0, 1.17));
        assert!(!within_excess(1.0, 1.25));
        assert!(!within_excess(2.0, 1.0));
    }
}
