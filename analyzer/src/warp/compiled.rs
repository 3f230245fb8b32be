//! An address polynomial prepared once per setup for the thousands of lanes it is evaluated
//! at: the symbols the launch fixes are looked up once, the thread index is read from the
//! lane directly. It gives what [`Poly::eval`] gives under the same values, overflow included.

use super::points::Point;
use crate::algebra::{Atom, OpNode, Poly};
use std::rc::Rc;

/// One factor of a monomial.
enum Factor {
    /// The lane's thread index on an axis.
    Thread(usize),
    /// A block or loop index, which the point fixes.
    Point(Atom),
    /// A symbol the launch fixes (or leaves without a value).
    Fixed(Option<i64>),
    /// An operation on polynomials, evaluated as [`Poly::eval`] does.
    Op(Rc<OpNode>),
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
                        Atom::Op(node) => Factor::Op(Rc::clone(node)),
                        other => Factor::Fixed(known(other)),
                    })
                    .collect();
                (coefficient, factors)
            })
            .collect();
        CompiledPoly { terms }
    }

    /// The value for the lane running `thread` at `point`; `value` gives every symbol's value
    /// inside operations. `None` where [`Poly::eval`] gives none.
    pub(super) fn eval(&self, thread: [i64; 3], point: &Point, value: &dyn Fn(&Atom) -> Option<i64>) -> Option<i64> {
        let mut sum = 0i64;
        for (coefficient, factors) in &self.terms {
            let mut term = *coefficient;
            for factor in factors {
                let v = match factor {
                    Factor::Thread(axis) => thread[*axis],
                    Factor::Point(atom) => point.value(atom)?,
                    Factor::Fixed(v) => (*v)?,
                    Factor::Op(node) => node.kind.apply(node.lhs.eval(value)?, node.rhs.eval(value)?)?,
                };
                term = term.checked_mul(v)?;
            }
            sum = sum.checked_add(term)?;
        }
        Some(sum)
    }
}
