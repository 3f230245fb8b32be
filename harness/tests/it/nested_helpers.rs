//! A function defined inside a kernel's body is a helper the kernel calls, its explicit
//! generic arguments naming the copy.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

#[test]
fn helpers_defined_in_a_kernel_body_are_called_by_their_copies() {
    let source = include_str!("../data/nested_helpers.rs");
    let emitted = driver::emit(&[SourceFile::new("k.rs", source)], &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let copy = kernel(&emitted.program, "copy_through");
    assert!(copy.contains("(pass_f32(a[i]) + ((float)(pass_u32(1))))"), "{copy}");
    assert!(emitted
        .program
        .contains("__device__ inline float pass_f32(float value) {"));
    check_with_gxx(&emitted.program);
}
