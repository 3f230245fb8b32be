//! A value `match` with an arm that returns becomes a declaration and a `match` statement whose
//! value arms assign it; `get_mut(i).map(|e| ..)` as a statement becomes the bounds-checked
//! `if let` of the element.

use kernel_lint_harness::driver;

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/oxide_diverging_values.rs");

fn emitted() -> driver::Emitted {
    emit_one(KERNELS)
}

#[test]
fn every_kernel_is_lowered() {
    assert_every_kernel_lowered(&emitted());
}

#[test]
fn a_returning_arm_leaves_the_kernel_and_value_arms_assign() {
    let emitted = emitted();
    let classify = kernel(&emitted.program, "classify");
    assert!(classify.contains("decltype(false ? (7) : ("), "{classify}");
    assert!(classify.contains(") code;\n"), "{classify}");
    assert!(classify.contains("code = 7;"), "{classify}");
    assert!(classify.contains("return;\n"), "{classify}");
    assert!(!classify.contains("[&]"), "{classify}");
}

#[test]
fn a_mapped_element_is_written_under_its_bounds_check() {
    let emitted = emitted();
    let fill = kernel(&emitted.program, "fill_rows");
    assert!(
        fill.contains(
            "if ((unsigned long long)(i) < (unsigned long long)(WIDTH)) {\nauto e = kl::make_ref(&(*row)[i]);"
        ),
        "{fill}"
    );
    assert!(fill.contains("(*e) = 3.0f;"), "{fill}");
}

#[test]
fn the_program_compiles() {
    check_with_gxx(&emitted().program);
}
