//! The lanes of every warp of a block evaluated under one assignment of the unknowns, and the
//! sectors they touch averaged over warps and start alignments.

use super::lanes::Warp;
use super::sectors::{ideal_sectors, sectors, SECTOR_BYTES};
use crate::algebra::{Atom, Poly, Predicate};
use crate::interpret::Access;
use crate::model::launch::ResolvedLaunch;

/// Values given to varying symbols inside lane-dependent terms.
const VARYING_SAMPLES: i64 = 4;

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
    launch: &'a ResolvedLaunch,
    lane_part: Poly,
    guards: &'a [Predicate],
    width: u64,
    /// Start residues mod 32 that varying uniform terms (block index, loop iteration) cycle
    /// through, each equally often.
    pub(super) residues: Vec<i64>,
    /// Shifts that fixed unknown uniform terms (an offset) may add, besides 0.
    pub(super) shifts: Vec<i64>,
    pub(super) alignment: Vec<(String, i64)>,
    samples: i64,
    warps: &'a [Warp],
}

impl<'a> Setup<'a> {
    pub(super) fn new(address: &Poly, access: &'a Access, launch: &'a ResolvedLaunch, warps: &'a [Warp]) -> Setup<'a> {
        let is_lane = |m: &Vec<Atom>| m.iter().any(Atom::is_lane_dependent);
        let lane_part = address.filter_terms(is_lane);
        let uniform_part = address.filter_terms(|m| !is_lane(m));
        let mut varying_gcd = 0i64;
        let mut alignment: Vec<(String, i64)> = Vec::new();
        for (monomial, coefficient) in uniform_part.terms().filter(|(m, _)| !m.is_empty()) {
            if monomial.iter().any(Atom::is_varying) {
                varying_gcd = gcd(varying_gcd, coefficient);
            } else {
                let name = monomial.iter().map(|a| a.to_string()).collect::<Vec<_>>().join("*");
                alignment.push((name, coefficient));
            }
        }
        let base = uniform_part.constant_term().rem_euclid(SECTOR_BYTES);
        let step = gcd(varying_gcd, SECTOR_BYTES);
        let residues = if step == 0 || step == SECTOR_BYTES {
            vec![base]
        } else {
            (0..SECTOR_BYTES / step)
                .map(|k| (base + k * step).rem_euclid(SECTOR_BYTES))
                .collect()
        };
        let shifts = match gcd(alignment.iter().fold(0, |g, (_, c)| gcd(g, *c)), SECTOR_BYTES) {
            0 | SECTOR_BYTES => Vec::new(),
            h => (1..SECTOR_BYTES / h).map(|k| k * h).collect(),
        };
        let mut lane_varying = false;
        lane_part.visit_atoms(&mut |a| lane_varying |= matches!(a, Atom::BlockIdx(_) | Atom::Iter(..)));
        Setup {
            launch,
            lane_part,
            guards: &access.guards,
            width: access.width,
            residues,
            shifts,
            alignment,
            samples: if lane_varying { VARYING_SAMPLES } else { 1 },
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

    fn value(&self, atom: &Atom, thread: [i64; 3], sample: i64) -> Option<i64> {
        match atom {
            Atom::ThreadIdx(a) => Some(thread[a.index()]),
            Atom::BlockIdx(_) | Atom::Iter(..) => Some(sample),
            other => known_value(other, self.launch),
        }
    }

    /// The addresses of the active lanes of every warp (and sample of varying symbols), the
    /// stride between lanes 0 and 1, and whether every warp reads one address; `None` when an
    /// address cannot be evaluated.
    pub(super) fn lane_addresses(&self) -> Option<LaneAddresses> {
        let mut warps = Vec::with_capacity(self.warps.len() * self.samples as usize);
        let mut stride = None;
        let mut broadcast = true;
        for sample in 0..self.samples {
            for warp in self.warps {
                let mut addresses: Vec<i64> = Vec::with_capacity(32);
                let mut first_two = [None, None];
                for (lane, thread) in warp.iter().enumerate() {
                    let Some(thread) = *thread else { continue };
                    let value = |a: &Atom| self.value(a, thread, sample);
                    if self.guards.iter().any(|g| g.eval(&value) == Some(false)) {
                        continue;
                    }
                    let address = self.lane_part.eval(&value)?;
                    if lane < 2 {
                        first_two[lane] = Some(address);
                    }
                    addresses.push(address);
                }
                if addresses.is_empty() {
                    continue;
                }
                if stride.is_none() {
                    if let [Some(a), Some(b)] = first_two {
                        stride = Some(b - a);
                    }
                }
                broadcast &= addresses.windows(2).all(|w| w[0] == w[1]);
                warps.push(addresses);
            }
        }
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
        for sample in 0..self.samples {
            for warp in self.warps {
                let mut first: Option<Poly> = None;
                for thread in warp.iter().flatten() {
                    let value = |a: &Atom| self.value(a, *thread, sample);
                    if self.guards.iter().any(|g| g.eval(&value) == Some(false)) {
                        continue;
                    }
                    let here = lane_part.substitute(&|a| match a {
                        Atom::ThreadIdx(axis) => Some(thread[axis.index()]),
                        _ => None,
                    });
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

    /// Average sectors (and the rest) over the warps, the residues the start cycles through,
    /// with the whole warp shifted by `shift` bytes; `None` when no lane runs the access.
    pub(super) fn outcome(&self, lanes: &LaneAddresses, shift: i64) -> Option<Outcome> {
        let (mut total, mut ideal, mut count) = (0.0, 0.0, 0usize);
        let mut ranges: Vec<(i64, u64)> = Vec::with_capacity(32);
        for addresses in &lanes.warps {
            for &residue in &self.residues {
                ranges.clear();
                ranges.extend(addresses.iter().map(|&a| (a + residue + shift, self.width)));
                total += sectors(&ranges) as f64;
                ideal += ideal_sectors(&ranges) as f64;
                count += 1;
            }
        }
        (count > 0).then(|| Outcome {
            sectors: total / count as f64,
            ideal: ideal / count as f64,
            stride: lanes.stride,
            broadcast: lanes.broadcast,
        })
    }
}

/// The lane addresses of one access under one assignment of the unknowns.
pub(super) struct LaneAddresses {
    warps: Vec<Vec<i64>>,
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
