//! A generic struct's constructor assigned to a place becomes a brace list of the place's
//! instance; a stub hook of the kernel's file, reached only under a `const` false, is a trap;
//! `PhantomData` fields of plain structs take no bytes.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/oxide_generic_constructors.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

#[test]
fn every_kernel_is_lowered_and_compiles() {
    let emitted = emitted();
    let failed: Vec<_> = emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (n.kernel.clone(), n.reason.clone()))
        .collect();
    assert!(failed.is_empty(), "{failed:?}");
    check_with_gxx(&emitted.program);
}

#[test]
fn constructor_stub_and_marker_lowering() {
    let emitted = emitted();
    let program = &emitted.program;
    let live = kernel(program, "rescale_Doubling");
    assert!(live.contains("(*out) = {pick_Doubling(v->inner)};"), "{live}");
    assert!(
        program.contains(
            "__device__ inline unsigned int Idle_scale(unsigned int _x) {\n  __trap();\n  __builtin_unreachable();\n}"
        ),
        "{program}"
    );
    assert!(
        program.contains("struct Pair {\n  unsigned int row;\n  unsigned int col;\n};"),
        "{program}"
    );
    let pair = kernel(program, "pair_sum");
    assert!(pair.contains("auto p = Pair{3, ((unsigned int)(i))};"), "{pair}");
}
