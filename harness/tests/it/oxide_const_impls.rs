//! Associated functions of a type generic over constants (`Swizzle::<5, 0, 5>::apply(i)`) are
//! copied once per set of constants, with the impl's constants written in.
//!
//! Kernels in the shape of NVlabs/cuda-oxide (a105afd522b73a6712a802e30bd900cd04cc8019),
//! `examples/swizzle_smem` with `crates/cuda-device/src/swizzle.rs`.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = r#"
use cuda_device::{kernel, thread, DisjointSlice, SharedArray};

mod xor_map {
    pub struct XorMap<const BITS: usize, const BASE: usize, const SHIFT: usize>;

    impl<const BITS: usize, const BASE: usize, const SHIFT: usize> XorMap<BITS, BASE, SHIFT> {
        const CHECK: () = assert!(BASE + BITS <= SHIFT);

        pub const fn map(at: usize) -> usize {
            let () = Self::CHECK;
            at ^ (((at >> SHIFT) & ((1 << BITS) - 1)) << BASE)
        }
    }
}

use xor_map::XorMap;

#[kernel]
pub fn staged(src: &[f32], mut dst: DisjointSlice<f32>) {
    static mut STAGE: SharedArray<f32, 1024> = SharedArray::UNINIT;
    let t = thread::threadIdx_x() as usize;
    unsafe {
        STAGE[XorMap::<5, 0, 5>::map(t)] = src[t];
        STAGE[XorMap::<3, 2, 7>::map(t)] = src[t];
    }
    thread::sync_threads();
    if let Some(out) = dst.get_mut(thread::index_1d()) {
        *out = unsafe { STAGE[XorMap::<5, 0, 5>::map(t)] };
    }
}
"#;

#[test]
fn associated_functions_of_const_generic_types_are_copied_per_constants() {
    let emitted = driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let program = &emitted.program;
    assert!(
        program.contains("return (at ^ ((((((at >> 5)) & ((((1 << 5)) - 1)))) << 0)));"),
        "{program}"
    );
    assert!(
        program.contains("return (at ^ ((((((at >> 7)) & ((((1 << 3)) - 1)))) << 2)));"),
        "{program}"
    );
    let staged = kernel(program, "staged");
    assert!(staged.contains("STAGE[XorMap_5_0_5_map(t)] = src[t];"), "{staged}");
    assert!(staged.contains("STAGE[XorMap_3_2_7_map(t)] = src[t];"), "{staged}");
    // One copy per set of constants, however often it is called.
    assert_eq!(
        program.matches("XorMap_5_0_5_map(unsigned long long at) {").count(),
        1,
        "{program}"
    );
    check_with_gxx(program);
}
