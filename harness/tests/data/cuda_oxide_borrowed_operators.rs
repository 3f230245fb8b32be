// Kernels in the shape of NVlabs/cuda-oxide (commit a105afd522b73a6712a802e30bd900cd04cc8019,
// crates/rustc-codegen-cuda/examples): an operator implemented for a reference type.
use cuda_device::{kernel, thread, DisjointSlice};

#[derive(Copy, Clone)]
pub struct Limbs {
    pub lo: u32,
    pub hi: u32,
}

impl core::ops::Add for &Limbs {
    type Output = Limbs;

    fn add(self, other: Self) -> Self::Output {
        Limbs {
            lo: self.lo + other.lo,
            hi: self.hi * other.hi,
        }
    }
}

#[kernel]
pub fn borrowed_add(input: &[Limbs], mut out: DisjointSlice<u32>) {
    let idx = thread::index_1d();
    let i = idx.get();
    if let Some(slot) = out.get_mut(idx) {
        let sum = &input[i] + &input[i + 1];
        let twice = &sum + &sum;
        *slot = twice.lo + twice.hi;
    }
}
