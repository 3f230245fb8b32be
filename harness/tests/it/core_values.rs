//! Core-library values in cuda-oxide kernels: one-field tuples, the empty array (whose index
//! traps), `MaybeUninit` storage and its uninhabited guard, slice constants of statics
//! returned by helpers, and operators the file implements for its own types.

use kernel_lint_harness::driver;

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/cuda_oxide_core_values.rs");

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
fn one_field_tuples_and_the_empty_array() {
    let emitted = emitted();
    let p = &emitted.program;
    assert!(
        p.contains("__device__ inline unsigned int first_of(kl::tuple1<unsigned int> args) {"),
        "{p}"
    );
    assert!(p.contains("return (args._0 + 3);"), "{p}");
    assert!(kernel(p, "single_tuple").contains("(*slot) = first_of(kl::make_tuple(raw));"));
    let empty = kernel(p, "empty_read");
    assert!(empty.contains("const kl::empty_array<unsigned int> none{};"), "{empty}");
    assert!(empty.contains("(*slot) = none[0];"), "{empty}");
}

#[test]
fn maybe_uninit_is_storage_of_its_type_and_uninhabited_traps() {
    let emitted = emitted();
    let staged = kernel(&emitted.program, "staged_write");
    assert!(staged.contains("Pair staged = {};"), "{staged}");
    assert!(staged.contains("(staged = Pair{t, (t + 1.0f)});"), "{staged}");
    assert!(staged.contains("auto p = staged;"), "{staged}");
    let never = kernel(&emitted.program, "never_inhabited");
    assert!(never.contains("kl::uninhabited();"), "{never}");
}

#[test]
fn slice_constants_of_statics_keep_the_static_addresses() {
    let emitted = emitted();
    let rows = kernel(&emitted.program, "static_rows");
    assert!(
        rows.contains("auto row = kl::slice_ptr(WEIGHTS[1]);\nauto row_len = kl::slice_len(WEIGHTS[1]);"),
        "{rows}"
    );
    assert!(
        rows.contains("auto head = kl::slice_ptr(RAMP);\nauto head_len = 3ull;"),
        "{rows}"
    );
    assert!(rows.contains("(*out) = ((row[0] + row[1]) + head[2]);"), "{rows}");
}

#[test]
fn operators_of_the_files_types_are_overloads_of_their_methods() {
    let emitted = emitted();
    let p = &emitted.program;
    assert!(
        p.contains("__device__ inline Pair operator*(Pair lhs, Pair rhs) { return Pair_mul(lhs, rhs); }"),
        "{p}"
    );
    assert!(kernel(p, "pair_square").contains("auto q = (p * p);"));
}
