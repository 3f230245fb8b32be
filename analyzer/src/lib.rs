//! kernel-lint's analyzer: from Rust GPU kernel source to a per-access warp prediction.
//!
//! The layers, each using only the ones before it:
//! [`source`] (files, spans and located problems) → [`parse`] (source text to syntax tree) →
//! [`model`] (kernels, type layouts, launch configuration) → [`algebra`] (symbolic index
//! expressions) → [`interpret`] (kernel bodies to memory accesses) → [`warp`] (lanes of a warp,
//! the 32-byte sectors they touch, the verdict) → [`report`] (the result lints and renderers
//! read) → [`pipeline`] (the one path through all of them).

pub mod algebra;
pub mod budget;
pub mod interpret;
pub mod model;
pub mod parse;
pub mod pipeline;
pub mod report;
pub mod source;
pub mod warp;
pub mod workspace;

pub use interpret::{MemorySpace, Op};
pub use model::items::ModulePath;
pub use model::kernel::{Dialect, KernelParam, ParamKind, UnanalyzedKernel};
pub use model::launch::{BlockSource, Dim3, LaunchPlan, LaunchSite, LaunchSpec, ResolvedLaunch};
pub use model::launch_sites::KernelLaunch;
pub use model::layout::FieldOf;
pub use pipeline::{
    analyze_configured, analyze_parallel, analyze_program, analyze_source, analyze_variant, analyze_wanted,
    analyze_watched, in_parallel, kept_syntax, needed_files, BaseInputs, CrateUse, KernelAnalysis, ModuleSource,
    Program, Progress, Unwatched, Variant,
};
pub use report::{AccessReport, CallSite, FileReport, KernelReport};
pub use source::{FileError, SourceFile, Span, Unsupported};
pub use warp::banks::Collision;
pub use warp::shared::{BankCase, BankClass, BankPrediction};
pub use warp::verdict::{AccessClass, Case, Prediction, WarpSample};
