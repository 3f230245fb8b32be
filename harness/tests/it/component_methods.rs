//! A trait method of a nalgebra vector written as the scalar's method on each component
//! (`self.zip_apply(&rhs, |a, b| a.global_red_add(b))`) is one scalar call per element.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

#[test]
fn zip_applied_atomic_adds_each_component_at_its_own_address() {
    let text = include_str!("../data/component_methods.rs");
    let emitted = driver::emit(&[SourceFile::new("k.rs", text)], &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let program = &emitted.program;
    check_with_gxx(program);
    assert!(
        program.contains("template <typename M, typename F> __device__ inline void zip_apply(M& a, M b, F f) {"),
        "{program}"
    );
    let merge = kernel(program, "merge_nodes");
    assert!(
        merge.contains("f32_global_red_add(node->mass, other->mass);"),
        "{merge}"
    );
    assert!(
        merge.contains("kl::zip_apply(node->momentum, other->momentum, f32_global_red_add);"),
        "{merge}"
    );
}
