//! Shapes of the lowered program that nvcc accepts where a laxer compiler would also take
//! others: an array passed or bound where a slice is expected carries its pointer and length,
//! and `.len()` of an array or table is its constant length, not an undeclared `X_len`.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

mod support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("data/nvcc_rules.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

#[test]
fn an_array_passed_for_a_slice_is_its_pointer_and_length() {
    let emitted = emitted();
    let k = kernel(&emitted.program, "row_total");
    assert!(
        k.contains("auto sum = total(kl::slice_ptr(row), kl::slice_len(row));"),
        "{k}"
    );
}

#[test]
fn an_array_bound_as_a_slice_declares_its_length() {
    let emitted = emitted();
    let k = kernel(&emitted.program, "fill_rows");
    assert!(
        k.contains("auto s = kl::slice_ptr(a);\nauto s_len = kl::slice_len(a);"),
        "{k}"
    );
    assert!(k.contains("i < s_len;"), "{k}");
}

#[test]
fn the_length_of_an_array_or_table_is_constant() {
    let emitted = emitted();
    let k = kernel(&emitted.program, "table_lengths");
    assert!(k.contains("WEIGHTS[(i % kl::len(WEIGHTS))]"), "{k}");
    assert!(k.contains("local[(i % kl::len(local))]"), "{k}");
    assert!(!k.contains("WEIGHTS_len") && !k.contains("local_len"), "{k}");
}

#[test]
fn the_program_compiles() {
    let emitted = emitted();
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    check_with_gxx(&emitted.program);
}
