//! kernel-lint's analyzer: from Rust GPU kernel source to a per-access warp prediction.
//!
//! The layers, each using only the ones before it:
//! `source` (files, spans and located problems) → [`parse`] (source text to syntax tree) →
//! [`model`] (kernels, type layouts, launch configuration) → [`algebra`] (symbolic index
//! expressions) → [`interpret`] (kernel bodies to memory accesses) → `warp` (lanes of a warp,
//! the 32-byte sectors they touch, the verdict) → `report` (the result lints and renderers
//! read) → `pipeline` (the one path through all of them).

// The public API is what the crate root exports below, with the workspace discovery and the
// analysis limits. The syntax model (`parse`, `model`, `algebra`, `interpret`) is public only
// for the GPU harness, which lowers kernels by reading it; the other crates use the root's
// items (checked by the module-layers test).
pub mod algebra;
pub mod budget;
pub mod interpret;
pub mod model;
pub mod parse;
pub(crate) mod pipeline;
pub(crate) mod report;
pub(crate) mod source;
pub(crate) mod warp;
pub mod workspace;

pub use interpret::{MemorySpace, Op};
pub use model::comments::{comments, Comment};
pub use model::items::{FunctionKey, ModulePath};
pub use model::kernel::{Dialect, Kernel, KernelParam, ParamKind, UnanalyzedKernel};
pub use model::launch::{
    directive_key, hint_text, BlockSource, Dim3, LaunchPlan, LaunchSite, LaunchSpec, ResolvedLaunch, SUPPRESSION_KEY,
};
pub use model::launch_sites::KernelLaunch;
pub use model::layout::FieldOf;
pub use parse::parse_file;
pub use parse::scan::scan;
pub use pipeline::{
    analyze_configured, analyze_program, analyze_source, analyze_variant, analyze_wanted, in_parallel, kept_syntax,
    needed_files, panic_message, BaseInputs, CrateUse, KernelAnalysis, ModuleSource, Program, Progress, Variant,
};
pub use report::{AccessReport, CallSite, FileReport, KernelReport};
pub use source::{FileError, SourceFile, Span, Unsupported};
pub use warp::banks::Collision;
pub use warp::shared::{BankCase, BankClass, BankPrediction};
pub use warp::verdict::{AccessClass, Case, Prediction, WarpSample};
