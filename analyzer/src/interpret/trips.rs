//! How many times one warp makes an access in one run of its kernel: the product of the trip
//! counts of the loops around it, when every one of them is a range the launch bounds.

use super::Access;
use crate::algebra::interval::{iteration_bound, Interval};
use crate::algebra::{Atom, Predicate};
use crate::model::launch::ResolvedLaunch;

/// The requests one warp makes for an access, or `None` when a loop around it has no count
/// the launch and the configured parameters give (a `while`, a range with an unknown end).
pub fn requests_per_warp(access: &Access, launch: &ResolvedLaunch) -> Option<f64> {
    let range = |a: &Atom| -> Option<Interval> {
        Some(match a {
            Atom::ThreadIdx(axis) => Interval::new(0, i64::from(launch.block[axis.index()]) - 1),
            Atom::BlockIdx(axis) => Interval::new(0, i64::from(launch.grid?[axis.index()]) - 1),
            Atom::GridDim(axis) => Interval::point(i64::from(launch.grid?[axis.index()])),
            Atom::BlockDim(axis) => Interval::point(i64::from(launch.block[axis.index()])),
            Atom::Param(name) => Interval::point(*launch.params.get(name)?),
            _ => return None,
        })
    };
    let mut iters: Vec<Atom> = Vec::new();
    for guard in &access.guards {
        if let Predicate::Cmp(..) = guard {
            guard.visit_atoms(&mut |a| {
                if matches!(a, Atom::Iter(..)) && !iters.contains(a) {
                    iters.push(a.clone());
                }
            });
        }
    }
    // A loop with no counter bound by a guard (`while`, `loop`) has no count.
    if iters.len() < access.loop_depth as usize {
        return None;
    }
    let mut product = 1.0;
    for iter in iters {
        product *= (iteration_bound(&iter, &access.guards, &range)?.max(-1) + 1) as f64;
    }
    Some(product)
}
