//! cuda-oxide keeps examples whose device build must fail: its smoke test lists them in
//! `ERROR_EXAMPLES` and requires their compilation to stop with a diagnostic, and the
//! code generator's `STATUS.md` states where each one fails. A kernel of such an example
//! that is not lowered is refused under that category, with the stated failure, so that it
//! is not mistaken for a gap of the harness.

use std::path::Path;

/// The smoke test of the repository, relative to one of the file's ancestors.
const SMOKE_TEST: &str = "scripts/smoketest.sh";

/// `reason` prefixed with the rejection category when the file at `source` belongs to an
/// example that the repository's smoke test requires to fail to build.
pub(super) fn qualified(source: &str, reason: String) -> String {
    match rejection(Path::new(source)) {
        Some(category) => format!("{category}: {reason}"),
        None => reason,
    }
}

/// The category, with the failure its repository states, of the example holding `source`.
fn rejection(source: &Path) -> Option<String> {
    let path = std::fs::canonicalize(source).ok()?;
    let example = path
        .ancestors()
        .find(|a| a.parent().and_then(Path::file_name) == Some("examples".as_ref()))?;
    let name = example.file_name()?.to_str()?;
    let script = path
        .ancestors()
        .map(|a| a.join(SMOKE_TEST))
        .find(|p| p.is_file())
        .and_then(|p| std::fs::read_to_string(p).ok())?;
    if !error_examples(&script).any(|e| e == name) {
        return None;
    }
    let stated = example
        .parent()
        .and_then(Path::parent)
        .and_then(|home| std::fs::read_to_string(home.join("STATUS.md")).ok())
        .and_then(|status| status_row(&status, name));
    Some(match stated {
        Some(fails_at) => format!(
            "example whose device build the code generator rejects by design (an error example of \
             {SMOKE_TEST}; STATUS.md: fails at {fails_at})"
        ),
        None => format!(
            "example whose device build the code generator rejects by design (an error example of \
             {SMOKE_TEST})"
        ),
    })
}

/// The names of the shell array `ERROR_EXAMPLES=(a b c)`.
fn error_examples(script: &str) -> impl Iterator<Item = &str> {
    script
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("ERROR_EXAMPLES=("))
        .and_then(|rest| rest.split(')').next())
        .unwrap_or("")
        .split_whitespace()
}

/// "`fails at` (kind)" of the example's row in the table `| `name` | kind | fails at |`.
fn status_row(status: &str, name: &str) -> Option<String> {
    let quoted = format!("`{name}`");
    status.lines().find_map(|line| {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        match cells.as_slice() {
            ["", first, kind, fails_at, ..] if *first == quoted => Some(format!("{fails_at} ({kind})")),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_error_examples_and_their_status_row() {
        let script = "X=1\nERROR_EXAMPLES=(error error_heap_alloc)\n";
        assert_eq!(
            error_examples(script).collect::<Vec<_>>(),
            ["error", "error_heap_alloc"]
        );
        let status = "| `error_heap_alloc`   | diagnostics-fixture | `__rust_alloc` reachable |\n";
        assert_eq!(
            status_row(status, "error_heap_alloc").as_deref(),
            Some("`__rust_alloc` reachable (diagnostics-fixture)")
        );
        assert_eq!(status_row(status, "error"), None);
    }
}
