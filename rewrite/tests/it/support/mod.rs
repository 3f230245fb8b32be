//! What the rewrite tests share: one file analyzed and linted as `check` does, with the
//! rewrites attached, and the reasons given where none is offered.
#![allow(dead_code)] // each test file uses its own part

use kernel_lint_analyzer::workspace::CrateFeatures;
use kernel_lint_analyzer::{analyze_source, LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_lints::{check_file, Diagnostic, LintLevels};
use kernel_lint_rewrite::{attach_fixes, Workspace};

/// The findings of `source` (as `kernels.rs`) under `plan`, with their rewrites attached.
pub fn rewritten_under(source: &str, plan: &LaunchPlan) -> Vec<Diagnostic> {
    let file = SourceFile::new("kernels.rs", source);
    let report = analyze_source(&file, plan).expect("analyzed");
    assert!(!report.kernels.is_empty(), "no kernel found");
    let mut diagnostics = check_file(&report, &LintLevels::default());
    let features = CrateFeatures::new();
    let module = ModuleSource::standalone(file.clone()).module;
    let ws = Workspace::new(vec![(file, module, plan)], &[], &features);
    attach_fixes(&ws, &report, &mut diagnostics);
    diagnostics
}

/// The same under the default launch plan (hints and the default block).
pub fn rewritten(source: &str) -> Vec<Diagnostic> {
    rewritten_under(source, &LaunchPlan::default())
}

/// The notes that say why no code is offered.
pub fn declined(d: &Diagnostic) -> Vec<&str> {
    d.notes
        .iter()
        .filter_map(|n| n.strip_prefix("no rewrite is offered: "))
        .collect()
}
