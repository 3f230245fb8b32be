//! `match` arms of cuda-oxide kernels that bind a compare-exchange's observed value and carry
//! guards, `match` on 128-bit constants, a helper whose body ends in a diverging `loop`, and
//! `!` of a `bool` binding.

use kernel_lint_harness::driver;

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/oxide_guarded_arms.rs");

fn emitted() -> driver::Emitted {
    emit_one(KERNELS)
}

#[test]
fn every_kernel_is_lowered() {
    let emitted = emitted();
    assert_every_kernel_lowered(&emitted);
}

#[test]
fn a_guarded_arm_binds_the_observed_value_for_its_guard_and_body() {
    let program = emitted().program;
    assert!(program.contains("if ((kl_match_1).ok) {"), "{program}");
    assert!(
        program.contains(
            "else if (((!(kl_match_1).ok) && ({\nauto seen = (kl_match_1).value;\n((owner(seen) == tag) && (!fresh));\n}))) {\nauto seen = (kl_match_1).value;\n{\n#line 34 \"k.rs\"\noverwrite(cell, seen, "
        ),
        "{program}"
    );
    assert!(program.contains("else if ((!(kl_match_1).ok)) {"), "{program}");
    // The helper's cell parameter knows its value type, and its trailing loop is a statement.
    assert!(program.contains("auto now = (kl_match_1).value;\n"), "{program}");
    assert!(!program.contains("return \n#pragma"), "{program}");
}

#[test]
fn a_bool_binding_is_negated_logically() {
    let emitted = emitted();
    let place = kernel(&emitted.program, "place_tags");
    assert!(place.contains("if ((!fresh)) {"), "{place}");
}

#[test]
fn wide_constants_are_built_from_halves_and_matched() {
    let program = emitted().program;
    assert!(
        program.contains("constexpr unsigned __int128 WIDE_A = ((unsigned __int128)(((unsigned __int128)0x1000000000ull << 64) | 0x0ull));"),
        "{program}"
    );
    assert!(
        program.contains(
            "constexpr __int128 NEG = ((__int128)(((unsigned __int128)0xfffffffffc000000ull << 64) | 0x0ull));"
        ),
        "{program}"
    );
    let sort = kernel(&program, "sort_wide");
    assert!(
        sort.contains("((wide == WIDE_A) ? (1) : (((wide == WIDE_B) ? (2) : (0))))"),
        "{sort}"
    );
    assert!(sort.contains("auto base = ((signed_ == NEG) ? (10) : (0));"), "{sort}");
}

#[test]
fn the_program_compiles() {
    check_with_gxx(&emitted().program);
}
