// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (examples ne_bytes_transmute, shuffle_64, primitive_stress, row_width_slice), written for the
// lowering tests.

use cuda_device::{kernel, thread, DisjointSlice};

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn gather_words(bytes: &[u8], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(slot) = out.get_mut(idx) {
            let at = 4 * i;
            let quad = [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
            *slot = u32::from_ne_bytes(quad);
        }
    }

    #[kernel]
    pub fn pick_lane(src: &[u32], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        let v = if i.is_multiple_of(2) {
            let w = src[i];
            w + 1
        } else {
            src[i] * 2
        };
        let letter: char = 'A';
        let squares = [core::f32::math::powi(v as f32, 2).to_bits(); 2];
        if let Some(slot) = out.get_mut(idx) {
            *slot = v + letter as u32 + squares[1];
        }
    }
}
