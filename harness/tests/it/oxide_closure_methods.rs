//! A method of a struct generic over the closure it holds is a C++ function template over the
//! closure's type, so C++ deduces the lambda's type from the receiver at the call.

use kernel_lint_harness::driver;

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/cuda_oxide_closure_methods.rs");

fn emitted() -> driver::Emitted {
    emit_one(KERNELS)
}

#[test]
fn methods_of_closure_holding_structs_are_function_templates() {
    let emitted = emitted();
    assert_every_kernel_lowered(&emitted);
    assert!(
        emitted.program.contains(
            "template <typename F> __device__ inline unsigned int Shifted_apply(const Shifted_2<F>& self, unsigned int x)"
        ),
        "{}",
        emitted.program
    );
    let shifted = kernel(&emitted.program, "shifted_method");
    assert!(shifted.contains("Shifted_apply(shifted, src["), "{shifted}");
    check_with_gxx(&emitted.program);
}
