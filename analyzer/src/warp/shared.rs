//! Predicting one shared-memory access: the lanes of every warp evaluated as for global memory,
//! then counted in banks instead of sectors.

use super::banks::{wavefronts, Collision};
use super::lanes::warps;
use super::outcome::{known_value, LaneAddresses, Setup};
use super::unknowns::{combinations, unknowns_of, Exploration, Role};
use super::verdict::round2;
use crate::algebra::{Atom, Poly, OVERFLOWS};
use crate::interpret::{Access, UNKNOWN_LAYOUT};
use crate::model::launch::ResolvedLaunch;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How the lanes of a warp meet the banks of shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, PartialOrd, Ord, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum BankClass {
    /// As many wavefronts as phases: no two lanes of a phase in one bank at different words.
    ConflictFree,
    /// Every active lane reads one address.
    Broadcast,
    /// Lanes of one phase meet in a bank at different words: the request is replayed.
    Conflict,
    /// The index could not be reduced, or is read from memory.
    Unknown,
}

impl BankClass {
    /// The name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            BankClass::ConflictFree => "conflict-free",
            BankClass::Broadcast => "broadcast",
            BankClass::Conflict => "conflict",
            BankClass::Unknown => "unknown",
        }
    }
}

/// One outcome when the wavefronts depend on a runtime value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BankCase {
    /// The condition, as Rust-like text (`stride == 2`).
    pub condition: String,
    /// Wavefronts per request under that condition.
    pub wavefronts_per_request: f64,
}

/// The bank-level prediction for one shared-memory access.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BankPrediction {
    /// The verdict.
    pub class: BankClass,
    /// The largest number of distinct words one phase of a request puts in one bank, over the
    /// requests counted; `None` when it depends on a value that is not known.
    pub degree: Option<u32>,
    /// Passes of the shared-memory pipeline per request (averaged over the warps of a launch).
    pub wavefronts_per_request: Option<f64>,
    /// The passes the request needs without conflicts: its phases (1 for up to 4 bytes a lane,
    /// 2 for 8, 4 for 16).
    pub ideal_wavefronts_per_request: Option<f64>,
    /// Outcomes by runtime value, when the figure depends on one.
    pub cases: Vec<BankCase>,
    /// Two lanes that meet in one bank in the request of the highest degree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub collision: Option<Collision>,
    /// What was assumed to reach the figure, one sentence each.
    pub assumptions: Vec<String>,
}

impl BankPrediction {
    /// `ideal / wavefronts`, from 0 to 1, when both are known.
    pub fn efficiency(&self) -> Option<f64> {
        let (w, i) = (self.wavefronts_per_request?, self.ideal_wavefronts_per_request?);
        Some((i / w.max(1e-9)).min(1.0))
    }
}

/// Wavefronts of one assignment of the unknowns, averaged over the requests counted.
#[derive(Debug, Clone, Copy)]
struct BankOutcome {
    wavefronts: f64,
    ideal: f64,
    degree: usize,
    collision: Option<Collision>,
}

/// Predicts the banks one warp's request meets for a shared-memory access under a launch.
pub fn predict_banks(access: &Access, launch: &ResolvedLaunch) -> BankPrediction {
    // Which banks a warp meets does not depend on the block it is in (shared memory is the
    // block's own) nor on a shift of the whole warp by whole words (a loop step): one
    // representative block, its loops cycling as symbols, gives the figure without walking
    // the grid.
    let launch = &ResolvedLaunch {
        grid: None,
        ..launch.clone()
    };
    let known = |a: &Atom| known_value(a, launch);
    let address = access.address.substitute(&known);
    let mut assumptions = access.notes.clone();
    if access.notes.iter().any(|n| n == UNKNOWN_LAYOUT) {
        return unknowable(assumptions);
    }
    if let Some(note) = unreadable(&address) {
        assumptions.push(note);
        return unknowable(assumptions);
    }
    let unknowns = unknowns_of(&address, false, launch.block);
    let warps = warps(launch.block);
    let wavefronts_under = |combo: &BTreeMap<Atom, i64>| -> Option<f64> {
        let setup = Setup::new(&address.substitute(&|a| combo.get(a).copied()), access, launch, &warps);
        let lanes = setup.lane_addresses()?;
        worst_start(&lanes, &setup).map(|o| round2(o.wavefronts))
    };
    let exploration = combinations(&unknowns, wavefronts_under);
    let mut results: Vec<(BTreeMap<Atom, i64>, BankOutcome)> = Vec::new();
    let mut broadcast = true;
    for combo in exploration.combos.iter().cloned() {
        crate::budget::tick();
        let setup = Setup::new(&address.substitute(&|a| combo.get(a).copied()), access, launch, &warps);
        let Some(lanes) = setup.lane_addresses() else {
            assumptions.push("an address cannot be evaluated under the assumed launch".into());
            return unknowable(assumptions);
        };
        let Some(outcome) = worst_start(&lanes, &setup) else {
            assumptions.push("no lane runs this access under the assumed launch and parameters".into());
            return unknowable(assumptions);
        };
        if !setup.shifts.is_empty() && outcome_differs(&lanes, &setup, &outcome) {
            assumptions.push(format!(
                "assumes the worst start of the run within a bank word (unless {})",
                setup.alignment_condition()
            ));
        }
        broadcast &= lanes.broadcast;
        results.push((combo, outcome));
    }
    // One address for every lane is a claim about all values, not the ones tried.
    broadcast = broadcast && Setup::new(&address, access, launch, &warps).proves_one_address(&address);
    let Some(first) = results.first().map(|r| r.1) else {
        return unknowable(assumptions);
    };
    let all_same = results
        .iter()
        .all(|(_, o)| (o.wavefronts - first.wavefronts).abs() < 1e-9);
    // A row length is not assumed here as it is for sectors: a pitch of 32 words is the one
    // that makes a column conflict, so each value is a case of its own.
    let mut cases = Vec::new();
    let headline = if all_same {
        Some(first)
    } else {
        let (described, reading) = describe(&exploration, &results);
        cases = described;
        assumptions.extend(reading);
        assumptions.extend(depends_on(&exploration.explored));
        None
    };
    let worst = results
        .iter()
        .map(|r| r.1)
        .max_by(|a, b| a.wavefronts.total_cmp(&b.wavefronts))
        .unwrap_or(first);
    let shown = headline.unwrap_or(worst);
    let class = if broadcast || !address.is_lane_dependent() {
        BankClass::Broadcast
    } else if headline.map_or_else(|| results.iter().all(|r| r.1.degree <= 1), |h| h.degree <= 1) {
        BankClass::ConflictFree
    } else {
        BankClass::Conflict
    };
    BankPrediction {
        class,
        degree: headline.map(|h| h.degree as u32),
        wavefronts_per_request: headline.map(|h| round2(h.wavefronts)),
        ideal_wavefronts_per_request: Some(round2(shown.ideal)),
        cases,
        collision: shown.collision,
        assumptions,
    }
}

/// Why the lanes' addresses cannot be known: read from memory, or built from a value the
/// analysis cannot follow.
fn unreadable(address: &Poly) -> Option<String> {
    let mut gather = false;
    let mut opaque = None;
    address.visit_atoms(&mut |a| match a {
        Atom::Load { lane: true, .. } => gather = true,
        Atom::Opaque {
            lane: true, text, why, ..
        } => opaque = opaque.clone().or(Some((text.clone(), *why))),
        _ => {}
    });
    match opaque {
        _ if gather => {
            Some("the index is read from memory: which banks the lanes touch depends on the data".to_string())
        }
        Some((text, why)) if why == OVERFLOWS => Some(format!("a {text} in the index {why}")),
        Some((text, why)) => Some(format!("the index depends on `{text}`, which {why}")),
        None => None,
    }
}

/// Wavefronts averaged over the requests of every warp at every point, weighted by what each
/// point stands for, with the start cycling through `residues` and shifted by `shift` bytes.
fn outcome(lanes: &LaneAddresses, residues: &[i64], shift: i64, width: u64) -> Option<BankOutcome> {
    let (mut total, mut ideal, mut count) = (0.0, 0.0, 0.0);
    let mut degree = 0;
    let mut collision = None;
    let mut shifted = Vec::with_capacity(32);
    for warp in &lanes.warps {
        for &residue in residues {
            shifted.clear();
            shifted.extend(warp.addresses.iter().map(|a| a + residue + shift));
            let request = wavefronts(&warp.lanes, &shifted, width);
            total += warp.weight * request.wavefronts as f64;
            ideal += warp.weight * request.ideal as f64;
            count += warp.weight;
            if request.degree > degree {
                degree = request.degree;
                collision = request.collision;
            }
        }
    }
    (count > 0.0).then(|| BankOutcome {
        wavefronts: total / count,
        ideal: ideal / count,
        degree,
        collision,
    })
}

/// Whether the start within a word changes the figure: the aligned start costs less.
fn outcome_differs(lanes: &LaneAddresses, setup: &Setup<'_>, worst: &BankOutcome) -> bool {
    outcome(lanes, &setup.residues, 0, setup.width).is_some_and(|o| o.wavefronts + 1e-9 < worst.wavefronts)
}

/// The outcome at the worst start: a uniform start that is not known (an offset) moves the
/// warp along the banks; only a start inside a word changes which words the lanes touch.
fn worst_start(lanes: &LaneAddresses, setup: &Setup<'_>) -> Option<BankOutcome> {
    std::iter::once(0)
        .chain(setup.shifts.iter().copied())
        .filter_map(|s| outcome(lanes, &setup.residues, s, setup.width))
        .max_by(|a, b| a.wavefronts.total_cmp(&b.wavefronts))
}

/// `wavefronts per request: 1 when stride == 1, 2 when stride == 2, ...` as cases.
fn describe(
    exploration: &Exploration,
    results: &[(BTreeMap<Atom, i64>, BankOutcome)],
) -> (Vec<BankCase>, Option<String>) {
    let outcomes: Vec<(BTreeMap<Atom, i64>, f64)> =
        results.iter().map(|(c, o)| (c.clone(), round2(o.wavefronts))).collect();
    let (cases, reading) = exploration.describe(&outcomes, |w| *w);
    let cases = cases
        .into_iter()
        .map(|(condition, wavefronts_per_request)| BankCase {
            condition,
            wavefronts_per_request,
        })
        .collect();
    (cases, reading)
}

/// What the figure depends on: the values to give in the configuration.
fn depends_on(unknowns: &[(Atom, Role)]) -> Vec<String> {
    unknowns
        .iter()
        .map(|(atom, _)| match atom {
            Atom::Opaque { text, why, .. } => format!("the figure depends on `{text}`, which {why}"),
            Atom::Load { text, .. } => format!("the figure depends on `{text}`, which is read from memory"),
            other => format!("the figure depends on `{other}`: give its value in the configuration for one number"),
        })
        .collect()
}

fn unknowable(assumptions: Vec<String>) -> BankPrediction {
    BankPrediction {
        class: BankClass::Unknown,
        degree: None,
        wavefronts_per_request: None,
        ideal_wavefronts_per_request: None,
        cases: Vec::new(),
        collision: None,
        assumptions,
    }
}
