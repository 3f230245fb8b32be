// Kernels in the shape of NVlabs/cuda-oxide (a105afd522b73a6712a802e30bd900cd04cc8019),
// crates/rustc-codegen-cuda/examples/{future_apis,disjoint_from_raw_parts}: register lanes of a
// `CuSimd` read by index and by name, and a runtime-width slice rebuilt from its raw parts.

use cuda_device::cusimd::CuSimd;
use cuda_device::{device, kernel, thread, DisjointSlice, LinearTiles, RowMajorTiles, Runtime2DIndex};

#[kernel]
pub fn pick_lanes(mut out: DisjointSlice<f32>) {
    let idx = thread::index_1d();
    let t = idx.get();
    let quad = CuSimd::<f32, 4>::new([0.5, 1.5, 2.5, 3.5]);
    let pair = CuSimd::<f32, 2>::new([4.0, 8.0]);
    let (a, b) = pair.xy();
    let lanes = quad.to_array();
    let v = quad[t % 4] + quad.at(t % 2) + quad.x() + quad.w() + quad.get::<2>() + lanes[1] + a * b;
    if let Some(slot) = out.get_mut(idx) {
        *slot = v;
    }
}

#[kernel]
pub fn pick_words(mut out: DisjointSlice<u32>) {
    let idx = thread::index_1d();
    let words = CuSimd::<u32, 4>::new([3, 5, 7, 9]);
    let w = words[idx.get() % 4];
    if let Some(slot) = out.get_mut(idx) {
        *slot = w;
    }
}

#[device]
fn double_cell<'a>(grid: &mut DisjointSlice<'a, f32, Runtime2DIndex>) {
    let Some(at) = thread::index_2d_runtime(grid) else {
        return;
    };
    if let Some(v) = grid.get_mut(at) {
        *v *= 2.0;
    }
}

#[kernel]
pub unsafe fn double_raw_grid(ptr: *mut f32, len: usize, width: u32) {
    let mut grid = unsafe { DisjointSlice::from_raw_parts_with_space(ptr, len, width) };
    double_cell(&mut grid);
}

#[kernel(launch_context = lc)]
pub fn bump_element(mut vals: DisjointSlice<u32>) {
    let i = thread::index_1d_u32(lc);
    if let Some(mut e) = vals.element_thread32(i) {
        let v = e.read();
        e.write(v.wrapping_mul(5));
    }
}

#[kernel(launch_context = lc)]
pub fn bump_quad(mut vals: DisjointSlice<u32, LinearTiles<4>>) {
    let i = thread::index_1d_u32(lc);
    if let Some(mut quad) = vals.tile_thread32(i) {
        let first = quad.at_const::<0>().read();
        quad.at_const::<3>().write(first.wrapping_add(7));
    }
}

#[kernel(launch_context = lc)]
pub fn shift_pairs(mut vals: DisjointSlice<f32, RowMajorTiles<1, 2, 64>>) {
    let at = thread::coord_2d_u32(lc);
    if let Some(mut pair) = vals.tile_2d32(at) {
        let left = pair.at_const::<0, 0>().read();
        pair.at_const::<0, 1>().write(left - 1.0);
    }
}

#[kernel]
pub fn pick_from_slice(mut out: DisjointSlice<f64>) {
    let idx = thread::index_1d();
    let i = idx.get();
    if let Some(slot) = out.get_mut(idx) {
        let lanes = [1., 2., 3.].as_slice();
        *slot = lanes[i % 3];
    }
}
