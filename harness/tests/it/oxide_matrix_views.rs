//! cuda-oxide matrix views read each strip element at its own address under the library's
//! once-made checks, and runtime-width tiles are checked against the slice's bound row width.

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/oxide_matrix_views.rs");

#[test]
fn strips_zips_and_runtime_tiles_are_lowered() {
    let emitted = emit_one(KERNELS);
    assert_every_kernel_lowered(&emitted);
    let dot = kernel(&emitted.program, "dot_rows");
    assert!(
        dot.contains("float* dst, unsigned long long dst_len, unsigned int dst_row_width)"),
        "{dot}"
    );
    assert!(
        dot.contains("auto lhs_m = kl::oxide_matrix_new(lhs, lhs_len, (unsigned int)(depth));"),
        "{dot}"
    );
    assert!(
        dot.contains("auto r = kl::oxide_matrix_row(lhs_m, (unsigned int)(at.row()), (unsigned int)(depth));"),
        "{dot}"
    );
    assert!(
        dot.contains("if ((r.len == c.len)) {\nauto both = kl::oxide_zip_exact(r, c);"),
        "{dot}"
    );
    assert!(
        dot.contains(
            "auto p = both.row_ptr[kl_zip_i];\nauto q = both.col_ptr[(unsigned long long)kl_zip_i * both.col_stride];"
        ),
        "{dot}"
    );
    assert!(
        dot.contains("auto out = kl::oxide_runtime_tile<1, 1>(dst, dst_len, dst_row_width, at);"),
        "{dot}"
    );
    assert!(
        dot.contains("(*kl::make_ref(out.ptr + (0) * ((unsigned long long)(dst_row_width)) + (0)) = acc);"),
        "{dot}"
    );
    let staged = kernel(&emitted.program, "staged_pick");
    assert!(
        staged.contains("auto c = kl::oxide_matrix_col(rhs_m, (unsigned int)(at.col()), (unsigned int)(depth));"),
        "{staged}"
    );
    assert!(
        staged.contains("auto first = kl::unwrap_or(r.get((unsigned int)(threadIdx.x)), 0.0f);"),
        "{staged}"
    );
    check_with_gxx(&emitted.program);
}
