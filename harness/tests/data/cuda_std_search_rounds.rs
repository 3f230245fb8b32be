// Kernels in the shape of Rust-GPU/Rust-CUDA @ ac2674f03208462709f538f07b10e3f8153c93b6
// (cuda_std `#[kernel]` functions over raw pointers and slices), written for the lowering tests of `while let` over a helper's
// option and of the greatest or least value of a mapped range.
use cuda_std::prelude::*;

const DEPTH: usize = 4;

#[kernel]
pub unsafe fn pop_all(entries: &[(u32, f32)], out: *mut f32) {
    let base = thread::index_1d() as usize * DEPTH;
    let mut left = DEPTH;
    while let Some((slot, _)) = top(entries, base, left) {
        left -= 1;
        *out.add(slot as usize) = 2.0;
    }
}

#[kernel]
pub unsafe fn widest(data: &[f32], out: *mut f32) {
    let tid = thread::index_1d() as usize;
    let far = (0..4).map(|k| k * 64 + tid).max().unwrap_or(0);
    let near = (1u32..=3).map(|k| k as usize + tid).min().unwrap();
    *out.add(tid) = data[far] + data[near];
}

fn top(entries: &[(u32, f32)], base: usize, left: usize) -> Option<(u32, f32)> {
    if left == 0 {
        None
    } else {
        Some(entries[base + left - 1])
    }
}
