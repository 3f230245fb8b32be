//! `cargo kernel-lint`: static analysis of global-memory access patterns in Rust GPU kernels.

mod analysis;
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
mod exit;
mod fix;
mod harness;
mod jobs;
mod limits;
mod lsp;
mod output;
mod progress;
mod render;
mod review;
mod thresholds;
mod triage;

use cli::Cli;
use std::ffi::OsString;

/// Parses the arguments, runs the command and turns its result into the exit code: the one
/// place where errors become codes.
fn run(args: Vec<OsString>) -> i32 {
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

fn main() {
    let args = std::env::args_os().collect();
    // A bug must still end with the documented exit code, not the default 101.
    let code = std::panic::catch_unwind(|| run(args)).unwrap_or(exit::ERROR);
    std::process::exit(code);
}
