//! The one pipeline from source text to reports: parse, find kernels, interpret each body,
//! predict each global access. The CLI and the harness both run it.

use crate::interpret::{interpret, KernelBody, MemorySpace};
use crate::model::kernel::{find_kernels, Kernel};
use crate::model::launch::{LaunchPlan, ResolvedLaunch};
use crate::model::FileItems;
use crate::parse::parse_file;
use crate::report::{AccessReport, FileReport, KernelReport};
use crate::source::{FileError, SourceFile, Unsupported};
use crate::warp::predict::predict;
use crate::warp::verdict::Prediction;

/// Stack for one file's analysis: syn and the interpreter recurse as deep as the source nests.
const ANALYSIS_STACK_BYTES: usize = 256 << 20;

/// A parsed file and the items its kernels use, ready to analyze any kernel under any launch.
pub struct ParsedUnit {
    /// The file.
    pub file: SourceFile,
    /// Its syntax tree.
    pub syntax: syn::File,
    /// Layouts, constants and helpers it defines.
    pub items: FileItems,
}

/// A kernel's interpreted body and the prediction for each of its accesses, in order.
pub struct KernelAnalysis {
    /// Accesses with their address polynomials, and what was not analyzed.
    pub body: KernelBody,
    /// One per access: the prediction of a global access, `None` for shared memory.
    pub predictions: Vec<Option<Prediction>>,
}

impl ParsedUnit {
    /// Parses a file and collects its items.
    pub fn parse(file: SourceFile) -> Result<ParsedUnit, FileError> {
        let syntax = parse_file(&file)?;
        let items = FileItems::collect(&syntax);
        Ok(ParsedUnit { file, syntax, items })
    }

    /// The file's kernels with the launch the plan, a hint or the default gives each, and the
    /// problems found on the way (a malformed hint, say).
    pub fn kernels(&self, plan: &LaunchPlan) -> (Vec<Kernel>, Vec<Unsupported>) {
        let mut unsupported = Vec::new();
        let kernels = find_kernels(&self.file, &self.syntax, plan, &mut unsupported);
        (kernels, unsupported)
    }

    /// Interprets one kernel under a launch and predicts its global accesses.
    pub fn analyze(&self, kernel: &Kernel, launch: &ResolvedLaunch) -> KernelAnalysis {
        let mut analyzed = kernel.clone();
        analyzed.launch = launch.clone();
        let body = interpret(&self.file, &self.syntax, &self.items, &analyzed);
        let predictions = body
            .accesses
            .iter()
            .map(|access| (access.space == MemorySpace::Global).then(|| predict(access, launch)))
            .collect();
        KernelAnalysis { body, predictions }
    }

    /// The report of every kernel under the launch the plan resolves for it.
    pub fn report(&self, plan: &LaunchPlan) -> FileReport {
        let (kernels, unsupported) = self.kernels(plan);
        let kernels = kernels
            .into_iter()
            .map(|kernel| {
                let analysis = self.analyze(&kernel, &kernel.launch);
                analysis.report(kernel)
            })
            .collect();
        FileReport {
            path: self.file.path.clone(),
            kernels,
            unsupported,
        }
    }
}

impl KernelAnalysis {
    /// The report of this analysis, for lints and renderers.
    pub fn report(self, kernel: Kernel) -> KernelReport {
        let accesses = self
            .body
            .accesses
            .into_iter()
            .zip(self.predictions)
            .map(|(access, prediction)| AccessReport {
                span: access.span,
                index_span: access.index_span,
                array: access.array,
                index: access.index_text,
                op: access.op,
                space: access.space,
                elem_bytes: access.width,
                field_of: access.field_of,
                prediction,
            })
            .collect();
        KernelReport {
            name: kernel.name,
            span: kernel.span,
            launch: kernel.launch,
            params: kernel.params,
            accesses,
            unsupported: self.body.unsupported,
        }
    }
}

/// Analyzes every kernel of one source file under the given launch plan.
///
/// Runs on a thread of its own with a large stack; a failure inside the analysis is returned
/// as an error for this file rather than taking the process down.
pub fn analyze_source(file: &SourceFile, plan: &LaunchPlan) -> Result<FileReport, FileError> {
    let outcome = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("kernel-lint-analysis".into())
            .stack_size(ANALYSIS_STACK_BYTES)
            .spawn_scoped(scope, || ParsedUnit::parse(file.clone()).map(|unit| unit.report(plan)))
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
            Err(FileError::without_span(
                &file.path,
                format!("internal error while analyzing this file: {what}"),
            ))
        }
        Err(spawn) => Err(FileError::without_span(
            &file.path,
            format!("cannot start the analysis: {spawn}"),
        )),
    }
}
