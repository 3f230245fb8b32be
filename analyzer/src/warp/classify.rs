//! The verdict for an access from its outcome and its address polynomial.

use super::outcome::Outcome;
use super::verdict::AccessClass;
use crate::algebra::{Atom, Axis, OpKind, Poly};
use crate::interpret::Access;
use crate::model::launch::Dim3;

pub(super) fn classify(access: &Access, outcome: &Outcome, address: &Poly, block: Dim3) -> AccessClass {
    if outcome.broadcast || !address.is_lane_dependent() {
        return AccessClass::Broadcast;
    }
    if outcome.sectors <= outcome.ideal + 0.005 {
        return AccessClass::Coalesced;
    }
    // Lanes of one row share an address; only the rows differ (`a[ty * w]` under 16x16). The
    // row is the fastest lane index that varies in the block: under `(1, 1, 64)` it is `z`.
    if !mentions(address, fastest_axis(block)) {
        return AccessClass::RowBroadcast;
    }
    // x used as a row index is a question only where x is what the lanes walk.
    if fastest_axis(block) == Axis::X && is_transposed(&access.address, access.width) {
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

/// The lane index consecutive lanes of a warp differ in: `x`, unless the block is one thread
/// wide (then `y`, or `z` when it is one thread tall too).
pub(super) fn fastest_axis(block: Dim3) -> Axis {
    match block {
        [1, 1, _] => Axis::Z,
        [1, _, _] => Axis::Y,
        _ => Axis::X,
    }
}

/// Whether a lane index occurs anywhere in the address, also inside operations.
fn mentions(address: &Poly, axis: Axis) -> bool {
    let mut found = false;
    address.visit_atoms(&mut |a| found |= *a == Atom::ThreadIdx(axis));
    found
}

/// `x * rows + y`: the fastest lane index is scaled by a row length (symbolic, or at least 32
/// elements) while another varying index (a slower lane index, a loop variable, a block index)
/// walks the row with unit stride.
pub(super) fn is_transposed(address: &Poly, width: u64) -> bool {
    let x_coefficient = address.coefficient_of(&Atom::ThreadIdx(Axis::X));
    if chooses(&x_coefficient) {
        return false;
    }
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
pub(super) fn row_length(address: &Poly, width: u64) -> Option<String> {
    let width = width.max(1) as i64;
    let x_coefficient = address.coefficient_of(&Atom::ThreadIdx(Axis::X));
    if let Some(c) = x_coefficient.as_constant() {
        return Some((c / width).to_string());
    }
    if chooses(&x_coefficient) {
        return None;
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

/// Whether a coefficient holds a condition's value (`if c { tx } else { 0 }`): the lanes then
/// follow no single row length.
fn chooses(coefficient: &Poly) -> bool {
    let mut found = false;
    coefficient.visit_atoms(&mut |a| {
        found |= matches!(a, Atom::Op(node) if matches!(node.kind, OpKind::Lt | OpKind::Le | OpKind::Eq | OpKind::Ne));
    });
    found
}
