//! cuda-oxide run views of `LinearTiles` slices keep the library's run bounds, and a
//! runtime-width slice handed to a helper carries its row width along.

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/oxide_thread_runs.rs");

#[test]
fn runs_and_helper_widths_are_lowered() {
    let emitted = emit_one(KERNELS);
    assert_every_kernel_lowered(&emitted);
    let halve = kernel(&emitted.program, "halve_spans");
    assert!(
        halve.contains("auto span = kl::oxide_thread_run<8>(buf, buf_len, (unsigned long long)(t));"),
        "{halve}"
    );
    assert!(
        halve.contains("if ((unsigned long long)(j) < span.count) {\nauto cell = kl::make_ref(span.ptr + (j));"),
        "{halve}"
    );
    assert!(halve.contains("(*cell = (v * 0.5f));"), "{halve}");
    let bump = kernel(&emitted.program, "bump_strided");
    assert!(
        bump.contains("auto walk = kl::oxide_grid_stride_runs<8>(buf, buf_len, (unsigned long long)(t));"),
        "{bump}"
    );
    assert!(
        bump.contains("while (true) {\nauto span = walk.next_run();\nif (span.count == 0u) break;"),
        "{bump}"
    );
    let mark = kernel(&emitted.program, "mark_clipped");
    assert!(
        mark.contains("auto mark = ((span.is_clipped()) ? (span.len()) : (0));"),
        "{mark}"
    );
    assert!(emitted.program.contains(
        "void store_width(unsigned int* grid, unsigned long long grid_len, unsigned int grid_row_width, unsigned long long at)"
    ));
    assert!(emitted
        .program
        .contains("store_width(grid, grid_len, grid_row_width, at);"));
    check_with_gxx(&emitted.program);
}
