//! Values a prediction needs but the launch does not give: which ones matter, which values
//! to try for each, and how to describe the outcomes as conditions.

use super::classify::fastest_axis;
use super::lanes::WARP_SIZE;
use super::sectors::SECTOR_BYTES;
use crate::algebra::{Atom, OpKind, Poly};
use crate::model::launch::Dim3;
use std::collections::{BTreeMap, BTreeSet};

/// Candidate values for an unknown that scales the fastest lane index (a stride) or divides
/// it (a row length in `i % n`): from one element to the width of a warp, past which every
/// value acts the same on an aligned warp.
const STRIDE_CANDIDATES: [i64; 6] = [1, 2, 4, 8, 16, 32];
/// Candidate values for an unknown that scales a slower lane index: a row pitch, aligned or odd.
const PITCH_CANDIDATES: [i64; 2] = [2048, 2049];
/// The value of an unknown that only moves a warp-uniform part inside an operation (`gridDim`
/// in a linear block index divided by a row length): a multiple of every candidate divisor.
const OFFSET_CANDIDATES: [i64; 1] = [2048];
/// The most assignments tried together; past it each unknown is tried alone, the others at
/// their usual values.
const MAX_JOINT_COMBINATIONS: usize = 216;
/// The most cases shown as joint conditions; past it the cases are summarized.
const MAX_JOINT_CASES: usize = 8;

/// How an unknown value is explored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Role {
    /// Scales the fastest lane index: usually 1 (contiguous).
    Stride,
    /// Divides, masks or bounds a lane index: usually at least a warp wide.
    Divisor,
    /// Scales a slower lane index or a varying index: a row pitch, usually aligned.
    Pitch,
    /// Scales a warp-uniform term inside an operation.
    Offset,
}

impl Role {
    fn candidates(self) -> &'static [i64] {
        match self {
            Role::Stride | Role::Divisor => &STRIDE_CANDIDATES,
            Role::Pitch => &PITCH_CANDIDATES,
            Role::Offset => &OFFSET_CANDIDATES,
        }
    }

    /// The value an unknown is held at when it is not explored.
    fn usual(self) -> i64 {
        match self {
            Role::Divisor => STRIDE_CANDIDATES[STRIDE_CANDIDATES.len() - 1],
            _ => self.candidates()[0],
        }
    }

    /// Whether the role makes the lanes' pattern (not only their alignment) depend on the value.
    pub(super) fn shapes_lanes(self) -> bool {
        matches!(self, Role::Stride | Role::Divisor)
    }
}

/// The unknown values that change which lanes touch which sectors, and how each is explored:
/// one that scales the fastest lane index (also through an operation: `(i % n) * s`) is a
/// stride; one that scales only a slower lane index or a varying index (a row length) is a
/// pitch. One inside a division, remainder, shift, mask or maximum of a lane index (`i / n`,
/// `i % n`) is explored with small values like a stride: a large value would make every lane
/// read one address (or keep them apart), which holds only when `n` spans the warp. Unknowns
/// that only shift the whole warp are alignment questions, handled by [`Setup::shifts`]; lane
/// indices along which the block is one thread wide are 0, so what they scale is no question.
pub(super) fn unknowns_of(address: &Poly, transposed: bool, block: Dim3) -> Vec<(Atom, Role)> {
    let address = address.substitute(&|a| match a {
        Atom::ThreadIdx(axis) if block[axis.index()] <= 1 => Some(0),
        _ => None,
    });
    let fastest = Atom::ThreadIdx(fastest_axis(block));
    let mut unknowns: Vec<(Atom, Role)> = Vec::new();
    for (monomial, _) in address.terms() {
        let lane = monomial.iter().any(Atom::is_lane_dependent);
        let varying = monomial.iter().any(Atom::is_varying);
        if !lane && !varying {
            continue;
        }
        let scales_fastest = !transposed && monomial.iter().any(|a| steps_with(a, &fastest));
        let role = if scales_fastest { Role::Stride } else { Role::Pitch };
        for atom in monomial {
            // A stride or row length the launch fixes, computed from unknowns (`(len + n - 1)
            // / n` elements per thread) and multiplying a lane or loop index: the lanes see
            // that value, so it is explored as itself, not through candidate values of what
            // it was computed from.
            if launch_wide(atom) {
                add_unknown(atom, role, &mut unknowns);
            } else {
                collect_unknowns(atom, role, &fastest, &mut unknowns);
            }
        }
    }
    unknowns
}

/// Whether `atom` steps with the lane index `lane` from one lane to the next: the index
/// itself, or an operation on it other than a division by an unknown or by a warp or more
/// (`i / n` with `n` a row length, or `i / 32`, is a row index, the same for the lanes of a
/// row: what scales it is a row pitch).
fn steps_with(atom: &Atom, lane: &Atom) -> bool {
    let rows = |node: &crate::algebra::OpNode| match (node.kind, node.rhs.as_constant()) {
        (OpKind::Div, Some(d)) => d >= WARP_SIZE as i64,
        (OpKind::Shr, Some(s)) => (5..63).contains(&s),
        (OpKind::Div | OpKind::Shr, None) => true,
        _ => false,
    };
    match atom {
        Atom::Op(node) if rows(node) => false,
        Atom::Op(node) => node
            .lhs
            .terms()
            .chain(node.rhs.terms())
            .any(|(m, _)| m.iter().any(|a| steps_with(a, lane))),
        other => other == lane,
    }
}

/// Adds the fixed unknowns inside `atom` with `role`, or as strides inside an operation that
/// can collapse the lanes onto fewer addresses.
fn collect_unknowns(atom: &Atom, role: Role, lane_index: &Atom, unknowns: &mut Vec<(Atom, Role)>) {
    if let Atom::Op(node) = atom {
        let collapses = matches!(
            node.kind,
            OpKind::Div | OpKind::Rem | OpKind::Shr | OpKind::And | OpKind::Max
        );
        let lane = atom.is_lane_dependent();
        // The right side of `i / n` decides how the lanes collapse; the left side's own
        // unknowns scale lane indices (a stride) or move the whole operand (an offset).
        if collapses && lane {
            for inner in node.rhs.terms().flat_map(|(m, _)| m) {
                collect_unknowns(inner, Role::Divisor, lane_index, unknowns);
            }
        }
        let operands: Vec<&crate::algebra::Poly> = if collapses && lane {
            vec![&node.lhs]
        } else {
            vec![&node.lhs, &node.rhs]
        };
        for (monomial, _) in operands.into_iter().flat_map(|p| p.terms()) {
            let inner_role = if !lane {
                role
            } else if monomial.iter().any(|a| steps_with(a, lane_index)) {
                Role::Stride
            } else if monomial.iter().any(Atom::is_lane_dependent) {
                Role::Pitch
            } else {
                Role::Offset
            };
            for inner in monomial {
                collect_unknowns(inner, inner_role, lane_index, unknowns);
            }
        }
        return;
    }
    if is_fixed_unknown(atom) {
        add_unknown(atom, role, unknowns);
    }
}

fn add_unknown(atom: &Atom, role: Role, unknowns: &mut Vec<(Atom, Role)>) {
    match unknowns.iter_mut().find(|(u, _)| u == atom) {
        // The role that shapes the lanes wins over one that only moves them.
        Some((_, r)) if rank(role) > rank(*r) => *r = role,
        Some(_) => {}
        None => unknowns.push((atom.clone(), role)),
    }
}

/// An operation on values that are each the same for a whole launch and not known here.
fn launch_wide(atom: &Atom) -> bool {
    let Atom::Op(node) = atom else { return false };
    let mut fixed = true;
    let mut leaves = 0;
    for side in [&node.lhs, &node.rhs] {
        side.visit_atoms(&mut |a| {
            if !matches!(a, Atom::Op(_)) {
                leaves += 1;
                fixed &= is_fixed_unknown(a);
            }
        });
    }
    fixed && leaves > 0
}

fn rank(role: Role) -> u8 {
    match role {
        Role::Offset => 0,
        Role::Pitch => 1,
        Role::Divisor => 2,
        Role::Stride => 3,
    }
}

/// A value that is the same for a whole launch but not known here.
pub(super) fn is_fixed_unknown(atom: &Atom) -> bool {
    matches!(
        atom,
        Atom::Param(_) | Atom::Len(_) | Atom::GridDim(_) | Atom::BlockDim(_)
    ) || matches!(atom, Atom::Opaque { lane: false, .. } | Atom::Load { lane: false, .. })
}

/// The assignments of candidate values to try for the unknowns that decide the outcome.
pub(super) struct Exploration {
    pub(super) combos: Vec<BTreeMap<Atom, i64>>,
    /// The unknowns that change the outcome, each tried over all its candidates.
    pub(super) explored: Vec<(Atom, Role)>,
    /// Whether `combos` holds every combination of the explored unknowns' candidates; when
    /// not, each assignment changes one unknown from its usual value.
    pub(super) joint: bool,
    /// Every unknown at its usual value.
    pub(super) usual: BTreeMap<Atom, i64>,
}

/// The assignments to try. Each unknown is first varied alone, the others at their usual
/// values (contiguous strides, row lengths that span the warp, aligned pitches); one that
/// changes nothing there keeps its usual value. The rest are tried in every combination
/// when there are few enough, else each alone.
pub(super) fn combinations<K: PartialEq>(
    unknowns: &[(Atom, Role)],
    mut outcome: impl FnMut(&BTreeMap<Atom, i64>) -> K,
) -> Exploration {
    let usual: BTreeMap<Atom, i64> = unknowns.iter().map(|(a, r)| (a.clone(), r.usual())).collect();
    // Row lengths that span the warp can hide each other (`i / (w * h)` is one row while
    // either is large): each unknown is also varied from all of them at their smallest.
    let small: BTreeMap<Atom, i64> = unknowns
        .iter()
        .map(|(a, r)| {
            (
                a.clone(),
                if *r == Role::Divisor {
                    r.candidates()[0]
                } else {
                    r.usual()
                },
            )
        })
        .collect();
    let mut bases = vec![usual.clone()];
    if small != usual {
        bases.push(small);
    }
    let alone = |base: &BTreeMap<Atom, i64>, atom: &Atom, value: i64| {
        let mut combo = base.clone();
        combo.insert(atom.clone(), value);
        combo
    };
    let slices = |base: &BTreeMap<Atom, i64>, explored: &[(Atom, Role)]| -> Vec<BTreeMap<Atom, i64>> {
        let mut combos = Vec::new();
        for (atom, role) in explored {
            let others = role.candidates().iter().filter(|&&v| Some(&v) != base.get(atom));
            combos.extend(others.map(|&v| alone(base, atom, v)));
        }
        combos
    };
    let explored: Vec<(Atom, Role)> = if unknowns.len() > 1 {
        let mut deciding: Vec<(Atom, Role)> = Vec::new();
        let at_bases: Vec<K> = bases.iter().map(&mut outcome).collect();
        for (base, here) in bases.iter().zip(&at_bases) {
            for (atom, role) in unknowns {
                if deciding.iter().any(|(a, _)| a == atom) {
                    continue;
                }
                if slices(base, &[(atom.clone(), *role)])
                    .iter()
                    .any(|c| outcome(c) != *here)
                {
                    deciding.push((atom.clone(), *role));
                }
            }
        }
        if at_bases.len() > 1 && at_bases[1] != at_bases[0] {
            // The smallest row lengths change the outcome together.
            for (atom, role) in unknowns.iter().filter(|(_, r)| *r == Role::Divisor) {
                if !deciding.iter().any(|(a, _)| a == atom) {
                    deciding.push((atom.clone(), *role));
                }
            }
        }
        deciding.sort_by_key(|(a, _)| unknowns.iter().position(|(u, _)| u == a));
        deciding
    } else {
        unknowns.to_vec()
    };
    // Few unknowns are tried together even where one alone changes nothing.
    let all_size: usize = unknowns.iter().map(|(_, r)| r.candidates().len()).product();
    let explored = if all_size <= MAX_JOINT_COMBINATIONS {
        unknowns
            .iter()
            .filter(|(_, r)| r.candidates().len() > 1)
            .cloned()
            .collect()
    } else {
        explored
    };
    let joint_size: usize = explored.iter().map(|(_, r)| r.candidates().len()).product();
    let joint = joint_size <= MAX_JOINT_COMBINATIONS;
    let mut combos = if joint {
        let mut combos = vec![usual.clone()];
        for (atom, role) in &explored {
            combos = combos
                .iter()
                .flat_map(|c| role.candidates().iter().map(|&v| alone(c, atom, v)))
                .collect();
        }
        combos
    } else {
        let mut combos = Vec::new();
        for base in &bases {
            combos.push(base.clone());
            combos.extend(slices(base, &explored));
        }
        combos
    };
    // The usual values first: the headline figure, when there is one, is theirs.
    if let Some(at) = combos.iter().position(|c| *c == usual) {
        let first = combos.remove(at);
        combos.insert(0, first);
    }
    combos.dedup();
    Exploration {
        combos,
        explored,
        joint,
        usual,
    }
}

impl Exploration {
    /// Readable conditions for the outcomes of `results` (one per combo), and a note on how to
    /// read them. Every combination of few unknowns reads as joint conditions; otherwise the
    /// cases are the usual values, then each unknown changed alone where that changes the
    /// outcome, then the worst combination tried (`cost` ranks the outcomes).
    pub(super) fn describe<T: Clone + PartialEq>(
        &self,
        results: &[(BTreeMap<Atom, i64>, T)],
        cost: impl Fn(&T) -> f64,
    ) -> (Vec<(String, T)>, Option<String>) {
        if self.explored.len() <= 1 {
            return (describe_cases(&self.explored, results), None);
        }
        if self.joint {
            let cases = describe_cases(&self.explored, results);
            if cases.len() <= MAX_JOINT_CASES {
                return (cases, None);
            }
        }
        let Some((_, usual)) = results.iter().find(|(combo, _)| *combo == self.usual) else {
            return (describe_cases(&self.explored, results), None);
        };
        let mut cases = vec![(self.condition_of(&self.usual), usual.clone())];
        for (atom, role) in &self.explored {
            let slice: Vec<(BTreeMap<Atom, i64>, T)> = results
                .iter()
                .filter(|(combo, _)| combo.iter().all(|(a, v)| a == atom || self.usual.get(a) == Some(v)))
                .cloned()
                .collect();
            let changed = describe_cases(&[(atom.clone(), *role)], &slice);
            cases.extend(changed.into_iter().filter(|(_, o)| o != usual));
        }
        let worst = results.iter().max_by(|a, b| cost(&a.1).total_cmp(&cost(&b.1)));
        if let Some((combo, outcome)) = worst {
            if !cases.iter().any(|(_, o)| o == outcome) {
                cases.push((self.condition_of(combo), outcome.clone()));
            }
        }
        let note =
            "the first case is the usual values; each other case names the values it changes and keeps the rest usual";
        (cases, Some(note.to_string()))
    }

    /// The explored unknowns' values in `combo`, as one condition.
    fn condition_of(&self, combo: &BTreeMap<Atom, i64>) -> String {
        let parts: Vec<String> = self
            .explored
            .iter()
            .filter_map(|(atom, role)| {
                let value = combo.get(atom)?;
                condition(atom, *role, &BTreeSet::from([*value]))
            })
            .collect();
        parts.join(" && ")
    }
}

/// Readable conditions for the outcomes (of any kind), in the order they first occur: the
/// assignments with one outcome are merged while they differ in one unknown only, and an
/// unknown that takes every value it was tried at drops out of the condition.
pub(super) fn describe_cases<T: Clone + PartialEq>(
    unknowns: &[(Atom, Role)],
    results: &[(BTreeMap<Atom, i64>, T)],
) -> Vec<(String, T)> {
    struct Region<T> {
        values: Vec<BTreeSet<i64>>,
        outcome: T,
    }
    let mut regions: Vec<Region<T>> = results
        .iter()
        .map(|(combo, outcome)| Region {
            values: unknowns
                .iter()
                .map(|(atom, _)| combo.get(atom).into_iter().copied().collect())
                .collect(),
            outcome: outcome.clone(),
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for at in 0..unknowns.len() {
            let mut merged: Vec<Region<T>> = Vec::with_capacity(regions.len());
            for region in regions {
                let same_elsewhere = |other: &Region<T>| {
                    other.outcome == region.outcome
                        && other
                            .values
                            .iter()
                            .zip(&region.values)
                            .enumerate()
                            .all(|(i, (a, b))| i == at || a == b)
                };
                match merged.iter_mut().find(|other| same_elsewhere(other)) {
                    Some(other) => {
                        other.values[at].extend(region.values[at].iter().copied());
                        changed = true;
                    }
                    None => merged.push(region),
                }
            }
            regions = merged;
        }
    }
    // In the order of the values, smallest first.
    regions.sort_by(|a, b| {
        let key = |r: &Region<T>| r.values.iter().map(|v| v.first().copied()).collect::<Vec<_>>();
        key(a).cmp(&key(b))
    });
    regions
        .into_iter()
        .map(|region| {
            let parts: Vec<String> = unknowns
                .iter()
                .zip(&region.values)
                .filter_map(|((atom, role), set)| condition(atom, *role, set))
                .collect();
            let text = if parts.is_empty() {
                "any value".to_string()
            } else {
                parts.join(" && ")
            };
            (text, region.outcome)
        })
        .collect()
}

/// `s == 2`, `s >= 8`, `n % 32 == 0`, or nothing when `values` is every candidate.
fn condition(atom: &Atom, role: Role, values: &BTreeSet<i64>) -> Option<String> {
    let candidates = role.candidates();
    if candidates.iter().all(|c| values.contains(c)) {
        return None;
    }
    let (Some(&low), Some(&high)) = (values.first(), values.last()) else {
        return None;
    };
    let contiguous = candidates
        .iter()
        .filter(|c| (low..=high).contains(*c))
        .all(|c| values.contains(c));
    Some(match role {
        Role::Pitch | Role::Offset if low % SECTOR_BYTES == 0 => format!("{atom} % 32 == 0"),
        Role::Pitch | Role::Offset => format!("{atom} is odd"),
        // The widest row length tried stands for every one that spans the warp.
        Role::Divisor if low == high && high == candidates[candidates.len() - 1] => format!("{atom} >= {low}"),
        _ if low == high => format!("{atom} == {low}"),
        _ if contiguous && high == candidates[candidates.len() - 1] => format!("{atom} >= {low}"),
        _ if contiguous && low == candidates[0] => format!("{atom} <= {high}"),
        _ if contiguous => format!("{low} <= {atom} <= {high}"),
        _ => {
            let each: Vec<String> = values.iter().map(|v| format!("{atom} == {v}")).collect();
            format!("({})", each.join(" || "))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algebra::Axis;

    fn param(name: &str) -> Atom {
        Atom::Param(name.to_string())
    }

    fn cases(unknowns: &[(Atom, Role)], outcome: impl Fn(&[i64]) -> f64) -> Vec<(String, f64)> {
        let of = |combo: &BTreeMap<Atom, i64>| {
            let values: Vec<i64> = unknowns.iter().map(|(a, _)| combo[a]).collect();
            outcome(&values)
        };
        let exploration = combinations(unknowns, of);
        let results: Vec<(BTreeMap<Atom, i64>, f64)> = exploration
            .combos
            .iter()
            .map(|combo| (combo.clone(), of(combo)))
            .collect();
        exploration.describe(&results, |o| *o).0
    }

    #[test]
    fn a_stride_reads_as_its_values_and_a_tail_of_equal_outcomes() {
        let unknowns = [(param("s"), Role::Stride)];
        let cases = cases(&unknowns, |v| (4 * v[0]).min(32) as f64);
        let text: Vec<String> = cases.iter().map(|(c, o)| format!("{o} when {c}")).collect();
        assert_eq!(
            text,
            ["4 when s == 1", "8 when s == 2", "16 when s == 4", "32 when s >= 8"]
        );
    }

    #[test]
    fn an_unknown_that_does_not_change_the_outcome_drops_out_of_the_condition() {
        let unknowns = [(param("a"), Role::Stride), (param("b"), Role::Divisor)];
        // `b` matters only when `a` is small: it is explored, and drops out where it does not.
        let outcome = |v: &[i64]| {
            if v[0] >= 8 {
                32.0
            } else if v[1] >= 4 {
                4.0
            } else {
                1.0
            }
        };
        let cases = cases(&unknowns, outcome);
        assert_eq!(
            cases,
            [
                ("a <= 4 && b <= 2".to_string(), 1.0),
                ("a <= 4 && b >= 4".to_string(), 4.0),
                ("a >= 8".to_string(), 32.0)
            ]
        );
        // Among many, one that changes nothing keeps its usual value.
        let many: Vec<(Atom, Role)> = unknowns
            .iter()
            .cloned()
            .chain(["c", "d"].iter().map(|n| (param(n), Role::Stride)))
            .collect();
        let exploration = combinations(&many, |combo: &BTreeMap<Atom, i64>| combo[&param("a")] >= 8);
        assert_eq!(exploration.explored, [(param("a"), Role::Stride)]);
        assert!(exploration.combos.iter().all(|c| c[&param("b")] == 32));
    }

    #[test]
    fn a_row_pitch_is_aligned_or_odd() {
        let unknowns = [(param("s"), Role::Stride), (param("w"), Role::Pitch)];
        let cases = cases(&unknowns, |v| if v[1] % 2 == 1 { 5.0 } else { 4.0 });
        assert_eq!(cases, [("w % 32 == 0".to_string(), 4.0), ("w is odd".to_string(), 5.0)]);
    }

    #[test]
    fn many_unknowns_are_tried_one_at_a_time_from_their_usual_values() {
        let unknowns: Vec<(Atom, Role)> = ["a", "b", "c", "d"].iter().map(|n| (param(n), Role::Stride)).collect();
        let of = |combo: &BTreeMap<Atom, i64>| combo.values().sum::<i64>().min(8);
        let exploration = combinations(&unknowns, of);
        assert!(!exploration.joint);
        assert_eq!(exploration.combos.len(), 1 + 4 * 5);
        let results: Vec<(BTreeMap<Atom, i64>, i64)> = exploration.combos.iter().map(|c| (c.clone(), of(c))).collect();
        let (cases, reading) = exploration.describe(&results, |o| *o as f64);
        assert_eq!(cases[0], ("a == 1 && b == 1 && c == 1 && d == 1".to_string(), 4));
        assert_eq!(
            cases[1..4],
            [
                ("a == 2".to_string(), 5),
                ("a == 4".to_string(), 7),
                ("a >= 8".to_string(), 8)
            ]
        );
        assert_eq!(cases.len(), 13);
        assert_eq!(
            reading.unwrap(),
            "the first case is the usual values; each other case names the values it changes and keeps the rest usual"
        );
    }

    #[test]
    fn row_lengths_that_hide_each_other_are_found_from_the_smallest() {
        // `i / (w * h)` is one row for the warp while either spans it.
        let unknowns: Vec<(Atom, Role)> = ["w", "h"].iter().map(|n| (param(n), Role::Divisor)).collect();
        let spans = |combo: &BTreeMap<Atom, i64>| combo[&param("w")] * combo[&param("h")] >= 32;
        let exploration = combinations(&unknowns, spans);
        assert_eq!(exploration.explored.len(), 2);
        let results: Vec<(BTreeMap<Atom, i64>, bool)> =
            exploration.combos.iter().map(|c| (c.clone(), spans(c))).collect();
        assert!(results.iter().any(|(_, o)| !o));
    }

    #[test]
    fn a_lane_index_through_a_remainder_makes_its_scale_a_stride() {
        let lane = Poly::atom(Atom::ThreadIdx(Axis::X));
        let width = Poly::atom(param("w"));
        let column = Poly::op(OpKind::Rem, &lane, &width);
        let address = column.mul(&Poly::atom(param("s")));
        let unknowns = unknowns_of(&address, false, [256, 1, 1]);
        assert_eq!(unknowns, [(param("s"), Role::Stride), (param("w"), Role::Divisor)]);
        // Along y the block is one thread tall: what `ty` scales is no question.
        let rows = Poly::atom(Atom::ThreadIdx(Axis::Y)).mul(&Poly::atom(param("p")));
        assert!(unknowns_of(&rows, false, [256, 1, 1]).is_empty());
    }
}
