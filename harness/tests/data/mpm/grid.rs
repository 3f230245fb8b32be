use crate::DevicePointer;
use mpm_core::math::{Real, Vector};

#[cfg(feature = "dim2")]
pub const CELLS_PER_BLOCK: u64 = 4 * 4;
#[cfg(feature = "dim3")]
pub const CELLS_PER_BLOCK: u64 = 4 * 4 * 4;

#[repr(C)]
#[derive(Copy, Clone)]
pub struct Node {
    pub mass: Real,
    pub velocity: Vector<Real>,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct Grid {
    cell_width: Real,
    nodes: DevicePointer<Node>,
    capacity: u64,
}

impl Grid {
    pub unsafe fn node_unchecked_mut(&mut self, id: u64) -> &mut Node {
        &mut *self.nodes.as_mut_ptr().add(id as usize)
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }
}
