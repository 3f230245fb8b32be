// A library crate's generic kernels in the shape of NVlabs/cuda-oxide @
// a105afd522b73a6712a802e30bd900cd04cc8019 (crates/rustc-codegen-cuda/examples/
// cross_crate_kernel/kernel-lib), written for the lowering tests: the example's host
// program instantiates them.

use cuda_device::{kernel, thread, DisjointSlice};
use core::ops::Mul;

#[cuda_module]
pub mod kernels {
    use super::*;

    #[kernel]
    pub fn gain<T: Copy + Mul<Output = T>>(k: T, src: &[T], mut dst: DisjointSlice<T>) {
        let i = thread::index_1d();
        let at = i.get();
        if let Some(d) = dst.get_mut(i) {
            *d = src[at] * k;
        }
    }

    #[kernel]
    pub fn fill<const V: u32>(mut dst: DisjointSlice<u32>) {
        let i = thread::index_1d();
        if let Some(d) = dst.get_mut(i) {
            *d = V;
        }
    }
}
