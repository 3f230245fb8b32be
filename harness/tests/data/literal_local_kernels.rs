// Kernels in the shape of dimforge/sparkl @ 29cebe6e29bae35d9cc980e04db53ebee3230ade
// (src_kernels/cuda/atomic.rs, hashmap.rs): the result of a PTX atomic in `asm!` lands in a
// local bound to an unsuffixed literal, whose type Rust takes from the function's return.

use cuda_std::prelude::*;

pub trait Exchange {
    unsafe fn compare_swap_global(&mut self, current: Self, new: Self) -> Self;
    unsafe fn add_global(&mut self, v: Self) -> Self;
}

impl Exchange for u64 {
    unsafe fn compare_swap_global(&mut self, current: Self, new: Self) -> Self {
        #[cfg(target_os = "cuda")]
        {
            let mut seen = 0;
            let generic = self as *mut _;
            let mut global: *mut u64 = core::ptr::null_mut();
            asm!(
                "cvta.to.global.u64 {g}, {p};\
                 atom.global.cas.b64 {seen}, [{g}], {c}, {n};",
                g = out(reg64) global,
                p = in(reg64) generic,
                c = in(reg64) current,
                n = in(reg64) new,
                seen = out(reg64) seen,
            );
            seen
        }

        #[cfg(not(target_os = "cuda"))]
        return unimplemented!();
    }

    unsafe fn add_global(&mut self, _v: Self) -> Self {
        unimplemented!()
    }
}

impl Exchange for f32 {
    unsafe fn compare_swap_global(&mut self, _current: Self, _new: Self) -> Self {
        unimplemented!()
    }

    unsafe fn add_global(&mut self, v: Self) -> Self {
        #[cfg(target_os = "cuda")]
        {
            let mut before = 0.0;
            let generic = self as *mut _;
            let mut global: *mut f32 = core::ptr::null_mut();
            asm!(
                "cvta.to.global.u64 {g}, {p};\
                 atom.global.add.f32 {b}, [{g}], {v};",
                g = out(reg64) global,
                p = in(reg64) generic,
                v = in(freg32) v,
                b = out(freg32) before,
            );
            before
        }

        #[cfg(not(target_os = "cuda"))]
        return unimplemented!();
    }
}

#[kernel]
pub unsafe fn claim_slots(keys: *mut u64, sums: *mut f32, clock: *mut u64) {
    let i = thread::index_1d() as usize;
    let prev = (*keys.add(i)).compare_swap_global(u64::MAX, i as u64);
    if prev == u64::MAX {
        (*sums.add(i)).add_global(1.0);
    }
    // Only the register says how wide the value is.
    let mut ticks = 0;
    asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) ticks);
    let mut stamp = 0;
    stamp = ticks as u64;
    *clock.add(i) = stamp;
}
