//! The analysis result of a file: kernels, their launch, every memory access with its
//! prediction. Lints and renderers read only this.

use crate::interpret::{MemorySpace, Op};
use crate::model::kernel::{KernelParam, UnanalyzedKernel};
use crate::model::launch::{LaunchSite, ResolvedLaunch};
use crate::model::layout::FieldOf;
use crate::source::{FileError, Span, Unsupported};
use crate::warp::shared::BankPrediction;
use crate::warp::verdict::Prediction;
use serde::{Deserialize, Serialize};

/// Everything found in one file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileReport {
    /// The path as given.
    pub path: String,
    /// Kernels in source order.
    pub kernels: Vec<KernelReport>,
    /// Problems with the file's launch hints (a malformed hint, one above no kernel), each at its
    /// comment: warnings, not code left unanalyzed.
    pub unsupported: Vec<Unsupported>,
    /// Entry points of dialects that are recognized but not analyzed yet, in source order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unanalyzed: Vec<UnanalyzedKernel>,
    /// Top-level items left out of the analysis (a syntax error, nesting too deep), each with
    /// a located error: the rest of the file is analyzed, but the file still counts as failed.
    pub errors: Vec<FileError>,
}

/// One kernel and its accesses.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KernelReport {
    /// Function name.
    pub name: String,
    /// Span of the function name.
    pub span: Span,
    /// Span of the whole item, attributes and doc comments included.
    #[serde(skip)]
    pub item: Span,
    /// The launch the predictions assume.
    pub launch: ResolvedLaunch,
    /// The host launch `launch` was read from, when its block source is the launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_site: Option<LaunchSite>,
    /// Why launches found on the host were not used (a block sized at run time, say).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub launch_notes: Vec<String>,
    /// The types its generic parameters were taken to be, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub instantiated: Vec<String>,
    /// Its parameters, in order.
    pub params: Vec<KernelParam>,
    /// Memory accesses in source order.
    pub accesses: Vec<AccessReport>,
    /// Code inside the kernel that was not analyzed, and why.
    pub unsupported: Vec<Unsupported>,
}

/// One memory access and what a warp does with it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AccessReport {
    /// The whole access expression.
    pub span: Span,
    /// The index expression (or the access itself when it has no separate index).
    pub index_span: Span,
    /// The array, pointer or place accessed, as written.
    pub array: String,
    /// The index, as written.
    pub index: String,
    /// Load or store.
    pub op: Op,
    /// Global or shared memory.
    pub space: MemorySpace,
    /// Bytes each lane moves with this one instruction.
    pub elem_bytes: u64,
    /// The struct whose field this access reads or writes, with the struct's size.
    pub field_of: Option<FieldOf>,
    /// The warp-level prediction (global accesses only).
    pub prediction: Option<Prediction>,
    /// The bank-level prediction (shared-memory accesses only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub banks: Option<BankPrediction>,
    /// The file the access is written in, when it is not the kernel's own (a helper or method
    /// of another module).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The calls followed from the kernel to reach the access, outermost first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<CallSite>,
    /// How many loops enclose the access (0: a warp makes it once per run of the kernel).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub loop_depth: u32,
    /// How many times one warp makes the access in one run of the kernel, when every loop
    /// around it is a range that the launch bounds (1 outside loops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests_per_warp: Option<f64>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A call the analysis followed from a kernel into a helper or method.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CallSite {
    /// The function called, as the call names it (`kernel::blur`, `grid.get_node`).
    pub callee: String,
    /// The file of the call.
    pub file: String,
    /// The call expression.
    pub span: Span,
}
