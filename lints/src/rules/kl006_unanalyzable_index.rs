use crate::{declare_lint, AccessContext, Finding};
use kernel_lint_analyzer::AccessClass;

declare_lint! {
    /// ## What it does
    /// Notes global accesses whose index the analysis could not reduce to arithmetic on thread
    /// indices: a call to a function it cannot see, a value computed in a way it does not
    /// follow.
    ///
    /// ## Why is this bad?
    /// It is not bad in itself; it means kernel-lint has no figure for this access, and that
    /// a pattern problem there would go unnoticed.
    ///
    /// ## Example
    /// ```rust,ignore
    /// let v = a[external::index(i)];
    /// ```
    /// Use instead: write the index as arithmetic on `thread::*` values and parameters in the
    /// kernel (or in a helper function of the same file, which is followed).
    pub static UNANALYZABLE_INDEX = {
        code: "KL006",
        name: "unanalyzable-index",
        level: Note,
        check: check,
    }
}

fn check(cx: &AccessContext<'_>) -> Option<Finding> {
    let p = cx.verdict(AccessClass::Unknown)?;
    let why = p
        .assumptions
        .last()
        .cloned()
        .unwrap_or_else(|| "the index could not be reduced".to_string());
    Some(Finding {
        message: format!("index of `{}` not analyzed: {why}", cx.element()),
        label: "not analyzed".to_string(),
        span: cx.access.index_span,
        help: Some("write the index as arithmetic on thread indices and parameters, in the kernel or a helper of the same file".to_string()),
        notes: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use crate::test_support::findings;

    #[test]
    fn unknown_function_of_the_lane() {
        let found = findings(
            "KL006",
            "#[kernel] pub unsafe fn k(a: &[f32]) { let i = other::scramble(thread::index_1d()) as usize; let v = a[i]; }",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].message,
            "index of `a[i]` not analyzed: the index depends on `other::scramble(thread::index_1d())`, which the analysis cannot follow"
        );
    }
}
