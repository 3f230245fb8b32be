// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (examples exact_div_chunks, split_at_mut, vectorization, padded_constants), written for the lowering tests.

use cuda_device::vector::{self, F32x4, U16x8};
use cuda_device::{DisjointSlice, kernel, thread};

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn weighted_triples(samples: &[u32], mut sums: DisjointSlice<u32>) {
        let t = thread::index_1d();
        let at = t.get();
        let (triples, tail) = samples.as_chunks::<3>();
        if let Some(sum) = sums.get_mut(t) {
            if at < triples.len() {
                let q = triples[at];
                *sum = q[0] + 5 * q[2];
            } else {
                *sum = tail.len() as u32;
            }
        }
    }

    #[kernel]
    pub fn halves_offset(mut data: DisjointSlice<i32>, count: usize, cut: usize) {
        if thread::index_1d().get() == 0 {
            unsafe {
                let whole = core::slice::from_raw_parts_mut(data.as_mut_ptr(), count);
                if let Some((head, tail)) = whole.split_at_mut_checked(cut) {
                    for v in head.iter_mut() {
                        *v = v.wrapping_sub(7);
                    }
                    for v in tail.iter_mut() {
                        *v = v.wrapping_mul(3);
                    }
                } else {
                    whole[0] = -1;
                }
            }
        }
    }

    #[kernel]
    pub fn fixed_split(values: &[f32], mut out: DisjointSlice<f32>) {
        let (front, back) = values.split_at(16);
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = front[3] + back[0];
        }
    }

    #[kernel]
    pub fn quad_move(src: &[f32], mut dst: DisjointSlice<f32>) {
        let j = thread::index_1d().get();
        let n = dst.len();
        let flat = unsafe { core::slice::from_raw_parts_mut(dst.as_mut_ptr(), n) };
        let Some(from) = vector::as_vectors::<F32x4>(src) else {
            return;
        };
        if let Some(to) = vector::as_vectors_mut::<F32x4>(flat) {
            if j < from.len() && j < to.len() {
                to[j] = from[j];
            }
        }
    }

    #[kernel]
    pub fn halfword_octets(src: &[u16], mut dst: DisjointSlice<u16>) {
        let j = thread::index_1d().get();
        let n = dst.len();
        let flat = unsafe { core::slice::from_raw_parts_mut(dst.as_mut_ptr(), n) };
        let Some(from) = vector::as_vectors::<U16x8>(src) else {
            return;
        };
        let Some(to) = vector::as_vectors_mut::<U16x8>(flat) else {
            return;
        };
        if j < from.len() && j < to.len() {
            to[j] = from[j];
        }
    }

    #[inline(never)]
    fn window_end(pick: usize) -> u64 {
        let w: &core::ops::Range<u64> = &(24..40);
        if pick == 0 { w.start } else { w.end }
    }

    #[kernel]
    pub fn window_ends(mut out: DisjointSlice<u64>) {
        let t = thread::index_1d();
        let k = t.get();
        if let Some(o) = out.get_mut(t) {
            *o = window_end(k % 2);
        }
    }
}
