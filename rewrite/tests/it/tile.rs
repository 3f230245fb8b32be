//! The tile and index-swap rewrites of transposed accesses, proven by re-analysis.

use kernel_lint_lints::Diagnostic;

use crate::support;
use support::{declined, rewritten};

/// The one transposed-access finding of a source.
fn transposed(source: &str) -> Diagnostic {
    let found: Vec<Diagnostic> = rewritten(source).into_iter().filter(|d| d.code == "KL004").collect();
    assert_eq!(found.len(), 1, "{found:#?}");
    found.into_iter().next().expect("one")
}

fn naive(block: &str, body: &str) -> String {
    format!(
        "use core::mem::MaybeUninit;
use cuda_std::prelude::*;
use cuda_std::{{address_space, thread}};

// kernel-lint: block({block})
#[kernel]
pub unsafe fn naive_transpose(input: &[f32], out: *mut f32, width: u32, height: u32) {{
{body}}}
"
    )
}

const NAIVE_BODY: &str = "    let x = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let y = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    if x >= width || y >= height {
        return;
    }
    let v = input[(y * width + x) as usize];
    *out.add((x * height + y) as usize) = v;
";

#[test]
fn a_transposed_store_goes_through_a_padded_tile() {
    let d = transposed(&naive("32, 8", NAIVE_BODY));
    assert_eq!(d.fixes.len(), 1, "{:#?}", d.fixes);
    let fix = &d.fixes[0];
    assert_eq!(
        fix.title,
        "transpose through a 32x33 shared-memory tile: `input` and `out` both a row per warp"
    );
    let gain = fix.gain.as_ref().expect("re-analyzed");
    assert_eq!((gain.sectors_before, gain.sectors_after), (32.0, 4.0));
    assert_eq!(fix.edits.len(), 1);
    assert_eq!(
        fix.edits[0].replacement,
        "#[address_space(shared)]
    static mut TILE: [[MaybeUninit<f32>; 33]; 32] = [[MaybeUninit::uninit(); 33]; 32];
    // One 32x32 tile per block, padded to 33 columns against bank conflicts.
    for j in (thread::thread_idx_y()..32).step_by(thread::block_dim_y() as usize) {
        let x = thread::block_idx_x() * 32 + thread::thread_idx_x();
        let y = thread::block_idx_y() * 32 + j;
        if x >= width || y >= height {
            continue;
        }
        TILE[j as usize][thread::thread_idx_x() as usize].write(input[(y * width + x) as usize]);
    }
    thread::sync_threads();
    for j in (thread::thread_idx_y()..32).step_by(thread::block_dim_y() as usize) {
        let x = thread::block_idx_x() * 32 + j;
        let y = thread::block_idx_y() * 32 + thread::thread_idx_x();
        if x >= width || y >= height {
            continue;
        }
        let v = TILE[thread::thread_idx_x() as usize][j as usize].assume_init();
        *out.add((x * height + y) as usize) = v;
    }"
    );
    assert_eq!(
        fix.follow_up,
        vec!["each block now covers a 32x32 tile: launch the grid as (width.div_ceil(32), height.div_ceil(32), 1) with the block kept at (32, 8, 1)"]
    );
}

#[test]
fn the_tile_needs_a_block_32_wide_and_the_swap_would_spoil_the_read() {
    let d = transposed(&naive("16, 16", NAIVE_BODY));
    assert!(d.fixes.is_empty(), "{:#?}", d.fixes);
    assert_eq!(
        declined(&d),
        vec![
            "the tile needs blocks 32 threads wide, and this launch's block is (16, 16, 1)",
            "the rewrite makes `input` worse (4 -> 16 sectors per request)",
        ]
    );
}

#[test]
fn a_block_height_that_does_not_divide_the_tile_is_declined() {
    let d = transposed(&naive("32, 6", NAIVE_BODY));
    assert_eq!(
        declined(&d)[0],
        "the tile's 32 rows are shared among the block's rows, so the block's height must divide 32, and this launch's block is (32, 6, 1)"
    );
}

#[test]
fn a_transposed_read_with_a_wrapping_guard_and_shared_array() {
    let source = "use cuda_std::prelude::*;
use cuda_std::{shared_array, thread};

// kernel-lint: block(32, 4)
#[kernel]
pub unsafe fn gather_columns(src: *const f64, dst: &mut [f64], rows: usize, cols: usize) {
    let c = (thread::block_dim_x() * thread::block_idx_x() + thread::thread_idx_x()) as usize;
    let r = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    if c < cols && r < rows {
        dst[r * cols + c] = 2.0 * *src.add(c * rows + r);
    }
}
";
    let d = transposed(source);
    let fix = &d.fixes[0];
    let gain = fix.gain.as_ref().expect("re-analyzed");
    assert_eq!((gain.sectors_before, gain.sectors_after), (32.0, 8.0));
    let text = &fix.edits[0].replacement;
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for line in [
        "let tile = shared_array![f64; 32 * 33];",
        "let c = (32 * thread::block_idx_x() + j) as usize;",
        "let r = (thread::block_idx_y() * 32 + thread::thread_idx_x()) as usize;",
        "*tile.add(thread::thread_idx_x() as usize * 33 + j as usize) = *src.add(c * rows + r);",
        "thread::sync_threads();",
        "let c = (32 * thread::block_idx_x() + thread::thread_idx_x()) as usize;",
        "let r = (thread::block_idx_y() * 32 + j) as usize;",
        "if c < cols && r < rows {",
        "dst[r * cols + c] = 2.0 * *tile.add(j as usize * 33 + thread::thread_idx_x() as usize);",
    ] {
        assert!(lines.contains(&line), "no `{line}` in\n{text}");
    }
    assert_eq!(
        fix.follow_up,
        vec!["each block now covers a 32x32 tile: launch the grid as (cols.div_ceil(32), rows.div_ceil(32), 1) with the block kept at (32, 4, 1)"]
    );
}

#[test]
fn a_store_computed_from_the_indices_only_swaps_them() {
    let d = transposed(&naive(
        "32, 8",
        "    let x = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let y = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    if x < width && y < height {
        *out.add((x * height + y) as usize) = y as f32;
    }
",
    ));
    assert_eq!(d.fixes.len(), 1, "{:#?}", d.fixes);
    let fix = &d.fixes[0];
    assert_eq!(
        fix.title,
        "swap the thread indices: `x` from the y threads, `y` from the x threads"
    );
    let gain = fix.gain.as_ref().expect("re-analyzed");
    assert_eq!((gain.sectors_before, gain.sectors_after), (32.0, 4.0));
    let edits: Vec<&str> = fix.edits.iter().map(|e| e.replacement.as_str()).collect();
    assert_eq!(
        edits,
        vec![
            "block_idx_y",
            "block_dim_y",
            "thread_idx_y",
            "block_idx_x",
            "block_dim_x",
            "thread_idx_x",
            "*out.add((x * height + y) as usize)",
        ]
    );
    assert_eq!(
        fix.follow_up,
        vec!["`x` now runs over the grid's y dimension and `y` over its x dimension: keep the block (32, 8, 1) and launch the grid as (height.div_ceil(32), width.div_ceil(8), 1)"]
    );
}

#[test]
fn shapes_the_tile_does_not_follow_are_declined_with_the_reason() {
    let extra = transposed(&naive(
        "32, 8",
        "    let x = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let y = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    if x >= width || y >= height {
        return;
    }
    let v = input[(y * width + x) as usize];
    let w = v * v;
    *out.add((x * height + y) as usize) = w;
",
    ));
    assert_eq!(
        declined(&extra)[0],
        "the tile rewrite does not follow `let v = input[(y * width + x) as usize];`, a statement besides the copy from one array to the other"
    );
    // Read ahead, the tile would read what the kernel reads only on a condition.
    let conditional = transposed(&naive(
        "32, 8",
        "    let x = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let y = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    if x < width && y < height {
        *out.add((x * height + y) as usize) = if y < width { input[(y * width + x) as usize] } else { 0.0 };
    }
",
    ));
    assert_eq!(
        declined(&conditional)[0],
        "`input` is read only on a condition inside the value, so the tile cannot read it ahead"
    );
    // One row per block: `y` has no thread index to hand to the lanes.
    let row_per_block = transposed(&naive(
        "32, 8",
        "    let x = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let y = thread::block_idx_y();
    if x < width && y < height {
        *out.add((x * height + y) as usize) = input[(y * width + x) as usize];
    }
",
    ));
    assert_eq!(
        declined(&row_per_block),
        vec!["the kernel's y index is not written as `block_idx_y() * block_dim_y() + thread_idx_y()`, the form the rewrite re-derives for each phase"]
    );
}

#[test]
fn a_transposed_access_inside_a_loop_is_left_to_the_loop_interchange() {
    let d = transposed(
        "use cuda_std::prelude::*;
#[kernel]
pub unsafe fn s(m: &[f32], out: *mut f32, cols: u32) {
    let row = thread::index_1d();
    let mut acc = 0.0;
    for col in 0..cols {
        acc += m[(row * cols + col) as usize];
    }
    *out.add(row as usize) = acc;
}
",
    );
    assert!(d.fixes.is_empty());
    // The tile drafts nothing; the reason said is the loop rewrite's.
    assert_eq!(
        declined(&d),
        vec!["no bound on `row` is checked before the loop (`if row < rows { .. }` or `if row >= rows { return; }`)"]
    );
}

#[test]
fn names_the_kernel_uses_are_not_reused() {
    let d = transposed(&naive(
        "32, 8",
        "    let x = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let y = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    if x < width && y < height {
        let j = *input.get_unchecked((y * width + x) as usize);
        *out.add((x * height + y) as usize) = j * 2.0;
    }
",
    ));
    let fix = &d.fixes[0];
    let gain = fix.gain.as_ref().expect("re-analyzed");
    assert_eq!((gain.sectors_before, gain.sectors_after), (32.0, 4.0));
    let text = &fix.edits[0].replacement;
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    for line in [
        "for j2 in (thread::thread_idx_y()..32).step_by(thread::block_dim_y() as usize) {",
        "TILE[j2 as usize][thread::thread_idx_x() as usize].write(*input.get_unchecked((y * width + x) as usize));",
        "let j = TILE[thread::thread_idx_x() as usize][j2 as usize].assume_init();",
        "*out.add((x * height + y) as usize) = j * 2.0;",
    ] {
        assert!(lines.contains(&line), "no `{line}` in\n{text}");
    }
}

#[test]
fn other_dialects_are_declined_by_name() {
    let oxide = rewritten(include_str!("../../../fixtures/dialects/cuda_oxide.rs"));
    let d = oxide.iter().find(|d| d.code == "KL004").expect("the transposed read");
    assert_eq!(
        declined(d),
        vec!["the kernel is written for cuda-oxide, whose thread indices (`index_2d`) and shared memory (`SharedArray`) the rewrite does not write"]
    );
    let nvptx = transposed(
        "use core::arch::nvptx::*;
// kernel-lint: block(32, 8)
#[no_mangle]
pub unsafe extern \"ptx-kernel\" fn t(src: *const f32, dst: *mut f32, w: usize, h: usize) {
    let x = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    let y = (_block_idx_y() * _block_dim_y() + _thread_idx_y()) as usize;
    if x < w && y < h {
        *dst.add(x * h + y) = *src.add(y * w + x);
    }
}
",
    );
    assert_eq!(
        declined(&nvptx),
        vec![
            "the kernel is written for `extern \"ptx-kernel\"` with core::arch::nvptx: the tile is written in cuda_std's shared memory only (`#[address_space(shared)]` statics or `shared_array!`)",
            "the rewrite makes `src` worse (4 -> 32 sectors per request)",
        ]
    );
}
