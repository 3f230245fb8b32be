// Kernels in the shape of dimforge/sparkl @ 29cebe6e29bae35d9cc980e04db53ebee3230ade
// (src_kernels/cuda/atomic.rs and sort.rs): global atomics written as Rust `asm!` of PTX,
// with a host body under `#[cfg(not(target_os = "cuda"))]`.

use cuda_std::prelude::*;

pub trait Swap {
    unsafe fn swap_global(&mut self, val: Self) -> Self;
}

impl Swap for u32 {
    unsafe fn swap_global(&mut self, _val: Self) -> Self {
        #[cfg(target_os = "cuda")]
        {
            let mut previous = 0;
            let generic = self as *mut _;
            let mut global: *mut u32 = core::ptr::null_mut();
            asm!(
                "cvta.to.global.u64 {g}, {p};\
                 atom.global.exch.b32 {prev}, [{g}], {v};",
                g = out(reg64) global,
                p = in(reg64) generic,
                v = in(reg32) _val,
                prev = out(reg32) previous,
            );
            previous
        }

        #[cfg(not(target_os = "cuda"))]
        return unimplemented!();
    }
}

pub trait Accumulate {
    unsafe fn add_global(&mut self, rhs: Self);
}

impl Accumulate for f32 {
    unsafe fn add_global(&mut self, _rhs: Self) {
        #[cfg(target_os = "cuda")]
        {
            let generic = self as *mut _;
            let mut global: *mut f32 = core::ptr::null_mut();
            asm!(
                "cvta.to.global.u64 {g}, {p};\
                 red.global.add.f32 [{g}], {v};",
                g = out(reg64) global,
                p = in(reg64) generic,
                v = in(reg32) _rhs,
            );
        }
    }
}

fn lane() -> u32 {
    let mut id: u32 = 0;
    unsafe {
        asm!("mov.u32 {}, %laneid;", out(reg32) id, options(nomem));
    }
    id
}

#[kernel]
pub unsafe fn claim(flags: *mut u32, previous: *mut u32) {
    let i = thread::index_1d() as usize;
    let old = (*flags.add(i)).swap_global(1);
    *previous.add(i) = old + lane();
}

#[kernel]
pub unsafe fn accumulate(sums: *mut f32, values: *const f32) {
    let i = thread::index_1d() as usize;
    (*sums.add(i % 32)).add_global(*values.add(i));
}
