//! The verdict types of an access: its class, sectors per request, efficiency and the cases
//! when the figure depends on a runtime value.

use serde::{Deserialize, Serialize};

/// What kind of access pattern a warp makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash)]
#[serde(rename_all = "lowercase")]
pub enum AccessClass {
    /// As few sectors as the bytes need.
    Coalesced,
    /// Contiguous lanes, but the run starts off a sector boundary.
    Misaligned,
    /// Lanes a constant distance apart, wider than one element.
    Strided,
    /// One field of an array of structs: lanes a struct size apart.
    Aos,
    /// Every active lane reads the same address.
    Broadcast,
    /// The warp spans rows of a block narrower than a warp and each row reads one address.
    #[serde(rename = "row-broadcast")]
    RowBroadcast,
    /// The fastest lane index walks along a row length: x used as the row.
    Transposed,
    /// The index comes from memory (`a[idx[i]]`).
    Gather,
    /// The index could not be reduced.
    Unknown,
}

impl AccessClass {
    /// The name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            AccessClass::Coalesced => "coalesced",
            AccessClass::Misaligned => "misaligned",
            AccessClass::Strided => "strided",
            AccessClass::Aos => "aos",
            AccessClass::Broadcast => "broadcast",
            AccessClass::RowBroadcast => "row-broadcast",
            AccessClass::Transposed => "transposed",
            AccessClass::Gather => "gather",
            AccessClass::Unknown => "unknown",
        }
    }
}

/// One outcome when the figure depends on a runtime value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// The condition, as Rust-like text (`stride == 2`, `offset % 8 == 0`).
    pub condition: String,
    /// The verdict under that condition.
    pub class: AccessClass,
    /// Sectors per request under that condition.
    pub sectors_per_request: f64,
}

/// The warp-level prediction for one global access.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    /// The verdict.
    pub class: AccessClass,
    /// Byte distance between the addresses of neighbouring active lanes (0 and 1 when both run), when constant.
    pub stride_bytes: Option<i64>,
    /// Distinct 32-byte sectors one full warp's request touches (averaged over the warps of a
    /// launch); `None` when it depends on a value that is not known (see `cases`) or is
    /// unknowable.
    pub sectors_per_request: Option<f64>,
    /// The figure over every request, a block's tail warp (fewer than 32 threads) included, as
    /// a profiler averages them; only when it differs from `sectors_per_request`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_average_sectors_per_request: Option<f64>,
    /// The sectors the same bytes would need if perfectly coalesced.
    pub ideal_sectors_per_request: Option<f64>,
    /// `ideal / sectors`, from 0 to 1.
    pub efficiency: Option<f64>,
    /// Outcomes by runtime value, when the figure depends on one.
    pub cases: Vec<Case>,
    /// What was assumed to reach the figure, one sentence each.
    pub assumptions: Vec<String>,
    /// The symbol the lane stride depends on, for strided and transposed accesses (`height`).
    pub row_length: Option<String>,
    /// The figure counts every lane the guards the analysis reads let through, but data (or a
    /// condition it cannot read) masks some of them off: each request touches at most that.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub upper_bound: bool,
    /// Distinct 32-byte sectors all warps of one block touch together for one execution of the
    /// access (averaged over the blocks and iterations counted): what the block moves from
    /// DRAM when L1 and L2 serve the sectors its warps share. `None` when the block is assumed
    /// or the figure depends on a value that is not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_footprint_sectors: Option<f64>,
    /// The sectors the block's distinct bytes would need, contiguous and aligned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_footprint_ideal_sectors: Option<f64>,
    /// The addresses of one representative request, for pictures of the warp; kept out of the
    /// JSON report, whose figures already say what it shows.
    #[serde(skip)]
    pub warp_sample: Option<WarpSample>,
}

/// The byte addresses the 32 lanes of one warp request: the first warp of the block that
/// makes the request, at the first block and loop iteration counted, under the headline's
/// alignment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WarpSample {
    /// Which warp of the block (0 for the first).
    pub warp: usize,
    /// Each lane's first byte, relative to the start of the first sector touched (so the
    /// sector boundaries fall on multiples of 32); `None` for a lane that does not run it.
    pub lane_addresses: Vec<Option<i64>>,
    /// Bytes each lane moves.
    pub bytes_per_lane: u64,
}

impl Prediction {
    /// Estimated DRAM bytes one block moves for one execution of the access: its footprint
    /// times 32.
    pub fn block_dram_bytes(&self) -> Option<u64> {
        self.block_footprint_sectors.map(super::footprint::footprint_bytes)
    }

    /// The same for the footprint's ideal.
    pub fn block_ideal_dram_bytes(&self) -> Option<u64> {
        self.block_footprint_ideal_sectors
            .map(super::footprint::footprint_bytes)
    }
}

pub(super) fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

pub(super) fn round4(v: f64) -> f64 {
    (v * 10000.0).round() / 10000.0
}
