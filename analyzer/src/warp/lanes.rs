//! The lanes of a warp: which thread (tx, ty, tz) each of the 32 lanes runs.

use crate::model::launch::Dim3;

/// Threads in a warp.
pub const WARP_SIZE: usize = 32;

/// The thread index of every lane of one warp; `None` for lanes past the end of the block.
pub type Warp = [Option<[i64; 3]>; WARP_SIZE];

/// The warps of one block, in order. Linear thread id is `tx + ty*bdx + tz*bdx*bdy` and warp
/// `w` holds linear ids `32w .. 32w+31`, so with `blockDim.x < 32` a warp spans several rows.
pub fn warps(block: Dim3) -> Vec<Warp> {
    let [bx, by, bz] = block.map(|d| d.max(1) as usize);
    let threads = bx * by * bz;
    (0..threads.div_ceil(WARP_SIZE))
        .map(|w| {
            std::array::from_fn(|lane| {
                let linear = w * WARP_SIZE + lane;
                (linear < threads).then(|| {
                    [
                        (linear % bx) as i64,
                        ((linear / bx) % by) as i64,
                        (linear / (bx * by)) as i64,
                    ]
                })
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_blocks_span_rows() {
        let w = warps([16, 16, 1]);
        assert_eq!(w.len(), 8);
        assert_eq!(w[0][15], Some([15, 0, 0]));
        assert_eq!(w[0][16], Some([0, 1, 0]));
        assert_eq!(w[1][0], Some([0, 2, 0]));
        let eight = warps([8, 8, 1]);
        assert_eq!(eight[0][31], Some([7, 3, 0]));
    }

    #[test]
    fn partial_last_warp() {
        let w = warps([48, 1, 1]);
        assert_eq!(w.len(), 2);
        assert_eq!(w[1][15], Some([47, 0, 0]));
        assert_eq!(w[1][16], None);
    }
}
