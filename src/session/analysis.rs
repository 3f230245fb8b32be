//! Reads and analyzes each file, keeping going past the ones that fail.

use crate::cache::{self, Cache};
use crate::config::{Config, Configs, Resolver, RunSettings};
use crate::config_check::{self, Checked};
use crate::discover::{self, Input};
use crate::error::{io_message, CliError, Location, Problem};
use crate::settings::Settings;
use kernel_lint_analyzer::in_parallel;
use kernel_lint_analyzer::Progress;
use kernel_lint_analyzer::{
    analyze_wanted, BaseInputs, FileError, FileReport, LaunchPlan, MemorySpace, ModuleSource, SourceFile,
};
use kernel_lint_lints::{check_file_with_fixes, Diagnostic, Level};
use kernel_lint_rewrite::{attach_fixes, Workspace};
use std::path::PathBuf;
use std::sync::Arc;

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

/// Whether a run may take its results from the result cache and keep them there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reuse {
    /// Read and write the cache unless `--no-cache` (`check`, `accesses`, `fix`).
    Cache,
    /// Analyze every file and keep nothing: the commands that read what the cache does not
    /// keep (the warp pictures of `review`, the harness's programs).
    Fresh,
}

/// Whether a run drafts and proves the rewrites of its findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rewrites {
    /// Every finding with a remedy gets its proven rewrites or the reason it has none.
    Proven,
    /// None are drafted: the command prints no fixes (`accesses`).
    Skipped,
}

/// The settings of the run, the command line winning over the configuration.
pub struct Run {
    /// Files analyzed at once.
    pub jobs: usize,
    /// The cache, unless turned off or not wanted.
    pub cache: Option<Cache>,
    /// The limits, as they enter the cache's key.
    pub limits: String,
    /// Whether the findings' rewrites are proven.
    pub rewrites: Rewrites,
}

impl Run {
    /// Applies the limits and picks the cache folder.
    pub fn settle(settings: &Settings, configured: &RunSettings, reuse: Reuse) -> Run {
        let size = settings.max_file_size.or(configured.max_file_size).unwrap_or_default();
        let time = settings
            .file_time_budget
            .or(configured.file_time_budget)
            .unwrap_or_default();
        crate::limits::apply(size, time);
        let cache = (reuse == Reuse::Cache && !settings.no_cache).then(|| Cache::new(cache_dir(settings, configured)));
        Run {
            jobs: crate::jobs::count(settings.jobs.or(configured.jobs)),
            cache,
            limits: format!("{size:?} {time:?}"),
            rewrites: Rewrites::Proven,
        }
    }
}

/// `--cache-dir`, else `cache-dir` of the configuration, else the default at the workspace root.
pub fn cache_dir(settings: &Settings, configured: &RunSettings) -> PathBuf {
    settings
        .cache_dir
        .clone()
        .or_else(|| configured.cache_dir.clone())
        .unwrap_or_else(|| cache::workspace_root(settings.manifest_path.as_deref()).join(cache::DEFAULT_DIR))
}

/// Finds the files (the paths given, or the workspace's), resolves each one's configuration,
/// analyzes them and checks the configuration against the kernels found.
///
/// Warnings about the configuration and the launch hints go to stderr here, so every command
/// that analyzes shows them; errors in the configuration stop the command.
pub fn analyze_with(
    settings: &Settings,
    paths: &[PathBuf],
    reuse: Reuse,
    rewrites: Rewrites,
) -> Result<Outcome, CliError> {
    // `--config` is read first: its errors come before those of finding the files.
    let mut resolver = Resolver::new(settings)?;
    let run_settings = Run {
        rewrites,
        ..Run::settle(settings, &resolver.run_settings()?, reuse)
    };
    let candidates = if paths.is_empty() {
        discover::from_workspace(settings.manifest_path.as_deref())?
    } else {
        discover::from_paths(paths)
    };
    // Every file's configuration is resolved before any is analyzed: a bad one stops the run.
    let mut configured = Vec::with_capacity(candidates.files.len());
    for input in &candidates.files {
        configured.push(resolver.config_for(&input.path)?);
    }
    let configs = resolver.finish();
    // A file found under an `exclude` pattern is read for its names only; one named on the
    // command line is reported all the same.
    let mut candidates = candidates;
    let mut excluded = 0;
    for (input, &config) in candidates.files.iter_mut().zip(&configured) {
        if input.reported
            && !input.named
            && configs
                .get(config)
                .is_some_and(|c| c.excluded_by(&input.path).is_some())
        {
            input.reported = false;
            excluded += 1;
        }
    }
    // Never silent: the count of what the configuration kept out is always said.
    if excluded > 0 && !settings.quiet_warnings {
        eprintln!("note: {excluded} files not reported: under `exclude` patterns of the configuration");
    }
    let paths = candidates
        .files
        .iter()
        .map(|f| (f.display.clone(), f.path.clone()))
        .collect();
    let progress = crate::progress::Bar::for_stderr(!settings.progress);
    let (entries, context, modules, tally) = run(
        &run_settings,
        &progress,
        Program {
            failed: candidates.errors,
            inputs: candidates.files,
            configured: &configured,
            configs: &configs,
            uses: &candidates.uses,
            features: &candidates.features,
        },
    );
    progress.finish();
    if settings.verbose {
        eprintln!("{}", tally.line(run_settings.cache.as_ref()));
    }
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
    if !settings.quiet_warnings {
        for warning in &outcome.workspace_warnings {
            eprintln!("warning: {warning}");
        }
        for warning in outcome.warnings() {
            eprintln!("warning: {warning}");
        }
    }
    if !findings.errors.is_empty() {
        return Err(CliError::ConfigProblems(findings.errors));
    }
    Ok(outcome)
}

/// `check` of one crate given as `(path, text)` pairs, the crate root first, each file the
/// module of its file stem: under the default configuration, without the cache, every file
/// reported and parsed as if named on its own.
pub fn analyze_texts(settings: &Settings, crate_name: &str, files: Vec<(String, String)>) -> Outcome {
    let inputs: Vec<Input> = files
        .into_iter()
        .enumerate()
        .map(|(i, (path, text))| {
            let mut module = vec![crate_name.to_string()];
            if i > 0 {
                let stem = std::path::Path::new(&path).file_stem();
                module.push(stem.map_or_else(String::new, |s| s.to_string_lossy().into_owned()));
            }
            Input {
                display: path.clone(),
                path: PathBuf::from(path),
                module,
                also_in: Vec::new(),
                reported: true,
                named: true,
                text: Some(text),
            }
        })
        .collect();
    let run_settings = Run {
        cache: None,
        ..Run::settle(settings, &RunSettings::default(), Reuse::Fresh)
    };
    let paths = inputs.iter().map(|f| (f.display.clone(), f.path.clone())).collect();
    // No configuration was read: every file takes the default one.
    let configured = vec![0; inputs.len()];
    let configs = Configs::default();
    let features = kernel_lint_analyzer::workspace::CrateFeatures::new();
    let (entries, context, modules, _) = run(
        &run_settings,
        &crate::progress::Bar::for_stderr(true),
        Program {
            failed: Vec::new(),
            inputs,
            configured: &configured,
            configs: &configs,
            uses: &[],
            features: &features,
        },
    );
    Outcome {
        entries,
        context,
        configs,
        modules,
        features,
        paths,
        ..Outcome::default()
    }
}

/// What a run read: the paths that failed, the files found and their configurations.
struct Program<'a> {
    failed: Vec<FileError>,
    inputs: Vec<Input>,
    configured: &'a [usize],
    configs: &'a Configs,
    uses: &'a [kernel_lint_analyzer::CrateUse],
    features: &'a kernel_lint_analyzer::workspace::CrateFeatures,
}

/// How many reported files were analyzed and how many taken from the cache.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    analyzed: usize,
    reused: usize,
}

impl Tally {
    /// The `--verbose` line.
    fn line(self, cache: Option<&Cache>) -> String {
        let Tally { analyzed, reused } = self;
        match cache {
            Some(cache) => format!(
                "cache: {analyzed} {} analyzed, {reused} taken from {}",
                files(analyzed),
                cache.dir().display()
            ),
            None => format!("cache: {analyzed} {} analyzed, none kept (no cache)", files(analyzed)),
        }
    }
}

fn files(n: usize) -> &'static str {
    if n == 1 {
        "file"
    } else {
        "files"
    }
}

type Ran = (
    Vec<Entry>,
    Vec<SourceFile>,
    Vec<(String, kernel_lint_analyzer::ModulePath)>,
    Tally,
);

/// Reads every input, analyzes them together (so names resolve across files), each under its
/// configuration's plan, and lints the reported ones at their configuration's levels; or takes
/// all of that from the cache when the cache holds it for exactly these inputs.
fn run(settings: &Run, progress: &crate::progress::Bar, given: Program<'_>) -> Ran {
    let Program {
        failed,
        inputs,
        configured,
        configs,
        uses,
        features,
    } = given;
    let fallback = Config::default();
    let config_of = |index: usize| configs.get(index).unwrap_or(&fallback);
    let mut entries: Vec<Entry> = failed.into_iter().map(|e| Entry::Failed(e, None)).collect();
    let mut program = Vec::new();
    let mut read_ok = Vec::new();
    let mut named = Vec::new();
    for (input, &config) in inputs.into_iter().zip(configured) {
        match read(&input) {
            Ok(source) => {
                if input.named {
                    named.push(program.len());
                }
                read_ok.push((input.reported, config));
                program.push(ModuleSource {
                    source,
                    module: input.module,
                    also_in: input.also_in,
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
    let address = settings.cache.as_ref().map(|_| {
        cache::Address::of(&cache::Inputs {
            program: &program,
            configured: &read_ok,
            configs,
            uses,
            features,
            limits: settings.limits.clone(),
        })
    });
    // A run without rewrites takes a run's with them as well, and keeps its own apart.
    let addresses: Vec<cache::Address> = match (&address, settings.rewrites) {
        (None, _) => Vec::new(),
        (Some(address), Rewrites::Proven) => vec![address.clone()],
        (Some(address), Rewrites::Skipped) => vec![address.clone(), address.without_rewrites()],
    };
    for (cache, address) in settings
        .cache
        .iter()
        .flat_map(|cache| addresses.iter().map(move |a| (cache, a)))
    {
        match cache.lookup(address) {
            cache::Lookup::Hit(kept) => {
                if let Some(restored) = restore(kept, &sources, &read_ok) {
                    let reused = restored.len();
                    entries.extend(restored);
                    let context = sources
                        .into_iter()
                        .zip(&read_ok)
                        .filter(|(_, (reported, _))| !reported)
                        .map(|(source, _)| source)
                        .collect();
                    return (entries, context, modules, Tally { analyzed: 0, reused });
                }
            }
            cache::Lookup::Miss => {}
            cache::Lookup::Unreadable(why) => eprintln!("warning: ignoring the unreadable cache file {why}"),
        }
    }
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
    // The proofs start from the programs the analysis leaves on its workers.
    let base = BaseInputs::named(
        program,
        uses,
        features,
        plans.iter().map(|&plan| plan.clone()).collect(),
        named,
    );
    let workspace = workspace.on(Arc::clone(&base));
    // The other files are read for their names; only the reported ones are analyzed.
    let wanted: Vec<usize> = (0..read_ok.len()).filter(|&i| read_ok[i].0).collect();
    progress.phase("analyzing", wanted.len());
    let mut reported = analyze_wanted(&base, &wanted, settings.jobs, progress).into_iter();
    let results: Vec<Option<Result<FileReport, FileError>>> = read_ok
        .iter()
        .map(|&(is_reported, _)| if is_reported { reported.next() } else { None })
        .collect();
    // The fixes may edit any file read (a struct defined in another module).
    let all_sources = sources.clone();
    let mut context = Vec::new();
    let suppressions = crate::triage::suppressions(&sources);
    let from_analysis = entries.len();
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
    let reported = entries.len() - from_analysis;
    // Each file's rewrites are proven on its own; the workers share the files out and the
    // fixes land on each file's findings, so the output is the same for any number of them.
    let proving: Vec<&mut Analyzed> = (entries.iter_mut())
        .filter(|_| settings.rewrites == Rewrites::Proven)
        .filter_map(|entry| match entry {
            Entry::Ok(analyzed) => Some(&mut **analyzed),
            Entry::Failed(..) => None,
        })
        .collect();
    if !proving.is_empty() {
        progress.phase("proving rewrites", proving.len());
    }
    let paths: Vec<String> = proving.iter().map(|analyzed| analyzed.source.path.clone()).collect();
    let proven = in_parallel(proving, settings.jobs, |analyzed| {
        progress.started(&analyzed.source.path);
        attach_fixes(&workspace, &analyzed.report, &mut analyzed.diagnostics);
        progress.finished(&analyzed.source.path);
    });
    for (path, proven) in paths.iter().zip(proven) {
        if let Err(why) = proven {
            eprintln!("warning: {path}: internal error while proving rewrites, its fixes are left out: {why}");
        }
    }
    if let (Some(cache), Some(address)) = (&settings.cache, addresses.last()) {
        let kept: Vec<cache::Kept> = entries[from_analysis..].iter().map(keep).collect();
        if kept.iter().all(cache::keepable) {
            if let Err(why) = cache.store(address, kept) {
                eprintln!("warning: the result cache is not written: {why}");
            }
        }
    }
    let tally = Tally {
        analyzed: reported,
        reused: 0,
    };
    (entries, context, modules, tally)
}

/// What the cache keeps of an entry of the analysis.
fn keep(entry: &Entry) -> cache::Kept {
    match entry {
        Entry::Ok(analyzed) => cache::Kept {
            path: analyzed.source.path.clone(),
            analyzed: Some((analyzed.report.clone(), analyzed.diagnostics.clone())),
            failed: None,
        },
        Entry::Failed(err, source) => cache::Kept {
            path: source.as_ref().map_or_else(|| err.path.clone(), |s| s.path.clone()),
            analyzed: None,
            failed: Some(err.clone()),
        },
    }
}

/// The entries of the reported files from what the cache kept, each with the text read now;
/// `None` when they do not line up with the files (never for a file written by this build
/// under this key, but nothing is taken on trust).
fn restore(kept: Vec<cache::Kept>, sources: &[SourceFile], read_ok: &[(bool, usize)]) -> Option<Vec<Entry>> {
    let reported: Vec<(&SourceFile, usize)> = sources
        .iter()
        .zip(read_ok)
        .filter(|(_, (reported, _))| *reported)
        .map(|(source, &(_, config))| (source, config))
        .collect();
    if kept.len() != reported.len() {
        return None;
    }
    kept.into_iter()
        .zip(reported)
        .map(|(kept, (source, config))| {
            if kept.path != source.path {
                return None;
            }
            match (kept.analyzed, kept.failed) {
                (Some((report, diagnostics)), None) => Some(Entry::Ok(Box::new(Analyzed {
                    source: source.clone(),
                    report,
                    diagnostics,
                    config,
                }))),
                (None, Some(err)) => Some(Entry::Failed(err, Some(source.clone()))),
                _ => None,
            }
        })
        .collect()
}

/// A file's text; a failure keeps what could be read, for a snippet of the error.
fn read(input: &Input) -> Result<SourceFile, Box<Entry>> {
    let display = input.display.clone();
    if let Some(text) = &input.text {
        return Ok(SourceFile::new(display, text.clone()));
    }
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
