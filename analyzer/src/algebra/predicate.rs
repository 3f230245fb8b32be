//! Guards: the conditions under which an access runs, evaluated lane by lane.

use super::poly::{Atom, OpKind, Poly};

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl CmpOp {
    /// Whether `l op r` holds.
    pub fn holds(self, l: i64, r: i64) -> bool {
        match self {
            CmpOp::Lt => l < r,
            CmpOp::Le => l <= r,
            CmpOp::Gt => l > r,
            CmpOp::Ge => l >= r,
            CmpOp::Eq => l == r,
            CmpOp::Ne => l != r,
        }
    }
}

/// Both, where an unknown side leaves the answer unknown unless the other is false.
pub fn both(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }
}

/// Either, where an unknown side leaves the answer unknown unless the other is true.
pub fn either(a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (a, b) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }
}

/// A boolean condition over index polynomials.
#[derive(Debug, Clone, PartialEq)]
pub enum Predicate {
    /// `lhs op rhs`.
    Cmp(CmpOp, Poly, Poly),
    /// Both.
    And(Box<Predicate>, Box<Predicate>),
    /// Either.
    Or(Box<Predicate>, Box<Predicate>),
    /// Negation.
    Not(Box<Predicate>),
    /// A condition the analysis cannot evaluate.
    Unknown,
}

impl Predicate {
    /// The truth value under an assignment; `None` when it depends on something unassigned.
    pub fn eval(&self, value: &dyn Fn(&Atom) -> Option<i64>) -> Option<bool> {
        match self {
            Predicate::Cmp(op, l, r) => Some(op.holds(l.eval(value)?, r.eval(value)?)),
            Predicate::And(a, b) => both(a.eval(value), b.eval(value)),
            Predicate::Or(a, b) => either(a.eval(value), b.eval(value)),
            Predicate::Not(a) => a.eval(value).map(|v| !v),
            Predicate::Unknown => None,
        }
    }

    /// The condition as a number, 1 when it holds and 0 when not, so that `if c { a } else
    /// { b }` is `b + [c] * (a - b)`; `None` for a condition the analysis cannot read.
    pub fn indicator(&self) -> Option<Poly> {
        Some(match self {
            Predicate::Cmp(op, l, r) => match op {
                CmpOp::Lt => Poly::op(OpKind::Lt, l, r),
                CmpOp::Le => Poly::op(OpKind::Le, l, r),
                CmpOp::Gt => Poly::op(OpKind::Lt, r, l),
                CmpOp::Ge => Poly::op(OpKind::Le, r, l),
                CmpOp::Eq => Poly::op(OpKind::Eq, l, r),
                CmpOp::Ne => Poly::op(OpKind::Ne, l, r),
            },
            Predicate::And(a, b) => a.indicator()?.mul(&b.indicator()?),
            Predicate::Or(a, b) => {
                let (a, b) = (a.indicator()?, b.indicator()?);
                a.add(&b).sub(&a.mul(&b))
            }
            Predicate::Not(a) => Poly::constant(1).sub(&a.indicator()?),
            Predicate::Unknown => return None,
        })
    }

    /// Calls `f` on every atom the condition reads.
    pub fn visit_atoms(&self, f: &mut dyn FnMut(&Atom)) {
        match self {
            Predicate::Cmp(_, l, r) => {
                l.visit_atoms(f);
                r.visit_atoms(f);
            }
            Predicate::And(a, b) | Predicate::Or(a, b) => {
                a.visit_atoms(f);
                b.visit_atoms(f);
            }
            Predicate::Not(a) => a.visit_atoms(f),
            Predicate::Unknown => {}
        }
    }

    /// Whether the condition reads a value loaded from memory at per-lane addresses: which
    /// lanes it holds for depends on the data.
    pub fn is_loaded_per_lane(&self) -> bool {
        let mut loaded = false;
        self.visit_atoms(&mut |a| loaded |= a.is_loaded_per_lane());
        loaded
    }

    /// Whether some lane may see a different truth value than another.
    pub fn is_lane_dependent(&self) -> bool {
        match self {
            Predicate::Cmp(_, l, r) => l.is_lane_dependent() || r.is_lane_dependent(),
            Predicate::And(a, b) | Predicate::Or(a, b) => a.is_lane_dependent() || b.is_lane_dependent(),
            Predicate::Not(a) => a.is_lane_dependent(),
            Predicate::Unknown => false,
        }
    }
}
