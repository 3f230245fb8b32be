use crate::text::launch_note;
use crate::{declare_lint, AccessContext, Finding};
use kernel_lint_analyzer::AccessClass;

declare_lint! {
    /// ## What it does
    /// Reports accesses whose index is read from memory, `a[idx[i]]`: a data-dependent gather
    /// or scatter. Allowed by default; enable it to list them.
    ///
    /// ## Why is this bad?
    /// Which sectors a warp touches depends on the values in the index array: from 1 (all lanes
    /// the same element) to 32 (each lane its own sector). No static analysis can know; the
    /// figure is not guessed.
    ///
    /// ## Example
    /// ```rust,ignore
    /// let j = idx[i] as usize;
    /// out[i] = a[j];
    /// ```
    /// Use instead: sort or bin the indices so that neighbouring lanes read neighbouring
    /// elements, or stage the gathered range through shared memory.
    pub static DATA_DEPENDENT_GATHER = {
        code: "KL005",
        name: "data-dependent-gather",
        level: Allow,
        check: check,
    }
}

fn check(cx: &AccessContext<'_>) -> Option<Finding> {
    cx.verdict(AccessClass::Gather)?;
    Some(Finding {
        message: format!(
            "data-dependent {} `{}`: the index is read from memory, so the sectors per request depend on the data (1 to 32)",
            if cx.access.op == kernel_lint_analyzer::Op::Store { "scatter" } else { "gather" },
            cx.element()
        ),
        label: "index read from memory".to_string(),
        span: cx.access.index_span,
        help: Some("sort or bin the indices so that neighbouring lanes touch neighbouring elements, or stage the range through shared memory".to_string()),
        notes: vec![launch_note(cx.kernel)],
    })
}

#[cfg(test)]
mod tests {
    use crate::test_support::findings;

    #[test]
    fn gather_through_an_index_array() {
        let found = findings(
            "KL005",
            "#[kernel] pub unsafe fn g(a: &[f32], idx: &[u32], out: *mut f32) { let i = thread::index_1d() as usize; let j = idx[i] as usize; *out.add(i) = a[j]; }",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].message,
            "data-dependent gather `a[j]`: the index is read from memory, so the sectors per request depend on the data (1 to 32)"
        );
    }
}
