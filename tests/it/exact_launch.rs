//! Exact counts under a concrete launch: with the grid known, every block (or a weighted
//! sample that keeps the edges) and every iteration of a bounded loop is counted, guards are
//! evaluated lane by lane with the block and iteration values, and a warp none of whose lanes
//! runs an access makes no request (what Nsight Compute counts for code that branches around
//! it). Without a grid, one representative block is used and the figure says so by being the
//! whole-warp one.

use kernel_lint_analyzer::{analyze_source, LaunchPlan, LaunchSpec, Op, Prediction, SourceFile};
use std::collections::BTreeMap;

const KERNELS: &str = r#"
use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn scale_tail(input: &[f32], out: *mut f32, n: u32) {
    let i = thread::index_1d();
    if i < n {
        *out.add(i as usize) = 2.0 * input[i as usize];
    }
}

#[kernel]
pub unsafe fn clamped_left(input: &[f32], out: *mut f32, width: u32) {
    let x = thread::index_1d();
    if x >= width {
        return;
    }
    let left = if x > 0 { x - 1 } else { 0 };
    *out.add(x as usize) = input[left as usize];
}

#[kernel]
pub unsafe fn clamped_by_assignment(input: &[f32], out: *mut f32, width: u32) {
    let x = thread::index_1d();
    let mut right = x + 1;
    if right >= width {
        right = width - 1;
    }
    *out.add(x as usize) = input[right as usize];
}

#[kernel]
pub unsafe fn halving(data: *mut f32) {
    let tid = thread::thread_idx_x();
    let mut stride = thread::block_dim_x() / 2;
    while stride > 0 {
        if tid < stride {
            *data.add(tid as usize) += *data.add((tid + stride) as usize);
        }
        stride /= 2;
    }
}

#[kernel]
pub unsafe fn masked(flags: &[u32], out: *mut f32, n: u32) {
    let i = thread::index_1d();
    if i < n && flags[i as usize] == 0 {
        *out.add(i as usize) = 1.0;
    }
}
"#;

fn launch(kernel: &str, block: [u32; 3], grid: Option<[u32; 3]>, params: &[(&str, i64)]) -> LaunchPlan {
    LaunchPlan {
        specs: vec![LaunchSpec {
            kernel: kernel.into(),
            block: Some(block),
            grid,
            params: params
                .iter()
                .map(|(n, v)| (n.to_string(), *v))
                .collect::<BTreeMap<_, _>>(),
            ..Default::default()
        }],
    }
}

fn predict(plan: &LaunchPlan, kernel: &str, array: &str, op: Op) -> Prediction {
    let report = analyze_source(&SourceFile::new("k.rs", KERNELS), plan).expect("parses");
    let found = report
        .kernels
        .iter()
        .find(|k| k.name == kernel)
        .unwrap_or_else(|| panic!("kernel `{kernel}` not found"));
    found
        .accesses
        .iter()
        .find(|a| a.array == array && a.op == op)
        .and_then(|a| a.prediction.clone())
        .unwrap_or_else(|| panic!("no global {op:?} of `{array}` in `{kernel}`"))
}

#[test]
fn the_partial_last_block_counts_under_a_known_grid() {
    // 1000 elements in 4 blocks of 256: 31 full warps of 4 sectors and one of 8 lanes (1).
    let grid = launch("scale_tail", [256, 1, 1], Some([4, 1, 1]), &[("n", 1000)]);
    assert_eq!(
        predict(&grid, "scale_tail", "out", Op::Store).sectors_per_request,
        Some(3.91)
    );
    // Without the grid, a representative block: every warp full.
    let no_grid = launch("scale_tail", [256, 1, 1], None, &[("n", 1000)]);
    assert_eq!(
        predict(&no_grid, "scale_tail", "out", Op::Store).sectors_per_request,
        Some(4.0)
    );
}

#[test]
fn a_value_chosen_by_a_condition_is_followed_lane_by_lane() {
    // 1000-wide row, blocks of 32: warp 0 reads 0,0,1..30 (4 sectors), warps 1..30 straddle
    // (5), the last one reads 991..998 (2): 156 / 32.
    let plan = launch("clamped_left", [32, 1, 1], Some([32, 1, 1]), &[("width", 1000)]);
    let p = predict(&plan, "clamped_left", "input", Op::Load);
    assert_eq!(p.sectors_per_request, Some(4.88));
    assert!(p.assumptions.is_empty(), "{:?}", p.assumptions);
    // The same clamp written as an assignment under `if`: lanes 1..31 of warp 0 and the rest
    // read one to the right; the last lane of the row is clamped onto its neighbour.
    let plan = launch(
        "clamped_by_assignment",
        [32, 1, 1],
        Some([32, 1, 1]),
        &[("width", 1024)],
    );
    assert_eq!(
        predict(&plan, "clamped_by_assignment", "input", Op::Load).sectors_per_request,
        Some(4.97)
    );
}

#[test]
fn a_halving_stride_shrinks_the_active_lanes_per_iteration() {
    // Block 256: strides 128, 64, 32, 16, 8, 4, 2, 1 run 4, 2, 1, 1, 1, 1, 1, 1 warps that
    // touch 16, 8, 4, 2, 1, 1, 1, 1 sectors: 34 / 12.
    let plan = launch("halving", [256, 1, 1], Some([1, 1, 1]), &[]);
    assert_eq!(
        predict(&plan, "halving", "data", Op::Store).sectors_per_request,
        Some(2.83)
    );
}

#[test]
fn lanes_masked_by_data_give_an_upper_bound() {
    let plan = launch("masked", [256, 1, 1], Some([40, 1, 1]), &[("n", 10000)]);
    let p = predict(&plan, "masked", "out", Op::Store);
    assert_eq!(p.sectors_per_request, Some(3.99));
    assert!(p.upper_bound);
    assert_eq!(
        p.assumptions,
        vec!["the lanes that run it are masked by data (`flags[i as usize]`): the figure counts every lane, so each request touches at most that many sectors"]
    );
    // The flag itself is read only where `i < n`: the short circuit guards it.
    let flags = predict(&plan, "masked", "flags", Op::Load);
    assert_eq!(flags.sectors_per_request, Some(3.99));
    assert!(!flags.upper_bound);
}
