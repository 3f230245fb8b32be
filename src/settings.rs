//! What a session runs with: the command line's choices as plain values. The configuration
//! files complete them crate by crate when a run reads the workspace.

use crate::limits::{FileTimeBudget, MaxFileSize};
use kernel_lint_lints::{Level, Thresholds};
use std::path::PathBuf;

/// The choices a run is made with; every one may be left to the configuration or the default.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// One configuration file for every file, instead of each crate's own.
    pub config: Option<PathBuf>,
    /// The Cargo.toml of the workspace analyzed when no paths are given.
    pub manifest_path: Option<PathBuf>,
    /// Files analyzed at once; `None` leaves it to the configuration, else one per core.
    pub jobs: Option<u16>,
    /// Lint levels set for the run, in order: a later one wins.
    pub levels: Vec<(Level, String)>,
    /// Thresholds set for the run, over the configuration's.
    pub thresholds: Thresholds,
    /// Largest source file analyzed, over the configuration's.
    pub max_file_size: Option<MaxFileSize>,
    /// Time the analysis of one file may take, over the configuration's.
    pub file_time_budget: Option<FileTimeBudget>,
    /// Neither read nor write the result cache.
    pub no_cache: bool,
    /// Where the result cache is kept, over the configuration's.
    pub cache_dir: Option<PathBuf>,
    /// Show a progress bar (when stderr is a terminal).
    pub progress: bool,
    /// Say how many files were analyzed and how many taken from the cache.
    pub verbose: bool,
    /// Color the rendered findings.
    pub color: bool,
    /// Keep the warnings about the workspace and the configuration in the outcome rather than
    /// print them: a second analysis of the same workspace (review's base) would repeat them.
    pub quiet_warnings: bool,
}
