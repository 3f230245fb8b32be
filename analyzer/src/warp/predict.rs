//! The verdict for one access: sectors per request, the ideal, efficiency and class.

use serde::Serialize;

/// What kind of access pattern a warp makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, PartialOrd, Ord, Hash)]
#[serde(rename_all = "lowercase")]
pub enum AccessClass {
    /// As few sectors as the bytes need.
    Coalesced,
    /// Contiguous lanes, but the run starts off a sector boundary.
    Misaligned,
    /// Lanes a constant distance apart, wider than one element.
    Strided,
    /// One field of an array of structs: lanes a struct size apart.
    Aos,
    /// Every active lane reads the same address.
    Broadcast,
    /// The fastest lane index walks along a row length: x used as the row.
    Transposed,
    /// The index comes from memory (`a[idx[i]]`).
    Gather,
    /// The index could not be reduced.
    Unknown,
}

impl AccessClass {
    /// The name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            AccessClass::Coalesced => "coalesced",
            AccessClass::Misaligned => "misaligned",
            AccessClass::Strided => "strided",
            AccessClass::Aos => "aos",
            AccessClass::Broadcast => "broadcast",
            AccessClass::Transposed => "transposed",
            AccessClass::Gather => "gather",
            AccessClass::Unknown => "unknown",
        }
    }
}

/// One outcome when the figure depends on a runtime value.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    /// The condition, as Rust-like text (`stride == 2`, `offset % 8 == 0`).
    pub condition: String,
    /// Sectors per request under that condition.
    pub sectors_per_request: f64,
}

/// The warp-level prediction for one global access.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    /// The verdict.
    pub class: AccessClass,
    /// Byte distance between the addresses of lanes 0 and 1, when constant.
    pub stride_bytes: Option<i64>,
    /// Distinct 32-byte sectors one request touches (averaged over the warps of a launch);
    /// `None` when it depends on a value that is not known (see `cases`) or is unknowable.
    pub sectors_per_request: Option<f64>,
    /// The sectors the same bytes would need if perfectly coalesced.
    pub ideal_sectors_per_request: Option<f64>,
    /// `ideal / sectors`, from 0 to 1.
    pub efficiency: Option<f64>,
    /// Outcomes by runtime value, when the figure depends on one.
    pub cases: Vec<Case>,
    /// What was assumed to reach the figure, one sentence each.
    pub assumptions: Vec<String>,
    /// The symbol the lane stride depends on, for strided and transposed accesses (`height`).
    pub row_length: Option<String>,
}

use super::lanes::{warps, Warp};
use super::sectors::{ideal_sectors, sectors, SECTOR_BYTES};
use crate::algebra::{Atom, Axis, Poly, Predicate};
use crate::interpret::Access;
use crate::model::launch::ResolvedLaunch;
use std::collections::BTreeMap;

/// Candidate values for an unknown that scales the fastest lane index: a stride.
const STRIDE_CANDIDATES: [i64; 6] = [1, 2, 4, 8, 16, 32];
/// Candidate values for an unknown that scales a slower lane index: a row pitch, aligned or odd.
const PITCH_CANDIDATES: [i64; 2] = [2048, 2049];
/// Values given to varying symbols inside lane-dependent terms.
const VARYING_SAMPLES: i64 = 4;

/// How an unknown value is explored.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    Stride,
    Pitch,
}

/// The measured outcome of one assignment of the unknowns.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Outcome {
    sectors: f64,
    ideal: f64,
    stride: Option<i64>,
    broadcast: bool,
}

/// The outcome for one assignment of the unknowns: aligned, and at the worst misalignment that
/// fixed unknown offsets allow (with the condition that avoids it).
struct ComboResult {
    combo: BTreeMap<Atom, i64>,
    aligned: Outcome,
    misaligned: Option<(Outcome, String)>,
}

/// Everything fixed for one access under one launch and one choice of unknown values.
struct Setup<'a> {
    launch: &'a ResolvedLaunch,
    lane_part: Poly,
    guards: &'a [Predicate],
    width: u64,
    /// Start residues mod 32 that varying uniform terms (block index, loop iteration) cycle
    /// through, each equally often.
    residues: Vec<i64>,
    /// Shifts that fixed unknown uniform terms (an offset) may add, besides 0.
    shifts: Vec<i64>,
    alignment: Vec<(String, i64)>,
    samples: i64,
    warps: &'a [Warp],
}

/// Predicts what one warp does with an access under a launch.
pub fn predict(access: &Access, launch: &ResolvedLaunch) -> Prediction {
    let known = |a: &Atom| known_value(a, launch);
    let address = access.address.substitute(&known);
    let mut assumptions = access.notes.clone();
    let mut gather = false;
    let mut opaque = None;
    address.visit_atoms(&mut |a| match a {
        Atom::Load { lane: true, .. } => gather = true,
        Atom::Opaque { lane: true, text, .. } => opaque = Some(text.clone()),
        _ => {}
    });
    if gather || opaque.is_some() {
        let (class, note) = match opaque {
            Some(text) if !gather => (
                AccessClass::Unknown,
                format!("the index depends on `{text}`, which the analysis cannot follow"),
            ),
            _ => (
                AccessClass::Gather,
                "the index is read from memory: which sectors the lanes touch depends on the data".to_string(),
            ),
        };
        assumptions.push(note);
        return unknowable(class, assumptions);
    }

    // In `x * rows + y` the unknown is a row length, not a small stride.
    let transposed = is_transposed(&access.address, access.width);
    let unknowns = unknowns_of(&address, transposed);
    let warps = warps(launch.block);
    let mut results: Vec<ComboResult> = Vec::new();
    for combo in combinations(&unknowns) {
        let setup = Setup::new(&address.substitute(&|a| combo.get(a).copied()), access, launch, &warps);
        let lanes = setup.lane_addresses();
        let Some(aligned) = lanes.as_ref().and_then(|l| setup.outcome(l, 0)) else {
            assumptions.push("no lane runs this access under the assumed launch and parameters".into());
            return unknowable(AccessClass::Unknown, assumptions);
        };
        let misaligned = setup
            .shifts
            .iter()
            .filter_map(|&s| lanes.as_ref().and_then(|l| setup.outcome(l, s)))
            .max_by(|a, b| a.sectors.total_cmp(&b.sectors))
            .filter(|m| m.sectors > aligned.sectors + 1e-9)
            .map(|m| (m, setup.alignment_condition()));
        results.push(ComboResult {
            combo,
            aligned,
            misaligned,
        });
    }
    let worst = |r: &ComboResult| r.misaligned.as_ref().map_or(r.aligned, |m| m.0);

    let mut cases = Vec::new();
    let all_same = results
        .windows(2)
        .all(|w| (worst(&w[0]).sectors - worst(&w[1]).sectors).abs() < 1e-9);
    let has_stride = unknowns.iter().any(|(_, role)| *role == Role::Stride);
    let outcomes: Vec<(BTreeMap<Atom, i64>, f64)> =
        results.iter().map(|r| (r.combo.clone(), worst(r).sectors)).collect();
    let by_value = describe_cases(&unknowns, &outcomes);
    let headline = if all_same || !has_stride {
        // Row pitches are assumed aligned (the first candidate); the odd case is reported.
        if !all_same {
            cases = by_value.clone();
            for (atom, _) in &unknowns {
                assumptions.push(format!(
                    "assumes `{atom}` % 32 == 0, a row length that keeps rows sector-aligned"
                ));
            }
        }
        let ComboResult {
            aligned, misaligned, ..
        } = &results[0];
        if let Some((m, condition)) = misaligned {
            cases.push(Case {
                condition: condition.clone(),
                sectors_per_request: round2(aligned.sectors),
            });
            assumptions.push(format!(
                "assumes {} (the start is not sector-aligned)",
                negate(condition)
            ));
            Some(*m)
        } else {
            Some(*aligned)
        }
    } else {
        cases = by_value;
        let names: Vec<String> = unknowns.iter().map(|(a, _)| format!("`{a}`")).collect();
        assumptions.push(format!(
            "the figure depends on {}: give its value in the configuration for one number",
            names.join(" and ")
        ));
        None
    };

    let shown = headline.unwrap_or_else(|| {
        results
            .iter()
            .map(worst)
            .max_by(|a, b| a.sectors.total_cmp(&b.sectors))
            .expect("one combination at least")
    });
    let class = classify(access, &shown, &address);
    if class == AccessClass::Transposed {
        for (atom, _) in &unknowns {
            assumptions.push(format!("assumes `{atom}` is a row length of at least 8 elements"));
        }
    }
    let row_length = matches!(class, AccessClass::Transposed | AccessClass::Strided)
        .then(|| row_length(&access.address, access.width))
        .flatten();
    Prediction {
        class,
        stride_bytes: shown.stride,
        sectors_per_request: headline.map(|h| round2(h.sectors)),
        ideal_sectors_per_request: Some(round2(shown.ideal)),
        efficiency: headline.map(|h| round4(h.ideal / h.sectors.max(1e-9)).min(1.0)),
        cases,
        assumptions,
        row_length,
    }
}

/// The unknown values that change which lanes touch which sectors, and how each is explored:
/// one that scales the fastest lane index is a stride; one that scales a slower lane index or a
/// varying index (a row length) is a pitch. Unknowns that only shift the whole warp are
/// alignment questions, handled by [`Setup::shifts`].
fn unknowns_of(address: &Poly, transposed: bool) -> Vec<(Atom, Role)> {
    let mut unknowns: Vec<(Atom, Role)> = Vec::new();
    for (monomial, _) in address.terms() {
        let lane = monomial.iter().any(Atom::is_lane_dependent);
        let varying = monomial.iter().any(Atom::is_varying);
        if !lane && !varying {
            continue;
        }
        let scales_x = monomial.contains(&Atom::ThreadIdx(Axis::X)) && !transposed;
        let role = if scales_x { Role::Stride } else { Role::Pitch };
        for atom in monomial {
            atom.visit(&mut |a| {
                if is_fixed_unknown(a) {
                    match unknowns.iter_mut().find(|(u, _)| u == a) {
                        Some((_, r)) if role == Role::Stride => *r = Role::Stride,
                        Some(_) => {}
                        None => unknowns.push((a.clone(), role)),
                    }
                }
            });
        }
    }
    unknowns
}

fn unknowable(class: AccessClass, assumptions: Vec<String>) -> Prediction {
    Prediction {
        class,
        stride_bytes: None,
        sectors_per_request: None,
        ideal_sectors_per_request: None,
        efficiency: None,
        cases: Vec::new(),
        assumptions,
        row_length: None,
    }
}

fn known_value(atom: &Atom, launch: &ResolvedLaunch) -> Option<i64> {
    match atom {
        Atom::BlockDim(a) => Some(i64::from(launch.block[a.index()])),
        Atom::GridDim(a) => launch.grid.map(|g| i64::from(g[a.index()])),
        Atom::Param(name) => launch.params.get(name).copied(),
        _ => None,
    }
}

/// A value that is the same for a whole launch but not known here.
fn is_fixed_unknown(atom: &Atom) -> bool {
    matches!(
        atom,
        Atom::Param(_) | Atom::Len(_) | Atom::GridDim(_) | Atom::BlockDim(_)
    ) || matches!(atom, Atom::Opaque { lane: false, .. } | Atom::Load { lane: false, .. })
}

impl<'a> Setup<'a> {
    fn new(address: &Poly, access: &'a Access, launch: &'a ResolvedLaunch, warps: &'a [Warp]) -> Setup<'a> {
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
    fn alignment_condition(&self) -> String {
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
    fn lane_addresses(&self) -> Option<LaneAddresses> {
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

    /// Average sectors (and the rest) over the warps, the residues the start cycles through,
    /// with the whole warp shifted by `shift` bytes; `None` when no lane runs the access.
    fn outcome(&self, lanes: &LaneAddresses, shift: i64) -> Option<Outcome> {
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
struct LaneAddresses {
    warps: Vec<Vec<i64>>,
    stride: Option<i64>,
    broadcast: bool,
}

/// Every assignment of candidate values to the unknowns (bounded).
fn combinations(unknowns: &[(Atom, Role)]) -> Vec<BTreeMap<Atom, i64>> {
    let mut combos = vec![BTreeMap::new()];
    for (i, (atom, role)) in unknowns.iter().enumerate() {
        let candidates: &[i64] = match role {
            Role::Stride => &STRIDE_CANDIDATES,
            Role::Pitch => &PITCH_CANDIDATES,
        };
        // Beyond two unknowns, the rest take their first candidate only.
        let candidates = if i < 2 { candidates } else { &candidates[..1] };
        combos = combos
            .into_iter()
            .flat_map(|c| {
                candidates.iter().map(move |&v| {
                    let mut c = c.clone();
                    c.insert(atom.clone(), v);
                    c
                })
            })
            .collect();
    }
    combos
}

/// Readable conditions for the outcomes of a single unknown; joint ones for several.
fn describe_cases(unknowns: &[(Atom, Role)], results: &[(BTreeMap<Atom, i64>, f64)]) -> Vec<Case> {
    if let [(atom, role)] = unknowns {
        let mut cases: Vec<Case> = Vec::new();
        match role {
            Role::Pitch => {
                for (combo, sectors) in results {
                    let condition = if combo[atom] % SECTOR_BYTES == 0 {
                        format!("{atom} % 32 == 0")
                    } else {
                        format!("{atom} is odd")
                    };
                    cases.push(Case {
                        condition,
                        sectors_per_request: round2(*sectors),
                    });
                }
            }
            Role::Stride => {
                // Merge the tail of equal outcomes into `>=`.
                let mut tail = results.len();
                while tail > 1 && (results[tail - 2].1 - results[tail - 1].1).abs() < 1e-9 {
                    tail -= 1;
                }
                for (i, (combo, sectors)) in results.iter().enumerate().take(tail) {
                    let op = if i + 1 == tail && tail < results.len() {
                        ">="
                    } else {
                        "=="
                    };
                    cases.push(Case {
                        condition: format!("{atom} {op} {}", combo[atom]),
                        sectors_per_request: round2(*sectors),
                    });
                }
            }
        }
        return cases;
    }
    results
        .iter()
        .map(|(combo, sectors)| Case {
            condition: combo
                .iter()
                .map(|(a, v)| format!("{a} == {v}"))
                .collect::<Vec<_>>()
                .join(" && "),
            sectors_per_request: round2(*sectors),
        })
        .collect()
}

fn classify(access: &Access, outcome: &Outcome, address: &Poly) -> AccessClass {
    if outcome.broadcast || !address.is_lane_dependent() {
        return AccessClass::Broadcast;
    }
    if outcome.sectors <= outcome.ideal + 0.005 {
        return AccessClass::Coalesced;
    }
    if is_transposed(&access.address, access.width) {
        return AccessClass::Transposed;
    }
    let stride = outcome.stride.map(i64::abs);
    if let (Some(field), Some(s)) = (&access.field_of, stride) {
        if s == field.size as i64 && field.size > access.width {
            return AccessClass::Aos;
        }
    }
    if stride == Some(access.width as i64) {
        AccessClass::Misaligned
    } else {
        AccessClass::Strided
    }
}

/// `x * rows + y`: the fastest lane index is scaled by a row length (symbolic, or at least 32
/// elements) while another varying index (a slower lane index, a loop variable, a block index)
/// walks the row with unit stride.
fn is_transposed(address: &Poly, width: u64) -> bool {
    let x_coefficient = address.coefficient_of(&Atom::ThreadIdx(Axis::X));
    let row = match x_coefficient.as_constant() {
        Some(c) => c.unsigned_abs() >= 32 * width,
        None => true,
    };
    row && address.terms().any(|(m, c)| {
        c.unsigned_abs() == width
            && m.len() == 1
            && matches!(
                m[0],
                Atom::ThreadIdx(Axis::Y | Axis::Z) | Atom::Iter(..) | Atom::BlockIdx(_)
            )
    })
}

/// The row length or stride the fastest lane index is scaled by, in elements, as text.
fn row_length(address: &Poly, width: u64) -> Option<String> {
    let width = width.max(1) as i64;
    let x_coefficient = address.coefficient_of(&Atom::ThreadIdx(Axis::X));
    if let Some(c) = x_coefficient.as_constant() {
        return Some((c / width).to_string());
    }
    let mut per_element = Poly::default();
    for (m, c) in x_coefficient.terms().filter(|(m, _)| !m.is_empty()) {
        if c % width != 0 {
            return Some(x_coefficient.to_string());
        }
        let term = m
            .iter()
            .fold(Poly::constant(c / width), |acc, a| acc.mul(&Poly::atom(a.clone())));
        per_element = per_element.add(&term);
    }
    Some(per_element.to_string())
}

fn negate(condition: &str) -> String {
    condition.replace("== 0", "!= 0").replace(" && ", " || ")
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.min(i64::MAX as u64) as i64
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

fn round4(v: f64) -> f64 {
    (v * 10000.0).round() / 10000.0
}
