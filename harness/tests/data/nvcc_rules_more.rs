// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (examples partial_warp_reduce, const_bool_dead_branch, gemm_views, redux_minmax,
// error_generated_intrinsic_callable, error_generated_intrinsic_fn_pointer, array_constants,
// generated_intrinsics_blackwell) and dimforge/sparkl @ 29cebe6e29bae35d9cc980e04db53ebee3230ade
// (src_kernels/cuda/sort.rs), written for the tests of what nvcc requires of the lowered program.

use cuda_device::{kernel, thread, warp, DisjointSlice, DynamicSharedArray};
use cuda_intrinsics::sreg::thread_idx_x;

const GROUP: u32 = 40;
const GROUPS_PER_WARP: u32 = GROUP.div_ceil(32);
const PRIMES: &[u32; 4] = &[3, 5, 7, 11];

pub struct Block {
    pub count: u32,
    pub first: u32,
}

pub struct Blocks {
    pub headers: *mut Block,
}

impl Blocks {
    #[device]
    pub fn block(&self, i: u32) -> &Block {
        unsafe { &*self.headers.add(i as usize) }
    }

    #[device]
    pub fn block_mut(&mut self, i: u32) -> &mut Block {
        unsafe { &mut *self.headers.add(i as usize) }
    }
}

#[cuda_module]
mod kernels {
    use super::*;

    #[device]
    fn invoke<F: Fn() -> u32>(function: F) -> u32 {
        function()
    }

    #[device]
    fn store_through(use_shared: bool, global: *mut u32) {
        let target: *mut u32;
        if use_shared {
            target = DynamicSharedArray::<u32>::get();
        } else {
            target = global;
        }
        unsafe { target.write(5) };
    }

    #[kernel]
    pub fn block_counts(mut blocks: Blocks, counts: *mut u32, n: u32) {
        let id = thread::index_1d().get() as u32;
        if id < n {
            unsafe { *counts.add(id as usize) = blocks.block(id).count };
            blocks.block_mut(id).first = id;
        }
    }

    #[kernel]
    pub fn grouped(mut out: DisjointSlice<u32>) {
        let v = GROUPS_PER_WARP + PRIMES[thread::index_1d().get() & 3];
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = v;
        }
    }

    #[kernel]
    pub fn dead_store(global: *mut u32) {
        store_through(false, global);
    }

    #[kernel]
    pub fn strips(a: *const f32, k: u32, start: u64, mut out: DisjointSlice<f32>) {
        let (base, len): (*const f32, u32) = if start != u64::MAX {
            (unsafe { a.add(start as usize) }, k)
        } else {
            (core::ptr::null(), 0)
        };
        let v = if len > 0 { unsafe { *base } } else { 0.0 };
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = v;
        }
    }

    #[kernel]
    pub fn bitwise(mut out: DisjointSlice<u32>) {
        let v = 1u32 << warp::lane_id();
        let and = warp::redux_sync_and(0xffff_ffff, v);
        let or = warp::redux_sync_or(0xffff_ffff, v);
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = and ^ or;
        }
    }

    #[kernel]
    pub fn register_values(output: *mut u32) {
        let read: fn() -> u32 = thread_idx_x;
        unsafe { output.write(invoke(thread_idx_x) + read()) };
    }

    #[kernel]
    pub fn packed_conversions(mut out: DisjointSlice<u16>, low: f32, high: f32) {
        let values = [
            cvt_rn_satfinite_e4m3x2_f32(low, high),
            cvt_rn_satfinite_e5m2x2_f32(low, high),
        ];
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = values[thread::index_1d().get() & 1];
        }
    }
}
