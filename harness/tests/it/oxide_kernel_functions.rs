//! A kernel called as a function by another kernel runs in the caller's threads: it is
//! lowered as a device function besides its own kernel twin, and the launch context the
//! caller passes along is no argument of the copy.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/oxide_kernel_functions.rs");

#[test]
fn kernels_called_as_functions_are_device_copies() {
    let emitted = driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default());
    let reasons: Vec<String> = emitted.manifest.not_lowered.iter().map(|n| n.reason.clone()).collect();
    assert!(reasons.is_empty(), "{reasons:?}");
    let program = &emitted.program;
    assert!(
        program.contains(
            "__device__ inline void offset_copy_device_f32(const float* src, unsigned long long src_len, const float* bias, unsigned long long bias_len, float* dst, unsigned long long dst_len) {"
        ),
        "{program}"
    );
    assert!(program.contains("(*slot) = (src[raw] + bias[raw]);"), "{program}");
    assert!(
        program.contains("__device__ inline void clear_device(unsigned int* dst, unsigned long long dst_len) {"),
        "{program}"
    );
    let caller = kernel(program, "copy_then_stride");
    assert!(
        caller.contains("offset_copy_device_f32(src, src_len, bias, bias_len, dst, dst_len);"),
        "{caller}"
    );
    assert!(caller.contains("clear_device(flags, flags_len);"), "{caller}");
    assert!(caller.contains("(*slot) = src[((3 * raw) + 2)];"), "{caller}");
    // The callees keep their own kernel twins.
    assert!(
        program.contains("__global__ void clear(unsigned int* dst, unsigned long long dst_len) {"),
        "{program}"
    );
    check_with_gxx(program);
}
