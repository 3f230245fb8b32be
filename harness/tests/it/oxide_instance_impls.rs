//! A method of `impl Wrapper<Vec2>` takes the instance's C struct as its receiver, and every
//! module of the file that names the instance shares that one struct; a generic union's
//! turbofish literal is a zeroed union of that instance with the one member set.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/oxide_instance_impls.rs");

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
fn methods_of_an_instance_take_its_struct() {
    let emitted = emitted();
    let program = &emitted.program;
    assert_eq!(program.matches("struct Boxed_Cell2 {").count(), 1, "{program}");
    assert!(
        program.contains("__device__ inline unsigned int Boxed_folded(Boxed_Cell2 self) {"),
        "{program}"
    );
    assert!(
        program.contains("__device__ inline Boxed_Cell2 Boxed_swapped(const Boxed_Cell2& self) {"),
        "{program}"
    );
    assert!(
        program.contains("return Boxed_Cell2{Cell2{self._0.hi, self._0.lo}};"),
        "{program}"
    );
    let fold = kernel(program, "fold_cells");
    assert!(fold.contains("auto wrapped = Boxed_Cell2{cell};"), "{fold}");
    assert!(
        fold.contains("Boxed_folded(kl::self_ref(Boxed_swapped(wrapped)))"),
        "{fold}"
    );
}

#[test]
fn generic_union_literal_is_an_instance() {
    let emitted = emitted();
    let program = &emitted.program;
    assert!(
        program.contains("union Lanes_u32 {\n  unsigned int value;\n  kl::array<unsigned char, 8> bytes;\n};"),
        "{program}"
    );
    let bits = kernel(program, "union_bits");
    assert!(
        bits.contains("(*slot) = ([&]() { Lanes_u32 u{}; u.bytes = static_cast<kl::array<unsigned char, 8>>(kl::make_array(i, 0, 0, 1, 2, 3, 4, 5)); return u; }()).value;"),
        "{bits}"
    );
}
