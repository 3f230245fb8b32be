//! What a rewrite proposes before it is proven: its edits, what they answer and what the user
//! must still do by hand.

use crate::edits::Splice;
use kernel_lint_lints::Applicability;

/// A proposed rewrite.
#[derive(Debug, Clone)]
pub struct Draft {
    /// What it does, one line (`store `Particle` as a structure of arrays`).
    pub title: String,
    /// Whether it may be applied without review.
    pub applicability: Applicability,
    /// The replacements, by file (printed path).
    pub splices: Vec<(String, Splice)>,
    /// The splice that holds the rewritten form of the finding's access: the access the
    /// re-analysis measures to state the gain.
    pub target: usize,
    /// What the user must change by hand, one sentence each.
    pub follow_up: Vec<String>,
}

/// Why no code is offered for a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declined(pub String);

impl Declined {
    /// A reason, as one sentence without its period.
    pub fn new(reason: impl Into<String>) -> Self {
        Declined(reason.into())
    }
}
