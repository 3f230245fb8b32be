// A GEMM kernel in the shape of nutcas3/rust-gpu-gmm (commit 2bab8724eb56a98e73c8dea72ed17809f0522efc),
// `cuda-kernel/src/lib.rs`: it imports cuda_std's prelude but calls geometry functions
// that cuda_std does not define, next to kernels that use the real `thread` API.
#![no_std]
use cuda_std::prelude::*;

#[kernel]
pub unsafe fn scale_rows(n: u32, src: *const f32, dst: *mut f32) {
    let row = block::index_y();
    let i = thread::index_1d();
    if i < n {
        *dst.add((row * n + i) as usize) = *src.add(i as usize);
    }
}

#[kernel]
pub unsafe fn copy_tile(n: u32, src: *const f32, dst: *mut f32) {
    let tx = thread::index_x();
    if tx < n {
        *dst.add(tx as usize) = *src.add(tx as usize);
    }
}

#[kernel]
pub unsafe fn copy_block(n: u32, src: *const f32, dst: *mut f32) {
    let i = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    if i < n {
        *dst.add(i as usize) = *src.add(i as usize);
    }
}
