//! Reads and analyzes each file, keeping going past the ones that fail.

use crate::cli::GlobalArgs;
use crate::config::{Config, Configs, Resolver};
use crate::config_check::{self, Checked};
use crate::discover::{self, Input};
use crate::error::{io_message, CliError, Location, Problem};
use kernel_lint_analyzer::{analyze_wanted, FileError, FileReport, LaunchPlan, MemorySpace, ModuleSource, SourceFile};
use kernel_lint_lints::{check_file_with_fixes, Diagnostic, Level};
use kernel_lint_rewrite::{attach_fixes, Workspace};
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
    /// Its configuration, by index into [`Outcome::configs`].
    pub config: usize,
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
    /// One entry per reported input.
    pub entries: Vec<Entry>,
    /// Files read for their items only (the rest of the crates of the files asked about).
    pub context: Vec<SourceFile>,
    /// The configurations the files were analyzed under.
    pub configs: Configs,
    /// What the configuration sets that configures nothing, or nothing that counts.
    pub config_warnings: Vec<Problem>,
    /// Located warnings about the workspace (a `mod` without its file, say).
    pub workspace_warnings: Vec<String>,
    /// The module each file read is, by printed path, so that the harness resolves names as
    /// the analysis did.
    pub modules: Vec<(String, kernel_lint_analyzer::ModulePath)>,
    /// Which crates each crate uses.
    pub uses: Vec<kernel_lint_analyzer::CrateUse>,
    /// The features each crate is compiled with.
    pub features: kernel_lint_analyzer::workspace::CrateFeatures,
    /// The path to open of each file read, by printed path (what `fix` writes to).
    pub paths: Vec<(String, PathBuf)>,
}

impl Outcome {
    /// The text of a file of the run, reported or read for context, by its printed path.
    pub fn source(&self, path: &str) -> Option<&SourceFile> {
        self.entries
            .iter()
            .filter_map(|e| match e {
                Entry::Ok(a) => Some(&a.source),
                Entry::Failed(_, source) => source.as_ref(),
            })
            .chain(&self.context)
            .find(|s| s.path == path)
    }

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

    /// The configuration's warnings, then the launch hints' in input order.
    pub fn warnings(&self) -> Vec<Problem> {
        let hints = self.analyzed().flat_map(|file| {
            file.report.unsupported.iter().map(|hint| {
                let at = Location {
                    path: file.source.path.clone(),
                    line: hint.span.line,
                    column: hint.span.column,
                };
                Problem::new(at, hint.message.clone())
            })
        });
        self.config_warnings.iter().cloned().chain(hints).collect()
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
    /// Inputs that failed.
    pub failed_files: usize,
    /// Kernels found.
    pub kernels: usize,
    /// Global-memory accesses.
    pub global_accesses: usize,
    /// Findings at warn level.
    pub warnings: usize,
    /// Findings at note level.
    pub notes: usize,
    /// Findings at deny level.
    pub errors: usize,
}

/// Finds the files (the paths given, or the workspace's), resolves each one's configuration,
/// analyzes them and checks the configuration against the kernels found.
///
/// Warnings about the configuration and the launch hints go to stderr here, so every command
/// that analyzes shows them; errors in the configuration stop the command.
pub fn analyze(global: &GlobalArgs, paths: &[PathBuf]) -> Result<Outcome, CliError> {
    crate::limits::apply(global.max_file_size, global.file_time_budget);
    // `--config` is read first: its errors come before those of finding the files.
    let mut resolver = Resolver::new(global)?;
    let candidates = if paths.is_empty() {
        discover::from_workspace(global.manifest_path.as_deref())?
    } else {
        discover::from_paths(paths)
    };
    // Every file's configuration is resolved before any is analyzed: a bad one stops the run.
    let mut configured = Vec::with_capacity(candidates.files.len());
    for input in &candidates.files {
        configured.push(resolver.config_for(&input.path)?);
    }
    let configs = resolver.finish();
    let paths = candidates
        .files
        .iter()
        .map(|f| (f.display.clone(), f.path.clone()))
        .collect();
    let jobs = crate::jobs::count(global.jobs);
    let (entries, context, modules) = run(
        jobs,
        candidates.errors,
        candidates.files,
        &configured,
        &configs,
        &candidates.uses,
        &candidates.features,
    );
    let mut outcome = Outcome {
        entries,
        context,
        configs,
        config_warnings: Vec::new(),
        workspace_warnings: candidates.warnings,
        modules,
        uses: candidates.uses,
        features: candidates.features,
        paths,
    };
    let checked: Vec<Checked<'_>> = outcome
        .analyzed()
        .map(|a| Checked {
            path: &a.source.path,
            config: a.config,
            report: &a.report,
        })
        .collect();
    let findings = config_check::check(&outcome.configs, &checked);
    outcome.config_warnings = findings.warnings;
    for warning in &outcome.workspace_warnings {
        eprintln!("warning: {warning}");
    }
    for warning in outcome.warnings() {
        eprintln!("warning: {warning}");
    }
    if !findings.errors.is_empty() {
        return Err(CliError::ConfigProblems(findings.errors));
    }
    Ok(outcome)
}

/// Reads every input, analyzes them together (so names resolve across files), each under its
/// configuration's plan, and lints the reported ones at their configuration's levels.
fn run(
    jobs: usize,
    failed: Vec<FileError>,
    inputs: Vec<Input>,
    configured: &[usize],
    configs: &Configs,
    uses: &[kernel_lint_analyzer::CrateUse],
    features: &kernel_lint_analyzer::workspace::CrateFeatures,
) -> (
    Vec<Entry>,
    Vec<SourceFile>,
    Vec<(String, kernel_lint_analyzer::ModulePath)>,
) {
    let fallback = Config::default();
    let config_of = |index: usize| configs.get(index).unwrap_or(&fallback);
    let mut entries: Vec<Entry> = failed.into_iter().map(|e| Entry::Failed(e, None)).collect();
    let mut program = Vec::new();
    let mut read_ok = Vec::new();
    for (input, &config) in inputs.into_iter().zip(configured) {
        match read(&input) {
            Ok(source) => {
                read_ok.push((input.reported, config));
                program.push(ModuleSource {
                    source,
                    module: input.module,
                });
            }
            Err(failed) if input.reported => entries.push(*failed),
            Err(_) => {}
        }
    }
    let sources: Vec<SourceFile> = program.iter().map(|m| m.source.clone()).collect();
    let modules: Vec<(String, kernel_lint_analyzer::ModulePath)> = program
        .iter()
        .map(|m| (m.source.path.clone(), m.module.clone()))
        .collect();
    let plans: Vec<&LaunchPlan> = read_ok.iter().map(|&(_, config)| &config_of(config).plan).collect();
    // Rewrites are analyzed again on a copy of the same program.
    let workspace = Workspace::new(
        sources
            .iter()
            .zip(&modules)
            .zip(&plans)
            .map(|((source, (_, module)), plan)| (source.clone(), module.clone(), *plan))
            .collect(),
        uses,
        features,
    );
    // The other files are read for their names; only the reported ones are analyzed.
    let wanted: Vec<usize> = (0..read_ok.len()).filter(|&i| read_ok[i].0).collect();
    let mut reported = analyze_wanted(program, uses, features, &plans, &wanted, jobs).into_iter();
    let results: Vec<Option<Result<FileReport, FileError>>> = read_ok
        .iter()
        .map(|&(is_reported, _)| if is_reported { reported.next() } else { None })
        .collect();
    // The fixes may edit any file read (a struct defined in another module).
    let all_sources = sources.clone();
    let mut context = Vec::new();
    let suppressions = crate::triage::suppressions(&sources);
    for ((source, result), (reported, config)) in sources.into_iter().zip(results).zip(read_ok) {
        if !reported {
            context.push(source);
            continue;
        }
        let Some(result) = result else {
            continue;
        };
        entries.push(match result {
            Ok(report) => {
                let diagnostics = check_file_with_fixes(&report, &config_of(config).levels, &all_sources);
                Entry::Ok(Box::new(Analyzed {
                    source,
                    report,
                    diagnostics,
                    config,
                }))
            }
            Err(err) => Entry::Failed(err, Some(source)),
        });
    }
    let mut findings: Vec<crate::triage::Findings<'_>> = entries
        .iter_mut()
        .filter_map(|entry| match entry {
            Entry::Ok(analyzed) => Some(crate::triage::Findings {
                path: &analyzed.source.path,
                config: config_of(analyzed.config),
                diagnostics: &mut analyzed.diagnostics,
            }),
            Entry::Failed(..) => None,
        })
        .collect();
    crate::triage::finish(&mut findings, suppressions);
    // Only the findings that are reported are worth a rewrite, each analyzed again.
    for entry in &mut entries {
        if let Entry::Ok(analyzed) = entry {
            attach_fixes(&workspace, &analyzed.report, &mut analyzed.diagnostics);
        }
    }
    (entries, context, modules)
}

/// A file's text; a failure keeps what could be read, for a snippet of the error.
fn read(input: &Input) -> Result<SourceFile, Box<Entry>> {
    let display = input.display.clone();
    // A FIFO or device would block the read or never end; a huge file would stall the run.
    let refused = match std::fs::metadata(&input.path) {
        Ok(meta) if !meta.is_file() => Some("not a regular file".to_string()),
        Ok(meta) => kernel_lint_analyzer::budget::over_size_limit(meta.len()),
        Err(_) => None,
    };
    if let Some(message) = refused {
        return Err(Box::new(Entry::Failed(
            FileError::without_span(&display, message),
            None,
        )));
    }
    let bytes = std::fs::read(&input.path)
        .map_err(|err| Box::new(Entry::Failed(FileError::without_span(&display, io_message(&err)), None)))?;
    // Lossy text keeps the valid prefix unchanged, so the error's span still points right.
    let lossy = std::str::from_utf8(&bytes)
        .is_err()
        .then(|| SourceFile::new(display.clone(), String::from_utf8_lossy(&bytes).into_owned()));
    SourceFile::from_bytes(display, bytes).map_err(|err| Box::new(Entry::Failed(err, lossy)))
}
