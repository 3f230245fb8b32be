// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (examples shared_slice_unsize, slice_get_mut, array_constants, generated_intrinsics),
// written for the tests of what nvcc requires of the lowered program.

use cuda_device::{kernel, thread, DisjointSlice, SharedArray};

const WEIGHTS: [f32; 4] = [0.5, 1.5, 2.5, 3.5];

#[cuda_module]
mod kernels {
    use super::*;

    #[device]
    fn total(values: &[f32]) -> f32 {
        let mut acc = 0.0;
        let mut i = 0;
        while i < values.len() {
            acc += values[i];
            i += 1;
        }
        acc
    }

    #[kernel]
    pub fn row_total(input: &[f32], mut out: DisjointSlice<f32>) {
        static mut ROWS: SharedArray<[f32; 64], 2> = SharedArray::UNINIT;
        let i = thread::index_1d().get();
        if i < 64 {
            unsafe { ROWS[0][i] = input[i] };
        }
        thread::sync_threads();
        let row: &[f32; 64] = unsafe { &ROWS[0] };
        let sum = total(row);
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = sum;
        }
    }

    #[kernel]
    pub fn fill_rows(mut out: DisjointSlice<[f32; 4]>) {
        let idx = thread::index_1d();
        let a = match out.get_mut(idx) {
            Some(a) => a,
            None => return,
        };
        let s: &mut [f32] = a;
        for i in 0..s.len() {
            s[i] = 2.0 * i as f32;
        }
    }

    #[kernel]
    pub fn table_lengths(mut out: DisjointSlice<f32>) {
        let i = thread::index_1d().get();
        let local = [1.0f32, 2.0, 3.0];
        let v = WEIGHTS[i % WEIGHTS.len()] + local[i % local.len()];
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = v;
        }
    }
}
