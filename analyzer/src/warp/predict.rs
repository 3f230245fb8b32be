//! The verdict for one access: sectors per request, the ideal, efficiency and class.

use super::classify::{classify, is_transposed, row_length};
use super::lanes::warps;
use super::outcome::{Outcome, Setup};
use super::unknowns::{combinations, describe_cases, unknowns_of, Role};
use crate::algebra::Atom;
use crate::interpret::Access;
use crate::model::launch::ResolvedLaunch;
use serde::Serialize;
use std::collections::BTreeMap;

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

/// The outcome for one assignment of the unknowns: aligned, and at the worst misalignment that
/// fixed unknown offsets allow (with the condition that avoids it).
struct ComboResult {
    combo: BTreeMap<Atom, i64>,
    aligned: Outcome,
    misaligned: Option<(Outcome, String)>,
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

pub(super) fn known_value(atom: &Atom, launch: &ResolvedLaunch) -> Option<i64> {
    match atom {
        Atom::BlockDim(a) => Some(i64::from(launch.block[a.index()])),
        Atom::GridDim(a) => launch.grid.map(|g| i64::from(g[a.index()])),
        Atom::Param(name) => launch.params.get(name).copied(),
        _ => None,
    }
}

fn negate(condition: &str) -> String {
    condition.replace("== 0", "!= 0").replace(" && ", " || ")
}

pub(super) fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

pub(super) fn round4(v: f64) -> f64 {
    (v * 10000.0).round() / 10000.0
}
