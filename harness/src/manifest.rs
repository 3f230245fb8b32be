//! What the harness launched and what the analyzer predicted for it, per (file, line, op).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The schema name of [`Manifest`].
pub const SCHEMA: &str = "kernel-lint/harness-manifest/v1";

/// Everything `harness emit` produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`SCHEMA`].
    pub schema: String,
    /// Launches in the order the driver makes them (Nsight Compute's launch order).
    pub launches: Vec<LaunchRecord>,
    /// Kernels that could not be lowered, with the reason.
    pub not_lowered: Vec<NotLoweredRecord>,
}

/// One kernel launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LaunchRecord {
    /// Position in launch order, from 0.
    pub index: usize,
    /// Kernel function name.
    pub kernel: String,
    /// Source file as given.
    pub file: String,
    /// Line of the kernel's name.
    pub line: usize,
    /// Block extents.
    pub block: [u32; 3],
    /// Grid extents.
    pub grid: [u32; 3],
    /// Integer parameter values passed.
    pub params: BTreeMap<String, i64>,
    /// Float parameter values passed (from the configuration).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub float_params: BTreeMap<String, f64>,
    /// Parameters given a default value because the configuration had none.
    pub defaulted: Vec<String>,
    /// Buffers allocated, by array.
    pub buffers: Vec<BufferRecord>,
    /// Predicted accesses.
    pub accesses: Vec<PredictedAccess>,
    /// Predicted L2 sectors of the whole launch: sectors per request × executions per warp ×
    /// warps, summed over global accesses; `None` when some figure is unknown.
    pub predicted_sectors: Option<f64>,
    /// Predicted DRAM bytes of the whole launch: each global access's block footprint (the
    /// distinct sectors a block's warps touch together) × 32 bytes × executions × blocks,
    /// summed; sectors two accesses share count for each. `None` when some figure is unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub predicted_dram_bytes: Option<f64>,
    /// How the launch was changed from the one asked for (scaled down to fit the device).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One allocated array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BufferRecord {
    /// Array name (`a`, `p.vx`).
    pub array: String,
    /// Bytes allocated.
    pub bytes: u64,
    /// Why the size is a fallback, if it is.
    pub unbounded: Option<String>,
    /// Whether it was filled with indices.
    pub index_array: bool,
}

/// One predicted access.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictedAccess {
    /// The line instructions are attributed to (the `#line` of the innermost statement).
    pub line: usize,
    /// The line of the access itself.
    pub source_line: usize,
    /// Its column.
    pub column: usize,
    /// Array name.
    pub array: String,
    /// `load` or `store`.
    pub op: String,
    /// `global` or `shared`.
    pub space: String,
    /// Bytes per lane.
    pub elem_bytes: u64,
    /// The predicted class.
    pub class: Option<String>,
    /// Predicted sectors per request.
    pub sectors_per_request: Option<f64>,
    /// Predicted ideal.
    pub ideal_sectors_per_request: Option<f64>,
    /// How many times one warp executes it per launch (loop trips), when bounded.
    pub executions_per_warp: Option<f64>,
    /// Distinct sectors the block's warps touch together per execution, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_footprint_sectors: Option<f64>,
    /// The figure is an upper bound: data masks some of the lanes it counts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub upper_bound: bool,
    /// Predicted shared-memory wavefronts per request, for a shared access with a figure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wavefronts_per_request: Option<f64>,
    /// The wavefronts without bank conflicts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ideal_wavefronts_per_request: Option<f64>,
}

/// A kernel that was not lowered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotLoweredRecord {
    /// Kernel name.
    pub kernel: String,
    /// File as given.
    pub file: String,
    /// Line of the construct that stopped it.
    pub line: usize,
    /// Column of it.
    pub column: usize,
    /// Why.
    pub reason: String,
}
