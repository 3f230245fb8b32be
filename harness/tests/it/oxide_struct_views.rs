//! cuda-oxide `DisjointSlice`s handed to helpers, rebound or rebuilt from raw parts stay a
//! pointer and a length; a generic struct of the file becomes one C struct per instantiation.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/oxide_struct_views.rs");

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
fn helpers_take_disjoint_slices_as_pointer_and_length() {
    let emitted = emitted();
    let program = &emitted.program;
    assert!(
        program.contains("__device__ inline void bump(float* cells, unsigned long long cells_len) {"),
        "{program}"
    );
    // The helper's own thread index guards and addresses the store, as in Rust.
    assert!(
        program.contains("if ((unsigned long long)(kl::oxide_index_1d()) < cells_len) {\nauto cell = kl::make_ref(&cells[kl::oxide_index_1d()]);"),
        "{program}"
    );
    assert!(
        program.contains("__device__ inline void fill(unsigned int* cells, unsigned long long cells_len, "),
        "{program}"
    );
    let raw = kernel(program, "bump_raw");
    assert!(
        raw.contains("auto cells = base;\nauto cells_len = (unsigned long long)(count);\n"),
        "{raw}"
    );
    assert!(raw.contains("bump(cells, cells_len);"), "{raw}");
    let rebound = kernel(program, "bump_rebound");
    assert!(
        rebound.contains("auto cells_1 = cells;\nauto cells_1_len = cells_len;\n"),
        "{rebound}"
    );
    assert!(rebound.contains("bump(cells_1, cells_1_len);"), "{rebound}");
    // The atomic cells keep their value type and scope inside the helper.
    assert!(
        program.contains("auto seen = kl::oxide_atomic_load(counters[at]);"),
        "{program}"
    );
    let fill = kernel(program, "fill_counts");
    assert!(
        fill.contains("fill(cells, cells_len, counters, counters_len, at);"),
        "{fill}"
    );
}

#[test]
fn a_generic_struct_is_one_struct_per_instantiation_without_markers() {
    let emitted = emitted();
    let program = &emitted.program;
    assert!(
        program.contains("struct Marked_u32_Fast {\n  unsigned int payload;\n};\n"),
        "{program}"
    );
    let copy = kernel(program, "copy_marked");
    assert!(
        copy.starts_with("__global__ void copy_marked(const Marked_u32_Fast* input, unsigned long long input_len, Marked_u32_Fast* output, unsigned long long output_len)"),
        "{copy}"
    );
}
