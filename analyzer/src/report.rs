//! The analysis result of a file: kernels, their launch, every memory access with its
//! prediction. Lints and renderers read only this.

use crate::interpret::{self, MemorySpace, Op};
use crate::model::kernel::{find_kernels, Kernel};
use crate::model::launch::ResolvedLaunch;
use crate::model::FileItems;
use crate::source::{SourceFile, Span};
use crate::warp::predict::{predict, Prediction};
use serde::Serialize;

/// Everything found in one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    /// The path as given.
    pub path: String,
    /// Kernels in source order.
    pub kernels: Vec<KernelReport>,
    /// Problems that are not tied to one kernel (a malformed hint, say).
    pub unsupported: Vec<Unsupported>,
    /// Top-level items left out of the analysis (a syntax error, nesting too deep), each with
    /// a located error: the rest of the file is analyzed, but the file still counts as failed.
    pub errors: Vec<crate::ParseError>,
}

/// One kernel and its accesses.
#[derive(Debug, Clone, Serialize)]
pub struct KernelReport {
    /// Function name.
    pub name: String,
    /// Span of the function name.
    pub span: Span,
    /// The launch the predictions assume.
    pub launch: ResolvedLaunch,
    /// Memory accesses in source order.
    pub accesses: Vec<AccessReport>,
    /// Code inside the kernel that was not analyzed, and why.
    pub unsupported: Vec<Unsupported>,
}

/// Code the analyzer could not see into.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Unsupported {
    /// Where.
    pub span: Span,
    /// What and why, as one lowercase sentence.
    pub message: String,
}

/// One memory access and what a warp does with it.
#[derive(Debug, Clone, Serialize)]
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
}

/// The struct a field access belongs to.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FieldOf {
    /// Struct type name.
    pub type_name: String,
    /// Field name (or index, for tuples and arrays).
    pub field: String,
    /// Size of one element, bytes.
    pub size: u64,
}

/// Builds the report of a parsed file.
pub fn build(file: &SourceFile, syntax: &syn::File, plan: &crate::LaunchPlan) -> FileReport {
    let items = FileItems::collect(syntax);
    let mut unsupported = Vec::new();
    let kernels: Vec<Kernel> = find_kernels(file, syntax, plan, &mut unsupported);
    let kernels = kernels
        .into_iter()
        .map(|kernel| {
            let body = interpret::interpret(file, syntax, &items, &kernel);
            let accesses = body
                .accesses
                .iter()
                .map(|access| AccessReport {
                    span: access.span,
                    index_span: access.index_span,
                    array: access.array.clone(),
                    index: access.index_text.clone(),
                    op: access.op,
                    space: access.space,
                    elem_bytes: access.width,
                    field_of: access.field_of.clone(),
                    prediction: (access.space == MemorySpace::Global).then(|| predict(access, &kernel.launch)),
                })
                .collect();
            KernelReport {
                name: kernel.name.clone(),
                span: kernel.span,
                launch: kernel.launch.clone(),
                accesses,
                unsupported: body.unsupported,
            }
        })
        .collect();
    FileReport {
        path: file.path.clone(),
        kernels,
        unsupported,
        errors: Vec::new(),
    }
}
