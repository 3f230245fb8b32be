//! Slice and pointer queries of cuda-oxide kernels: `iter().map(..).sum()`, `*o.unwrap_or(&lit)`,
//! `is_empty`, a checked `get(i)` whose `unwrap` traps, `cast` and `offset_from_unsigned`.

use kernel_lint_harness::driver;

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/oxide_slice_queries.rs");

fn emitted() -> driver::Emitted {
    emit_one(KERNELS)
}

#[test]
fn every_kernel_is_lowered() {
    let emitted = emitted();
    assert_every_kernel_lowered(&emitted);
}

#[test]
fn a_mapped_sum_reads_every_element_once_in_order() {
    let emitted = emitted();
    let total = kernel(&emitted.program, "doubled_total");
    assert!(
        total.contains("auto kl_map = [&](unsigned long long kl_k) { auto w = weights[kl_k]; return (w * 3); };"),
        "{total}"
    );
    assert!(total.contains("decltype(kl_map(0)) kl_sum{};"), "{total}");
    assert!(
        total.contains("for (unsigned long long kl_k = 0; kl_k < (unsigned long long)(weights_len); ++kl_k) kl_sum += kl_map(kl_k);"),
        "{total}"
    );
}

#[test]
fn a_literal_fallback_is_read_as_its_value() {
    let emitted = emitted();
    let reads = kernel(&emitted.program, "fallback_reads");
    assert!(
        reads.contains("(kl::deref_or(present, 41) + kl::deref_or(absent, 41))"),
        "{reads}"
    );
}

#[test]
fn a_checked_get_reads_only_in_bounds_and_its_unwrap_traps() {
    let emitted = emitted();
    let pick = kernel(&emitted.program, "checked_pick");
    assert!(pick.contains("(!(table_len == 0))"), "{pick}");
    assert!(
        pick.contains("(*slot) = kl::unwrap_checked(kl::copied(kl::slice_get(table, table_len, at)));"),
        "{pick}"
    );
    assert!(emitted.program.contains("if (!o.some) __trap();"));
}

#[test]
fn pointer_casts_keep_the_address_and_the_read_width() {
    let emitted = emitted();
    let distances = kernel(&emitted.program, "pointer_distances");
    assert!(distances.contains("((unsigned long long)(b - a))"), "{distances}");
    assert!(
        distances.contains("(*((unsigned int*)((((kl::array<unsigned int, 2>*)(base)) + 1))))"),
        "{distances}"
    );
    assert!(distances.contains("load_word(kl::cast_ptr((base + 3)))"), "{distances}");
}

#[test]
fn the_lowered_program_compiles() {
    check_with_gxx(&emitted().program);
}
