//! `ptx_support`'s `Context::thread()` / `Context::block()` read the CUDA coordinates; the
//! warpgroup MMA of cuda-oxide is its one `wgmma.mma_async` instruction; a tf32 conversion
//! that saturates is refused because only sm_100 has it.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

fn emit(name: &str, text: &str) -> driver::Emitted {
    driver::emit(&[SourceFile::new(name, text)], &LaunchPlan::default())
}

fn reason(emitted: &driver::Emitted, name: &str) -> Option<String> {
    emitted
        .manifest
        .not_lowered
        .iter()
        .find(|n| n.kernel == name)
        .map(|n| n.reason.clone())
}

#[test]
fn ptx_support_context_reads_thread_and_block_coordinates() {
    let emitted = emit("k.rs", include_str!("../data/ptx_support_context.rs"));
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let brighten = kernel(&emitted.program, "brighten");
    assert!(
        brighten.contains(
            "kl::ptx_context_block().index().x * kl::ptx_context_block().dims().x) + kl::ptx_context_thread().index().x"
        ),
        "{brighten}"
    );
    let paint = kernel(&emitted.program, "paint");
    assert!(paint.contains("kl::ptx_context_block().index().y"), "{paint}");
    assert!(
        emitted
            .program
            .contains("__device__ ptx_dim3 dims() const { return {blockDim.x, blockDim.y, blockDim.z}; }"),
        "the block extent is blockDim"
    );
    check_with_gxx(&emitted.program);
}

#[test]
fn warpgroup_mma_is_one_wgmma_instruction_and_saturating_tf32_is_refused() {
    let emitted = emit("k.rs", include_str!("../data/cuda_oxide_warpgroup_mma.rs"));
    let tile = kernel(&emitted.program, "tile");
    assert!(
        tile.contains("kl::wgmma_mma_m64n64k16_f32_bf16((&acc), desc_a, desc_b);"),
        "{tile}"
    );
    assert!(emitted.program.contains(
        "\"wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 \"\n      \"{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, \"\n      \"%32, %33, 1, 1, 1, 0, 0;\""
    ));
    assert!(kernel(&emitted.program, "rounded_tf32").contains("cvt.rna.tf32.f32"));
    assert_eq!(
        reason(&emitted, "saturated_tf32").as_deref(),
        Some("`cvt_rn_satfinite_tf32_f32`: `cvt.*.satfinite.tf32.f32` needs sm_100, which the H100/H200 harness machine cannot run")
    );
    check_with_gxx(&emitted.program);
}

#[test]
fn while_let_rounds_and_extremes_of_mapped_ranges_are_lowered() {
    let emitted = emit("k.rs", include_str!("../data/cuda_std_search_rounds.rs"));
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let pop_all = kernel(&emitted.program, "pop_all");
    assert!(pop_all.contains("#pragma unroll 1\nwhile (true) {\n"), "{pop_all}");
    assert!(pop_all.contains("else {\n#line"), "{pop_all}");
    assert!(pop_all.contains("break;\n"), "{pop_all}");
    let widest = kernel(&emitted.program, "widest");
    assert!(
        widest.contains(
            "for (long long kl_k = 0; kl_k < (4); ++kl_k) { auto kl_v = kl_map(kl_k); if (!kl_any || kl_v >= kl_best)"
        ),
        "{widest}"
    );
    assert!(
        widest.contains("return kl_any ? kl_best : (decltype(kl_best))(0); }();"),
        "{widest}"
    );
    assert!(
        widest.contains("for (decltype((1u) + (3)) kl_k = 1u; kl_k <= (3); ++kl_k) { auto kl_v = kl_map(kl_k); if (!kl_any || kl_v < kl_best)"),
        "{widest}"
    );
    assert!(
        widest.contains("return kl_any ? kl_best : (__trap(), kl_best); }();"),
        "{widest}"
    );
    check_with_gxx(&emitted.program);
}
