//! kernel-lint's analyzer: from Rust GPU kernel source to a per-access warp prediction.
//!
//! The layers, each using only the ones before it:
//! [`parse`] (source text to syntax tree) → [`model`] (kernels, type layouts, launch
//! configuration) → [`algebra`] (symbolic index expressions) → [`interpret`] (kernel bodies to
//! memory accesses) → [`warp`] (lanes of a warp, the 32-byte sectors they touch, the verdict).
//! [`report`] holds the result that lints and renderers read.

pub mod algebra;
pub mod interpret;
pub mod model;
pub mod parse;
pub mod report;
pub mod source;
pub mod warp;

pub use model::launch::{BlockSource, Dim3, LaunchPlan, LaunchSpec};
pub use parse::ParseError;
pub use report::{AccessReport, FileReport, KernelReport, Unsupported};
pub use source::{SourceFile, Span};
pub use warp::predict::{AccessClass, Case, Prediction};

/// Stack for one file's analysis: syn and the interpreter recurse as deep as the source nests.
const ANALYSIS_STACK_BYTES: usize = 256 << 20;

/// Analyzes every kernel of one source file under the given launch plan.
///
/// Runs on a thread of its own with a large stack; a failure inside the analysis is returned
/// as an error for this file rather than taking the process down.
pub fn analyze_source(file: &SourceFile, plan: &LaunchPlan) -> Result<FileReport, ParseError> {
    let outcome = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("kernel-lint-analysis".into())
            .stack_size(ANALYSIS_STACK_BYTES)
            .spawn_scoped(scope, || {
                let parsed = parse::parse_file(file)?;
                let mut report = report::build(file, &parsed.syntax, plan);
                report.errors = parsed.skipped;
                Ok(report)
            })
            .map(|handle| handle.join())
    });
    match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(panic)) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(ParseError {
                path: file.path.clone(),
                message: format!("internal error while analyzing this file: {what}"),
                span: None,
            })
        }
        Err(spawn) => Err(ParseError {
            path: file.path.clone(),
            message: format!("cannot start the analysis: {spawn}"),
            span: None,
        }),
    }
}
