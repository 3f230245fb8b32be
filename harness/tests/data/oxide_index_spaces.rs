// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/cuda-device/src/{thread,disjoint,view}.rs; examples gemm, row_width_slice,
// thread_runs), written for the lowering tests of index spaces.

use cuda_device::thread::Runtime2DIndex;
use cuda_device::view::LinearTiles;
use cuda_device::{kernel, thread, DisjointSlice};

const RUN: usize = 4;

// Two types of the workspace with a `get_mut` of their own: a slice's is neither.
struct Grid {
    cells: [f32; 4],
}

impl Grid {
    fn get_mut(&mut self, i: usize) -> &mut f32 {
        &mut self.cells[i]
    }
}

struct Table {
    rows: [u32; 4],
}

impl Table {
    fn get_mut(&mut self, i: usize) -> &mut u32 {
        &mut self.rows[i]
    }
}

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn matvec_rows(k: u32, a: &[f32], x: &[f32], mut y: DisjointSlice<f32, Runtime2DIndex>) {
        let row = thread::index_2d_row();
        let width = y.row_width();
        if let Some(at) = thread::index_2d_runtime(&y) {
            if let Some(out) = y.get_mut(at) {
                let mut sum = 0.0f32;
                let mut i = 0usize;
                while i < k as usize {
                    sum += a[row * k as usize + i] * x[i];
                    i += 1;
                }
                *out = sum + width as f32;
            }
        }
    }

    #[kernel]
    pub fn pick_cell(src: &[u32], mut dst: DisjointSlice<u32, Runtime2DIndex>) {
        let w = thread::index_2d_runtime(&dst);
        let i = thread::index_1d();
        if let (Some(w), Some(v)) = (w, src.get(i.get())) {
            if let Some(cell) = dst.get_mut(w) {
                *cell = *v;
            }
        }
    }

    #[kernel(launch_context = launch_context)]
    #[launch_contract(domain = 1, coordinates = u32, block = (64, 1, 1))]
    pub unsafe fn runs_raw(mut data: DisjointSlice<f32, LinearTiles<RUN>>) {
        let t = thread::index_1d_u32(launch_context);
        let base = t.get() as usize * RUN;
        let len = data.len();
        let mut k = 0usize;
        while k < RUN {
            if base + k < len {
                unsafe {
                    let slot = data.get_unchecked_mut(base + k);
                    *slot *= 2.0;
                }
            }
            k += 1;
        }
    }

    #[kernel]
    pub fn fill_rows(mut out: DisjointSlice<[f32; 4]>) {
        let idx = thread::index_1d();
        let row = match out.get_mut(idx) {
            Some(row) => row,
            None => return,
        };
        for i in 0..4 {
            row[i] = i as f32;
        }
    }
}
