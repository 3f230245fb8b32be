//! Reads and analyzes each file, keeping going past the ones that fail.

use crate::cli::GlobalArgs;
use crate::config;
use crate::discover::{self, Candidate};
use crate::error::{io_message, CliError};
use kernel_lint_analyzer::{analyze_source, FileError, FileReport, LaunchPlan, MemorySpace, SourceFile};
use kernel_lint_lints::{check_file, Diagnostic, Level, LintLevels};
use std::path::PathBuf;

/// A file that was analyzed: its text (for snippets), report and findings.
#[derive(Debug)]
pub struct Analyzed {
    /// The text, for rendering spans.
    pub source: SourceFile,
    /// What the analyzer found.
    pub report: FileReport,
    /// What the lints found.
    pub diagnostics: Vec<Diagnostic>,
}

/// The outcome for one input, in input order.
#[derive(Debug)]
pub enum Entry {
    /// Analyzed.
    Ok(Box<Analyzed>),
    /// Failed; the text is kept when it could be read, for a snippet.
    Failed(FileError, Option<SourceFile>),
}

/// Everything a run found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// One entry per input.
    pub entries: Vec<Entry>,
}

impl Outcome {
    /// The files that were analyzed.
    pub fn analyzed(&self) -> impl Iterator<Item = &Analyzed> {
        self.entries.iter().filter_map(|e| match e {
            Entry::Ok(a) => Some(a.as_ref()),
            Entry::Failed(..) => None,
        })
    }

    /// The inputs that failed, and the items of analyzed files that were left out.
    pub fn errors(&self) -> impl Iterator<Item = &FileError> {
        self.entries.iter().flat_map(|e| match e {
            Entry::Failed(err, _) => std::slice::from_ref(err).iter(),
            Entry::Ok(analyzed) => analyzed.report.errors.iter(),
        })
    }

    /// Whether any input failed or any item was left out.
    pub fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }

    /// Whether any finding is at warn or deny level.
    pub fn has_failing_findings(&self) -> bool {
        self.analyzed()
            .flat_map(|a| &a.diagnostics)
            .any(|d| d.level >= Level::Warn)
    }

    /// Counts for the summary line.
    pub fn totals(&self) -> Totals {
        let mut totals = Totals::default();
        for file in self.analyzed() {
            totals.files += 1;
            totals.kernels += file.report.kernels.len();
            totals.global_accesses += file
                .report
                .kernels
                .iter()
                .flat_map(|k| &k.accesses)
                .filter(|a| a.space == MemorySpace::Global)
                .count();
            totals.unsupported +=
                file.report.unsupported.len() + file.report.kernels.iter().map(|k| k.unsupported.len()).sum::<usize>();
            for diagnostic in &file.diagnostics {
                match diagnostic.level {
                    Level::Deny => totals.errors += 1,
                    Level::Warn => totals.warnings += 1,
                    Level::Note => totals.notes += 1,
                    Level::Allow => {}
                }
            }
        }
        totals.failed_files = self.errors().count();
        totals
    }
}

/// Counts of what a run found.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Files analyzed.
    pub files: usize,
    /// Inputs that failed, plus items of analyzed files that were left out.
    pub failed_files: usize,
    /// Kernels found.
    pub kernels: usize,
    /// Global-memory accesses.
    pub global_accesses: usize,
    /// Code the analysis could not see into.
    pub unsupported: usize,
    /// Findings at warn level.
    pub warnings: usize,
    /// Findings at note level.
    pub notes: usize,
    /// Findings at deny level.
    pub errors: usize,
}

/// Loads the configuration, finds the files (the paths given, or the workspace's) and analyzes
/// them.
pub fn analyze(global: &GlobalArgs, paths: &[PathBuf]) -> Result<Outcome, CliError> {
    let config = config::load(global).map_err(CliError::Config)?;
    let candidates = if paths.is_empty() {
        discover::from_workspace(global.manifest_path.as_deref())?
    } else {
        discover::from_paths(paths)
    };
    Ok(run(candidates, &config.plan, &config.levels))
}

/// Analyzes every candidate under a plan and lints it at the given levels.
pub fn run(candidates: Vec<Candidate>, plan: &LaunchPlan, levels: &LintLevels) -> Outcome {
    let entries = candidates
        .into_iter()
        .map(|candidate| match candidate {
            Candidate::Error(err) => Entry::Failed(err, None),
            Candidate::File { display, path } => analyze_file(display, &path, plan, levels),
        })
        .collect();
    Outcome { entries }
}

fn analyze_file(display: String, path: &std::path::Path, plan: &LaunchPlan, levels: &LintLevels) -> Entry {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) => return Entry::Failed(FileError::without_span(&display, io_message(&err)), None),
    };
    // Lossy text keeps the valid prefix unchanged, so the error's span still points right.
    let lossy = std::str::from_utf8(&bytes)
        .is_err()
        .then(|| SourceFile::new(display.clone(), String::from_utf8_lossy(&bytes).into_owned()));
    let source = match SourceFile::from_bytes(display, bytes) {
        Ok(source) => source,
        Err(err) => return Entry::Failed(err, lossy),
    };
    match analyze_source(&source, plan) {
        Ok(report) => {
            let diagnostics = check_file(&report, levels);
            Entry::Ok(Box::new(Analyzed {
                source,
                report,
                diagnostics,
            }))
        }
        Err(err) => Entry::Failed(err, Some(source)),
    }
}
