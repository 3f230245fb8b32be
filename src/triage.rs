//! What happens to the findings of a run once every file is linted: suppression comments
//! silence theirs, thresholds hide cheap ones, and each file's are ordered most costly first.

use crate::config::Config;
use kernel_lint_analyzer::SourceFile;
use kernel_lint_lints::suppression::Suppressions;
use kernel_lint_lints::{sort_by_impact, Diagnostic};

/// The findings of one reported file, with its path and configuration.
pub struct Findings<'a> {
    /// The file, as printed.
    pub path: &'a str,
    /// Its configuration.
    pub config: &'a Config,
    /// What the lints found in it.
    pub diagnostics: &'a mut Vec<Diagnostic>,
}

/// The suppression comments of every file read: a finding in a helper of another file is
/// silenced by a comment there.
pub fn suppressions(sources: &[SourceFile]) -> Suppressions {
    let mut suppressions = Suppressions::default();
    for source in sources {
        suppressions.add(source);
    }
    suppressions
}

/// Applies the suppressions, then each file's thresholds and order; the problems of a file's
/// suppressions come last.
pub fn finish(files: &mut [Findings<'_>], mut suppressions: Suppressions) {
    for file in files.iter_mut() {
        suppressions.apply(file.diagnostics);
        let config = file.config;
        file.diagnostics.retain(|d| !config.allows_in_kernel(&d.kernel, d.code));
    }
    for file in files.iter_mut() {
        let unused = suppressions.unused(file.path, &file.config.levels);
        file.config.thresholds.apply(file.diagnostics);
        sort_by_impact(file.diagnostics);
        file.diagnostics.extend(unused);
    }
}
