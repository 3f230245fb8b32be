//! External programs that some tests run (g++, Chromium). A plain `cargo test` on a machine
//! without one skips the checks that need it and says what is missing; with
//! `KERNEL_LINT_REQUIRE_TOOLS=1` (set by `.ci/run`, which installs them) a missing one fails.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The variable that turns a missing program into a failure.
pub const REQUIRE: &str = "KERNEL_LINT_REQUIRE_TOOLS";

/// The program `name` on the PATH (or at `override_var`'s path when that is set), or `None`
/// after telling the terminal that `check` is skipped and how to install it.
pub fn program(name: &str, override_var: Option<&str>, install: &str, check: &str) -> Option<PathBuf> {
    if let Some(path) = override_var.and_then(std::env::var_os) {
        return Some(PathBuf::from(path));
    }
    if let Some(found) = on_path(name) {
        return Some(found);
    }
    let message = format!("`{name}` is not on the PATH: {check} is skipped (install it with `{install}`)");
    if std::env::var_os(REQUIRE).is_some_and(|v| v != "0") {
        panic!("{message}; {REQUIRE} requires it");
    }
    // Straight to the terminal: the test harness captures only the print macros, and this
    // line must be seen although the test passes.
    let _ = writeln!(std::io::stderr(), "skipped: {message}");
    None
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}
