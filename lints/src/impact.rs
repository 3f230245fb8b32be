//! What a finding costs, for the thresholds that hide cheap ones and for the order that lists
//! the costly ones first.

use crate::Diagnostic;
use kernel_lint_analyzer::{AccessReport, KernelReport};
use serde::{Deserialize, Serialize};

/// The cost of an access finding, from its prediction and the launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Impact {
    /// Predicted efficiency, 0 to 1, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efficiency: Option<f64>,
    /// Sectors per request beyond the ideal, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wasted_sectors_per_request: Option<f64>,
    /// Loops around the access.
    pub loop_depth: u32,
    /// Requests all warps of one launch make, when the grid and the loops' trip counts are known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests_per_launch: Option<f64>,
    /// `requests_per_launch` times the wasted sectors per request, when both are known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wasted_sectors_per_launch: Option<f64>,
    /// Shared-memory wavefronts per request, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wavefronts_per_request: Option<f64>,
    /// The wavefronts a request needs without bank conflicts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ideal_wavefronts_per_request: Option<f64>,
    /// The most distinct words one phase of a request puts in one bank.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bank_degree: Option<u32>,
    /// Shared-memory wavefronts per request beyond the ideal, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wasted_wavefronts_per_request: Option<f64>,
    /// `requests_per_launch` times the wasted wavefronts per request, when both are known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wasted_wavefronts_per_launch: Option<f64>,
}

impl Impact {
    /// The cost of an access of a kernel.
    pub fn of(kernel: &KernelReport, access: &AccessReport) -> Impact {
        let prediction = access.prediction.as_ref();
        let wasted = prediction.and_then(|p| Some((p.sectors_per_request? - p.ideal_sectors_per_request?).max(0.0)));
        let warps = kernel.launch.grid.map(|grid| {
            let blocks: f64 = grid.iter().map(|&g| f64::from(g)).product();
            let threads: u32 = kernel.launch.block.iter().product();
            blocks * f64::from(threads.div_ceil(32))
        });
        let requests_per_launch = warps.zip(access.requests_per_warp).map(|(w, r)| w * r);
        let banks = access.banks.as_ref();
        let replays = banks.and_then(|b| Some((b.wavefronts_per_request? - b.ideal_wavefronts_per_request?).max(0.0)));
        Impact {
            efficiency: prediction
                .and_then(|p| p.efficiency)
                .or_else(|| banks.and_then(|b| b.efficiency())),
            wasted_sectors_per_request: wasted,
            loop_depth: access.loop_depth,
            requests_per_launch,
            wasted_sectors_per_launch: requests_per_launch.zip(wasted).map(|(r, w)| r * w),
            wavefronts_per_request: banks.and_then(|b| b.wavefronts_per_request),
            ideal_wavefronts_per_request: banks.and_then(|b| b.ideal_wavefronts_per_request),
            bank_degree: banks.and_then(|b| b.degree),
            wasted_wavefronts_per_request: replays,
            wasted_wavefronts_per_launch: requests_per_launch.zip(replays).map(|(r, w)| r * w),
        }
    }

    /// `about 1.2 M wasted sectors per launch` (or wavefronts, for shared memory), when the
    /// count is known and not zero.
    pub fn note(&self) -> Option<String> {
        if let Some(waste) = self.wasted_sectors_per_launch.filter(|&w| w > 0.0) {
            return Some(format!("about {} wasted sectors per launch", magnitude(waste)));
        }
        let replays = self.wasted_wavefronts_per_launch.filter(|&w| w > 0.0)?;
        Some(format!("about {} extra wavefronts per launch", magnitude(replays)))
    }
}

/// `950`, `12 k`, `1.2 M`, `3.4 G`: a count rounded for reading.
pub fn magnitude(value: f64) -> String {
    let (scaled, unit) = if value >= 1e9 {
        (value / 1e9, " G")
    } else if value >= 1e6 {
        (value / 1e6, " M")
    } else if value >= 1e3 {
        (value / 1e3, " k")
    } else {
        (value, "")
    };
    if scaled >= 100.0 || unit.is_empty() {
        format!("{}{unit}", scaled.round() as i64)
    } else {
        let text = format!("{scaled:.1}");
        format!("{}{unit}", text.strip_suffix(".0").unwrap_or(&text))
    }
}

/// Findings hidden for being cheap: each limit applies to findings whose figure is known.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Thresholds {
    /// Findings whose access runs at this efficiency or better are not reported (0 to 1).
    pub min_efficiency: Option<f64>,
    /// Findings that waste fewer sectors per request than this are not reported.
    pub min_wasted_sectors: Option<f64>,
}

impl Thresholds {
    /// Whether a finding is cheap enough to hide; one with no figure never is.
    pub fn hides(&self, diagnostic: &Diagnostic) -> bool {
        let Some(impact) = &diagnostic.impact else {
            return false;
        };
        let efficient = self
            .min_efficiency
            .zip(impact.efficiency)
            .is_some_and(|(min, e)| e >= min);
        let small = self
            .min_wasted_sectors
            .zip(impact.wasted_sectors_per_request)
            .is_some_and(|(min, w)| w < min);
        efficient || small
    }

    /// Drops the findings these thresholds hide.
    pub fn apply(&self, diagnostics: &mut Vec<Diagnostic>) {
        diagnostics.retain(|d| !self.hides(d));
    }
}

/// Orders one file's findings most costly first: by wasted sectors per launch where the count
/// is known, findings in loops (deeper first) before those outside when it is not, then by
/// waste per request; ties keep source order.
pub fn sort_by_impact(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| key(b).partial_cmp(&key(a)).unwrap_or(std::cmp::Ordering::Equal));
}

/// Larger is costlier: known waste per launch first, then loop depth, then waste per request.
fn key(diagnostic: &Diagnostic) -> (u8, f64, u32, f64) {
    let Some(impact) = &diagnostic.impact else {
        return (0, 0.0, 0, 0.0);
    };
    // A wavefront replayed and a sector wasted each cost one pass of the memory pipeline.
    let per_request = impact
        .wasted_sectors_per_request
        .or(impact.wasted_wavefronts_per_request)
        .unwrap_or(0.0);
    match impact.wasted_sectors_per_launch.or(impact.wasted_wavefronts_per_launch) {
        Some(per_launch) => (1, per_launch, impact.loop_depth, per_request),
        None => (0, 0.0, impact.loop_depth, per_request),
    }
}
