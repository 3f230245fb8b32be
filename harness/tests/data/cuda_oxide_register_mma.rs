// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/rustc-codegen-cuda/examples/generated_intrinsics), written for the lowering tests of
// the warp-level register matrix multiplies.

use cuda_device::{kernel, thread, DisjointSlice};
use cuda_intrinsics::matrix;

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn register_products(mut out: DisjointSlice<u32>, a: u32, b: u32) {
        let (dense, half, wide) = unsafe {
            (
                matrix::mma_m16n8k16_f32_bf16([0.0; 4], [a; 4], [b; 2]),
                matrix::mma_m16n8k8_f16_f16([0; 2], [a; 2], b),
                matrix::mma_m8n8k4_f64([0.0; 2], 1.0, 2.0),
            )
        };
        let ints = unsafe {
            [
                matrix::mma_m16n8k32_s32_u8_s8_satfinite([0; 4], [a; 4], [b; 2])[0],
                matrix::mma_m16n8k256_s32_b1_and_popc([0; 4], [a; 4], [b; 2])[0],
                matrix::mma_sp_ordered_metadata_m16n8k64_s32_s4([0; 4], [a; 2], [b; 2], 0x4444_4444, 1)[0],
            ]
        };
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = dense[0].to_bits() ^ half[0] ^ (wide[0] as u32) ^ (ints[0] as u32) ^ (ints[2] as u32);
        }
    }

    #[kernel]
    pub fn selector_from_value(mut out: DisjointSlice<u32>, e: u32, f: u32) {
        let d = unsafe { matrix::mma_sp_m16n8k32_s32_s8([0; 4], [0; 2], [0; 2], e, f) };
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = d[0] as u32;
        }
    }
}
