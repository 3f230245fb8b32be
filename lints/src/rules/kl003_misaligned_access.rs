use crate::text::{cost, figure};
use crate::{declare_lint, AccessContext, Finding};
use kernel_lint_analyzer::AccessClass;

declare_lint! {
    /// ## What it does
    /// Finds accesses whose lanes read consecutive elements but whose run does not start on a
    /// 32-byte sector boundary: `a[i + offset]` with an offset that is not a multiple of
    /// 8 floats.
    ///
    /// ## Why is this bad?
    /// A warp reading 128 contiguous bytes needs 4 sectors when they are aligned and 5 when
    /// they are not (80 %). The verdict depends on the offset's value, which is reported as a
    /// condition when it is not known.
    ///
    /// ## Example
    /// ```rust,ignore
    /// let k = thread::index_1d() + offset;
    /// let v = a[k as usize];
    /// ```
    /// Use instead: keep offsets and sub-slice starts at multiples of 32 bytes (pad the rows),
    /// or let each thread handle an aligned element and apply the offset on the other side.
    pub static MISALIGNED_ACCESS = {
        code: "KL003",
        name: "misaligned-access",
        level: Warn,
        check: check,
    }
}

fn check(cx: &AccessContext<'_>) -> Option<Finding> {
    let p = cx.verdict(AccessClass::Misaligned)?;
    // A case is worth stating only when its figure differs from the headline; without a
    // headline every case is already in the cost.
    let unless = p
        .cases
        .iter()
        .find(|c| p.sectors_per_request.is_some_and(|s| (s - c.sectors_per_request).abs() > 1e-9))
        .map(|c| format!(" unless {} ({} then)", c.condition, figure(c.sectors_per_request)))
        .unwrap_or_default();
    Some(Finding {
        message: format!("misaligned access to `{}`: {}{unless}", cx.element(), cost(p)),
        label: if cx.kernel.launch.block[0] < 32 {
            // A block narrower than a warp: every row of the warp is a run of its own.
            "each row's run starts off a 32-byte sector boundary".to_string()
        } else {
            "the warp's run starts off a 32-byte sector boundary".to_string()
        },
        span: cx.access.index_span,
        help: Some(
            "start each warp's run on a 32-byte boundary: keep offsets a multiple of 32 bytes, or pad rows to a multiple of 32 bytes"
                .to_string(),
        ),
        notes: cx.notes(p),
    })
}

#[cfg(test)]
mod tests {
    use crate::test_support::{assert_clean, findings};

    #[test]
    fn unknown_offset_gives_the_condition() {
        let found = findings(
            "KL003",
            "#[kernel] pub unsafe fn k(a: &[f32], offset: u32) { let k = thread::index_1d() + offset; let v = a[k as usize]; }",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].message,
            "misaligned access to `a[k as usize]`: 5 sectors per request where 4 would do (80% efficiency) unless offset % 8 == 0 (4 then)"
        );
    }

    #[test]
    fn constant_offset_of_one_float() {
        let found = findings(
            "KL003",
            "#[kernel] pub unsafe fn k(a: &[f32]) { let v = a[thread::index_1d() as usize + 1]; }",
        );
        assert_eq!(found[0].message, "misaligned access to `a[thread::index_1d() as usize + 1]`: 5 sectors per request where 4 would do (80% efficiency)");
    }

    #[test]
    fn aligned_offset_is_fine() {
        assert_clean(
            "KL003",
            "#[kernel] pub unsafe fn k(a: &[f32]) { let v = a[thread::index_1d() as usize + 8]; }",
            1,
        );
    }

    /// Sectors one warp touches, averaged over the warps of a block, counted lane by lane.
    fn brute_force(block: [i64; 2], row: i64, offset: i64) -> f64 {
        let threads = block[0] * block[1];
        let mut total = 0usize;
        for warp in 0..threads / 32 {
            let mut sectors: Vec<i64> = (0..32)
                .flat_map(|lane| {
                    let linear = warp * 32 + lane;
                    let (x, y) = (linear % block[0], linear / block[0]);
                    let start = (y * row + x + offset) * 4;
                    [start.div_euclid(32), (start + 3).div_euclid(32)]
                })
                .collect();
            sectors.sort_unstable();
            sectors.dedup();
            total += sectors.len();
        }
        total as f64 / (threads / 32) as f64
    }

    #[test]
    fn neighbours_on_narrow_blocks_straddle_sectors_on_every_row() {
        for (block, offset) in [([16, 16], -1), ([16, 16], 1), ([8, 8], -1), ([8, 8], 1)] {
            let sign = if offset < 0 { "-" } else { "+" };
            let source = format!(
                "// kernel-lint: block({}, {})
                 #[kernel] pub unsafe fn k(img: &[f32]) {{ let x = thread::thread_idx_x() as usize; let y = thread::thread_idx_y() as usize; let v = img[y * 64 + x {sign} 1]; }}",
                block[0], block[1]
            );
            let found = findings("KL003", &source);
            assert_eq!(found.len(), 1, "{source}");
            let expected = brute_force(block, 64, offset);
            let ideal = 4;
            assert_eq!(
                found[0].message,
                format!(
                    "misaligned access to `img[y * 64 + x {sign} 1]`: {} sectors per request where {ideal} would do ({}% efficiency)",
                    crate::text::figure(expected),
                    crate::text::percent(ideal as f64 / expected)
                )
            );
            assert_eq!(found[0].label, "each row's run starts off a 32-byte sector boundary");
        }
    }

    #[test]
    fn a_case_with_the_headline_figure_is_not_stated() {
        let found = findings(
            "KL003",
            "// kernel-lint: block(16, 16)
             #[kernel] pub unsafe fn k(img: &[f32], w: usize) { let x = thread::thread_idx_x() as usize; let y = thread::thread_idx_y() as usize; let v = img[y * w + x + 1]; }",
        );
        assert_eq!(
            found[0].message,
            "misaligned access to `img[y * w + x + 1]`: 6 sectors per request where 4 would do (66.7% efficiency) unless w is odd (5.75 then)"
        );
    }
}
