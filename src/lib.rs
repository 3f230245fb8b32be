//! kernel-lint: static analysis of global-memory access patterns in Rust GPU kernels.
//!
//! [`Session`] is the one entry point to the analysis: the command line, the language server,
//! the fuzz target and the benchmark build one from [`Settings`] and ask it; renderers take
//! what it returns. [`run`] is the command line itself.

mod app;
mod baseline;
mod build;
mod cache;
mod cargo_check;
mod cli;
mod config;
mod config_check;
mod discover;
mod editor;
mod error;
pub mod exit;
mod fix;
mod harness;
mod jobs;
mod limits;
mod lsp;
mod output;
mod progress;
mod render;
mod review;
mod session;
mod settings;
mod thresholds;
mod triage;

pub use error::CliError;
pub use kernel_lint_analyzer::{FileError, FileReport, SourceFile};
pub use kernel_lint_lints::{Diagnostic, Edit, Fix};
pub use session::{Analyzed, Cleaned, Entry, Outcome, Session, Totals};
pub use settings::Settings;

use cli::Cli;
use std::ffi::OsString;

/// Parses the arguments, runs the command and turns its result into the exit code: the one
/// place where errors become codes.
pub fn run(args: Vec<OsString>) -> i32 {
    let (args, via_cargo) = cli::strip_cargo_subcommand(args);
    let bin_name = if via_cargo {
        "cargo kernel-lint"
    } else {
        "cargo-kernel-lint"
    };
    let cli = match Cli::try_parse_args(args, bin_name) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { exit::ERROR } else { exit::SUCCESS };
        }
    };
    match app::run(&cli) {
        Ok(status) => status.code(),
        Err(err) => {
            eprintln!("error: {err}");
            exit::ERROR
        }
    }
}
