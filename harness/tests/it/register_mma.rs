//! cuda-oxide's register matrix multiplies are lowered to the one `mma.sync`/`mma.sp`
//! instruction each names, with fragments sized from the shape and element types.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/cuda_oxide_register_mma.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

#[test]
fn register_mma_forms_are_their_ptx_instruction() {
    let emitted = emitted();
    let products = kernel(&emitted.program, "register_products");
    for line in [
        "KL_MMA_ASM(\"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\" : \"=f\"(d_.v[0]), \"=f\"(d_.v[1]), \"=f\"(d_.v[2]), \"=f\"(d_.v[3]) : \"r\"((unsigned int)(a_.v[0]))",
        "kl::array<unsigned int, 2> d_{}; KL_MMA_ASM(\"mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, {%5, %6};\"",
        "\"r\"((unsigned int)(b_))",
        "kl::array<double, 2> d_{}; KL_MMA_ASM(\"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};\" : \"=d\"(d_.v[0]), \"=d\"(d_.v[1]) : \"d\"((double)(a_)), \"d\"((double)(b_)), \"d\"((double)(c_.v[0])), \"d\"((double)(c_.v[1])));",
        "\"mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\" : \"=r\"(d_.v[0])",
        "\"mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\"",
        "\"mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0, %1, %2, %3}, {%4, %5}, {%6, %7}, {%8, %9, %10, %11}, %12, %13;\"",
        "\"r\"(e_), \"n\"(1));",
    ] {
        assert!(products.contains(line), "{line}\n{products}");
    }
    assert!(products.contains("kl::array<int, 4> d_{}"), "{products}");
    check_with_gxx(&emitted.program);
}

#[test]
fn a_sparsity_selector_that_is_not_a_literal_is_refused() {
    let emitted = emitted();
    let reason = emitted
        .manifest
        .not_lowered
        .iter()
        .find(|n| n.kernel == "selector_from_value")
        .map(|n| n.reason.clone())
        .unwrap_or_default();
    assert!(
        reason.contains("the sparsity selector is not a literal, but PTX takes it as an immediate"),
        "{reason}"
    );
}
