// Kernels in the shape of bumzack/raytracer-challenge @ 12f9801e9b033f635e82e7b9002ed72c70794b20
// (cuda_kernel_raytracer/src/main.rs), which indexes through denzp/rust-ptx-support's
// `Context`, written for the lowering tests of that API.
#![no_std]
#![feature(abi_ptx)]

use ptx_support::prelude::*;

#[no_mangle]
pub unsafe extern "ptx-kernel" fn brighten(src: *const f32, dst: *mut f32, n: usize) {
    let i = (Context::block().index().x * Context::block().dims().x + Context::thread().index().x) as usize;
    if i < n {
        *dst.add(i) = *src.add(i) + 1.0;
    }
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn paint(image: *mut f32, width: usize, per_block: u32) {
    let col = (Context::thread().index().x + Context::block().index().x * per_block as u64) as usize;
    let row = Context::block().index().y as usize;
    if col < width {
        *image.add(row * width + col) = 0.25;
    }
}
