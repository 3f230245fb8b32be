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

    #[test]
    fn overflow_is_said_in_words_not_a_placeholder() {
        let found = findings(
            "KL006",
            "#[kernel] pub unsafe fn k(a: &[f32]) { let i = thread::index_1d() as usize; let v = a[i * 9223372036854775807 * 4]; }",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].message, "index of `a[i * 9223372036854775807 * 4]` not analyzed: a product in the index overflows 64-bit arithmetic");
        assert!(!found[0].message.contains('<'));
    }

    #[test]
    fn literals_and_primitive_constants_are_never_asked_for() {
        let source = "#[kernel] pub unsafe fn k(a: &[f32], out: *mut f32) {
                 let i = thread::index_1d() as usize;
                 let v = a[(i as f32 * 1.5) as usize];
                 let w = a[i + (i64::MIN + i64::MAX + 1) as usize + u8::MAX as usize];
             }";
        let file = kernel_lint_analyzer::SourceFile::new("snippet.rs", source);
        let report = kernel_lint_analyzer::analyze_source(&file, &kernel_lint_analyzer::LaunchPlan::default()).expect("parses");
        for access in &report.kernels[0].accesses {
            let p = access.prediction.as_ref().expect("global");
            for note in &p.assumptions {
                assert!(!note.contains("give its value"), "{note}");
                assert!(!note.contains("row length"), "{note}");
            }
        }
        let w = report.kernels[0].accesses[1].prediction.as_ref().expect("global");
        assert_eq!(w.sectors_per_request, Some(5.0));
    }
}
