// A kernel in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/rustc-codegen-cuda/examples/ord_cmp), written for the lowering tests: a helper
// returning `core::cmp::Ordering`, matched on its variants.

use core::cmp::Ordering;
use cuda_device::{kernel, thread, DisjointSlice};

fn order(a: u32, b: u32) -> Ordering {
    if a < b {
        return Ordering::Less;
    }
    if a > b {
        return core::cmp::Ordering::Greater;
    }
    Ordering::Equal
}

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn rank(src: &[u32], mut dst: DisjointSlice<i32>) {
        let i = thread::index_1d();
        let at = i.get();
        if let Some(d) = dst.get_mut(i) {
            *d = match order(src[at], 7) {
                Ordering::Less => -1,
                Ordering::Equal => 0,
                Ordering::Greater => order(src[at], 3) as i32,
            };
        }
    }
}
