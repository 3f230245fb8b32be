//! The lanes of every warp of a block evaluated under one assignment of the unknowns, and the
//! sectors they touch averaged over warps and start alignments.

use super::compiled::{CompiledPoly, CompiledPredicate};
use super::guards::deciding;
use super::lanes::Warp;
use super::lanes::WARP_SIZE;
use super::points::{edge_of, grid_points, representative, staggered, Lanes, Point, VARYING_SAMPLES};
use super::sectors::{ideal_sectors, sectors, SECTOR_BYTES};
use crate::algebra::{Atom, OpKind, Poly};
use crate::interpret::Access;
use crate::model::launch::ResolvedLaunch;
use std::collections::BTreeMap;

/// The measured outcome of one assignment of the unknowns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Outcome {
    pub(super) sectors: f64,
    pub(super) ideal: f64,
    pub(super) stride: Option<i64>,
    pub(super) broadcast: bool,
}

/// Everything fixed for one access under one launch and one choice of unknown values.
pub(super) struct Setup<'a> {
    /// The terms evaluated lane by lane at each point: those that differ between lanes, those
    /// of block and loop indices that the points fix, and the constant.
    compiled: CompiledPoly,
    /// The guards that may exclude a lane under this launch, prepared for the lanes.
    guards: Vec<CompiledPredicate>,
    pub(super) width: u64,
    /// Start residues mod 32 that the remaining varying uniform terms (block index without a
    /// grid, a loop with no end in sight) cycle through, each equally often.
    pub(super) residues: Vec<i64>,
    /// Shifts that fixed unknown uniform terms (an offset) may add, besides 0.
    pub(super) shifts: Vec<i64>,
    pub(super) alignment: Vec<(String, i64)>,
    points: Vec<Point>,
    /// Without a grid, the points in the first block instead: the access is evaluated there
    /// when no lane of the representative blocks runs it.
    edge: Vec<Point>,
    /// The points with the loops not enumerated each at its own iteration, outer ones further
    /// on: where the access is evaluated when it runs at neither of the above.
    staggered: Vec<Point>,
    warps: &'a [Warp],
}

impl<'a> Setup<'a> {
    pub(super) fn new(address: &Poly, access: &'a Access, launch: &'a ResolvedLaunch, warps: &'a [Warp]) -> Setup<'a> {
        let known = |a: &Atom| known_value(a, launch);
        let mut loops = Vec::new();
        let mut note_loop = |a: &Atom| {
            if let Atom::Iter(id, _) = a {
                if !loops.contains(id) {
                    loops.push(*id);
                }
            }
        };
        address.visit_atoms(&mut note_loop);
        for guard in &access.guards {
            guard.visit_atoms(&mut note_loop);
        }
        loops.sort_unstable();
        let guards = deciding(&access.guards, &known);
        let lanes = Lanes {
            warps,
            guards: &guards,
            known: &known,
        };
        // Without a grid, the loops a guard bounds are still counted, in one block: the block
        // index keeps cycling as a symbol.
        let grid_known = launch.grid.is_some();
        let found = grid_points(launch.grid.unwrap_or([1, 1, 1]), &loops, &lanes);
        let (mut points, enumerated) = (found.points, found.enumerated);
        // A block or loop index the points do not fix keeps cycling as a symbol.
        let cycles = |m: &Vec<Atom>| {
            let mut found = false;
            for atom in m {
                atom.visit(&mut |a| {
                    found |= match a {
                        Atom::BlockIdx(_) => !grid_known,
                        Atom::Iter(id, _) => !enumerated.contains(id),
                        _ => false,
                    }
                });
            }
            found
        };
        let is_lane = |m: &Vec<Atom>| m.iter().any(Atom::is_lane_dependent);
        let mut evaluated = Poly::default();
        let mut varying_gcd = 0i64;
        let mut alignment: Vec<(String, i64)> = Vec::new();
        let mut lane_cycles = false;
        for (monomial, coefficient) in address.terms() {
            let term = address.filter_terms(|m| m == monomial);
            if is_lane(monomial) {
                lane_cycles |= cycles(monomial);
                evaluated = evaluated.add(&term);
            } else if cycles(monomial) {
                varying_gcd = gcd(varying_gcd, coefficient);
            } else if monomial.is_empty() || monomial.iter().any(Atom::is_varying) {
                evaluated = evaluated.add(&term);
            } else {
                let name = monomial.iter().map(|a| a.to_string()).collect::<Vec<_>>().join("*");
                alignment.push((name, coefficient));
            }
        }
        let step = gcd(varying_gcd, SECTOR_BYTES);
        let residues = if step == 0 || step == SECTOR_BYTES {
            vec![0]
        } else {
            (0..SECTOR_BYTES / step).map(|k| k * step).collect()
        };
        let shifts = match gcd(alignment.iter().fold(0, |g, (_, c)| gcd(g, *c)), SECTOR_BYTES) {
            0 | SECTOR_BYTES => Vec::new(),
            h => (1..SECTOR_BYTES / h).map(|k| k * h).collect(),
        };
        // Symbols still varying inside the lanes' terms take a few values, as in a
        // representative block.
        let mut edge = Vec::new();
        if !grid_known {
            let samples = representative(if lane_cycles { VARYING_SAMPLES } else { 1 });
            points = samples
                .iter()
                .flat_map(|sample| points.iter().map(move |p| p.in_block_of(sample)))
                .collect();
            edge = edge_of(&points);
        } else if lane_cycles {
            points = points
                .iter()
                .flat_map(|p| (0..VARYING_SAMPLES).map(move |s| p.with_fallback(s)))
                .collect();
        }
        let open_loops: Vec<u32> = loops.iter().copied().filter(|id| !enumerated.contains(id)).collect();
        let compiled = CompiledPoly::new(&evaluated, &known);
        let guards = guards.iter().map(|g| CompiledPredicate::new(g, &known)).collect();
        Setup {
            compiled,
            guards,
            width: access.width,
            residues,
            shifts,
            alignment,
            staggered: staggered(&points, &open_loops),
            points,
            edge,
            warps,
        }
    }

    /// `offset % 8 == 0`: when the fixed unknown shifts keep the start aligned.
    pub(super) fn alignment_condition(&self) -> String {
        self.alignment
            .iter()
            .map(|(name, c)| format!("{name} % {} == 0", SECTOR_BYTES / gcd(*c, SECTOR_BYTES)))
            .collect::<Vec<_>>()
            .join(" && ")
    }

    /// The addresses of the active lanes of every warp at every point, with the point's
    /// weight, the most common stride between neighbouring active lanes, and whether every warp reads one
    /// address; `None` when an address cannot be evaluated. A warp none of whose lanes runs
    /// the access makes no request.
    pub(super) fn lane_addresses(&self) -> Option<LaneAddresses> {
        let mut found = self.lane_addresses_at(&self.points)?;
        for other in [&self.edge, &self.staggered] {
            if !found.warps.is_empty() {
                break;
            }
            if !other.is_empty() {
                found = self.lane_addresses_at(other)?;
            }
        }
        Some(found)
    }

    fn lane_addresses_at(&self, points: &[Point]) -> Option<LaneAddresses> {
        let mut warps = Vec::with_capacity(self.warps.len() * points.len());
        let mut strides: BTreeMap<i64, f64> = BTreeMap::new();
        let mut broadcast = true;
        for (at, point) in points.iter().enumerate() {
            crate::budget::tick();
            for (index, warp) in self.warps.iter().enumerate() {
                let mut addresses: Vec<i64> = Vec::with_capacity(32);
                let mut active: Vec<usize> = Vec::with_capacity(32);
                // The distance between the first two neighbouring lanes that both run the
                // access: lane 0 may be guarded off (`if i > 0`) and the rest still be a run.
                let mut neighbours: Option<i64> = None;
                let mut previous: Option<(usize, i64)> = None;
                for (lane, thread) in warp.iter().enumerate() {
                    let Some(thread) = *thread else { continue };
                    if self.guards.iter().any(|g| g.eval(thread, point) == Some(false)) {
                        continue;
                    }
                    let address = self.compiled.eval(thread, point)?;
                    if let (None, Some((before, at))) = (neighbours, previous) {
                        if before + 1 == lane {
                            neighbours = Some(address - at);
                        }
                    }
                    previous = Some((lane, address));
                    addresses.push(address);
                    active.push(lane);
                }
                if addresses.is_empty() {
                    continue;
                }
                if let Some(stride) = neighbours {
                    *strides.entry(stride).or_default() += point.weight;
                }
                broadcast &= addresses.windows(2).all(|w| w[0] == w[1]);
                warps.push(WarpLanes {
                    point: at,
                    index,
                    lanes: active,
                    addresses,
                    weight: point.weight,
                });
            }
        }
        let stride = strides
            .into_iter()
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
            .map(|(s, _)| s);
        Some(LaneAddresses {
            warps,
            stride,
            broadcast,
        })
    }

    /// Whether every warp's active lanes provably share one address for every value of the
    /// unknowns: the lane-dependent part of `address`, with only the thread index filled in
    /// lane by lane, is the same polynomial for all of them. Block and loop indices and the
    /// launch's unknowns stay symbols, so no value tried stands in for all values.
    pub(super) fn proves_one_address(&self, address: &Poly) -> bool {
        let lane_part = address.filter_terms(|m| m.iter().any(Atom::is_lane_dependent));
        for point in &self.points {
            for warp in self.warps {
                let mut first: Option<Poly> = None;
                for thread in warp.iter().flatten() {
                    if self.guards.iter().any(|g| g.eval(*thread, point) == Some(false)) {
                        continue;
                    }
                    let here = without_lane_offsets(&lane_part.substitute(&|a| match a {
                        Atom::ThreadIdx(axis) => Some(thread[axis.index()]),
                        _ => None,
                    }));
                    match &first {
                        None => first = Some(here),
                        Some(p) if *p == here => {}
                        Some(_) => return false,
                    }
                }
            }
        }
        true
    }

    /// Whether warp `index` of the block has fewer than 32 threads (the last warp of a block
    /// whose size is not a multiple of 32).
    pub(super) fn is_tail_warp(&self, index: usize) -> bool {
        self.warps
            .get(index)
            .is_some_and(|lanes| lanes.iter().any(Option::is_none))
    }

    /// The threads of the block's tail warp, when it has one.
    pub(super) fn tail_warp_threads(&self) -> Option<usize> {
        let last = self.warps.len().checked_sub(1)?;
        self.is_tail_warp(last)
            .then(|| self.warps[last].iter().flatten().count())
    }

    /// Sectors (and the rest) averaged over the requests full warps make at every point,
    /// weighted by what each point stands for, and over the residues the start cycles through,
    /// with the whole warp shifted by `shift` bytes; `None` when no lane runs the access. A
    /// block's tail warp (fewer than 32 threads) is left out while a full warp makes the
    /// request too: the figure is what one warp's request costs, and the tail is a note.
    pub(super) fn outcome(&self, lanes: &LaneAddresses, shift: i64) -> Option<Outcome> {
        let full_warps = lanes.warps.iter().any(|w| !self.is_tail_warp(w.index));
        self.outcome_over(lanes, shift, full_warps)
    }

    /// [`Self::outcome`] over every request, the tail warp's too, as a profiler counts them.
    pub(super) fn block_average(&self, lanes: &LaneAddresses, shift: i64) -> Option<Outcome> {
        self.outcome_over(lanes, shift, false)
    }

    fn outcome_over(&self, lanes: &LaneAddresses, shift: i64, full_warps_only: bool) -> Option<Outcome> {
        let (mut total, mut ideal, mut count) = (0.0, 0.0, 0.0);
        let mut ranges: Vec<(i64, u64)> = Vec::with_capacity(32);
        for warp in lanes
            .warps
            .iter()
            .filter(|w| !(full_warps_only && self.is_tail_warp(w.index)))
        {
            for &residue in &self.residues {
                ranges.clear();
                ranges.extend(warp.addresses.iter().map(|&a| (a + residue + shift, self.width)));
                total += warp.weight * sectors(&ranges) as f64;
                ideal += warp.weight * ideal_sectors(&ranges) as f64;
                count += warp.weight;
            }
        }
        (count > 0.0).then(|| Outcome {
            sectors: total / count,
            ideal: ideal / count,
            stride: lanes.stride,
            broadcast: lanes.broadcast,
        })
    }
}

/// The addresses of the active lanes of one warp at one point.
pub(super) struct WarpLanes {
    /// The point (block and loop iterations) it was evaluated at, by index: the warps of one
    /// block at one iteration share it.
    pub(super) point: usize,
    /// Which warp of the block.
    pub(super) index: usize,
    /// The lanes that run the access, in order, one per address.
    pub(super) lanes: Vec<usize>,
    pub(super) addresses: Vec<i64>,
    /// What the point stands for in the launch.
    pub(super) weight: f64,
}

/// `poly` with the offset of a lane within its warp taken out of every division by a multiple
/// of the warp width (`(256*b + 32*w + lane) / 4096` is `(256*b + 32*w) / 4096` for every lane
/// below 32): where the rest of the dividend is a multiple of 32 and so is the divisor, adding
/// less than 32 cannot cross a multiple of the divisor. Equal for every lane of a warp, the
/// results prove one address without trying values.
fn without_lane_offsets(poly: &Poly) -> Poly {
    let warp = WARP_SIZE as i64;
    poly.map_ops(&|kind, lhs, rhs| {
        let divisor = match (kind, rhs.as_constant()) {
            (OpKind::Div, Some(c)) if c > 0 => c,
            (OpKind::Shr, Some(s)) if (0..63).contains(&s) => 1i64 << s,
            _ => return None,
        };
        let aligned_rest = lhs.terms().all(|(m, c)| m.is_empty() || c % warp == 0);
        if divisor % warp != 0 || !aligned_rest {
            return None;
        }
        let offset = lhs.constant_term().rem_euclid(warp);
        Some(Poly::op(kind, &lhs.sub(&Poly::constant(offset)), rhs))
    })
}

/// The lane addresses of one access under one assignment of the unknowns.
pub(super) struct LaneAddresses {
    /// The warps that make a request, grouped by point in order.
    pub(super) warps: Vec<WarpLanes>,
    pub(super) stride: Option<i64>,
    pub(super) broadcast: bool,
}

pub(super) fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.min(i64::MAX as u64) as i64
}

/// The value of a symbol that the launch fixes: a block or grid extent, a given parameter.
pub(super) fn known_value(atom: &Atom, launch: &ResolvedLaunch) -> Option<i64> {
    match atom {
        Atom::BlockDim(a) => Some(i64::from(launch.block[a.index()])),
        Atom::GridDim(a) => launch.grid.map(|g| i64::from(g[a.index()])),
        Atom::Param(name) => launch.params.get(name).copied(),
        _ => None,
    }
}
