//! The analysis spread over worker threads. Syntax trees cannot cross threads, so each worker
//! parses and indexes the whole program itself (names resolve across files) and analyzes the
//! files it takes; the reports are put back in input order, so the output is the same whatever
//! the number of workers and however the files were shared out.

use super::resident::{self, BaseInputs};
use crate::model::launch::LaunchPlan;
use crate::report::FileReport;
use crate::source::{FileError, SourceFile};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// Told, from the worker threads, as the analysis of each file starts and ends: what a
/// progress display shows.
pub trait Progress: Sync {
    /// A worker took the file printed as `path`.
    fn started(&self, path: &str);
    /// A worker is done with it.
    fn finished(&self, path: &str);
}

/// What the analysis of a variant gives: the wanted files' reports, and which of the changed
/// files do not parse whole (an item left out, or the file).
#[derive(Debug)]
pub struct Variant {
    /// The reports of the wanted files, in their order.
    pub reports: Vec<Result<FileReport, FileError>>,
    /// The indices of the changed files that do not parse whole, in index order.
    pub unparsed: Vec<usize>,
}

/// The reports of the files `wanted` (indices into the base's inputs), in that order, of the
/// base's files with those of `changed` (by index) in place of theirs: every file is read
/// for its names so that they resolve as in the whole program, and only the wanted files'
/// kernels are analyzed, each under its file's launch plan. With `kernel`, only the kernels
/// of that name are analyzed and reported.
///
/// What a rewrite's proof needs: the analysis thread keeps the base's program between calls
/// and parses again only the files that differ from the last call's ([`resident`]); the one
/// parse of each changed file also tells whether it parses whole.
pub fn analyze_variant(
    base: &Arc<BaseInputs>,
    changed: Vec<(usize, SourceFile)>,
    wanted: &[usize],
    kernel: Option<&str>,
) -> Variant {
    let paths: Vec<String> = wanted
        .iter()
        .map(|&i| (base.inputs().get(i)).map_or_else(String::new, |m| m.source.path.clone()))
        .collect();
    let wanted = wanted.to_vec();
    let kernel = kernel.map(str::to_string);
    let mut changed_files: Vec<usize> = changed.iter().map(|(i, _)| *i).collect();
    changed_files.sort_unstable();
    changed_files.dedup();
    let analyzed = resident::with_variant(base, changed, move |program, base| {
        let default = LaunchPlan::default();
        let unparsed = (changed_files.into_iter())
            .filter(|&i| !matches!(program.parsed.get(i), Some(Ok(parsed)) if parsed.skipped.is_empty()))
            .collect();
        let reports = wanted
            .iter()
            .map(|&i| {
                let plan = base.plan(i).unwrap_or(&default);
                let path = program.files.get(i).map_or("", |f| f.path.as_str());
                crate::budget::within(path, || program.report_of(i, plan, kernel.as_deref()))
            })
            .collect::<Vec<_>>();
        Variant { reports, unparsed }
    });
    analyzed.unwrap_or_else(|message| {
        let message = format!("internal error while analyzing this file: {message}");
        Variant {
            reports: (paths.iter())
                .map(|path| Err(FileError::without_span(path, message.clone())))
                .collect(),
            unparsed: Vec::new(),
        }
    })
}

/// The reports of the files `wanted` of `base` (indices into its
/// inputs), in that order: the other files are read for their names. Every worker parses the
/// files that may hold an entry point, the files the base names (given on their own, checked
/// whatever their bytes hold) and those their names reach ([`needed_files`]); no worker
/// parses any other file, whose report is empty. Each worker keeps its program for the
/// proofs that follow ([`super::in_parallel`] on as many workers).
pub fn analyze_wanted(
    base: &Arc<BaseInputs>,
    wanted: &[usize],
    jobs: usize,
    progress: &dyn Progress,
) -> Vec<Result<FileReport, FileError>> {
    use rayon::prelude::*;
    let path = |i: usize| base.inputs().get(i).map_or_else(String::new, |m| m.source.path.clone());
    let pool = match resident::pool(jobs.max(1)) {
        Ok(pool) => pool,
        Err(why) => {
            return wanted
                .iter()
                .map(|&i| Err(FileError::without_span(&path(i), why.clone())))
                .collect()
        }
    };
    let default = LaunchPlan::default();
    pool.install(|| {
        wanted
            .par_iter()
            .with_max_len(1)
            .map(|&i| {
                let analyzed = catch_unwind(AssertUnwindSafe(|| {
                    resident::here(base, Vec::new(), |program, base| {
                        let plan = base.plan(i).unwrap_or(&default);
                        let path = program.files.get(i).map_or("", |f| f.path.as_str());
                        progress.started(path);
                        let report = crate::budget::within(path, || program.report(i, plan));
                        progress.finished(path);
                        report
                    })
                }));
                analyzed.unwrap_or_else(|panic| {
                    let message = format!(
                        "internal error while analyzing this file: {}",
                        super::panic_message(panic.as_ref())
                    );
                    Err(FileError::without_span(&path(i), message))
                })
            })
            .collect()
    })
}
