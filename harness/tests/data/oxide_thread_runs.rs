// Kernels in the shape of NVlabs/cuda-oxide (a105afd522b73a6712a802e30bd900cd04cc8019),
// crates/rustc-codegen-cuda/examples/{thread_runs,row_width_slice}: run views of a slice over
// `LinearTiles`, and a runtime-width slice handed to a helper by value.

use cuda_device::{kernel, thread, DisjointSlice, LinearTiles, Runtime2DIndex, ThreadIndex};

const SPAN: usize = 8;

#[kernel(launch_context = lc)]
pub fn halve_spans(mut buf: DisjointSlice<f32, LinearTiles<SPAN>>) {
    let t = thread::index_1d_u32(lc);
    let Some(mut span) = buf.thread_run32(t) else {
        return;
    };
    for j in 0..span.len() {
        if let Some(mut cell) = span.at(j) {
            let v = cell.read();
            cell.write(v * 0.5);
        }
    }
}

#[kernel(launch_context = lc)]
pub fn bump_strided(mut buf: DisjointSlice<f32, LinearTiles<SPAN>>) {
    let t = thread::index_1d_u32(lc);
    let mut walk = buf.grid_stride_runs32(t);
    while let Some(mut span) = walk.next_run() {
        for j in 0..span.len() {
            if let Some(mut cell) = span.at(j) {
                let v = cell.read();
                cell.write(v + 3.0);
            }
        }
    }
}

#[kernel(launch_context = lc)]
pub fn mark_clipped(mut buf: DisjointSlice<f32, LinearTiles<SPAN>>, mut marks: DisjointSlice<u32>) {
    let t = thread::index_1d_u32(lc);
    let mark = match buf.thread_run32(t) {
        None => return,
        Some(span) => {
            if span.is_clipped() {
                span.len()
            } else {
                0
            }
        }
    };
    let i = thread::index_1d();
    if let Some(m) = marks.get_mut(i) {
        *m = mark;
    }
}

#[inline(never)]
fn store_width(mut grid: DisjointSlice<u32, Runtime2DIndex>, at: ThreadIndex<Runtime2DIndex>) {
    let w = grid.row_width();
    if let Some(cell) = grid.get_mut(at) {
        *cell = w;
    }
}

#[kernel]
pub fn width_through_helper(grid: DisjointSlice<u32, Runtime2DIndex>) {
    if let Some(at) = thread::index_2d_runtime(&grid) {
        store_width(grid, at);
    }
}
