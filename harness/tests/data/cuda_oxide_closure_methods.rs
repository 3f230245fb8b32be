// Kernels in the shape of NVlabs/cuda-oxide (commit a105afd522b73a6712a802e30bd900cd04cc8019),
// examples/device_closures: a method of a struct generic over the closure it holds.
use cuda_device::{DisjointSlice, kernel, thread};

#[cuda_module]
mod kernels {
    use super::*;

    struct Shifted<F> {
        f: F,
        shift: u32,
    }

    impl<F> Shifted<F>
    where
        F: Fn(u32) -> u32,
    {
        fn apply(&self, x: u32) -> u32 {
            (self.f)(x) + self.shift
        }
    }

    #[kernel]
    pub fn shifted_method(factor: u32, src: &[u32], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let raw = idx.get();
        if let Some(slot) = out.get_mut(idx) {
            let shifted = Shifted { f: |x: u32| x * factor, shift: 2 };
            *slot = shifted.apply(src[raw]);
        }
    }
}
