//! Rewrites that answer the lints' findings: the code to write instead, generated from the
//! user's kernel, applied to a copy of the workspace and analyzed again before it is offered.
//!
//! A rewrite ([`draft`]) proposes edits; [`proof`] applies them in memory, checks that every
//! changed file parses, re-runs the analysis and measures the rewritten access and every other
//! access of the kernel. Only a rewrite that makes its access better and none worse becomes a
//! [`Fix`](kernel_lint_lints::Fix); otherwise the finding says why no code is offered.

pub mod align;
pub mod aligned;
pub mod banks;
pub mod callers;
pub mod draft;
pub mod edits;
pub mod hot_cold;
pub mod interchange;
pub mod parses;
pub mod proof;
pub mod soa;
pub mod syntax;
pub mod tile;
pub mod widen;
pub mod workspace;

pub use proof::{attach_fixes, Attached};
pub use workspace::Workspace;

/// What a call in an access's chain is, for messages: a macro (`put_pair!`) or a function.
pub(crate) fn callee_kind(callee: &str) -> &'static str {
    if callee.ends_with('!') {
        "a macro"
    } else {
        "a function"
    }
}
