//! Inputs the fuzzer (`fuzz/`) found to panic, each analyzed as it did: one crate `fuzz` whose
//! root is `lib.rs`, linted, and given its rewrites.

use kernel_lint_analyzer::workspace::CrateFeatures;
use kernel_lint_analyzer::{analyze_configured, LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_lints::{check_file_with_fixes, LintLevels};
use kernel_lint_rewrite::{attach_fixes, Workspace};

fn rewrite_all(text: &str) {
    let source = SourceFile::new("lib.rs", text);
    let module = vec!["fuzz".to_string()];
    let plan = LaunchPlan::default();
    let features = CrateFeatures::new();
    let inputs = vec![ModuleSource {
        source: source.clone(),
        module: module.clone(),
        also_in: Vec::new(),
    }];
    let workspace = Workspace::new(vec![(source.clone(), module, &plan)], &[], &features);
    for report in analyze_configured(inputs, &[], &features, &[&plan])
        .into_iter()
        .flatten()
    {
        let mut diagnostics = check_file_with_fixes(&report, &LintLevels::default(), std::slice::from_ref(&source));
        attach_fixes(&workspace, &report, &mut diagnostics);
    }
}

/// The tile rewrite took the last character off an empty call name (subtract with overflow).
#[test]
fn the_transpose_seed_is_rewritten_without_a_panic() {
    rewrite_all(include_str!("../../../fixtures/seeds/transpose.rs"));
}
