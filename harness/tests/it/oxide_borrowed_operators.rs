//! Operators a cuda-oxide file implements for a reference type (`impl Add for &Limbs`):
//! `&a + &b` calls the lowered method directly, its receiver a C++ reference and its right
//! operand a pointer, so only the fields the method reads are read.

use kernel_lint_harness::driver;

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/cuda_oxide_borrowed_operators.rs");

fn emitted() -> driver::Emitted {
    emit_one(KERNELS)
}

#[test]
fn every_kernel_lowers_and_the_program_compiles() {
    let emitted = emitted();
    assert_every_kernel_lowered(&emitted);
    check_with_gxx(&emitted.program);
}

#[test]
fn borrowed_operands_call_the_method_in_place() {
    let emitted = emitted();
    let p = &emitted.program;
    assert!(
        p.contains("__device__ inline Limbs Limbs_ref_add(const Limbs& self, const Limbs* other) {"),
        "{p}"
    );
    assert!(
        p.contains("return Limbs{(self.lo + other->lo), (self.hi * other->hi)};"),
        "{p}"
    );
    let k = kernel(p, "borrowed_add");
    assert!(
        k.contains("auto sum = Limbs_ref_add(input[i], &input[(i + 1)]);"),
        "{k}"
    );
    assert!(k.contains("auto twice = Limbs_ref_add(sum, &sum);"), "{k}");
}
