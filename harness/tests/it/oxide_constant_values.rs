//! Values the cuda-oxide examples build at compile time or by reinterpretation: a tuple-struct
//! constant of an inline module, a static's one-past-the-end element address, `array::from_fn`,
//! `ptx_asm!`'s `in("C")` string operand and an address transmuted into `Option<&T>`.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/cuda_oxide_constant_values.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

#[test]
fn every_kernel_lowers_and_compiles() {
    let emitted = emitted();
    let reasons: Vec<_> = emitted.manifest.not_lowered.iter().map(|n| &n.reason).collect();
    assert!(reasons.is_empty(), "{reasons:?}");
    check_with_gxx(&emitted.program);
}

#[test]
fn tuple_struct_constant_of_an_inline_module_is_its_aggregate() {
    let emitted = emitted();
    assert!(
        emitted
            .program
            .contains("__device__ constexpr Tag TAG = Tag{kl::unit{}};"),
        "{}",
        emitted.program
    );
    assert!(kernel(&emitted.program, "tagged").contains("(*slot) = tag_weight(TAG);"));
}

#[test]
fn one_past_the_end_of_a_static_is_an_address_constant() {
    let emitted = emitted();
    assert!(
        emitted
            .program
            .contains("__device__ const kl::array<unsigned int, 2>* TABLE_END = (TABLE.v + 3);"),
        "{}",
        emitted.program
    );
}

#[test]
fn array_from_fn_takes_the_let_type() {
    let emitted = emitted();
    let generated = kernel(&emitted.program, "generated");
    assert!(
        generated.contains("kl::array<unsigned int, 3> made = kl::from_fn<unsigned int, 3>([&](auto k) {"),
        "{generated}"
    );
    // `[T; N]::map` of the generated array: one call per element, into a new array.
    assert!(
        generated.contains("auto mapped = kl::lanes::map(made, [&](auto v) {"),
        "{generated}"
    );
}

#[test]
fn string_operand_is_spliced_and_later_operands_renumbered() {
    let emitted = emitted();
    let widened = kernel(&emitted.program, "widened");
    assert!(
        widened.contains(r#"asm volatile("mul.hi.u32 %0, %1, %1;" : "=r"(hi) : "r"(a) : );"#),
        "{widened}"
    );
    assert!(!widened.contains("SUFFIX"), "{widened}");
}

#[test]
fn transmuted_address_is_an_option_of_the_same_pointer() {
    let emitted = emitted();
    let read = kernel(&emitted.program, "maybe_read");
    assert!(
        read.contains("kl::option<const unsigned int*> r = kl::option_of_pointer<const unsigned int*>(p);"),
        "{read}"
    );
}
