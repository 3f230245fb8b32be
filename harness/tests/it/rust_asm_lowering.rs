//! Rust's `asm!` of PTX is lowered to CUDA's `asm volatile`: named and positional operands
//! numbered outputs first, register classes as NVPTX constraints, PTX's `%` kept, memory
//! clobbered unless `nomem`; a host body under `#[cfg(not(target_os = "cuda"))]` is left out.

use kernel_lint_harness::driver;

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/rust_asm_kernels.rs");

fn emitted() -> driver::Emitted {
    emit_one(KERNELS)
}

#[test]
fn ptx_atomics_in_asm_keep_their_instruction_and_operands() {
    let emitted = emitted();
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    assert!(
        program.contains(
            "asm volatile(\"cvta.to.global.u64 %0, %2;atom.global.exch.b32 %1, [%0], %3;\" : \"=l\"(global), \"=r\"(previous) : \"l\"(generic), \"r\"(_val) : \"memory\");"
        ),
        "{program}"
    );
    assert!(
        program.contains("asm volatile(\"mov.u32 %0, %%laneid;\" : \"=r\"(id) : );"),
        "{program}"
    );
    // An `f32` in `reg32` takes NVPTX's float class: `r` takes integers only.
    assert!(
        program.contains(
            "asm volatile(\"cvta.to.global.u64 %0, %1;red.global.add.f32 [%0], %2;\" : \"=l\"(global) : \"l\"(generic), \"f\"(_rhs) : \"memory\");"
        ),
        "{program}"
    );
    // The host's `unimplemented!()` is not compiled for the device.
    assert!(
        !program.contains("__trap();\n}\n\n__device__ inline unsigned int lane"),
        "{program}"
    );
    assert!(
        kernel(program, "claim").contains("u32_swap_global("),
        "{}",
        kernel(program, "claim")
    );
    check_with_gxx(program);
}
