//! Interval bounds of index polynomials: the smallest and largest value an index takes over
//! given ranges of its symbols. Used to size buffers so that no access falls outside them.

use super::poly::Poly;
use super::poly::{Atom, OpKind};
use super::predicate::{CmpOp, Predicate};

/// A closed range of integers; `i64::MAX` / `i64::MIN` stand for unbounded ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interval {
    /// Smallest value.
    pub lo: i64,
    /// Largest value.
    pub hi: i64,
}

impl Interval {
    /// `[lo, hi]`.
    pub fn new(lo: i64, hi: i64) -> Interval {
        Interval {
            lo: lo.min(hi),
            hi: hi.max(lo),
        }
    }

    /// The single value `v`.
    pub fn point(v: i64) -> Interval {
        Interval { lo: v, hi: v }
    }

    /// Whether both ends are finite.
    pub fn is_bounded(&self) -> bool {
        self.lo > i64::MIN / 4 && self.hi < i64::MAX / 4
    }

    fn add(self, o: Interval) -> Interval {
        Interval::new(self.lo.saturating_add(o.lo), self.hi.saturating_add(o.hi))
    }

    fn mul(self, o: Interval) -> Interval {
        let products = [
            self.lo.saturating_mul(o.lo),
            self.lo.saturating_mul(o.hi),
            self.hi.saturating_mul(o.lo),
            self.hi.saturating_mul(o.hi),
        ];
        let lo = products.into_iter().fold(i64::MAX, i64::min);
        let hi = products.into_iter().fold(i64::MIN, i64::max);
        Interval::new(lo, hi)
    }
}

/// The range of `poly` when each atom lies in the range `range` gives; `None` when some atom
/// has none.
pub fn bounds(poly: &Poly, range: &dyn Fn(&Atom) -> Option<Interval>) -> Option<Interval> {
    let mut total = Interval::point(0);
    for (monomial, coefficient) in poly.terms() {
        let mut term = Interval::point(coefficient);
        for atom in monomial {
            let factor = match atom {
                Atom::Op(node) => op_bounds(node.kind, bounds(&node.lhs, range)?, bounds(&node.rhs, range)?)?,
                other => range(other)?,
            };
            term = term.mul(factor);
        }
        total = total.add(term);
    }
    Some(total)
}

fn op_bounds(kind: OpKind, l: Interval, r: Interval) -> Option<Interval> {
    let non_negative = l.lo >= 0 && r.lo >= 0;
    match kind {
        OpKind::Div if r.lo > 0 => {
            let candidates = [
                l.lo.div_euclid(r.lo),
                l.lo.div_euclid(r.hi),
                l.hi.div_euclid(r.lo),
                l.hi.div_euclid(r.hi),
            ];
            Some(Interval::new(*candidates.iter().min()?, *candidates.iter().max()?))
        }
        OpKind::Rem if r.lo > 0 => Some(if l.lo >= 0 {
            Interval::new(0, l.hi.min(r.hi - 1))
        } else {
            Interval::new(0, r.hi - 1)
        }),
        OpKind::Shr if r.lo >= 0 && r.hi < 63 && l.lo >= 0 => Some(Interval::new(l.lo >> r.hi, l.hi >> r.lo)),
        OpKind::Shl if r.lo >= 0 && r.hi < 62 && l.lo >= 0 => {
            Some(Interval::new(l.lo << r.lo, l.hi.saturating_mul(1 << r.hi)))
        }
        OpKind::Lt | OpKind::Le | OpKind::Eq | OpKind::Ne => Some(Interval::new(0, 1)),
        OpKind::And if non_negative => Some(Interval::new(0, l.hi.min(r.hi))),
        OpKind::Or | OpKind::Xor if non_negative => {
            let top = l.hi.max(r.hi);
            let mask = if top <= 0 {
                0
            } else {
                (1i64 << (64 - top.leading_zeros()).min(62)) - 1
            };
            Some(Interval::new(0, mask))
        }
        OpKind::Min => Some(Interval::new(l.lo.min(r.lo), l.hi.min(r.hi))),
        OpKind::Max => Some(Interval::new(l.lo.max(r.lo), l.hi.max(r.hi))),
        _ => None,
    }
}

/// The largest iteration count a loop atom can reach under the guards an access runs with:
/// from a guard `start + c*n < end` (or `<=`), `n <= (max(end) - min(start) - 1) / c`.
pub fn iteration_bound(iter: &Atom, guards: &[Predicate], range: &dyn Fn(&Atom) -> Option<Interval>) -> Option<i64> {
    let mut best: Option<i64> = None;
    for guard in guards {
        let Predicate::Cmp(op, l, r) = guard else { continue };
        let (small, large, strict) = match op {
            CmpOp::Lt => (l, r, true),
            CmpOp::Le => (l, r, false),
            CmpOp::Gt => (r, l, true),
            CmpOp::Ge => (r, l, false),
            _ => continue,
        };
        // The step may be symbolic (`blockDim.x * gridDim.x`) but known under the ranges.
        let coefficient = small.coefficient_of(iter);
        let Some(c) = coefficient
            .as_constant()
            .or_else(|| bounds(&coefficient, range).map(|b| b.lo))
            .filter(|c| *c > 0)
        else {
            continue;
        };
        let rest = small.filter_terms(|m| !m.contains(iter));
        // Other loop counters in `rest` only make it larger: their minimum, 0, is safe.
        let rest_min = bounds(&rest, &|a| match a {
            Atom::Iter(..) => Some(Interval::new(0, 0)),
            other => range(other),
        })?
        .lo;
        let end_max = bounds(large, range)?.hi;
        if end_max >= i64::MAX / 4 {
            continue;
        }
        let limit = end_max
            .saturating_sub(rest_min)
            .saturating_sub(i64::from(strict))
            .div_euclid(c);
        best = Some(best.map_or(limit, |b| b.min(limit)));
    }
    best.map(|b| b.max(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algebra::Axis;

    fn range(a: &Atom) -> Option<Interval> {
        match a {
            Atom::ThreadIdx(Axis::X) => Some(Interval::new(0, 255)),
            Atom::BlockIdx(Axis::X) => Some(Interval::new(0, 99)),
            Atom::Param(p) if p == "n" => Some(Interval::point(1000)),
            _ => None,
        }
    }

    #[test]
    fn affine_and_operation_bounds() {
        let i = Poly::atom(Atom::BlockIdx(Axis::X))
            .scale(256)
            .add(&Poly::thread_idx(Axis::X));
        assert_eq!(bounds(&i, &range), Some(Interval::new(0, 99 * 256 + 255)));
        let half = Poly::op(OpKind::Div, &i.add(&Poly::constant(1)), &Poly::constant(3));
        assert_eq!(bounds(&half, &range), Some(Interval::new(0, (99 * 256 + 256) / 3)));
        let masked = Poly::op(OpKind::Xor, &i, &Poly::constant(1));
        assert_eq!(bounds(&masked, &range).map(|b| b.hi), Some(32767));
        assert_eq!(bounds(&Poly::atom(Atom::Param("m".into())), &range), None);
    }

    #[test]
    fn loop_counters_are_bounded_by_their_guard() {
        let iter = Atom::Iter(1, "k".into());
        // tid + n_iter * 512 < n: at most (1000 - 0 - 1) / 512 = 1 more iteration.
        let tid = Poly::thread_idx(Axis::X);
        let value = tid.add(&Poly::atom(iter.clone()).scale(512));
        let guard = Predicate::Cmp(CmpOp::Lt, value, Poly::atom(Atom::Param("n".into())));
        assert_eq!(iteration_bound(&iter, &[guard], &range), Some(1));
        assert_eq!(iteration_bound(&iter, &[], &range), None);
        // A grid-stride step known only through the launch: tid + n_iter * (256 * gridDim.x) < n.
        let grid = |a: &Atom| match a {
            Atom::GridDim(Axis::X) => Some(Interval::point(2)),
            other => range(other),
        };
        let step = Poly::atom(Atom::GridDim(Axis::X)).scale(256);
        let value = tid.add(&Poly::atom(iter.clone()).mul(&step));
        let guard = Predicate::Cmp(CmpOp::Lt, value, Poly::atom(Atom::Param("n".into())));
        assert_eq!(iteration_bound(&iter, &[guard], &grid), Some(1));
    }
}
