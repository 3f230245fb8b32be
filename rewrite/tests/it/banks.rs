//! The padding and swizzle rewrites of shared-memory bank conflicts, proven by re-analysis.

use kernel_lint_lints::{Applicability, Diagnostic, GainUnit};

use crate::support;
use support::{declined, rewritten};

/// The bank-conflict findings of a source.
fn conflicts(source: &str) -> Vec<Diagnostic> {
    rewritten(source).into_iter().filter(|d| d.code == "KL009").collect()
}

/// The source with every edit of a fix applied.
fn applied(source: &str, d: &Diagnostic, fix: usize) -> String {
    let mut edits: Vec<_> = d.fixes[fix].edits.iter().collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
    let mut text = source.to_string();
    for e in edits {
        text.replace_range(e.span.start..e.span.end, &e.replacement);
    }
    text
}

const STATIC_TILE: &str = "use core::mem::MaybeUninit;
use cuda_std::prelude::*;
use cuda_std::{address_space, thread};

// kernel-lint: block(32, 32)
#[kernel]
pub unsafe fn column(input: &[f32], out: *mut f32) {
    #[address_space(shared)]
    static mut TILE: [[MaybeUninit<f32>; 32]; 32] = [[MaybeUninit::uninit(); 32]; 32];
    let tx = thread::thread_idx_x() as usize;
    let ty = thread::thread_idx_y() as usize;
    TILE[ty][tx].write(input[ty * 32 + tx]);
    thread::sync_threads();
    *out.add(ty * 32 + tx) = TILE[tx][ty].assume_init();
}
";

#[test]
fn a_two_dimensional_tile_gets_rows_of_33() {
    let found = conflicts(STATIC_TILE);
    assert_eq!(found.len(), 1);
    let d = &found[0];
    assert_eq!(d.fixes.len(), 1, "{:#?}", d.notes);
    let fix = &d.fixes[0];
    assert_eq!(
        fix.title,
        "pad the rows of `TILE` to 33 elements, so that a column spreads over the banks (32 more elements of shared memory per block)"
    );
    assert_eq!(fix.applicability, Applicability::Unsafe);
    let gain = fix.gain.as_ref().expect("re-analyzed");
    assert_eq!(gain.unit, GainUnit::Wavefronts);
    assert_eq!((gain.sectors_before, gain.sectors_after), (32.0, 1.0));
    assert!(applied(STATIC_TILE, d, 0)
        .contains("static mut TILE: [[MaybeUninit<f32>; 33]; 32] = [[MaybeUninit::uninit(); 33]; 32];"));
}

const FLAT_TILE: &str = "use cuda_std::prelude::*;
use cuda_std::{shared_array, thread};

// kernel-lint: block(32, 32)
#[kernel]
pub unsafe fn flat(input: &[f64], out: *mut f64) {
    let tile = shared_array![f64; 32 * 32];
    let tx = thread::thread_idx_x() as usize;
    let ty = thread::thread_idx_y() as usize;
    *tile.add(ty * 32 + tx) = input[ty * 32 + tx];
    thread::sync_threads();
    *out.add(ty * 32 + tx) = *tile.add(tx * 32 + ty);
}
";

#[test]
fn a_flat_tile_gets_a_row_stride_of_33_in_its_size_and_every_index() {
    let found = conflicts(FLAT_TILE);
    assert_eq!(found.len(), 1);
    let d = &found[0];
    assert_eq!(
        d.message,
        "bank conflict on `tile[tx * 32 + ty]` (16-way): 32 wavefronts per request where 2 would do"
    );
    let gain = d.fixes[0].gain.as_ref().expect("re-analyzed");
    assert_eq!((gain.sectors_before, gain.sectors_after), (32.0, 2.0));
    let text = applied(FLAT_TILE, d, 0);
    assert!(text.contains("shared_array![f64; 32 * 33]"), "{text}");
    assert!(
        text.contains("*tile.add(ty * 33 + tx) = input[ty * 32 + tx];"),
        "{text}"
    );
    assert!(text.contains("*tile.add(tx * 33 + ty);"), "{text}");
}

const DYNAMIC_TILE: &str = "use cuda_std::prelude::*;
use cuda_std::{shared, thread};

// kernel-lint: block(32, 32)
#[kernel]
pub unsafe fn dynamic(input: &[f32], out: *mut f32) {
    let tile = shared::dynamic_shared_mem::<f32>();
    let tx = thread::thread_idx_x() as usize;
    let ty = thread::thread_idx_y() as usize;
    *tile.add(ty * 32 + tx) = input[ty * 32 + tx];
    thread::sync_threads();
    *out.add(ty * 32 + tx) = *tile.add(tx * 32 + ty);
}
";

#[test]
fn dynamic_shared_memory_is_swizzled_since_its_size_is_the_hosts() {
    let found = conflicts(DYNAMIC_TILE);
    assert_eq!(found.len(), 1);
    let d = &found[0];
    assert_eq!(d.fixes.len(), 1, "{:#?}", d.notes);
    let fix = &d.fixes[0];
    assert_eq!(
        fix.title,
        "swizzle the columns of `tile` with the rows (`col ^ row` at every index), so that a column spreads over the banks"
    );
    let gain = fix.gain.as_ref().expect("re-analyzed");
    assert_eq!((gain.sectors_before, gain.sectors_after), (32.0, 1.0));
    let text = applied(DYNAMIC_TILE, d, 0);
    assert!(
        text.contains("*tile.add(ty * 32 + (tx ^ ty)) = input[ty * 32 + tx];"),
        "{text}"
    );
    assert!(text.contains("*tile.add(tx * 32 + (ty ^ tx));"), "{text}");
}

#[test]
fn a_tile_used_otherwise_is_not_rewritten_and_says_why() {
    let source = STATIC_TILE.replace(
        "thread::sync_threads();",
        "thread::sync_threads();\n    let whole = &TILE;",
    );
    let found = conflicts(&source);
    assert_eq!(found.len(), 1);
    assert!(found[0].fixes.is_empty());
    assert_eq!(
        declined(&found[0]),
        ["`TILE` is also used as `TILE`: every use of the tile must be an index to rewrite it"]
    );
}
