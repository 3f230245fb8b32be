//! A launch whose planned work would outlast the profiler's replays runs on fewer blocks, with a
//! note; the predictions are those of the launch made.

use crate::support;
use support::{assert_every_kernel_lowered, emit_one};

const KERNELS: &str = r#"
use cuda_std::prelude::*;

#[kernel]
pub unsafe fn row_sums(n: usize, input: *const f32, out: *mut f32) {
    let i = thread::index_1d() as usize;
    let mut sum = 0.0f32;
    for j in 0..n {
        sum += *input.add(j);
    }
    *out.add(i) = sum;
}

#[kernel]
pub unsafe fn scale(x: *mut f32) {
    let i = thread::index_1d() as usize;
    *x.add(i) *= 2.0;
}
"#;

#[test]
fn a_launch_of_too_much_work_runs_on_fewer_blocks() {
    let emitted = emit_one(KERNELS);
    assert_every_kernel_lowered(&emitted);
    let sums = emitted
        .manifest
        .launches
        .iter()
        .find(|l| l.kernel == "row_sums")
        .expect("launched");
    // 1048576 iterations a warp: 16 blocks of 8 warps keep within 2^28 requests (32 would pass it by the store).
    assert_eq!(sums.grid, [16, 1, 1]);
    assert_eq!(sums.params["n"], 1 << 20);
    assert_eq!(
        sums.notes,
        ["launched on grid [16, 1, 1] rather than [4096, 1, 1]: its 3.436e10 requests would outlast the profiler's replays (at most 2.684e8 a launch)"]
    );
    let load = sums.accesses.iter().find(|a| a.op == "load").expect("the loop's load");
    assert_eq!(load.executions_per_warp, Some(1048576.0));
    assert_eq!(sums.predicted_sectors, Some(16.0 * 8.0 * (1048576.0 + 4.0)));
    assert!(
        emitted
            .program
            .contains("row_sums<<<dim3(16u, 1u, 1u), dim3(256u, 1u, 1u)>>>((unsigned long long)1048576ll"),
        "{}",
        emitted.program
    );
    // A light launch keeps its grid.
    let light = emitted
        .manifest
        .launches
        .iter()
        .find(|l| l.kernel == "scale")
        .expect("launched");
    assert_eq!(light.grid, [4096, 1, 1]);
    assert!(light.notes.is_empty(), "{:?}", light.notes);
}
