//! `cargo kernel-lint`: static analysis of global-memory access patterns in Rust GPU kernels.

fn main() {
    let args = std::env::args_os().collect();
    // A bug must still end with the documented exit code, not the default 101.
    let code = std::panic::catch_unwind(|| kernel_lint::run(args)).unwrap_or(kernel_lint::exit::ERROR);
    std::process::exit(code);
}
