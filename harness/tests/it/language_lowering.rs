//! Rust language constructs are lowered: arrays as `kl::array` values (returned, passed,
//! indexed through references), closures as lambdas, `let` patterns, loops over arrays and
//! slices, `match` on computed values, constant tables named by other constants, the unit
//! type; a code-generator intrinsic's stub body is refused with its reason.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/language_kernels.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

#[test]
fn the_program_builds_and_only_the_stub_caller_is_refused() {
    let emitted = emitted();
    check_with_gxx(&emitted.program);
    let refused: Vec<(&str, &str)> = emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (n.kernel.as_str(), n.reason.as_str()))
        .collect();
    assert_eq!(
        refused,
        [(
            "stubbed",
            "helper `lane_sum` is not lowered: a code-generator intrinsic: its Rust body is a stub"
        )]
    );
}

#[test]
fn arrays_are_values_returned_passed_and_held_in_structs() {
    let program = emitted().program;
    assert!(
        program.contains("struct Wrap {\n  kl::array<float, 2> _0;\n};"),
        "{program}"
    );
    assert!(
        program.contains("__device__ inline kl::array<float, 2> swapped(kl::array<float, 2> p) {"),
        "{program}"
    );
    assert!(program.contains("return kl::make_array(p[1], p[0]);"), "{program}");
    let pair = kernel(&program, "pair_closure");
    assert!(
        pair.starts_with(
            "__global__ void pair_closure(const kl::array<float, 2>* input, unsigned long long input_len,"
        ),
        "{pair}"
    );
    assert!(pair.contains("kl::array<float, 2> pair = input[i];"), "{pair}");
    // `node` of the receiver's own type, though `Other` defines one too.
    assert!(pair.contains("auto w = Wrap{swapped(pair)};"), "{pair}");
    assert!(pair.contains("(*Wrap_node(w, 0))"), "{pair}");
    // The unit type and its value.
    assert!(program.contains("struct Handle {\n  kl::unit _priv;\n};"), "{program}");
    assert!(program.contains("return Handle{kl::unit{}};"), "{program}");
}

#[test]
fn closures_are_lambdas_called_where_rust_calls_them() {
    let program = emitted().program;
    let pair = kernel(&program, "pair_closure");
    assert!(
        pair.contains("auto compute = [&](unsigned long long k) -> float {"),
        "{pair}"
    );
    assert!(pair.contains("return (pair[k] + 1.0f);"), "{pair}");
    assert!(pair.contains("((compute(1) - compute(0)) + "), "{pair}");
}

#[test]
fn let_patterns_read_only_the_parts_they_bind() {
    let program = emitted().program;
    let destructure = kernel(&program, "destructure");
    for expected in [
        "auto&& kl_let_1 = px[i];\n",
        "auto r = kl_let_1._0;\nauto g = kl_let_1._1;\n#line",
        "auto&& kl_let_2 = kl::make_array(r, g);\nauto a = kl_let_2[0];\nauto b = kl_let_2[1];",
        "(void)(handle());",
    ] {
        assert!(destructure.contains(expected), "{expected} missing:\n{destructure}");
    }
}

#[test]
fn loops_over_arrays_and_slices_read_each_element_in_order() {
    let program = emitted().program;
    let walks = kernel(&program, "walks");
    for expected in [
        "kl::array<unsigned int, 4> arr = {1u, 2, 3, 4};",
        "for (unsigned long long kl_i_1 = 0; kl_i_1 < (unsigned long long)(kl::len(arr)); ++kl_i_1) {\nauto x = arr[kl_i_1];",
        "for (unsigned long long kl_i_2 = 0; kl_i_2 < (unsigned long long)(data_len); ++kl_i_2) {\nauto k = kl_i_2;\nauto v = &data[kl_i_2];",
        "(acc += ((((unsigned int)(k))) * (*v)));",
        "auto kl_sum = decltype(+data[0]){};\n#pragma unroll 1\nfor (unsigned long long kl_k = 0; kl_k < (unsigned long long)(data_len); ++kl_k) kl_sum += data[kl_k]; return kl_sum; }();",
    ] {
        assert!(walks.contains(expected), "{expected} missing:\n{walks}");
    }
}

#[test]
fn tables_named_by_constants_and_computed_scrutinees_are_lowered() {
    let program = emitted().program;
    assert!(
        program.contains("__device__ const kl::array<float, 4> LUT = {1.5f, (-2.0f), 4.0f, 0.25f};"),
        "{program}"
    );
    let lookup = kernel(&program, "lookup");
    assert!(
        lookup.contains("auto v = [&]() { auto kl_match_1 = (h % 3); return ((kl_match_1 == 0) ? (LUT["),
        "{lookup}"
    );
}

#[test]
fn options_are_a_flag_and_a_value() {
    let program = emitted().program;
    let maybe = kernel(&program, "maybe");
    assert!(
        maybe.contains("kl::option<unsigned int> m = (((v > 0)) ? (kl::some(v)) : (kl::none{}));"),
        "{maybe}"
    );
    assert!(
        maybe.contains("(kl::unwrap_or_default(m) + ((unsigned int)((m).some)))"),
        "{maybe}"
    );
}
