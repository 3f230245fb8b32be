//! JSON output: `kernel-lint/accesses/v1` for `accesses`, `kernel-lint/diagnostics/v1` for
//! `check`.

use crate::session::Outcome;
use kernel_lint_analyzer::FileError;
use kernel_lint_analyzer::{
    AccessClass, AccessReport, BankPrediction, BlockSource, Case, Dim3, KernelReport, SourceFile, Span,
};
use kernel_lint_analyzer::{Dialect, MemorySpace, Op};
use kernel_lint_lints::{Diagnostic, Level};
use serde::Serialize;
use std::collections::BTreeMap;

/// Schema name of the `accesses` document.
pub const ACCESSES_SCHEMA: &str = "kernel-lint/accesses/v1";
/// Schema name of the `check` document.
pub const DIAGNOSTICS_SCHEMA: &str = "kernel-lint/diagnostics/v1";

#[derive(Serialize)]
struct AccessesDoc<'a> {
    schema: &'static str,
    kernels: Vec<KernelJson<'a>>,
    /// Entry points of dialects recognized but not analyzed; absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unanalyzed: Vec<UnanalyzedJson<'a>>,
    errors: Vec<ErrorJson<'a>>,
}

#[derive(Serialize)]
struct UnanalyzedJson<'a> {
    name: &'a str,
    file: &'a str,
    line: usize,
    column: usize,
    dialect: Dialect,
}

#[derive(Serialize)]
struct KernelJson<'a> {
    name: &'a str,
    file: &'a str,
    line: usize,
    column: usize,
    block: Dim3,
    block_source: BlockSource,
    /// The extents of `block` no configuration, hint or launch gives: values the analysis
    /// tried, not facts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    block_assumed: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    launch_site: Option<LaunchSiteJson<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    launch_notes: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    instantiated: &'a [String],
    grid: Option<Dim3>,
    params: BTreeMap<&'a str, ParamJson>,
    accesses: Vec<AccessJson<'a>>,
    unsupported: Vec<UnsupportedJson<'a>>,
}

/// The host launch a kernel's block was read from.
#[derive(Serialize)]
struct LaunchSiteJson<'a> {
    file: &'a str,
    line: usize,
    column: usize,
}

/// A parameter value as configured: an integer, or a float (which addressing does not use).
#[derive(Serialize)]
#[serde(untagged)]
enum ParamJson {
    Int(i64),
    Float(f64),
}

#[derive(Serialize)]
struct AccessJson<'a> {
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    array: &'a str,
    index: &'a str,
    field: Option<&'a str>,
    op: Op,
    space: MemorySpace,
    elem_bytes: u64,
    class: Option<AccessClass>,
    stride_bytes: Option<i64>,
    sectors_per_request: Option<f64>,
    /// Over every request, a block's tail warp included (as a profiler averages them), when
    /// that differs from a full warp's figure.
    #[serde(skip_serializing_if = "Option::is_none")]
    block_average_sectors_per_request: Option<f64>,
    ideal_sectors_per_request: Option<f64>,
    efficiency: Option<f64>,
    /// Distinct sectors one block touches for the access, the ideal for its bytes, and the
    /// DRAM bytes that estimates; absent when the block is assumed or the figure unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    block_footprint_sectors: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_footprint_ideal_sectors: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    block_dram_bytes: Option<u64>,
    cases: &'a [Case],
    assumptions: &'a [String],
    /// The figure is an upper bound: lanes are masked by data.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    upper_bound: bool,
    /// The file the access is written in, when it is a helper's in another file.
    #[serde(skip_serializing_if = "Option::is_none")]
    access_file: Option<&'a str>,
    /// The calls from the kernel to the access, outermost first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    via: Vec<CallJson<'a>>,
    /// Loops around the access; absent outside loops.
    #[serde(skip_serializing_if = "is_zero")]
    loop_depth: u32,
    /// How many times one warp makes the access per launch, when the loops' counts are known.
    #[serde(skip_serializing_if = "Option::is_none")]
    requests_per_warp: Option<f64>,
    /// The banks a shared-memory access meets: class, degree, wavefronts per request.
    #[serde(skip_serializing_if = "Option::is_none")]
    banks: Option<&'a BankPrediction>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Serialize)]
struct CallJson<'a> {
    callee: &'a str,
    file: &'a str,
    line: usize,
    column: usize,
}

#[derive(Serialize)]
struct UnsupportedJson<'a> {
    file: &'a str,
    kernel: Option<&'a str>,
    line: usize,
    column: usize,
    message: &'a str,
}

#[derive(Serialize)]
struct ErrorJson<'a> {
    file: &'a str,
    line: Option<usize>,
    column: Option<usize>,
    message: &'a str,
}

#[derive(Serialize)]
struct DiagnosticsDoc<'a> {
    schema: &'static str,
    diagnostics: Vec<DiagnosticJson<'a>>,
    unsupported: Vec<UnsupportedJson<'a>>,
    errors: Vec<ErrorJson<'a>>,
}

#[derive(Serialize)]
struct DiagnosticJson<'a> {
    code: &'static str,
    name: &'static str,
    level: Level,
    file: &'a str,
    kernel: &'a str,
    message: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    label: &'a str,
    help: Option<&'a str>,
    notes: &'a [String],
    /// What the access costs, for access findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    impact: Option<&'a kernel_lint_lints::Impact>,
    /// The rewrites offered, proven by analyzing the rewritten code, first the preferred one.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    fixes: &'a [kernel_lint_lints::Fix],
}

/// The `accesses` document.
pub fn accesses(outcome: &Outcome) -> String {
    let kernels = outcome
        .analyzed()
        .flat_map(|file| {
            file.report
                .kernels
                .iter()
                .map(move |k| kernel_json(k, &file.source, outcome))
        })
        .collect();
    let unanalyzed = outcome
        .analyzed()
        .flat_map(|file| {
            file.report.unanalyzed.iter().map(move |k| UnanalyzedJson {
                name: &k.name,
                file: &file.source.path,
                line: k.span.line,
                column: k.span.column,
                dialect: k.dialect,
            })
        })
        .collect();
    to_string(&AccessesDoc {
        schema: ACCESSES_SCHEMA,
        kernels,
        unanalyzed,
        errors: errors(outcome),
    })
}

/// The `check` document.
pub fn diagnostics(outcome: &Outcome) -> String {
    let mut diagnostics = Vec::new();
    let mut unsupported = Vec::new();
    for file in outcome.analyzed() {
        diagnostics.extend(file.diagnostics.iter().map(|d| {
            let source = outcome.source(&d.file).unwrap_or(&file.source);
            diagnostic_json(d, source)
        }));
        unsupported.extend(file.report.unsupported.iter().map(|u| UnsupportedJson {
            file: &file.source.path,
            kernel: None,
            line: u.span.line,
            column: u.span.column,
            message: &u.message,
        }));
        for kernel in &file.report.kernels {
            unsupported.extend(kernel.unsupported.iter().map(|u| UnsupportedJson {
                file: &file.source.path,
                kernel: Some(&kernel.name),
                line: u.span.line,
                column: u.span.column,
                message: &u.message,
            }));
        }
    }
    to_string(&DiagnosticsDoc {
        schema: DIAGNOSTICS_SCHEMA,
        diagnostics,
        unsupported,
        errors: errors(outcome),
    })
}

fn kernel_json<'a>(kernel: &'a KernelReport, source: &'a SourceFile, outcome: &'a Outcome) -> KernelJson<'a> {
    KernelJson {
        name: &kernel.name,
        file: &source.path,
        line: kernel.span.line,
        column: kernel.span.column,
        block: kernel.launch.block,
        block_source: kernel.launch.block_source,
        block_assumed: ["x", "y", "z"]
            .into_iter()
            .zip(kernel.launch.unknown_block)
            .filter(|&(_, unknown)| unknown || kernel.launch.block_source == BlockSource::Default)
            .map(|(axis, _)| axis)
            .collect(),
        launch_site: kernel.launch_site.as_ref().map(|site| LaunchSiteJson {
            file: &site.file,
            line: site.span.line,
            column: site.span.column,
        }),
        launch_notes: &kernel.launch_notes,
        instantiated: &kernel.instantiated,
        grid: kernel.launch.grid,
        params: params_json(kernel),
        accesses: kernel
            .accesses
            .iter()
            .map(|a| {
                let text = a.file.as_deref().and_then(|f| outcome.source(f)).unwrap_or(source);
                access_json(a, text)
            })
            .collect(),
        unsupported: kernel
            .unsupported
            .iter()
            .map(|u| UnsupportedJson {
                file: &source.path,
                kernel: Some(&kernel.name),
                line: u.span.line,
                column: u.span.column,
                message: &u.message,
            })
            .collect(),
    }
}

fn params_json(kernel: &KernelReport) -> BTreeMap<&str, ParamJson> {
    let ints = kernel
        .launch
        .params
        .iter()
        .map(|(k, &v)| (k.as_str(), ParamJson::Int(v)));
    let floats = kernel
        .launch
        .float_params
        .iter()
        .map(|(k, &v)| (k.as_str(), ParamJson::Float(v)));
    ints.chain(floats).collect()
}

fn access_json<'a>(access: &'a AccessReport, source: &SourceFile) -> AccessJson<'a> {
    let (end_line, end_column) = end(access.span, source);
    let prediction = access.prediction.as_ref();
    AccessJson {
        line: access.span.line,
        column: access.span.column,
        end_line,
        end_column,
        array: &access.array,
        index: &access.index,
        field: access.field_of.as_ref().map(|f| f.field.as_str()),
        op: access.op,
        space: access.space,
        elem_bytes: access.elem_bytes,
        class: prediction.map(|p| p.class),
        stride_bytes: prediction.and_then(|p| p.stride_bytes),
        sectors_per_request: prediction.and_then(|p| p.sectors_per_request),
        block_average_sectors_per_request: prediction.and_then(|p| p.block_average_sectors_per_request),
        ideal_sectors_per_request: prediction.and_then(|p| p.ideal_sectors_per_request),
        efficiency: prediction.and_then(|p| p.efficiency),
        block_footprint_sectors: prediction.and_then(|p| p.block_footprint_sectors),
        block_footprint_ideal_sectors: prediction.and_then(|p| p.block_footprint_ideal_sectors),
        block_dram_bytes: prediction.and_then(|p| p.block_dram_bytes()),
        cases: prediction.map_or(&[], |p| p.cases.as_slice()),
        assumptions: prediction.map_or(&[], |p| p.assumptions.as_slice()),
        upper_bound: prediction.is_some_and(|p| p.upper_bound),
        access_file: access.file.as_deref(),
        via: access
            .via
            .iter()
            .map(|call| CallJson {
                callee: &call.callee,
                file: &call.file,
                line: call.span.line,
                column: call.span.column,
            })
            .collect(),
        loop_depth: access.loop_depth,
        requests_per_warp: access.requests_per_warp,
        banks: access.banks.as_ref(),
    }
}

fn diagnostic_json<'a>(diagnostic: &'a Diagnostic, source: &SourceFile) -> DiagnosticJson<'a> {
    let span = diagnostic.primary.span;
    let (end_line, end_column) = end(span, source);
    DiagnosticJson {
        code: diagnostic.code,
        name: diagnostic.name,
        level: diagnostic.level,
        file: &diagnostic.file,
        kernel: &diagnostic.kernel,
        message: &diagnostic.message,
        line: span.line,
        column: span.column,
        end_line,
        end_column,
        label: &diagnostic.primary.message,
        help: diagnostic.help.as_deref(),
        notes: &diagnostic.notes,
        impact: diagnostic.impact.as_ref(),
        fixes: &diagnostic.fixes,
    }
}

fn errors(outcome: &Outcome) -> Vec<ErrorJson<'_>> {
    outcome.errors().map(error_json).collect()
}

fn error_json(err: &FileError) -> ErrorJson<'_> {
    ErrorJson {
        file: &err.path,
        line: err.span.map(|s| s.line),
        column: err.span.map(|s| s.column),
        message: &err.message,
    }
}

/// 1-based line and column of the span's end (one past its last character).
fn end(span: Span, source: &SourceFile) -> (usize, usize) {
    source.line_column(span.end.max(span.start))
}

fn to_string(doc: &impl Serialize) -> String {
    // These documents hold only strings, numbers and maps with string keys: they always serialize.
    let mut text = serde_json::to_string_pretty(doc)
        .unwrap_or_else(|err| serde_json::json!({ "error": err.to_string() }).to_string());
    text.push('\n');
    text
}
