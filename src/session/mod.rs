//! The one entry point to the analysis. A [`Session`] is built once from the [`Settings`]; it
//! finds the files, resolves each one's configuration, analyzes, lints, applies suppressions
//! and thresholds, proves the findings' rewrites and keeps the results in the cache. The
//! command line, the language server, the fuzz target and the benchmark ask only it.

mod analysis;
mod editor;
mod reuse;

pub use analysis::{Analyzed, Entry, Outcome, Totals};
pub use editor::{key, Editor};

use crate::cache::Cache;
use crate::config::Resolver;
use crate::error::CliError;
use crate::settings::Settings;
use analysis::{Reuse, Rewrites};
use std::path::PathBuf;

/// The analysis under one set of settings.
#[derive(Debug, Clone, Default)]
pub struct Session {
    settings: Settings,
}

/// What [`Session::clean`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cleaned {
    /// The cache folder was removed.
    Removed(PathBuf),
    /// There was no cache folder.
    Absent(PathBuf),
}

impl Session {
    /// A session with these settings; the configuration files are read by each run, as they
    /// may change between runs of one session (the editor's).
    pub fn new(settings: Settings) -> Session {
        Session { settings }
    }

    /// The settings the session was built with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The findings of the files under `paths` (the workspace's when none are given), each with
    /// its proven rewrites or the reason it has none; taken from the result cache when nothing
    /// they depend on changed.
    pub fn check(&self, paths: &[PathBuf]) -> Result<Outcome, CliError> {
        analysis::analyze_with(&self.settings, paths, Reuse::Cache, Rewrites::Proven)
    }

    /// Like [`Session::check`] without drafting rewrites: the accesses and the lints' own
    /// findings. A cached `check` serves it.
    pub fn accesses(&self, paths: &[PathBuf]) -> Result<Outcome, CliError> {
        analysis::analyze_with(&self.settings, paths, Reuse::Cache, Rewrites::Skipped)
    }

    /// Like [`Session::check`], neither reading nor writing the cache: for what the cache does
    /// not keep (the warp pictures of `review`, the programs of the harness).
    pub fn check_fresh(&self, paths: &[PathBuf]) -> Result<Outcome, CliError> {
        analysis::analyze_with(&self.settings, paths, Reuse::Fresh, Rewrites::Proven)
    }

    /// The accesses of the files under `paths` without the cache and without rewrites: the
    /// files, modules and configurations the harness lowers, which it analyzes again itself.
    pub fn accesses_fresh(&self, paths: &[PathBuf]) -> Result<Outcome, CliError> {
        analysis::analyze_with(&self.settings, paths, Reuse::Fresh, Rewrites::Skipped)
    }

    /// `check` of one crate given as texts, `(path, text)` with the crate root first, under
    /// the default configuration and without the cache: input that is not on disk.
    pub fn check_texts(&self, crate_name: &str, files: Vec<(String, String)>) -> Outcome {
        analysis::analyze_texts(&self.settings, crate_name, files)
    }

    /// The state of an editor's workspace at `root`, which [`Editor::recheck`] keeps up to date
    /// with the texts of open buffers.
    pub fn editor(&self, root: Option<PathBuf>) -> Editor {
        Editor::new(root, self.settings.clone())
    }

    /// Removes the result cache.
    pub fn clean(&self) -> Result<Cleaned, CliError> {
        let run = Resolver::new(&self.settings)?.run_settings()?;
        let cache = Cache::new(analysis::cache_dir(&self.settings, &run));
        let dir = cache.dir().to_path_buf();
        match cache.clean() {
            Ok(true) => Ok(Cleaned::Removed(dir)),
            Ok(false) => Ok(Cleaned::Absent(dir)),
            Err(why) => Err(CliError::Config(why)),
        }
    }

    /// A session like this one with `change` made to its settings (`review` analyzes the base
    /// commit's copy of the workspace elsewhere).
    pub fn with(&self, change: impl FnOnce(&mut Settings)) -> Session {
        let mut settings = self.settings.clone();
        change(&mut settings);
        Session { settings }
    }
}
