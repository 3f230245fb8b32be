//! `Self` inside a macro of a method (`vector![self.0 & Self::MASK, ..]`) names the method's
//! type, as it does outside the macro.
//!
//! Kernel in the shape of dimforge/sparkl (29cebe6e29bae35d9cc980e04db53ebee3230ade),
//! `src_kernels/gpu_grid.rs` (`BlockVirtualId::unpack`).

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one};

const KERNEL: &str = r#"
use cuda_std::prelude::*;
use nalgebra::{vector, Vector3};

#[derive(Clone, Copy)]
#[repr(C)]
pub struct PackedCell(pub u64);

impl PackedCell {
    const LANE: u64 = 0b1_1111_1111_1111_1111_1111;

    pub fn unpack(self) -> Vector3<u64> {
        vector![self.0 & Self::LANE, (self.0 >> 21) & Self::LANE, (self.0 >> 42) & Self::LANE]
    }
}

#[kernel]
pub unsafe fn unpack_cells(cells: *const PackedCell, out: *mut Vector3<u64>) {
    let i = thread::index_1d() as usize;
    *out.add(i) = (*cells.add(i)).unpack();
}
"#;

#[test]
fn self_in_a_macro_names_the_methods_type() {
    let emitted = emit_one(KERNEL);
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    assert!(program.contains("(((self._0 >> 21)) & 2097151ll)"), "{program}");
    check_with_gxx(program);
}
