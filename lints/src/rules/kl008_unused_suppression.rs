use crate::declare_lint;

declare_lint! {
    /// ## What it does
    /// Warns about a `// kernel-lint: allow(..)` comment that suppresses nothing: a lint it
    /// names has no finding on its line (written at the end of a line) or in the statement or
    /// item directly below it, a name that is no lint, or a comment that does not parse.
    ///
    /// ## Why is this bad?
    /// A suppression outlives the finding it was written for: once the access is fixed, or
    /// the comment moved away from it, it silences nothing yet reads as if it did, and would
    /// silence a new problem at that place without anyone deciding so.
    ///
    /// ## Example
    /// ```rust,ignore
    /// // kernel-lint: allow(KL002)
    /// let v = a[i]; // coalesced: there is no KL002 finding here
    /// ```
    /// Use instead: remove the comment, or put it at the end of the line of the finding, or
    /// directly above its statement or function.
    pub static UNUSED_SUPPRESSION = {
        code: "KL008",
        name: "unused-suppression",
        level: Warn,
        check: check,
    }
}

/// Suppressions are checked after every other lint has run (by the suppression pass of this crate).
fn check(_: &crate::AccessContext<'_>) -> Option<crate::Finding> {
    None
}
