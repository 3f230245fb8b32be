// Kernels in the shape of NVlabs/cuda-oxide (a105afd522b73a6712a802e30bd900cd04cc8019),
// example `copy_aggregate_borrow`.
use cuda_device::{DisjointSlice, kernel, thread};

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Extent {
    pub sizes: [u32; 3],
    pub wrap: [bool; 2],
}

#[kernel]
pub fn extent_sizes(mut out: DisjointSlice<u32>, extent: Extent) {
    let index = thread::index_1d();
    let i = index.get() as usize;
    if let Some(slot) = out.get_mut(index) {
        *slot = extent.sizes[i % extent.sizes.len()] + extent.wrap[i % 2] as u32;
    }
}
