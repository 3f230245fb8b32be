// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/cuda-device/src/{atomic,debug,convert,dotprod,warp,cluster}.rs, their generated
// intrinsics, and the examples under crates/rustc-codegen-cuda/examples), written for the
// lowering tests of atomics, bit reinterpretation, numeric methods and device intrinsics.

use cuda_device::atomic::{AtomicOrdering, BlockAtomicF16, DeviceAtomicF16, DeviceAtomicI64, DeviceAtomicU32};
use cuda_device::bf16x2::add_bf16x2;
use cuda_device::convert::cvt_f16x2_f32;
use cuda_device::dotprod::dp4a_s32;
use cuda_device::{debug, gpu_assert, kernel, thread, warp, DisjointSlice};

const ONE_PLUS_ULP: f32 = f32::from_bits(0x3F80_0001);

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn publish(flags: &[u32], mut out: DisjointSlice<u32>) {
        let tid = thread::threadIdx_x();
        let flag = unsafe { &*(flags.as_ptr() as *const DeviceAtomicU32) };
        if tid == 0 {
            flag.store(7, AtomicOrdering::Release);
        }
        let seen = flag.load(AtomicOrdering::Acquire);
        let old = flag.fetch_add(1, AtomicOrdering::AcqRel);
        let last = flag.swap(seen, AtomicOrdering::SeqCst);
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = seen + old + last;
        }
    }

    #[kernel]
    pub fn claim(slots: &[u32], mut out: DisjointSlice<u32>) {
        let gid = thread::index_1d();
        let slot = unsafe { &*(slots.as_ptr() as *const DeviceAtomicU32) };
        let result = slot.compare_exchange(0, 1, AtomicOrdering::AcqRel, AtomicOrdering::Relaxed);
        if let Some(o) = out.get_mut(gid) {
            match result {
                Ok(_) => *o = 1,
                Err(_) => *o = 0,
            }
        }
    }

    #[kernel]
    pub fn wide_and_half(counts: &[i64], hist: &[u16], mut out: DisjointSlice<i64>) {
        let i = thread::index_1d();
        let count = unsafe { &*(counts.as_ptr() as *const DeviceAtomicI64) };
        let block = unsafe { &*(hist.as_ptr() as *const BlockAtomicF16) };
        let old = count.fetch_add(-3, AtomicOrdering::Relaxed);
        block.fetch_add(1.0f16, AtomicOrdering::Relaxed);
        if let Some(o) = out.get_mut(i) {
            *o = old;
        }
    }

    #[kernel]
    pub fn half_swap(cells: &[u16], vals: &[f16]) {
        let cell = unsafe { &*(cells.as_ptr() as *const DeviceAtomicF16) };
        cell.swap(vals[0], AtomicOrdering::Relaxed);
    }

    #[kernel]
    pub fn bits(xs: &[f32], ys: &[u64], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        let b = xs[i].to_bits();
        let back = f64::from_bits(ys[i]);
        let same: i32 = unsafe { core::mem::transmute::<f32, i32>(xs[i]) };
        let (sum, overflow) = b.overflowing_add(same as u32);
        let pick = core::hint::select_unpredictable(back.is_nan(), sum, b);
        if let Some(o) = out.get_mut(idx) {
            *o = pick + (overflow as u32) + xs[i].asin().to_bits() + (ONE_PLUS_ULP * 2.0).to_bits();
        }
    }

    #[kernel]
    pub fn copies(input: &[u32], mut out: DisjointSlice<u32>, len: usize) {
        if thread::index_1d().get() == 0 {
            unsafe {
                core::ptr::copy_nonoverlapping(input.as_ptr(), out.as_mut_ptr(), len);
            }
        }
    }

    #[kernel]
    pub fn registers(a: &[u32], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        gpu_assert!(a[i] < 1000, "value out of range");
        gpu_assert!(a[i] != 7);
        let start = debug::clock64();
        let packed = cvt_f16x2_f32(1.0, 2.0);
        let sum = add_bf16x2(packed, a[i]);
        let dot = dp4a_s32(a[i], packed, 3);
        if a[i] == 999 {
            debug::trap();
        }
        if let Some(o) = out.get_mut(idx) {
            *o = warp::warpid() + sum + (dot as u32) + (debug::clock64() - start) as u32;
        }
    }

    #[kernel]
    pub fn rounding(xs: &[f32], mut out: DisjointSlice<f32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        unsafe {
            cuda_device::cluster::barrier_cluster_arrive_relaxed_aligned();
            cuda_device::cluster::barrier_cluster_wait_aligned();
            (out.as_mut_ptr() as *mut u32).write(7);
        }
        if let Some(o) = out.get_mut(idx) {
            *o = xs[i].round_ties_even() + core::f32::math::mul_add(xs[i], 2.0, 1.0) + libm::fmaxf(xs[i], 1.0);
        }
    }
}
