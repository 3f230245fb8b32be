// Kernels in the shape of NVlabs/cuda-oxide (a105afd522b73a6712a802e30bd900cd04cc8019),
// `crates/rustc-codegen-cuda/examples/{option_ref_unwrap_or,array_constants,
// enum_constant_provenance,enum_abi_multi_payload}` and `crates/cuda-device/src/swizzle.rs`.
use cuda_device::{cuda_module, kernel, thread, DisjointSlice};

const FALLBACK_LIMIT: u32 = 900;
const MASKS: [u64; 2] = [0x8877_6655_4433_2211, 0x0102_0304_0506_0708];

#[derive(Clone, Copy)]
#[repr(u32)]
enum Face {
    Front = 3,
    Back = 8,
}

const FACES: [(bool, Face); 2] = [(true, Face::Back), (false, Face::Front)];

pub struct Rotate<const K: usize>;

impl<const K: usize> Rotate<K> {
    const IN_RANGE: () = assert!(K < 32, "rotation past the word");

    pub const fn apply(x: u32) -> u32 {
        let () = Self::IN_RANGE;
        x ^ (x >> K)
    }
}

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn clamp_with_const_ref(limits: &[u32], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(slot) = out.get_mut(idx) {
            let found: Option<&u32> = limits.get(i);
            let fallback: Option<&u32> = None;
            let a = *found.unwrap_or(&FALLBACK_LIMIT);
            let b = *fallback.unwrap_or(&FALLBACK_LIMIT);
            *slot = a + b;
        }
    }

    #[kernel]
    pub fn face_codes(mut out: DisjointSlice<u64>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(slot) = out.get_mut(idx) {
            let (flag, face) = FACES[i & 1];
            *slot = (face as u64) + (flag as u64) + (MASKS[i & 1] & 0xff);
        }
    }

    #[kernel]
    pub fn mapped_or(values: &[u32], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(slot) = out.get_mut(idx) {
            *slot = values.get(i).map_or(7, |v| *v * 2);
        }
    }

    #[kernel]
    pub fn copy_by_value(src: &[u32], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        if let (Some(&s), Some(slot)) = (src.get(idx.get()), out.get_mut(idx)) {
            *slot = s ^ (s >> 5);
        }
    }

    #[kernel]
    pub fn rotated(mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get() as u32;
        if let Some(slot) = out.get_mut(idx) {
            *slot = Rotate::<5>::apply(i);
        }
    }
}
