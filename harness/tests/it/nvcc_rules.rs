//! Shapes of the lowered program that nvcc accepts where a laxer compiler would also take
//! others: an array passed or bound where a slice is expected carries its pointer and length,
//! and `.len()` of an array or table is its constant length, not an undeclared `X_len`.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/nvcc_rules.rs");

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

const MORE: &str = include_str!("../data/nvcc_rules_more.rs");
const REFUSED: &str = include_str!("../data/nvcc_rules_refused.rs");

fn emitted_more() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", MORE)], &LaunchPlan::default())
}

#[test]
fn a_field_of_a_returned_reference_is_read_through_the_pointer() {
    let emitted = emitted_more();
    let k = kernel(&emitted.program, "block_counts");
    assert!(k.contains("Blocks_block(blocks, id)->count;"), "{k}");
    assert!(k.contains("Blocks_block_mut(blocks, id)->first = id;"), "{k}");
}

#[test]
fn numeric_helpers_are_constant_expressions() {
    let emitted = emitted_more();
    // `GROUP.div_ceil(32)` is evaluated as rustc evaluates it (40 / 32 rounded up).
    assert!(
        emitted
            .program
            .contains("constexpr unsigned int GROUPS_PER_WARP = 2ll;"),
        "{}",
        emitted.program
    );
    assert!(emitted
        .program
        .contains("template <typename T, typename U> __host__ __device__ constexpr T div_ceil(T a, U b)"));
}

#[test]
fn a_pointer_declared_before_its_value_is_written_through() {
    let emitted = emitted_more();
    assert!(emitted.program.contains("(*target = 5);"), "{}", emitted.program);
}

#[test]
fn tuple_arms_of_an_if_share_one_type() {
    let emitted = emitted_more();
    let k = kernel(&emitted.program, "strips");
    assert!(
        k.contains("? (kl::make_tuple((a + ((unsigned long long)(start))), k)) : (decltype(kl::make_tuple((a + ((unsigned long long)(start))), k)))(kl::make_tuple(nullptr, 0)));"),
        "{k}"
    );
}

#[test]
fn alternative_operator_spellings_are_renamed() {
    let emitted = emitted_more();
    let k = kernel(&emitted.program, "bitwise");
    assert!(k.contains("auto and_ = "), "{k}");
    assert!(k.contains("auto or_ = "), "{k}");
    assert!(k.contains("(and_ ^ or_)"), "{k}");
}

#[test]
fn a_geometry_intrinsic_as_a_value_is_a_reader_function() {
    let emitted = emitted_more();
    let k = kernel(&emitted.program, "register_values");
    assert!(
        k.contains("kl::fn_ptr<unsigned int> read = kl::read_thread_idx_x;"),
        "{k}"
    );
    assert!(k.contains("invoke(kl::read_thread_idx_x)"), "{k}");
}

#[test]
fn a_reference_to_an_array_literal_points_at_its_own_variable() {
    let emitted = emitted_more();
    assert!(
        emitted.program.contains(
            "__device__ const kl::array<unsigned int, 4> PRIMES_storage = {3, 5, 7, 11};\n__device__ constexpr kl::aref<const kl::array<unsigned int, 4>> PRIMES = (&PRIMES_storage);"
        ),
        "{}",
        emitted.program
    );
}

#[test]
fn an_array_of_inline_ptx_values_names_their_type() {
    let emitted = emitted_more();
    let k = kernel(&emitted.program, "packed_conversions");
    assert!(
        k.contains("kl::array<unsigned short, 2> values = {KL_PACK_F32X2_16("),
        "{k}"
    );
}

#[test]
fn the_more_program_compiles() {
    let emitted = emitted_more();
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    check_with_gxx(&emitted.program);
}

#[test]
fn a_reference_to_a_table_a_macro_defines_points_at_the_expanded_table() {
    let emitted = driver::emit(&[SourceFile::new("k.rs", REFUSED)], &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    assert_eq!(emitted.manifest.launches[0].kernel, "through_ref");
    // The table is defined before the reference, which is a constant expression nvcc takes.
    let table = emitted
        .program
        .find("__device__ const kl::array<unsigned int, 4> CODES = {1, 2, 3, 4};")
        .expect("the table the macro defines");
    let reference = emitted
        .program
        .find("__device__ constexpr kl::aref<const kl::array<unsigned int, 4>> CODES_REF = (&CODES);")
        .expect("the reference to it");
    assert!(table < reference);
    check_with_gxx(&emitted.program);
}
