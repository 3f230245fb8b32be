//! What happens to the findings of a run once every file is linted: suppression comments
//! silence theirs, thresholds hide cheap ones, and each file's are ordered most costly first.

use crate::analysis::Entry;
use crate::config::{Config, Configs};
use kernel_lint_analyzer::SourceFile;
use kernel_lint_lints::suppression::Suppressions;
use kernel_lint_lints::sort_by_impact;

/// Applies the suppressions of `sources` (every file read: a finding in a helper of another
/// file is silenced by a comment there), then each file's thresholds and order.
pub fn finish(entries: &mut [Entry], sources: &[SourceFile], configs: &Configs) {
    let mut suppressions = Suppressions::default();
    for source in sources {
        suppressions.add(source);
    }
    for entry in entries.iter_mut() {
        if let Entry::Ok(analyzed) = entry {
            suppressions.apply(&mut analyzed.diagnostics);
        }
    }
    let fallback = Config::default();
    for entry in entries.iter_mut() {
        if let Entry::Ok(analyzed) = entry {
            let config = configs.get(analyzed.config).unwrap_or(&fallback);
            let unused = suppressions.unused(&analyzed.source.path, &config.levels);
            config.thresholds.apply(&mut analyzed.diagnostics);
            sort_by_impact(&mut analyzed.diagnostics);
            analyzed.diagnostics.extend(unused);
        }
    }
}
