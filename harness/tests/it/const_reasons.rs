//! A kernel naming a constant whose definition is not lowered says why the definition is not
//! lowered, also through a constant that only names it.
//!
//! Kernels in the shape of `mul_mont/gpu_ptx` in cuda_min (a constant projected from another
//! constant built by a const fn), see /work/corpus/INDEX.md for the commit.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = r#"
use cuda_std::*;

pub struct Table(pub [u32; 2], pub usize);
const BUILT: Table = Table::grown([1, 5]);
const ENTRIES: [u32; 2] = BUILT.0;
const SCALE: f32 = 2.0;

#[kernel]
pub unsafe fn entries(out: *mut u32) {
    let i = thread::index_1d() as usize;
    *out.add(i) = ENTRIES[i % 2];
}

#[kernel]
pub unsafe fn scaled(out: *mut f32) {
    let i = thread::index_1d() as usize;
    *out.add(i) = SCALE;
}
"#;

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("src/lib.rs", KERNELS)], &LaunchPlan::default())
}

fn reason(emitted: &driver::Emitted, name: &str) -> String {
    emitted
        .manifest
        .not_lowered
        .iter()
        .find(|n| n.kernel == name)
        .map(|n| n.reason.clone())
        .unwrap_or_else(|| panic!("{name} lowered"))
}

#[test]
fn a_constant_naming_one_not_lowered_names_it() {
    let emitted = emitted();
    let entries = reason(&emitted, "entries");
    assert!(
        entries.starts_with("`ENTRIES` names a constant whose definition is not lowered: `BUILT` is not lowered ("),
        "{entries}"
    );
}

#[test]
fn the_other_kernels_still_lower() {
    let emitted = emitted();
    let scaled = kernel(&emitted.program, "scaled");
    assert!(scaled.contains("= SCALE;"), "{scaled}");
    check_with_gxx(&emitted.program);
}
