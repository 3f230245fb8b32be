use crate::{declare_lint, AccessContext, Finding, KernelFinding};
use kernel_lint_analyzer::{FileReport, KernelReport};

declare_lint! {
    /// ## What it does
    /// Notes code inside a kernel that the analysis does not follow and that may hold a memory
    /// access or feed an index: a macro it does not expand, a recursive call, an expression
    /// form it does not model.
    ///
    /// ## Why is this bad?
    /// It is not bad in itself; an access there gets no figure, so a pattern problem inside it
    /// would go unnoticed.
    ///
    /// ## Example
    /// ```rust,ignore
    /// my_load!(a, i);
    /// ```
    /// Use instead: write the access in the kernel or in a helper function, which is followed.
    pub static UNFOLLOWED_CONSTRUCT = {
        code: "KL007",
        name: "unfollowed-construct",
        level: Note,
        check: no_access_check,
        kernel_check: check,
    }
}

fn no_access_check(_: &AccessContext<'_>) -> Option<Finding> {
    None
}

fn check(_: &FileReport, kernel: &KernelReport) -> Vec<KernelFinding> {
    kernel
        .unsupported
        .iter()
        .map(|u| {
            let finding = Finding {
                message: first_line(&u.message),
                label: "not analyzed".to_string(),
                span: u.span,
                help: None,
                notes: Vec::new(),
            };
            (u.file.clone(), finding)
        })
        .collect()
}

/// A message quoting a multi-line snippet, cut to the snippet's first line with `…`, the
/// quote closed and the words after it kept.
fn first_line(message: &str) -> String {
    let Some((first, _)) = message.split_once('\n') else {
        return message.to_string();
    };
    let first = first.trim_end();
    if first.matches('`').count() % 2 == 1 {
        let after = message.rfind('`').map_or("", |i| &message[i..]);
        format!("{first}…{after}")
    } else {
        format!("{first}…")
    }
}

#[cfg(test)]
mod tests {
    use super::first_line;
    use crate::test_support::kernel_findings;

    #[test]
    fn multi_line_snippets_are_cut_to_their_first_line() {
        assert_eq!(
            first_line("`|x| {\n    a[x]\n}` is not analyzed"),
            "`|x| {…` is not analyzed"
        );
        assert_eq!(first_line("one line"), "one line");
    }

    #[test]
    fn a_macro_that_may_access_memory_is_noted() {
        let found = kernel_findings(
            "KL007",
            "#[kernel] pub unsafe fn k(a: &[f32], out: *mut f32) { let i = thread::index_1d() as usize; *out.add(i) = load!(a[i]); }",
        );
        assert_eq!(found, vec!["macro `load!` is not expanded: accesses inside it are not analyzed".to_string()]);
    }

    #[test]
    fn an_arithmetic_macro_is_not_noted() {
        let found = kernel_findings(
            "KL007",
            "#[kernel] pub unsafe fn k(out: *mut f32, n: u32) { let i = thread::index_1d() as usize; let v = sum!(n as usize * 2, i + 1); *out.add(i) = 0.0; }",
        );
        assert_eq!(found, Vec::<String>::new());
    }

    #[test]
    fn a_buffer_handed_to_a_library_view_is_noted() {
        // The shape of NVlabs/cuda-oxide (a105afd5) `examples/gemm_views`: a slice wrapped in
        // a view type of a library the analysis does not read, then iterated.
        let found = kernel_findings(
            "KL007",
            "#[kernel] pub fn k(a: &[f32], k: u32, mut out: DisjointSlice<f32>) {
                let row = thread::index_1d() as u32;
                let view = MatrixView32::new(a, k);
                let n = a.len();
                let total: f32 = view.row(row, k).sum();
                if let Some(cell) = out.get_mut(thread::index_1d()) { *cell = total; }
            }",
        );
        assert_eq!(
            found,
            vec!["`MatrixView32::new(a, k)` takes the global buffer `a` and is not visible to the analysis: accesses through it are not analyzed".to_string()]
        );
    }
}
