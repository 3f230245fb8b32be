//! Address polynomials and guards prepared once per setup for the thousands of lanes they are
//! evaluated at: the symbols the launch fixes are looked up once, the thread index is read
//! from the lane directly, and terms are walked as a list rather than a map. They give what
//! [`Poly::eval`] and [`Predicate::eval`] give under the same values, overflow included.

use super::points::Point;
use crate::algebra::{both, either, Atom, CmpOp, OpKind, Poly, Predicate};

/// One factor of a monomial.
enum Factor {
    /// The lane's thread index on an axis.
    Thread(usize),
    /// A block or loop index, which the point fixes.
    Point(Atom),
    /// A symbol the launch fixes (or leaves without a value).
    Fixed(Option<i64>),
    /// An operation on polynomials, evaluated as [`Poly::eval`] does.
    Op(OpKind, Box<CompiledPoly>, Box<CompiledPoly>),
}

/// The terms of a polynomial, in its order, each a coefficient and its factors.
pub(super) struct CompiledPoly {
    terms: Vec<(i64, Vec<Factor>)>,
}

impl CompiledPoly {
    /// `poly` with the symbols other than thread, block and loop indices valued by `known`.
    pub(super) fn new(poly: &Poly, known: &dyn Fn(&Atom) -> Option<i64>) -> CompiledPoly {
        let terms = poly
            .terms()
            .map(|(monomial, coefficient)| {
                let factors = monomial
                    .iter()
                    .map(|atom| match atom {
                        Atom::ThreadIdx(axis) => Factor::Thread(axis.index()),
                        Atom::BlockIdx(_) | Atom::Iter(..) => Factor::Point(atom.clone()),
                        Atom::Op(node) => Factor::Op(
                            node.kind,
                            Box::new(CompiledPoly::new(&node.lhs, known)),
                            Box::new(CompiledPoly::new(&node.rhs, known)),
                        ),
                        other => Factor::Fixed(known(other)),
                    })
                    .collect();
                (coefficient, factors)
            })
            .collect();
        CompiledPoly { terms }
    }

    /// The value for the lane running `thread` at `point`; `None` where [`Poly::eval`] gives
    /// none.
    pub(super) fn eval(&self, thread: [i64; 3], point: &Point) -> Option<i64> {
        let mut sum = 0i64;
        for (coefficient, factors) in &self.terms {
            let mut term = *coefficient;
            for factor in factors {
                let v = match factor {
                    Factor::Thread(axis) => thread[*axis],
                    Factor::Point(atom) => point.value(atom)?,
                    Factor::Fixed(v) => (*v)?,
                    Factor::Op(kind, lhs, rhs) => kind.apply(lhs.eval(thread, point)?, rhs.eval(thread, point)?)?,
                };
                term = term.checked_mul(v)?;
            }
            sum = sum.checked_add(term)?;
        }
        Some(sum)
    }
}

/// A guard with its polynomials prepared as [`CompiledPoly`].
pub(super) enum CompiledPredicate {
    Cmp(CmpOp, CompiledPoly, CompiledPoly),
    And(Box<CompiledPredicate>, Box<CompiledPredicate>),
    Or(Box<CompiledPredicate>, Box<CompiledPredicate>),
    Not(Box<CompiledPredicate>),
    Unknown,
}

impl CompiledPredicate {
    /// `predicate` with the symbols other than thread, block and loop indices valued by `known`.
    pub(super) fn new(predicate: &Predicate, known: &dyn Fn(&Atom) -> Option<i64>) -> CompiledPredicate {
        let compile = |p: &Predicate| Box::new(CompiledPredicate::new(p, known));
        match predicate {
            Predicate::Cmp(op, l, r) => {
                CompiledPredicate::Cmp(*op, CompiledPoly::new(l, known), CompiledPoly::new(r, known))
            }
            Predicate::And(a, b) => CompiledPredicate::And(compile(a), compile(b)),
            Predicate::Or(a, b) => CompiledPredicate::Or(compile(a), compile(b)),
            Predicate::Not(a) => CompiledPredicate::Not(compile(a)),
            Predicate::Unknown => CompiledPredicate::Unknown,
        }
    }

    /// The truth value for the lane running `thread` at `point`, as [`Predicate::eval`] gives it.
    pub(super) fn eval(&self, thread: [i64; 3], point: &Point) -> Option<bool> {
        match self {
            CompiledPredicate::Cmp(op, l, r) => Some(op.holds(l.eval(thread, point)?, r.eval(thread, point)?)),
            CompiledPredicate::And(a, b) => both(a.eval(thread, point), b.eval(thread, point)),
            CompiledPredicate::Or(a, b) => either(a.eval(thread, point), b.eval(thread, point)),
            CompiledPredicate::Not(a) => a.eval(thread, point).map(|v| !v),
            CompiledPredicate::Unknown => None,
        }
    }
}
