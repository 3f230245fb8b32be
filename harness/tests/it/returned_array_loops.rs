//! A loop over the array a method returns by value: built once, its elements read in order.
//!
//! Kernel in the shape of dimforge/sparkl (29cebe6e29bae35d9cc980e04db53ebee3230ade),
//! `src_kernels/cuda/sort.rs` (`touch_particle_blocks`) with `src_kernels/gpu_grid.rs`.

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one};

const KERNEL: &str = r#"
use cuda_std::prelude::*;

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Lattice {
    pub flags: *mut u32,
    pub side: u32,
}

impl Lattice {
    pub fn neighbours(&self, cell: u32) -> [u32; 3] {
        [cell, cell + 1, cell + self.side]
    }
}

#[kernel]
pub unsafe fn touch_cells(cells: *const u32, n: u32, lattice: Lattice) {
    let id = thread::index_1d();
    if id < n {
        let cell = *cells.add(id as usize);
        for touched in lattice.neighbours(cell) {
            *lattice.flags.add(touched as usize) = 1;
        }
    }
}
"#;

#[test]
fn a_returned_array_is_built_once_and_walked_in_order() {
    let emitted = emit_one(KERNEL);
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    assert!(
        program.contains("auto kl_returned_1 = Lattice_neighbours("),
        "{program}"
    );
    assert!(
        program.contains(
            "kl_i_2 < (unsigned long long)(kl::len(kl_returned_1)); ++kl_i_2) {\nauto touched = kl_returned_1[kl_i_2];"
        ),
        "{program}"
    );
    check_with_gxx(program);
}
