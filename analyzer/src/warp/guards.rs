//! The guards worth evaluating lane by lane: a guard that can never be decided under a launch
//! (it reads a parameter or a length the launch does not give) never excludes a lane, so it
//! is left out before the thousands of lane evaluations rather than found out in each.

use crate::algebra::{Atom, Poly, Predicate};

/// The guards among `guards` that some lane, block or iteration may decide, in order. Lanes,
/// blocks and loop iterations are given values as the warp is walked; any other symbol has
/// the value `known` gives it, or none at all.
pub(super) fn deciding<'a>(guards: &'a [Predicate], known: &dyn Fn(&Atom) -> Option<i64>) -> Vec<&'a Predicate> {
    guards.iter().filter(|g| may_decide(g, known)).collect()
}

/// Whether [`Predicate::eval`] can return a truth value: a comparison needs every symbol of
/// both sides (a polynomial with one unvalued symbol has no value), a conjunction or a
/// disjunction one of its sides at least. An over-approximation: `true` keeps the guard.
fn may_decide(guard: &Predicate, known: &dyn Fn(&Atom) -> Option<i64>) -> bool {
    match guard {
        Predicate::Cmp(_, lhs, rhs) => valued(lhs, known) && valued(rhs, known),
        Predicate::And(a, b) | Predicate::Or(a, b) => may_decide(a, known) || may_decide(b, known),
        Predicate::Not(a) => may_decide(a, known),
        Predicate::Unknown => false,
    }
}

/// Whether every symbol of `poly` may have a value while the lanes are evaluated.
fn valued(poly: &Poly, known: &dyn Fn(&Atom) -> Option<i64>) -> bool {
    let mut all = true;
    poly.visit_atoms(&mut |atom| {
        all &= match atom {
            Atom::ThreadIdx(_) | Atom::BlockIdx(_) | Atom::Iter(..) | Atom::Op(_) => true,
            other => known(other).is_some(),
        }
    });
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algebra::CmpOp;

    fn atom(a: Atom) -> Poly {
        Poly::atom(a)
    }

    #[test]
    fn an_unknown_bound_never_decides() {
        let lane = atom(Atom::ThreadIdx(crate::algebra::Axis::X));
        let n = atom(Atom::Param("n".into()));
        let unknown_bound = Predicate::Cmp(CmpOp::Lt, lane.clone(), n.clone());
        let known_bound = Predicate::Cmp(CmpOp::Lt, lane.clone(), Poly::constant(7));
        let either = Predicate::Or(Box::new(unknown_bound.clone()), Box::new(known_bound.clone()));
        let guards = [unknown_bound.clone(), known_bound.clone(), either, Predicate::Unknown];
        let none = |_: &Atom| None;
        let kept = deciding(&guards, &none);
        assert_eq!(kept.len(), 2);
        assert_eq!(kept[0], &known_bound);
        let given = |a: &Atom| matches!(a, Atom::Param(_)).then_some(64);
        assert_eq!(deciding(&guards, &given).len(), 3);
    }
}
