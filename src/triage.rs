//! What happens to the findings of a run once every file is linted: suppression comments and
//! the configuration's `[kernel-allow]` silence theirs, thresholds hide cheap ones, each file's
//! are ordered most costly first, and findings repeated for several kernels are shown once.

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
    let mut unused = Vec::with_capacity(files.len());
    for file in files.iter_mut() {
        unused.push(suppressions.unused(file.path, &file.config.levels));
        file.config.thresholds.apply(file.diagnostics);
        sort_by_impact(file.diagnostics);
    }
    merge_repeats(files);
    for (file, unused) in files.iter_mut().zip(unused) {
        file.diagnostics.extend(unused);
    }
}

/// Where a finding is and what it says: lint, file, span, message and help.
type Said = (&'static str, String, usize, usize, String, Option<String>);
/// The findings kept so far by what they say: the file's index in the run and the finding's.
type Seen = std::collections::HashMap<Said, (usize, usize)>;

/// Keeps the first of findings that say the same at the same place, in any file's list (a
/// helper called by several kernels gives each kernel the same finding there): the first
/// takes the notes the others add (each kernel's call path), so one finding lists them all.
fn merge_repeats(files: &mut [Findings<'_>]) {
    let mut seen = Seen::new();
    for index in 0..files.len() {
        let taken = std::mem::take(files[index].diagnostics);
        let mut kept = Vec::with_capacity(taken.len());
        for d in taken {
            let span = d.primary.span;
            let said = (
                d.code,
                d.file.clone(),
                span.start,
                span.end,
                d.message.clone(),
                d.help.clone(),
            );
            match seen.get(&said) {
                Some(&(file, at)) => {
                    let first = if file == index {
                        &mut kept[at]
                    } else {
                        &mut files[file].diagnostics[at]
                    };
                    let first: &mut Diagnostic = first;
                    for note in d.notes {
                        if !first.notes.contains(&note) {
                            first.notes.push(note);
                        }
                    }
                }
                None => {
                    seen.insert(said, (index, kept.len()));
                    kept.push(d);
                }
            }
        }
        *files[index].diagnostics = kept;
    }
}
