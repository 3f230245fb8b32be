//! A struct generic over the closure it holds is a C++ class template whose constructor lets
//! C++ deduce the lambda's type at the literal; the closure's accesses stay where it is called.

use kernel_lint_harness::driver;

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/cuda_oxide_closure_structs.rs");

fn emitted() -> driver::Emitted {
    emit_one(KERNELS)
}

#[test]
fn closure_holding_structs_are_class_templates_built_by_deduction() {
    let emitted = emitted();
    assert_every_kernel_lowered(&emitted);
    assert!(
        emitted
            .program
            .contains("template <typename F> struct Holder {\n  F f;\n  __device__ Holder(F f_) : f(f_) {}\n};"),
        "{}",
        emitted.program
    );
    assert!(
        emitted.program.contains("template <typename G> struct Scaled")
            && emitted.program.contains("  unsigned int bias;\n  G g;\n")
            && emitted
                .program
                .contains("(unsigned int bias_, G g_) : bias(bias_), g(g_) {}"),
        "{}",
        emitted.program
    );
    let held = kernel(&emitted.program, "held_closure");
    assert!(held.contains("auto holder = Holder{[&](unsigned int x) {"), "{held}");
    assert!(held.contains("(holder.f)("), "{held}");
    let biased = kernel(&emitted.program, "held_with_bias");
    assert!(biased.contains("{3, [=](unsigned int x) mutable {"), "{biased}");
    assert!(biased.contains("(scaled.g)(src["), "{biased}");
    check_with_gxx(&emitted.program);
}
