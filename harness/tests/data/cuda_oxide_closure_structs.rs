// Kernels in the shape of NVlabs/cuda-oxide (commit a105afd522b73a6712a802e30bd900cd04cc8019),
// examples/device_closures: a struct generic over the closure it holds.
use cuda_device::{DisjointSlice, kernel, thread};

#[cuda_module]
mod kernels {
    use super::*;

    struct Scaled<G> {
        bias: u32,
        g: G,
    }

    #[kernel]
    pub fn held_closure(factor: u32, mut out: DisjointSlice<u32>) {
        struct Holder<F> {
            f: F,
        }
        let idx = thread::index_1d();
        let raw = idx.get();
        if let Some(slot) = out.get_mut(idx) {
            let holder = Holder { f: |x: u32| x * factor };
            *slot = (holder.f)(raw as u32);
        }
    }

    #[kernel]
    pub fn held_with_bias(factor: u32, src: &[u32], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let raw = idx.get();
        if let Some(slot) = out.get_mut(idx) {
            let scaled = Scaled { bias: 3, g: move |x: u32| x + factor };
            *slot = (scaled.g)(src[raw]) + scaled.bias;
        }
    }
}
