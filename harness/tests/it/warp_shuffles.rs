//! cuda_std's warp shuffles (`warp::warp_shuffle_xor` and kin) lower to the CUDA shuffle
//! intrinsics, keeping the `(value, active)` pair the Rust functions return.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

/// A warp per row: the lanes walk the row's columns and combine their sums by shuffles.
const ROW_SUMS: &str = r#"use cuda_std::prelude::*;
use cuda_std::{thread, warp};

#[kernel]
pub unsafe fn row_sums(m: &[f32], sums: *mut f32, rows: u32, cols: u32) {
    let tid = thread::thread_idx_x() + thread::block_idx_x() * thread::block_dim_x();
    let row = tid / 32;
    let lane = tid % 32;
    if row < rows {
        let mut s = 0.0f32;
        let mut col = lane;
        while col < cols {
            s += m[(row * cols + col) as usize];
            col += 32;
        }
        let mut offset = 16;
        while offset > 0 {
            s += warp::warp_shuffle_xor(u32::MAX, s, offset, 32).0;
            offset /= 2;
        }
        let (first, _) = warp::warp_shuffle_down(u32::MAX, s, 0, 32);
        if lane == 0 {
            *sums.add(row as usize) = first;
        }
    }
}

#[kernel]
pub unsafe fn row_sums_unrolled(m: &[f32], sums: *mut f32, rows: u32, cols: u32) {
    let tid = thread::thread_idx_x() + thread::block_idx_x() * thread::block_dim_x();
    let (row, lane) = (tid / 32, tid % 32);
    if row < rows {
        let mut s = 0.0f32;
        for col in (lane..cols).step_by(32) {
            s += m[(row * cols + col) as usize];
        }
        for offset in [16, 8, 4, 2, 1] {
            s += cuda_std::warp::warp_shuffle_xor(u32::MAX, s, offset, 32).0;
        }
        if lane == 0 {
            *sums.add(row as usize) = s;
        }
    }
}
"#;

#[test]
fn shuffles_are_the_cuda_intrinsics_with_their_active_flag() {
    let emitted = driver::emit(&[SourceFile::new("k.rs", ROW_SUMS)], &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let body = kernel(&emitted.program, "row_sums");
    assert!(
        body.contains(
            "kl::warp_shuffle_xor((unsigned int)(4294967295u), s, (unsigned int)(offset), (unsigned int)(32))._0"
        ),
        "{body}"
    );
    assert!(
        body.contains("kl::warp_shuffle_down((unsigned int)(4294967295u), s, (unsigned int)(0), (unsigned int)(32))"),
        "{body}"
    );
    assert!(emitted
        .program
        .contains("return {__shfl_xor_sync(mask, v, (int)m, (int)w), true};"));
    check_with_gxx(&emitted.program);
}

#[test]
fn an_array_written_in_place_is_iterated_in_order() {
    let emitted = driver::emit(&[SourceFile::new("k.rs", ROW_SUMS)], &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let body = kernel(&emitted.program, "row_sums_unrolled");
    assert!(body.contains("const decltype(16) kl_values_"), "{body}");
    assert!(body.contains("[] = {16, 8, 4, 2, 1};"), "{body}");
    assert!(body.contains("ull; ++kl_i_"), "{body}");
    check_with_gxx(&emitted.program);
}
