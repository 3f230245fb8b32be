//! Unions of the kernel's file as C++ unions defined once, union literals setting the member
//! they name, union parameters set by the host through their first field; a generic struct
//! instantiated with the file's own struct defined after it.

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/oxide_unions.rs");

#[test]
fn unions_of_the_file() {
    let emitted = emit_one(KERNELS);
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    let definition = "union Lanes {\n  unsigned int packed;\n  kl::array<unsigned char, 4> parts;\n};";
    assert_eq!(program.matches(definition).count(), 1, "{program}");
    assert_eq!(program.matches("union Lanes").count(), 1, "{program}");
    let views = kernel(program, "union_views");
    assert!(
        views.contains("([&]() { Lanes u{}; u.parts = static_cast<kl::array<unsigned char, 4>>("),
        "{views}"
    );
    assert!(
        program.contains("return ([&]() { Lanes u{}; u.packed = static_cast<unsigned int>(packed); return u; }());"),
        "{program}"
    );
    assert!(
        program.contains("  Lanes lanes{};\n  lanes.packed = (unsigned int)"),
        "{program}"
    );
    let own = program.find("struct Vec2 {").expect("own struct");
    let boxed = program.find("struct Boxed_Vec2 {").expect("instance");
    assert!(own < boxed, "{program}");
    check_with_gxx(program);
}
