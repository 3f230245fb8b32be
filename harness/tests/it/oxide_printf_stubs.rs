//! `gpu_printf!` becomes the device `printf`, each placeholder the conversion of its argument's
//! type; the warp stubs of `cuda_device` become their builtins, and the sm_100 ones are refused.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/oxide_printf_stubs.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

#[test]
fn printf_conversions_follow_the_argument_types() {
    let emitted = emitted();
    let report = kernel(&emitted.program, "report");
    assert!(
        report.contains(
            r#"printf("t%llu got %.4f (%#x) 100%%\n", (unsigned long long)(tid), (double)(data[tid]), (unsigned int)(count));"#
        ),
        "{report}"
    );
    assert!(
        report.contains(
            r#"auto n = printf("[%-8llu] [%08d] %s\n", (unsigned long long)(wide), (int)(((int)(count))), ((on) ? "true" : "false"));"#
        ),
        "{report}"
    );
    assert!(
        report.contains(r#"printf("%d %e\n", (int)(n), (double)(2.5f));"#),
        "{report}"
    );
    check_with_gxx(&emitted.program);
}

#[test]
fn warp_stubs_are_builtins_and_sm100_is_refused() {
    let emitted = emitted();
    let vote = kernel(&emitted.program, "vote");
    assert!(
        vote.contains("((unsigned int)__reduce_add_sync(0xffffffffu, (unsigned int)(values[lane])))")
            || vote.contains("__reduce_add_sync("),
        "{vote}"
    );
    assert!(vote.contains("((int)__reduce_min_sync("), "{vote}");
    assert!(vote.contains("kl::elect_sync("), "{vote}");
    let refused = emitted
        .manifest
        .not_lowered
        .iter()
        .find(|n| n.kernel == "tensor_memory")
        .map(|n| n.reason.clone())
        .unwrap_or_default();
    assert!(
        refused.contains("`tcgen05_alloc` needs sm_100 (Blackwell)"),
        "{refused}"
    );
    check_with_gxx(&emitted.program);
}

#[test]
fn const_block_tables_are_evaluated() {
    let emitted = emitted();
    let program = &emitted.program;
    assert!(
        program.contains(
            "__device__ const kl::array<kl::tuple2<unsigned char, unsigned int>, 4> CODES = {{{0, 1u}, {1, 2654435770u}, {2, 1013904243u}, {3, 3668340012u}}};"
        ),
        "{program}"
    );
    assert!(
        program.contains("LOCAL_RAMP = {{-1.0f, -0.5f, 0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 2.5f}};"),
        "{program}"
    );
    assert!(kernel(program, "lookup").contains("LOCAL_RAMP["), "{program}");
    check_with_gxx(program);
}

#[test]
fn structs_of_an_inline_module_build_by_name() {
    let emitted = emitted();
    let windowed = kernel(&emitted.program, "windowed");
    assert!(windowed.contains("auto w = Window{keys[i], 7};"), "{windowed}");
    assert!(windowed.contains("kl::div_ceil(((w.lo + w.hi)), 32)"), "{windowed}");
    check_with_gxx(&emitted.program);
}
