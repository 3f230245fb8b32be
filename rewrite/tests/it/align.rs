//! Misaligned runs (KL003): the offset judged cheap to accept from the block's footprint,
//! rows padded to a multiple of 32 bytes (shown, proven by re-analysis), and the reason no
//! code is offered for an offset the kernel computes with.

use kernel_lint_analyzer::{LaunchPlan, LaunchSpec};
use kernel_lint_lints::{Applicability, Diagnostic};

use crate::support;
use support::declined;

fn checked(source: &str) -> Vec<Diagnostic> {
    checked_under(source, LaunchPlan::default())
}

fn checked_under(source: &str, plan: LaunchPlan) -> Vec<Diagnostic> {
    let mut diagnostics = support::rewritten_under(source, &plan);
    diagnostics.retain(|d| d.code == "KL003");
    diagnostics
}

#[test]
fn an_offset_shared_by_the_blocks_warps_is_cheap_to_accept() {
    let found = checked(
        "// kernel-lint: block(256)
#[kernel]
pub unsafe fn shift(a: &[f32], out: *mut f32) {
    let i = thread::index_1d() as usize;
    *out.add(i) = a[i + 1];
}
",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].fixes.is_empty());
    // Each warp touches 5 sectors where 4 would do, but the block's 8 warps share the
    // sectors between them: 33 sectors where 32 would do.
    assert_eq!(
        declined(&found[0]),
        vec!["the block's warps share the straddled sectors: it moves 1056 bytes where 1024 would do (+3.1%); accepting the offset is cheap"]
    );
}

#[test]
fn a_constant_offset_in_a_block_of_one_warp_is_not_rewritten() {
    // One warp per block: nothing shares the straddled sector (5 sectors where 4 would do).
    let found = checked(
        "// kernel-lint: block(32)
#[kernel]
pub unsafe fn shift(a: &[f32], out: *mut f32) {
    let i = thread::index_1d() as usize;
    *out.add(i) = a[i + 1];
}
",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(found[0].fixes.is_empty());
    assert_eq!(
        declined(&found[0]),
        vec!["the offset 1 is part of what the kernel computes: no rewrite of the kernel aligns the run without reading other elements (the host can, by placing `a` so that `a[1]` starts a 32-byte sector)"]
    );
}

#[test]
fn a_runtime_offset_names_the_condition_the_host_can_keep() {
    // The seed's `read_offset`, without a launch: no footprint, so no judgement of the cost.
    let found = checked(
        "#[kernel]
pub unsafe fn read_offset(a: &[f32], c: *mut f32, n: u32, offset: u32) {
    let i = thread::index_1d();
    let k = i + offset;
    if k < n {
        *c.add(i as usize) = a[k as usize];
    }
}
",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        declined(&found[0]),
        vec!["the offset `offset` is part of what the kernel computes: no rewrite of the kernel aligns the run without reading other elements (the host can keep offset % 8 == 0, or place `a` so that the element at the offset starts a 32-byte sector)"]
    );
}

const ROWS: &str = "// kernel-lint: block(32, 8)
#[kernel]
pub unsafe fn scale(img: &[f32], out: *mut f32) {
    let x = (thread::block_idx_x() * 32 + thread::thread_idx_x()) as usize;
    let y = (thread::block_idx_y() * 8 + thread::thread_idx_y()) as usize;
    let v = img[y * 100 + x];
    *out.add(y * 128 + x) = v * img[y * 100 + x + 32];
}
";

#[test]
fn rows_of_100_floats_are_padded_to_104() {
    let found = checked(ROWS);
    assert_eq!(found.len(), 2, "{found:#?}");
    let fix = &found[0].fixes[0];
    assert_eq!(
        fix.title,
        "pad the rows of `img` to 104 elements (416 bytes, a multiple of 32) instead of 100 (400 bytes)"
    );
    assert_eq!(fix.applicability, Applicability::DisplayOnly);
    let edits: Vec<&str> = fix.edits.iter().map(|e| e.replacement.as_str()).collect();
    // Every index of `img` walks the same rows: all of them change together.
    assert_eq!(edits, vec!["img[y * 104 + x]", "img[y * 104 + x + 32]"]);
    let gain = fix.gain.as_ref().expect("re-analyzed");
    // A warp reads 128 bytes of one row; rows 400 bytes apart start on and off a sector
    // boundary in turn (4 and 5 sectors), 416 bytes apart always on one.
    assert_eq!((gain.sectors_before, gain.sectors_after), (4.5, 4.0));
    // The block's 8 rows touch 36 sectors where 32 would do: the straddled sectors are not
    // shared, each row has its own.
    assert_eq!(
        (gain.dram_bytes_before, gain.dram_bytes_after),
        (Some(1152), Some(1024))
    );
    assert_eq!(
        fix.follow_up,
        vec!["the host must allocate `img` with a pitch of 104 elements per row, leave the last 4 of each row unused, and copy the rows in at that pitch"]
    );
    assert_eq!(found[1].fixes[0].title, fix.title);
}

#[test]
fn padding_is_declined_when_the_array_is_also_read_flat() {
    let source = ROWS.replace("v * img[y * 100 + x + 32]", "v * img[x]");
    let found = checked(&source);
    let on_rows = found
        .iter()
        .find(|d| d.message.contains("img[y * 100 + x]"))
        .expect("the finding on the rows");
    assert!(on_rows.fixes.is_empty());
    assert_eq!(
        declined(on_rows),
        vec!["`img` is also indexed as `img[x]`, which does not walk rows of 100 elements: padded rows would move its elements"]
    );
}

#[test]
fn a_row_length_computed_outside_the_index_is_not_padded() {
    let source = ROWS
        .replace(
            "let v = img[y * 100 + x];",
            "let at = y * 100 + x;\n    let v = img[at];",
        )
        .replace("v * img[y * 100 + x + 32]", "v");
    let found = checked(&source);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(
        declined(&found[0]),
        vec!["the row length 100 is written outside the index `at` (in a `let`): the rewrite pads row lengths written in the index"]
    );
}

#[test]
fn rows_as_long_as_a_parameter_get_a_pitch_of_their_own() {
    // `w` also bounds the columns, so the padded pitch is a parameter of its own.
    let source = "#[kernel]
pub unsafe fn scale(img: &[f32], out: *mut f32, w: usize) {
    let x = (thread::block_idx_x() * 32 + thread::thread_idx_x()) as usize;
    let y = (thread::block_idx_y() * 8 + thread::thread_idx_y()) as usize;
    if x < w {
        *out.add(y * 128 + x) = img[y * w + x];
    }
}
";
    let plan = LaunchPlan {
        specs: vec![LaunchSpec {
            kernel: "scale".into(),
            block: Some([32, 8, 1]),
            params: [("w".to_string(), 100)].into_iter().collect(),
            ..Default::default()
        }],
    };
    let found = checked_under(source, plan);
    assert_eq!(found.len(), 1, "{found:#?}");
    let fix = &found[0].fixes[0];
    assert_eq!(
        fix.title,
        "index the rows of `img` by a pitch of their own, `img_pitch`, padded to a multiple of 8 elements (32 bytes)"
    );
    assert_eq!(fix.applicability, Applicability::DisplayOnly);
    let edits: Vec<&str> = fix.edits.iter().map(|e| e.replacement.as_str()).collect();
    assert_eq!(edits, vec![", img_pitch: usize", "img[y * img_pitch + x]"]);
    let gain = fix.gain.as_ref().expect("re-analyzed");
    assert_eq!((gain.sectors_before, gain.sectors_after), (4.5, 4.0));
    assert_eq!(
        (gain.dram_bytes_before, gain.dram_bytes_after),
        (Some(1152), Some(1024))
    );
    assert_eq!(
        fix.follow_up,
        vec!["the host must allocate `img` with a pitch that is a multiple of 8 elements (104 for `w` = 100: 416 bytes a row instead of 400), copy the rows in at that pitch, and pass it as `img_pitch`"]
    );
}

#[test]
fn rows_narrower_than_a_sector_are_named_as_the_cause() {
    let found = checked(
        "// kernel-lint: block(16, 8)
#[kernel]
pub unsafe fn narrow(src: &[u8], out: *mut u8, pitch: usize) {
    let x = thread::thread_idx_x() as usize;
    let y = thread::thread_idx_y() as usize;
    *out.add(y * 32 + x) = src[y * pitch + x];
}
",
    );
    assert_eq!(found.len(), 2, "{found:#?}");
    for d in &found {
        assert!(d.fixes.is_empty());
        assert_eq!(
            declined(d),
            vec!["each warp holds 2 rows of the block, 16 bytes each, and each row starts a sector of its own: no rewrite of the index aligns them (a block 32 threads wide would fill a sector per row)"],
            "{}",
            d.message
        );
    }
}
