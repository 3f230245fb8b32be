//! Callables in cuda-oxide kernels: helpers generic over closures or function items are C++
//! function templates, so that calls leaving the arguments to inference are inferred by the
//! C++ compiler; `fn(..) -> ..` types are function pointers; calls through references.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/oxide_callables.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

#[test]
fn helpers_generic_over_callables_are_function_templates() {
    let emitted = emitted();
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let program = &emitted.program;
    for line in [
        "template <typename G> __device__ inline unsigned int run_once(G g, unsigned int v) {",
        "template <typename G> __device__ inline unsigned int run_by_ref(G* g, unsigned int v) {",
        // A callable taken by reference is called through the pointer.
        "return (*g)(v);",
        // `B` appears in no parameter: C++ deduces the return type from the body.
        "template <typename A, typename G> __device__ inline auto map_value(G g, A a) {",
        "return g(a);",
    ] {
        assert!(program.contains(line), "{line}\n{program}");
    }
    let body = kernel(program, "callables");
    for line in [
        "auto by_closure = run_once(scaled, src[at]);",
        "auto by_item = run_by_ref((&twice), src[at]);",
        "auto inferred = map_value(halve, src[at]);",
    ] {
        assert!(body.contains(line), "{line}\n{body}");
    }
}

#[test]
fn function_pointers_and_calls_through_references_are_lowered() {
    let emitted = emitted();
    let body = kernel(&emitted.program, "callables");
    for line in [
        "kl::fn_ptr<unsigned int, unsigned int> picked = twice;",
        "auto same = ((unsigned int)((picked == picked)));",
        "auto rr = (&r);",
        "((*(*rr)))(1)",
    ] {
        assert!(body.contains(line), "{line}\n{body}");
    }
    check_with_gxx(&emitted.program);
}
