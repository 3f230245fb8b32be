//! Kernels calling a helper of another module that recurses on a sub-slice or is generic over
//! a closure, a closure whose body is a `loop` without `break`, `gpu_printf!` of the fields of
//! an `overflowing_sub` pair, and `bool::then`; a kernel calling a Blackwell instruction is
//! refused for it, whatever comes before the call.

use kernel_lint_analyzer::{LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_harness::driver::{self, Sources};

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/oxide_types_recursion_kernels.rs");
const SUPPORT: &str = include_str!("../data/oxide_types_recursion_support.rs");

fn emitted() -> driver::Emitted {
    let file = |path: &str, text: &str, module: &[&str]| ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|m| m.to_string()).collect(),
        also_in: Vec::new(),
    };
    let sources = Sources {
        inputs: vec![
            file("src/kernels.rs", KERNELS, &["gpu", "kernels"]),
            file("src/support.rs", SUPPORT, &["gpu", "support"]),
            file("src/lib.rs", "pub mod kernels;\npub mod support;\n", &["gpu"]),
        ],
        reported: 1,
        uses: Vec::new(),
        features: Default::default(),
    };
    driver::emit_sources(&sources, &LaunchPlan::default())
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
fn a_helper_of_another_module_recurses_on_its_tail() {
    let emitted = emitted();
    assert_eq!(reason(&emitted, "sum_tail"), None);
    let program = &emitted.program;
    assert!(
        program.contains("return (a[0] + total((a + 1), (unsigned long long)((a_len) - (1))));"),
        "{program}"
    );
    check_with_gxx(program);
}

#[test]
fn a_generic_helper_of_another_module_is_a_template() {
    let emitted = emitted();
    assert_eq!(reason(&emitted, "picked"), None);
    let program = &emitted.program;
    assert!(
        program.contains("template <typename F> __device__ inline int apply(F f)"),
        "{program}"
    );
    assert!(program.contains("kl::bool_then("), "{program}");
    check_with_gxx(program);
}

#[test]
fn a_closure_looping_forever_is_a_void_lambda() {
    let emitted = emitted();
    assert_eq!(reason(&emitted, "stop_on_flag"), None);
    let body = kernel(&emitted.program, "stop_on_flag");
    assert!(
        body.contains("never([&](auto kl_unused_1) {\n#pragma unroll 1\nwhile (true) {\n}\n}, flag);"),
        "{body}"
    );
    check_with_gxx(&emitted.program);
}

#[test]
fn the_flag_of_an_overflowing_pair_prints_as_a_bool() {
    let emitted = emitted();
    assert_eq!(reason(&emitted, "report_borrow"), None);
    let program = &emitted.program;
    assert!(program.contains("\"%x, %s\\n\""), "{program}");
    assert!(program.contains("((borrow) ? \"true\" : \"false\")"), "{program}");
    check_with_gxx(program);
}

#[test]
fn a_blackwell_instruction_refuses_the_kernel_before_anything_else() {
    let emitted = emitted();
    let reason = reason(&emitted, "fence_after_descriptor").unwrap_or_default();
    assert!(
        reason.contains("`tcgen05_fence_before_thread_sync` needs sm_100 (Blackwell)"),
        "{reason}"
    );
}
