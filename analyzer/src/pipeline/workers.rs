//! The analysis spread over worker threads. Syntax trees cannot cross threads, so each worker
//! parses and indexes the whole program itself (names resolve across files) and analyzes the
//! files it takes from a shared counter; the reports are put back in input order, so the
//! output is the same whatever the number of workers and however the files were shared out.

use super::resident::{self, BaseInputs};
use super::{CrateUse, ModuleSource, Program, ANALYSIS_STACK_BYTES};
use crate::model::launch::LaunchPlan;
use crate::report::FileReport;
use crate::source::{FileError, SourceFile};
use crate::workspace::CrateFeatures;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

type Slot = Option<Result<FileReport, FileError>>;

/// Told, from the worker threads, as the analysis of each file starts and ends: what a
/// progress display shows.
pub trait Progress: Sync {
    /// A worker took the file printed as `path`.
    fn started(&self, path: &str);
    /// A worker is done with it.
    fn finished(&self, path: &str);
}

/// Progress nobody watches.
pub struct Unwatched;

impl Progress for Unwatched {
    fn started(&self, _: &str) {}
    fn finished(&self, _: &str) {}
}

/// Like [`super::analyze_configured`], on `jobs` workers (at least one, at most one per file),
/// each on a thread with a stack deep enough for any input the parser accepts.
pub fn analyze_parallel(
    inputs: Vec<ModuleSource>,
    uses: &[CrateUse],
    features: &CrateFeatures,
    plans: &[&LaunchPlan],
    jobs: usize,
) -> Vec<Result<FileReport, FileError>> {
    analyze_watched(inputs, uses, features, plans, jobs, &Unwatched)
}

/// Like [`analyze_parallel`], telling `progress` as each file starts and ends.
pub fn analyze_watched(
    inputs: Vec<ModuleSource>,
    uses: &[CrateUse],
    features: &CrateFeatures,
    plans: &[&LaunchPlan],
    jobs: usize,
    progress: &dyn Progress,
) -> Vec<Result<FileReport, FileError>> {
    let all: Vec<usize> = (0..inputs.len()).collect();
    analyze_wanted(inputs, uses, features, plans, &all, &[], jobs, progress)
}

/// The reports of the files `wanted` (indices into the base's inputs), in that order, of the
/// base's files with those of `changed` (by index) in place of theirs: every file is read
/// for its names so that they resolve as in the whole program, and only the wanted files'
/// kernels are analyzed, each under its file's launch plan. With `kernel`, only the kernels
/// of that name are analyzed and reported.
///
/// What a rewrite's proof needs: the analysis thread keeps the base's program between calls
/// and parses again only the files that differ from the last call's ([`resident`]).
pub fn analyze_variant(
    base: &Arc<BaseInputs>,
    changed: Vec<(usize, SourceFile)>,
    wanted: &[usize],
    kernel: Option<&str>,
) -> Vec<Result<FileReport, FileError>> {
    let paths: Vec<String> = wanted
        .iter()
        .map(|&i| (base.inputs().get(i)).map_or_else(String::new, |m| m.source.path.clone()))
        .collect();
    let wanted = wanted.to_vec();
    let kernel = kernel.map(str::to_string);
    let analyzed = resident::with_variant(base, changed, move |program, base| {
        let default = LaunchPlan::default();
        wanted
            .iter()
            .map(|&i| {
                let plan = base.plan(i).unwrap_or(&default);
                let path = program.files.get(i).map_or("", |f| f.path.as_str());
                crate::budget::within(path, || program.report_of(i, plan, kernel.as_deref()))
            })
            .collect::<Vec<_>>()
    });
    analyzed.unwrap_or_else(|message| {
        let message = format!("internal error while analyzing this file: {message}");
        paths
            .iter()
            .map(|path| Err(FileError::without_span(path, message.clone())))
            .collect()
    })
}

/// Like [`analyze_parallel`], reporting only the inputs `wanted` (indices into `inputs`), in
/// that order: the other files are read for their names. Every worker parses the files that
/// may hold an entry point, the files `named` (given on their own, checked whatever their
/// bytes hold) and those their names reach ([`needed_files`]); no worker parses any other
/// file, whose report is empty.
#[allow(clippy::too_many_arguments)]
pub fn analyze_wanted(
    inputs: Vec<ModuleSource>,
    uses: &[CrateUse],
    features: &CrateFeatures,
    plans: &[&LaunchPlan],
    wanted: &[usize],
    named: &[usize],
    jobs: usize,
    progress: &dyn Progress,
) -> Vec<Result<FileReport, FileError>> {
    let count = wanted.len();
    let jobs = jobs.clamp(1, count.max(1));
    let paths: Vec<String> = wanted
        .iter()
        .map(|&i| inputs.get(i).map_or_else(String::new, |m| m.source.path.clone()))
        .collect();
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Slot>> = Mutex::new((0..count).map(|_| None).collect());
    let default = LaunchPlan::default();
    let needed = super::reach(&inputs, uses, named).needed().to_vec();
    let needed = &needed;
    let mut copies: Vec<Vec<ModuleSource>> = (1..jobs).map(|_| inputs.clone()).collect();
    copies.push(inputs);
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = copies
            .into_iter()
            .enumerate()
            .map(|(worker, own)| {
                let (next, slots, default) = (&next, &slots, &default);
                std::thread::Builder::new()
                    .name(format!("kernel-lint-analysis-{worker}"))
                    .stack_size(ANALYSIS_STACK_BYTES)
                    .spawn_scoped(scope, move || {
                        let program = Program::parse_needed(own, uses, features, needed);
                        loop {
                            let at = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&i) = wanted.get(at) else {
                                break;
                            };
                            let plan = plans.get(i).or(plans.last()).copied().unwrap_or(default);
                            let path = &program.files[i].path;
                            progress.started(path);
                            let report = crate::budget::within(path, || program.report(i, plan));
                            progress.finished(path);
                            if let Ok(mut slots) = slots.lock() {
                                slots[at] = Some(report);
                            }
                        }
                    })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|handle| match handle {
                Ok(handle) => handle.join().err().map(|panic| {
                    format!(
                        "internal error while analyzing this file: {}",
                        super::panic_message(panic.as_ref())
                    )
                }),
                Err(spawn) => Some(format!("cannot start the analysis: {spawn}")),
            })
            .collect()
    });
    // A file a failed worker had taken, or all of them when none could start, gets its error.
    let failure = failures.into_iter().next().unwrap_or_default();
    let slots = slots.into_inner().unwrap_or_else(|poisoned| poisoned.into_inner());
    slots
        .into_iter()
        .zip(&paths)
        .map(|(slot, path)| slot.unwrap_or_else(|| Err(FileError::without_span(path, failure.clone()))))
        .collect()
}
