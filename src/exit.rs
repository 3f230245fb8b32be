//! The documented exit codes, and the status a command ends with.

/// No findings at warn or deny level.
pub const SUCCESS: i32 = 0;
/// Findings at warn or deny level.
pub const FINDINGS: i32 = 1;
/// Usage error, unreadable or unparsable input, bad configuration, or internal error.
pub const ERROR: i32 = 2;

/// How a command that ran to its end went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Nothing to report.
    Clean,
    /// Findings at warn or deny level (or measurements below a threshold).
    Findings,
    /// Some input could not be read or analyzed; the rest was reported.
    Failed,
}

impl Status {
    /// The status of a run: any error wins over findings, so failed files are never masked.
    pub fn of_run(errors: bool, failing_findings: bool) -> Status {
        if errors {
            Status::Failed
        } else if failing_findings {
            Status::Findings
        } else {
            Status::Clean
        }
    }

    /// The process exit code.
    pub fn code(self) -> i32 {
        match self {
            Status::Clean => SUCCESS,
            Status::Findings => FINDINGS,
            Status::Failed => ERROR,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_win() {
        assert_eq!(Status::of_run(false, false).code(), SUCCESS);
        assert_eq!(Status::of_run(false, true).code(), FINDINGS);
        assert_eq!(Status::of_run(true, true).code(), ERROR);
        assert_eq!(Status::of_run(true, false).code(), ERROR);
    }
}
