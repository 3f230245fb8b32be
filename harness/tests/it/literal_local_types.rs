//! A local bound to an unsuffixed literal takes the type Rust infers from its uses (the value
//! the function returns, a typed assignment, the register of an `asm!` operand), so that every
//! `asm` operand of the twin is as wide as its constraint (`l` 64-bit, `r` 32-bit, `f` f32).

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/literal_local_kernels.rs");

#[test]
fn literal_locals_take_the_width_of_their_uses() {
    let emitted = emit_one(KERNELS);
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    // Returned as `Self` of `impl .. for u64`: 64-bit, as the `l` operand requires.
    assert!(program.contains("unsigned long long seen = 0;"), "{program}");
    assert!(
        program.contains("\"=l\"(global), \"=l\"(seen) : \"l\"(generic), \"l\"(current), \"l\"(new_)"),
        "{program}"
    );
    // Returned as `Self` of `impl .. for f32`: a `float` for `f`, not C++'s `double`.
    assert!(program.contains("float before = 0.0f;"), "{program}");
    let body = kernel(program, "claim_slots");
    // Only the `reg64` operand types it: 64 bits wide.
    assert!(body.contains("long long ticks = 0;"), "{body}");
    assert!(body.contains("unsigned long long stamp = 0;"), "{body}");
    assert!(
        !program.contains("auto seen = 0;") && !program.contains("auto before"),
        "{program}"
    );
    check_with_gxx(program);
}
