// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/rustc-codegen-cuda/examples/{wgmma_mma_bf16,generated_intrinsics_blackwell}), written
// for the lowering tests of the warpgroup MMA and of tf32 conversions.

use cuda_device::wgmma::{wgmma_commit_group, wgmma_fence, wgmma_mma_m64n64k16_f32_bf16, wgmma_wait_group};
use cuda_device::{kernel, thread, DisjointSlice};
use cuda_intrinsics::{cvt_rn_satfinite_tf32_f32, cvt_rna_tf32_f32};

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub unsafe fn tile(mut out: DisjointSlice<u32>, desc_a: u64, desc_b: u64) {
        let mut acc: [[f32; 8]; 4] = [[0.0f32; 8]; 4];
        unsafe {
            wgmma_fence();
            wgmma_mma_m64n64k16_f32_bf16(&mut acc, desc_a, desc_b);
            wgmma_commit_group();
            wgmma_wait_group::<0>();
        }
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = acc[3][7].to_bits();
        }
    }

    #[kernel]
    pub fn rounded_tf32(mut out: DisjointSlice<u32>, x: f32) {
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = cvt_rna_tf32_f32(x);
        }
    }

    #[kernel]
    pub fn saturated_tf32(mut out: DisjointSlice<u32>, x: f32) {
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = cvt_rn_satfinite_tf32_f32(x);
        }
    }
}
