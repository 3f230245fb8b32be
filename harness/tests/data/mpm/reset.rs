use crate::grid::{Grid, CELLS_PER_BLOCK};
use cuda_std::thread;
use mpm_core::math::Real;

#[cfg_attr(target_os = "cuda", kernel)]
pub unsafe fn reset(mut grid: Grid, scale: Real) {
    #[cfg(feature = "dim2")]
    let id = thread::block_idx_x() as u64 * CELLS_PER_BLOCK + thread::thread_idx_x() as u64 * 2;
    #[cfg(feature = "dim3")]
    let id = thread::block_idx_x() as u64 * CELLS_PER_BLOCK + thread::thread_idx_x() as u64;
    if id < grid.capacity() {
        let node = grid.node_unchecked_mut(id);
        node.mass = scale;
    }
}
