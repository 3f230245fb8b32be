// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/rustc-codegen-cuda/examples/{generated_intrinsics,generated_ldmatrix,cluster,
// mcast_barrier_test,wgmma,tma_copy,generated_intrinsics_blackwell}), written for the lowering
// tests of the generated PTX intrinsics.

use cuda_device::barrier::{mbarrier_arrive_cluster, Barrier};
use core::ptr::addr_of;
use cuda_device::wgmma::{wgmma_commit_group, wgmma_fence, wgmma_wait_group};
use cuda_device::wmma::ldmatrix_x2;
use cuda_device::{cluster, kernel, ptx_asm, thread, DisjointSlice, SharedArray};
use cuda_intrinsics::f16 as raw_f16;
use cuda_intrinsics::float as raw_float;
use cuda_intrinsics::matrix;
use cuda_intrinsics::prmt::{prmt_f4e, prmt_rc8};

static mut BAR: Barrier = Barrier::UNINIT;

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn rounded(mut out: DisjointSlice<f64>, a: f64, b: f64, x: f32, y: f32, h: u16) {
        let products = [raw_float::mul_rn_f64(a, b), raw_float::fma_rz_f64(a, b, a)];
        let s = raw_float::sin_approx_f32(x);
        let m = raw_float::min_ftz_nan_xorsign_abs_f32(x, y);
        let k = raw_f16::min_f16(h, h);
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = products[0] + products[1] + (s + m) as f64 + k as f64;
        }
    }

    #[kernel]
    pub fn permuted(mut out: DisjointSlice<u32>, a: u32, b: u32, c: u32) {
        let values = [prmt_f4e(a, b, c), prmt_rc8(a, c)];
        let t = unsafe { matrix::movmatrix_trans_b16(a) };
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = values[0] + values[1] + t;
        }
    }

    #[kernel]
    pub fn tiles(mut out: DisjointSlice<u32>) {
        static mut TILE: SharedArray<u32, 256> = SharedArray::UNINIT;
        let lane = thread::threadIdx_x() as usize;
        let row = unsafe { (addr_of!(TILE) as *const u32).add(lane * 4) };
        let pair = unsafe { ldmatrix_x2(row) };
        let quad = unsafe { matrix::ldmatrix_m8n8_x4_b16(row) };
        wgmma_fence();
        wgmma_commit_group();
        wgmma_wait_group::<1>();
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = pair[0] + quad[3];
        }
    }

    #[kernel]
    pub fn neighbours(mut out: DisjointSlice<u32>) {
        static mut CELL: SharedArray<u32, 1> = SharedArray::UNINIT;
        let rank = cluster::cluster_ctarank();
        let next = unsafe { cluster::dsmem_read_u32(addr_of!(CELL) as *const u32, (rank + 1) % 4) };
        unsafe {
            cuda_device::barrier::mbarrier_init(&raw mut BAR, 1);
            cluster::fence_mbarrier_init_release_cluster();
            let remote = cluster::map_shared_rank(&raw const BAR, 0);
            mbarrier_arrive_cluster(remote as u64);
        }
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = next;
        }
    }

    #[kernel]
    pub fn tensor_copy(mut out: DisjointSlice<u32>, map: *const u8) {
        unsafe { cuda_device::tma::cp_async_bulk_tensor_2d_g2s(map, 0, 0, 0) };
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = 0;
        }
    }

    #[kernel]
    pub fn narrow_mma(mut out: DisjointSlice<f32>) {
        let d = unsafe { matrix::mma_m16n8k32_f32_e2m1_e2m1([0.0; 4], [0; 4], [0; 2]) };
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = d[0];
        }
    }

    #[kernel]
    pub fn inline_asm(mut out: DisjointSlice<u32>, x: u32) {
        let doubled: u32;
        let mut total = x;
        unsafe {
            ptx_asm!("add.u32 %0, %1, %1;", out("=r") doubled, in("r") x, options(register_only));
            ptx_asm!(
                "add.u32 %0, %0, %1;
                 membar.gl;",
                inout("+r") total,
                in("r") doubled,
                clobber("memory"),
            );
        }
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = total;
        }
    }
}
