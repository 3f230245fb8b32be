//! Guards: the conditions under which an access runs, evaluated lane by lane.

use super::poly::Atom;
use super::poly::Poly;

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
            Predicate::Cmp(op, l, r) => {
                let (l, r) = (l.eval(value)?, r.eval(value)?);
                Some(match op {
                    CmpOp::Lt => l < r,
                    CmpOp::Le => l <= r,
                    CmpOp::Gt => l > r,
                    CmpOp::Ge => l >= r,
                    CmpOp::Eq => l == r,
                    CmpOp::Ne => l != r,
                })
            }
            Predicate::And(a, b) => match (a.eval(value), b.eval(value)) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            },
            Predicate::Or(a, b) => match (a.eval(value), b.eval(value)) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            },
            Predicate::Not(a) => a.eval(value).map(|v| !v),
            Predicate::Unknown => None,
        }
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
