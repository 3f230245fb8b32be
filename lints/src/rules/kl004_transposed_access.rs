use crate::text::cost;
use crate::{declare_lint, AccessContext, Finding};
use kernel_lint_analyzer::AccessClass;

declare_lint! {
    /// ## What it does
    /// Finds accesses where the fastest-varying thread index (x, which consecutive lanes
    /// differ in) selects the row of a row-major matrix while something slower walks the
    /// columns: `out[x * height + y]`, or `m[row * cols + col]` with `row` from the thread
    /// index and `col` from a loop.
    ///
    /// ## Why is this bad?
    /// Consecutive lanes are a whole row apart, so every lane touches a sector of its own:
    /// 32 sectors per request where 4 would do with 32×8 blocks, 16 with 16×16 blocks.
    ///
    /// ## Example
    /// ```rust,ignore
    /// let v = input[(y * width + x) as usize];
    /// *out.add((x * height + y) as usize) = v;
    /// ```
    /// Use instead: stage a 32×32 tile in shared memory (`[[f32; 33]; 32]`, padded against bank
    /// conflicts) and write it out row by row, or interchange the loops so that the thread
    /// index is the column.
    pub static TRANSPOSED_ACCESS = {
        code: "KL004",
        name: "transposed-access",
        level: Warn,
        check: check,
    }
}

fn check(cx: &AccessContext<'_>) -> Option<Finding> {
    let p = cx.verdict(AccessClass::Transposed)?;
    let row = p.row_length.clone().unwrap_or_else(|| "a row".to_string());
    Some(Finding {
        message: format!("transposed access to `{}`: consecutive lanes are `{row}` elements apart, {}", cx.element(), cost(p)),
        label: format!("the lane index x is scaled by the row length `{row}`"),
        span: cx.access.index_span,
        help: Some(
            "make x the column: stage the tile in shared memory ([[f32; 33]; 32]) and write rows, or interchange the loops so the thread index walks the row"
                .to_string(),
        ),
        notes: cx.notes(p),
    })
}

#[cfg(test)]
mod tests {
    use crate::test_support::findings;

    #[test]
    fn naive_transpose_store() {
        let found = findings(
            "KL004",
            "// kernel-lint: block(32, 8)
             #[kernel] pub unsafe fn t(out: *mut f32, height: u32) {
                 let x = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
                 let y = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
                 *out.add((x * height + y) as usize) = 0.0;
             }",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].message,
            "transposed access to `out[(x * height + y) as usize]`: consecutive lanes are `height` elements apart, 32 sectors per request where 4 would do (12.5% efficiency)"
        );
    }

    #[test]
    fn loop_over_columns_of_a_thread_row() {
        let found = findings(
            "KL004",
            "#[kernel] pub unsafe fn s(m: &[f32], cols: u32) { let row = thread::index_1d(); for col in 0..cols { let v = m[(row * cols + col) as usize]; } }",
        );
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .message
                .starts_with("transposed access to `m[(row * cols + col) as usize]`"),
            "{}",
            found[0].message
        );
    }
}
