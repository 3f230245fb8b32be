//! `if let (Some(a), Some(b)) = (x, y)`: both options evaluated once, in order, the body run
//! when both hold; options of references built by `transmute` of a raw pointer.
//!
//! Kernel in the shape of dimforge/sparkl (29cebe6e29bae35d9cc980e04db53ebee3230ade),
//! `src_kernels/cuda/reset_grid.rs` (`copy_grid_projection_data`) with `src_kernels/gpu_grid.rs`.

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one};

const KERNEL: &str = r#"
use cuda_std::prelude::*;

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Node {
    pub mass: f32,
    pub prev_mass: f32,
}

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Grid {
    pub nodes: *mut Node,
    pub capacity: u32,
}

impl Grid {
    pub fn node(&self, i: u32) -> Option<&Node> {
        if i >= self.capacity {
            None
        } else {
            unsafe { Some(core::mem::transmute(self.nodes.add(i as usize) as *const _)) }
        }
    }

    pub fn node_mut(&mut self, i: u32) -> Option<&mut Node> {
        if i >= self.capacity {
            None
        } else {
            unsafe { Some(core::mem::transmute(self.nodes.add(i as usize) as *mut _)) }
        }
    }
}

#[kernel]
pub unsafe fn carry_mass(prev: Grid, mut next: Grid, shift: u32) {
    let id = thread::index_1d();
    if let (Some(before), Some(after)) = (prev.node(id), next.node_mut(id + shift)) {
        after.prev_mass = before.mass;
    }
}
"#;

#[test]
fn a_tuple_of_options_binds_both_when_both_hold() {
    let emitted = emit_one(KERNEL);
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    for expected in ["auto kl_tuple_1_0 = ", "auto kl_tuple_1_1 = "] {
        assert!(program.contains(expected), "{expected} missing:\n{program}");
    }
    let first = program.find("auto kl_tuple_1_0 = ").unwrap();
    let second = program.find("auto kl_tuple_1_1 = ").unwrap();
    assert!(first < second, "{program}");
    check_with_gxx(program);
}
