//! Items a file's own `macro_rules!` defines are expanded before lowering, and the `const`
//! blocks they hold are evaluated through `const fn` calls, `match` and enum variants.

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/oxide_macro_tables.rs");

#[test]
fn tables_a_local_macro_defines_are_evaluated_device_constants() {
    let emitted = emit_one(KERNELS);
    let program = &emitted.program;
    assert_every_kernel_lowered(&emitted);
    for line in [
        "__device__ const kl::array<Shade, 4> SHADES4 = {{{2}, {9}, {2}, {9}}};",
        "__device__ const kl::array<unsigned int, 4> WEIGHTS4 = {{4u, 4u, 6u, 4u}};",
        "__device__ const kl::array<Shade, 8> SHADES8 = {{{2}, {9}, {2}, {9}, {2}, {9}, {2}, {9}}};",
        "__device__ const kl::array<unsigned int, 8> WEIGHTS8 = {{4u, 4u, 6u, 4u, 4u, 6u, 4u, 4u}};",
    ] {
        assert!(program.contains(line), "{line}\n{program}");
    }
    let body = kernel(program, "shade_lookup");
    assert!(body.contains("SHADES8["), "{body}");
    assert!(body.contains("WEIGHTS4["), "{body}");
    check_with_gxx(program);
}
