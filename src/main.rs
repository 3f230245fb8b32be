//! `cargo kernel-lint`: static analysis of global-memory access patterns in Rust GPU kernels.

mod analysis;
mod app;
mod cli;
mod config;
mod discover;
mod exit;
mod harness;
mod render;

fn main() {
    let args = std::env::args_os().collect();
    // A bug must still end with the documented exit code, not the default 101.
    let code = std::panic::catch_unwind(|| app::run(args)).unwrap_or(exit::ERROR);
    std::process::exit(code);
}
