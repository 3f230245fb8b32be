//! Where the lanes of an access are evaluated: which blocks, and which iteration of each loop
//! around it, each with the weight it stands for in the launch's total.
//!
//! Without a grid, block and loop indices take a few small values together (a representative
//! block). With a known grid, every block is counted (a large grid keeps its first and last
//! blocks of each dimension and a contiguous run of interior ones, weighted for those it
//! stands for), and every iteration of each loop whose guard ends it.

use super::lanes::Warp;
use crate::algebra::{Atom, Predicate};
use std::collections::BTreeMap;

/// Values block and loop indices take together when no grid is known.
pub(super) const VARYING_SAMPLES: i64 = 4;

/// Blocks counted in one dimension of a large grid: the first two, the last two and a run of
/// interior ones as long as the widest period of sector alignment (32 start residues).
const EDGE_BLOCKS: i64 = 2;
const INTERIOR_RUN: i64 = 32;

/// Iterations counted of one loop: all of them up to this, else as many evenly spread ones.
const ITERATIONS: i64 = 256;

/// Iterations of an inner loop per iteration of an outer one counted, when loops nest.
const NESTED_ITERATIONS: i64 = 32;

/// Beyond this many iterations a loop is taken as unbounded.
const ITERATION_LIMIT: i64 = 1 << 24;

/// Lane evaluations spent on one access: blocks times iterations times threads per block.
const LANE_BUDGET: usize = 1 << 21;

/// One block at one iteration of the loops around the access.
#[derive(Debug, Clone)]
pub(super) struct Point {
    pub(super) block: [i64; 3],
    /// Iteration of each enumerated loop, by the loop's symbol id.
    iterations: BTreeMap<u32, i64>,
    /// The iteration of a loop not enumerated, and the block index when no grid is known.
    fallback: i64,
    /// How many (block, iteration) pairs of the launch this one stands for.
    pub(super) weight: f64,
}

impl Point {
    /// The same point with loops not enumerated at iteration `fallback`.
    pub(super) fn with_fallback(&self, fallback: i64) -> Point {
        Point {
            fallback,
            ..self.clone()
        }
    }

    /// This point's loop iterations in a block of `sample` (a representative block without a
    /// grid), weighted for both.
    pub(super) fn in_block_of(&self, sample: &Point) -> Point {
        Point {
            iterations: self.iterations.clone(),
            weight: sample.weight * self.weight,
            ..sample.clone()
        }
    }

    /// The value of a block or loop index here.
    pub(super) fn value(&self, atom: &Atom) -> Option<i64> {
        match atom {
            Atom::BlockIdx(a) => Some(self.block[a.index()]),
            Atom::Iter(id, _) => Some(self.iterations.get(id).copied().unwrap_or(self.fallback)),
            _ => None,
        }
    }
}

/// The points of a launch without a known grid: loop indices 0, 1, .. and block indices 1,
/// 2, .. together. A block past the first stands for the grid: guards against its edges
/// (`if id.x > 0`) leave most blocks whole; [`edge_of`] gives the first block's points.
pub(super) fn representative(samples: i64) -> Vec<Point> {
    (0..samples)
        .map(|s| Point {
            block: [s + 1; 3],
            iterations: BTreeMap::new(),
            fallback: s,
            weight: 1.0,
        })
        .collect()
}

/// The points under a known grid, and the loops enumerated (the others are unbounded: their
/// index stays a varying symbol and takes the representative values).
pub(super) struct GridPoints {
    pub(super) points: Vec<Point>,
    pub(super) enumerated: Vec<u32>,
}

/// The same points in the grid's first block: where an access only that block makes
/// (`if block_idx == 0`) is evaluated.
pub(super) fn edge_of(points: &[Point]) -> Vec<Point> {
    points
        .iter()
        .map(|p| Point {
            block: [0; 3],
            ..p.clone()
        })
        .collect()
}

/// The same points with each loop of `loops` (outermost first) at its own iteration past the
/// first, an outer loop further on than the loops inside it: where a loop bounded by an outer
/// one's index (`for j in 0..i`) runs, which it does not when all stand at one iteration.
pub(super) fn staggered(points: &[Point], loops: &[u32]) -> Vec<Point> {
    points
        .iter()
        .map(|p| {
            let mut iterations = p.iterations.clone();
            for (rank, id) in loops.iter().enumerate() {
                iterations.entry(*id).or_insert((loops.len() - rank) as i64);
            }
            Point {
                iterations,
                ..p.clone()
            }
        })
        .collect()
}

/// Everything the lanes are evaluated with at a point, besides the point itself.
pub(super) struct Lanes<'a> {
    pub(super) warps: &'a [Warp],
    pub(super) guards: &'a [&'a Predicate],
    /// The value of any other symbol (launch extents, given parameters).
    pub(super) known: &'a dyn Fn(&Atom) -> Option<i64>,
}

impl Lanes<'_> {
    /// Whether some lane of some block runs the access at this point (a guard that cannot be
    /// evaluated lets it run).
    fn any_active(&self, blocks: &[([i64; 3], f64)], iterations: &BTreeMap<u32, i64>) -> bool {
        blocks.iter().any(|(block, _)| {
            let point = Point {
                block: *block,
                iterations: iterations.clone(),
                fallback: 0,
                weight: 1.0,
            };
            self.warps.iter().flatten().flatten().any(|thread| {
                let value = |a: &Atom| match a {
                    Atom::ThreadIdx(axis) => Some(thread[axis.index()]),
                    // A loop not yet fixed may be at any iteration: leave its guards open.
                    Atom::Iter(id, _) if !iterations.contains_key(id) => None,
                    Atom::BlockIdx(_) | Atom::Iter(..) => point.value(a),
                    other => (self.known)(other),
                };
                self.guards.iter().all(|g| g.eval(&value) != Some(false))
            })
        })
    }
}

/// Blocks and iterations to count under `grid` for an access inside the loops `loops`
/// (symbol ids, outermost first).
pub(super) fn grid_points(grid: [u32; 3], loops: &[u32], lanes: &Lanes<'_>) -> GridPoints {
    let threads = lanes.warps.len().max(1) * 32;
    let per_dim: Vec<Vec<(i64, f64)>> = grid.iter().map(|&g| sample_dimension(i64::from(g.max(1)))).collect();
    let mut blocks: Vec<([i64; 3], f64)> = Vec::new();
    for (x, wx) in &per_dim[0] {
        for (y, wy) in &per_dim[1] {
            for (z, wz) in &per_dim[2] {
                blocks.push(([*x, *y, *z], wx * wy * wz));
            }
        }
    }
    // Loops the guards bound are enumerated, outermost first; the rest stay symbols.
    let mut tuples: Vec<(BTreeMap<u32, i64>, f64)> = vec![(BTreeMap::new(), 1.0)];
    let mut enumerated = Vec::new();
    for (depth, &id) in loops.iter().enumerate() {
        let cap = if depth == 0 && loops.len() == 1 {
            ITERATIONS
        } else {
            NESTED_ITERATIONS
        };
        let mut next = Vec::new();
        let mut bounded = true;
        for (prefix, weight) in &tuples {
            match iteration_count(id, prefix, &blocks, lanes) {
                Some(count) => {
                    for (n, w) in spread(count, cap) {
                        let mut with = prefix.clone();
                        with.insert(id, n);
                        next.push((with, weight * w));
                    }
                }
                None => {
                    bounded = false;
                    break;
                }
            }
        }
        if bounded {
            tuples = next;
            enumerated.push(id);
        }
    }
    // Within the budget: fewer blocks first (keeping the edges), as the loops carry the trend.
    let budget_blocks = (LANE_BUDGET / threads / tuples.len().max(1)).max(1);
    if blocks.len() > budget_blocks {
        blocks = thin(blocks, budget_blocks);
    }
    let mut points = Vec::with_capacity(blocks.len() * tuples.len());
    for (block, bw) in &blocks {
        for (iterations, iw) in &tuples {
            points.push(Point {
                block: *block,
                iterations: iterations.clone(),
                fallback: 0,
                weight: bw * iw,
            });
        }
    }
    GridPoints { points, enumerated }
}

/// The blocks of one dimension to count, with the weight of each: all of a small grid; of a
/// large one, the first and last [`EDGE_BLOCKS`] and a contiguous interior run that stands
/// for all the interior blocks.
fn sample_dimension(extent: i64) -> Vec<(i64, f64)> {
    if extent <= 2 * EDGE_BLOCKS + INTERIOR_RUN {
        return (0..extent).map(|b| (b, 1.0)).collect();
    }
    let interior = extent - 2 * EDGE_BLOCKS;
    let run_start = EDGE_BLOCKS + (interior - INTERIOR_RUN) / 2;
    let weight = interior as f64 / INTERIOR_RUN as f64;
    let mut out: Vec<(i64, f64)> = (0..EDGE_BLOCKS).map(|b| (b, 1.0)).collect();
    out.extend((run_start..run_start + INTERIOR_RUN).map(|b| (b, weight)));
    out.extend((extent - EDGE_BLOCKS..extent).map(|b| (b, 1.0)));
    out
}

/// At most `keep` of the blocks, evenly spread, each carrying the weight of those dropped
/// around it.
fn thin(blocks: Vec<([i64; 3], f64)>, keep: usize) -> Vec<([i64; 3], f64)> {
    let total: f64 = blocks.iter().map(|(_, w)| w).sum();
    let step = blocks.len() as f64 / keep as f64;
    let kept: Vec<([i64; 3], f64)> = (0..keep).map(|i| blocks[((i as f64 + 0.5) * step) as usize]).collect();
    let kept_total: f64 = kept.iter().map(|(_, w)| w).sum();
    let scale = if kept_total > 0.0 { total / kept_total } else { 1.0 };
    kept.into_iter().map(|(b, w)| (b, w * scale)).collect()
}

/// Iterations `0..count` to count, with weights: all of them, or `cap` evenly spread ones
/// each standing for `count / cap`.
fn spread(count: i64, cap: i64) -> Vec<(i64, f64)> {
    if count <= cap {
        return (0..count).map(|n| (n, 1.0)).collect();
    }
    let width = count as f64 / cap as f64;
    (0..cap).map(|k| (((k as f64 + 0.5) * width) as i64, width)).collect()
}

/// How many iterations of loop `id` some lane runs (after the outer loops' `prefix`): the
/// first iteration at which no lane of any block passes the guards, found by doubling and
/// bisection (the guards of a range let fewer lanes through as it goes on). `None` when no
/// guard ends the loop.
fn iteration_count(id: u32, prefix: &BTreeMap<u32, i64>, blocks: &[([i64; 3], f64)], lanes: &Lanes<'_>) -> Option<i64> {
    let live = |n: i64| {
        let mut at = prefix.clone();
        at.insert(id, n);
        lanes.any_active(blocks, &at)
    };
    if !live(0) {
        return Some(0);
    }
    let mut low = 0;
    let mut high = 1;
    while live(high) {
        low = high;
        high *= 2;
        if high > ITERATION_LIMIT {
            return None;
        }
    }
    while high - low > 1 {
        let mid = low + (high - low) / 2;
        if live(mid) {
            low = mid;
        } else {
            high = mid;
        }
    }
    Some(low + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_dimensions_keep_edges_and_weigh_the_interior() {
        let small = sample_dimension(25);
        assert_eq!(small.len(), 25);
        let large = sample_dimension(400);
        assert_eq!(large.len(), 36);
        assert_eq!(large[0].0, 0);
        assert_eq!(large[35].0, 399);
        let total: f64 = large.iter().map(|(_, w)| w).sum();
        assert!((total - 400.0).abs() < 1e-9);
    }

    #[test]
    fn long_loops_are_spread_evenly() {
        assert_eq!(spread(3, 256), vec![(0, 1.0), (1, 1.0), (2, 1.0)]);
        let long = spread(1024, 256);
        assert_eq!(long.len(), 256);
        assert_eq!(long[0], (2, 4.0));
        assert_eq!(long[255], (1022, 4.0));
    }
}
