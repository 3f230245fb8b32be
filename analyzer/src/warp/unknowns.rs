//! Values a prediction needs but the launch does not give: which ones matter, which values
//! to try for each, and how to describe the outcomes as conditions.

use super::sectors::SECTOR_BYTES;
use super::verdict::{round2, Case};
use crate::algebra::{Atom, Axis, OpKind, Poly};
use std::collections::BTreeMap;

/// Candidate values for an unknown that scales the fastest lane index: a stride.
const STRIDE_CANDIDATES: [i64; 6] = [1, 2, 4, 8, 16, 32];
/// Candidate values for an unknown that scales a slower lane index: a row pitch, aligned or odd.
const PITCH_CANDIDATES: [i64; 2] = [2048, 2049];

/// How an unknown value is explored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Role {
    Stride,
    Pitch,
}

/// The unknown values that change which lanes touch which sectors, and how each is explored:
/// one that scales the fastest lane index is a stride; one that scales a slower lane index or a
/// varying index (a row length) is a pitch. One inside a division, shift, mask or maximum of
/// a lane index (`i / n`) is explored with small values like a stride: a large value would make
/// every lane read one address, which holds only when `n` spans the warp. Unknowns that only
/// shift the whole warp are alignment questions, handled by [`Setup::shifts`].
pub(super) fn unknowns_of(address: &Poly, transposed: bool) -> Vec<(Atom, Role)> {
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
            collect_unknowns(atom, role, &mut unknowns);
        }
    }
    unknowns
}

/// Adds the fixed unknowns inside `atom` with `role`, or as strides inside an operation that
/// can collapse the lanes onto fewer addresses.
fn collect_unknowns(atom: &Atom, role: Role, unknowns: &mut Vec<(Atom, Role)>) {
    if let Atom::Op(node) = atom {
        let collapses = matches!(node.kind, OpKind::Div | OpKind::Shr | OpKind::And | OpKind::Max);
        let role = if collapses && atom.is_lane_dependent() {
            Role::Stride
        } else {
            role
        };
        for inner in node.lhs.terms().chain(node.rhs.terms()).flat_map(|(m, _)| m) {
            collect_unknowns(inner, role, unknowns);
        }
        return;
    }
    if is_fixed_unknown(atom) {
        match unknowns.iter_mut().find(|(u, _)| u == atom) {
            Some((_, r)) if role == Role::Stride => *r = Role::Stride,
            Some(_) => {}
            None => unknowns.push((atom.clone(), role)),
        }
    }
}

/// A value that is the same for a whole launch but not known here.
pub(super) fn is_fixed_unknown(atom: &Atom) -> bool {
    matches!(
        atom,
        Atom::Param(_) | Atom::Len(_) | Atom::GridDim(_) | Atom::BlockDim(_)
    ) || matches!(atom, Atom::Opaque { lane: false, .. } | Atom::Load { lane: false, .. })
}

/// Every assignment of candidate values to the unknowns (bounded).
pub(super) fn combinations(unknowns: &[(Atom, Role)]) -> Vec<BTreeMap<Atom, i64>> {
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
pub(super) fn describe_cases(unknowns: &[(Atom, Role)], results: &[(BTreeMap<Atom, i64>, f64)]) -> Vec<Case> {
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
