//! The documented exit codes.

/// No findings at warn or deny level.
pub const SUCCESS: i32 = 0;
/// Findings at warn or deny level.
pub const FINDINGS: i32 = 1;
/// Usage error, unreadable or unparsable input, bad configuration, or internal error.
pub const ERROR: i32 = 2;

/// The exit code of a run: any error wins over findings, so failed files are never masked.
pub fn of_run(errors: bool, failing_findings: bool) -> i32 {
    if errors {
        ERROR
    } else if failing_findings {
        FINDINGS
    } else {
        SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_win() {
        assert_eq!(of_run(false, false), SUCCESS);
        assert_eq!(of_run(false, true), FINDINGS);
        assert_eq!(of_run(true, true), ERROR);
        assert_eq!(of_run(true, false), ERROR);
    }
}
