use crate::text::cost;
use crate::{declare_lint, AccessContext, Finding};
use kernel_lint_analyzer::AccessClass;

declare_lint! {
    /// ## What it does
    /// Finds global-memory accesses whose neighbouring lanes are a constant distance apart that
    /// is wider than one element: `data[tid * stride]`, `image[3 * i + 0]`.
    ///
    /// ## Why is this bad?
    /// The hardware serves a warp's request in 32-byte sectors. With a stride of 2 floats a
    /// warp touches 8 sectors to use 4 sectors' worth of bytes (50 %); with a stride of 8 floats
    /// or more, every lane pays for a sector of its own (32 sectors, 12.5 %).
    ///
    /// ## Example
    /// ```rust,ignore
    /// let idx = thread::index_1d() as usize * stride;
    /// out[i] = data[idx];
    /// ```
    /// Use instead: arrange the data so that lane `i` reads element `i` (store each interleaved
    /// component in its own array), or load a contiguous tile into shared memory and pick the
    /// strided elements from there.
    pub static STRIDED_ACCESS = {
        code: "KL001",
        name: "strided-access",
        level: Warn,
        check: check,
    }
}

fn check(cx: &AccessContext<'_>) -> Option<Finding> {
    let p = cx.verdict(AccessClass::Strided)?;
    // Lanes that share an address in pairs (`a[(i / 2) * 64]`) step by no one distance.
    let no_constant_stride = p.stride_bytes == Some(0) || p.row_length.as_deref() == Some("0");
    let distance = match (p.stride_bytes, p.sectors_per_request) {
        _ if no_constant_stride => "consecutive lanes are not a constant distance apart".to_string(),
        (Some(bytes), Some(_)) => format!("lanes are {bytes} bytes apart"),
        _ => format!(
            "the lane stride is `{}` elements",
            p.row_length.as_deref().unwrap_or("unknown")
        ),
    };
    let interleaved = p
        .stride_bytes
        .is_some_and(|s| s > 0 && (s as u64) < 32 && (s as u64).is_multiple_of(cx.access.elem_bytes));
    let help = if interleaved {
        "interleaved components: store each one in its own array (planar, structure of arrays) or pack them into one aligned vector per lane"
    } else {
        "make consecutive lanes read consecutive elements (store the data with unit stride), or stage a contiguous tile in shared memory and read the strided elements from there"
    };
    Some(Finding {
        message: format!("strided access to `{}`: {distance}, {}", cx.element(), cost(p)),
        label: match (p.stride_bytes, p.sectors_per_request) {
            _ if no_constant_stride => "no constant lane stride".to_string(),
            (Some(bytes), Some(_)) => format!("lane stride {bytes} bytes"),
            _ => format!(
                "lane stride `{}` elements",
                p.row_length.as_deref().unwrap_or("unknown")
            ),
        },
        span: cx.access.index_span,
        help: Some(help.to_string()),
        notes: cx.notes(p),
    })
}

#[cfg(test)]
mod tests {
    use crate::test_support::{assert_clean, findings};

    /// Lanes 1 to 16 read one contiguous run: a misaligned access (KL003), not a strided one,
    /// although lane 0 does not run it.
    #[test]
    fn a_unit_stride_run_without_lane_zero_is_not_strided() {
        let source = "// kernel-lint: block(32)\n#[kernel] pub unsafe fn k(a: &[f32], out: *mut f32) { let i = thread::thread_idx_x() as usize; if i > 0 && i < 17 { *out.add(i) = a[i]; } }";
        assert_clean("KL001", source, 2);
        let misaligned = findings("KL003", source);
        assert_eq!(misaligned.len(), 2);
        assert_eq!(
            misaligned[0].message,
            "misaligned access to `a[i]`: 3 sectors per request where 2 would do (66.7% efficiency)"
        );
    }

    /// Pairs of lanes share an address and the pairs are 256 bytes apart: no one lane stride.
    #[test]
    fn lanes_sharing_addresses_in_pairs_have_no_constant_stride() {
        let found = findings(
            "KL001",
            "#[kernel] pub unsafe fn k(a: &[f32], out: *mut f32) { let i = thread::index_1d() as usize; *out.add(i) = a[(i / 2) * 64]; }",
        );
        assert_eq!(found.len(), 1);
        assert!(
            found[0].message.starts_with("strided access to `a[(i / 2) * 64]`: consecutive lanes are not a constant distance apart, "),
            "{}",
            found[0].message
        );
        assert_eq!(found[0].label, "no constant lane stride");
    }

    #[test]
    fn constant_stride_is_reported_with_numbers() {
        let found = findings(
            "KL001",
            "#[kernel] pub unsafe fn k(a: &[f32], out: *mut f32) { let i = thread::index_1d() as usize; *out.add(i) = a[2 * i]; }",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].message,
            "strided access to `a[2 * i]`: lanes are 8 bytes apart, 8 sectors per request where 4 would do (50% efficiency)"
        );
        assert_eq!(found[0].label, "lane stride 8 bytes");
    }

    #[test]
    fn runtime_stride_reports_each_case() {
        let found = findings(
            "KL001",
            "#[kernel] pub unsafe fn k(a: &[f32], stride: u32) { let i = (thread::index_1d() * stride) as usize; let v = a[i]; }",
        );
        assert_eq!(
            found[0].message,
            "strided access to `a[i]`: the lane stride is `stride` elements, sectors per request: 4 (coalesced) when stride == 1, 8 when stride == 2, 16 when stride == 4, 32 when stride >= 8"
        );
        assert_eq!(found[0].label, "lane stride `stride` elements");
    }

    #[test]
    fn unit_stride_is_not_reported() {
        assert_clean(
            "KL001",
            "#[kernel] pub unsafe fn k(a: &[f32]) { let v = a[thread::index_1d() as usize]; }",
            1,
        );
    }

    #[test]
    fn one_value_per_row_is_a_row_broadcast_not_a_stride_of_zero() {
        let source = "// kernel-lint: block(16, 16)
             #[kernel] pub unsafe fn k(a: &[f32], w: usize) { let ty = thread::thread_idx_y() as usize; let v = a[ty * w]; }";
        assert_eq!(findings("KL001", source), Vec::new());
        let file = kernel_lint_analyzer::SourceFile::new("snippet.rs", source);
        let report = kernel_lint_analyzer::analyze_source(&file, &kernel_lint_analyzer::LaunchPlan::default()).expect("parses");
        let p = report.kernels[0].accesses[0].prediction.clone().expect("global");
        assert_eq!(p.class, kernel_lint_analyzer::AccessClass::RowBroadcast);
        assert_eq!((p.sectors_per_request, p.ideal_sectors_per_request), (Some(2.0), Some(1.0)));
        assert_eq!(p.class.as_str(), "row-broadcast");
    }
}
