// A tree of slices built inside the kernel from its slice parameters, in the shape of
// patrickcsullivan/nn_cuda (3ad7b794) `rtree_gpu/src/rtree.rs`: a `Copy` struct of `&[f32]`
// fields made by a constructor whose literal uses the field shorthand.
use cuda_std::prelude::*;

#[derive(Clone, Copy)]
pub struct Heap<'a> {
    pub height: usize,
    pub mins: &'a [f32],
    pub maxs: &'a [f32],
}

impl<'a> Heap<'a> {
    pub fn new(height: usize, mins: &'a [f32], maxs: &'a [f32]) -> Self {
        Self { height, mins, maxs }
    }

    pub fn width(&self, node: usize) -> f32 {
        self.maxs[node] - self.mins[node]
    }
}

#[kernel]
pub unsafe fn widths(mins: &[f32], maxs: &[f32], out: *mut f32) {
    let i = thread::index_1d() as usize;
    let heap = Heap::new(3, mins, maxs);
    let tail = Heap { height: 2, mins: &mins[1..], maxs: &maxs[1..] };
    if i + 1 < mins.len() {
        *out.add(i) = heap.width(i) + tail.width(i);
    }
}
