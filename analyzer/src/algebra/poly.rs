//! Integer polynomials over [`Atom`]s, with exact simplification of division, remainder, shifts
//! and masks by constants where divisibility allows.

mod atom;

pub use atom::{Atom, Axis, OpKind, OpNode, CANNOT_FOLLOW, OVERFLOWS, READ_FROM_MEMORY};
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// A product of atoms (sorted); the empty product is the constant term.
pub type Monomial = Vec<Atom>;

/// A sum of integer multiples of monomials. Arithmetic that would overflow `i64` yields an
/// opaque atom instead of a wrong number.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Poly {
    terms: BTreeMap<Monomial, i64>,
}

const MAX_TERMS: usize = 256;
const MAX_DEGREE: usize = 8;

impl Poly {
    /// The constant `c`.
    pub fn constant(c: i64) -> Poly {
        let mut terms = BTreeMap::new();
        if c != 0 {
            terms.insert(Vec::new(), c);
        }
        Poly { terms }
    }

    /// The atom itself.
    pub fn atom(atom: Atom) -> Poly {
        Poly {
            terms: BTreeMap::from([(vec![atom], 1)]),
        }
    }

    /// `threadIdx.axis`.
    pub fn thread_idx(axis: Axis) -> Poly {
        Poly::atom(Atom::ThreadIdx(axis))
    }

    /// An opaque value the analysis cannot follow.
    pub fn opaque(id: u32, text: impl Into<String>, lane: bool) -> Poly {
        Poly::opaque_because(id, text, lane, CANNOT_FOLLOW)
    }

    /// An opaque value with the reason it is opaque, which completes "the index depends on
    /// `text`, which ...".
    pub fn opaque_because(id: u32, text: impl Into<String>, lane: bool, why: &'static str) -> Poly {
        Poly::atom(Atom::Opaque {
            id,
            text: text.into(),
            lane,
            why,
        })
    }

    /// The terms: monomial and coefficient.
    pub fn terms(&self) -> impl Iterator<Item = (&Monomial, i64)> {
        self.terms.iter().map(|(m, &c)| (m, c))
    }

    /// The constant, when the polynomial is one.
    pub fn as_constant(&self) -> Option<i64> {
        match self.terms.len() {
            0 => Some(0),
            1 => self.terms.get(&Vec::new()).copied(),
            _ => None,
        }
    }

    /// The constant term.
    pub fn constant_term(&self) -> i64 {
        self.terms.get(&Vec::new()).copied().unwrap_or(0)
    }

    /// Whether the value is read from memory at an address that differs between lanes, or is
    /// made from such values.
    pub fn is_loaded_per_lane(&self) -> bool {
        self.atoms().any(Atom::is_loaded_per_lane)
    }

    /// Whether any lane-dependent atom occurs.
    pub fn is_lane_dependent(&self) -> bool {
        self.atoms().any(Atom::is_lane_dependent)
    }

    /// Whether any varying atom occurs.
    pub fn is_varying(&self) -> bool {
        self.atoms().any(Atom::is_varying)
    }

    fn atoms(&self) -> impl Iterator<Item = &Atom> {
        self.terms.keys().flatten()
    }

    /// Calls `f` on every atom, also those inside operations.
    pub fn visit_atoms(&self, f: &mut dyn FnMut(&Atom)) {
        for atom in self.atoms() {
            atom.visit(f);
        }
    }

    fn overflow(what: &str) -> Poly {
        Poly::opaque_because(u32::MAX, what.to_string(), true, OVERFLOWS)
    }

    /// `self + other`.
    pub fn add(&self, other: &Poly) -> Poly {
        let mut terms = self.terms.clone();
        for (m, c) in &other.terms {
            let entry = terms.entry(m.clone()).or_insert(0);
            match entry.checked_add(*c) {
                Some(sum) => *entry = sum,
                None => return Poly::overflow("sum"),
            }
            if *entry == 0 {
                terms.remove(m);
            }
        }
        if terms.len() > MAX_TERMS {
            return Poly::overflow("sum");
        }
        Poly { terms }
    }

    /// `self * k`.
    pub fn scale(&self, k: i64) -> Poly {
        if k == 0 {
            return Poly::default();
        }
        let mut terms = BTreeMap::new();
        for (m, c) in &self.terms {
            match c.checked_mul(k) {
                Some(v) => {
                    terms.insert(m.clone(), v);
                }
                None => return Poly::overflow("product"),
            }
        }
        Poly { terms }
    }

    /// `-self`.
    pub fn neg(&self) -> Poly {
        self.scale(-1)
    }

    /// `self - other`.
    pub fn sub(&self, other: &Poly) -> Poly {
        self.add(&other.neg())
    }

    /// `self * other`.
    pub fn mul(&self, other: &Poly) -> Poly {
        if let Some(k) = other.as_constant() {
            return self.scale(k);
        }
        if let Some(k) = self.as_constant() {
            return other.scale(k);
        }
        if self.terms.len() * other.terms.len() > MAX_TERMS {
            return Poly::overflow("product");
        }
        let mut out = Poly::default();
        for (ma, ca) in &self.terms {
            for (mb, cb) in &other.terms {
                let Some(c) = ca.checked_mul(*cb) else {
                    return Poly::overflow("product");
                };
                let mut m: Monomial = ma.iter().chain(mb).cloned().collect();
                if m.len() > MAX_DEGREE {
                    return Poly::overflow("product");
                }
                m.sort();
                out = out.add(&Poly {
                    terms: BTreeMap::from([(m, c)]),
                });
            }
        }
        out
    }

    /// Applies a non-polynomial operation, simplifying where the result stays exact.
    pub fn op(kind: OpKind, lhs: &Poly, rhs: &Poly) -> Poly {
        if let (Some(a), Some(b)) = (lhs.as_constant(), rhs.as_constant()) {
            if let Some(v) = kind.apply(a, b) {
                return Poly::constant(v);
            }
        }
        if let Some(c) = rhs.as_constant() {
            match kind {
                OpKind::Div if c > 0 => return lhs.div_const(c),
                OpKind::Rem if c > 0 => return lhs.rem_const(c),
                OpKind::Shr if (0..63).contains(&c) => return lhs.div_const(1 << c),
                OpKind::Shl if (0..63).contains(&c) => return lhs.scale(1 << c),
                OpKind::And if c >= 0 && (c + 1).count_ones() == 1 => return lhs.rem_const(c + 1),
                _ => {}
            }
        }
        if kind == OpKind::Div && lhs == rhs {
            return Poly::constant(1);
        }
        Poly::atom(Atom::Op(Rc::new(OpNode {
            kind,
            lhs: lhs.clone(),
            rhs: rhs.clone(),
        })))
    }

    /// Splits into the terms whose coefficient `c` divides and the rest.
    fn split_divisible(&self, c: i64) -> (Poly, Poly) {
        let (mut multiple, mut rest) = (Poly::default(), Poly::default());
        for (m, k) in &self.terms {
            let target = if k % c == 0 { &mut multiple } else { &mut rest };
            target.terms.insert(m.clone(), *k);
        }
        (multiple, rest)
    }

    /// `floor(self / c)`: `(c*u + r) / c = u + r / c` for any integer `u`.
    fn div_const(&self, c: i64) -> Poly {
        if c == 1 {
            return self.clone();
        }
        let (multiple, rest) = self.split_divisible(c);
        let quotient = Poly {
            terms: multiple.terms.into_iter().map(|(m, k)| (m, k / c)).collect(),
        };
        if rest.terms.is_empty() {
            return quotient;
        }
        let rest_op = match rest.as_constant() {
            Some(r) => Poly::constant(r.div_euclid(c)),
            None => Poly::atom(Atom::Op(Rc::new(OpNode {
                kind: OpKind::Div,
                lhs: rest,
                rhs: Poly::constant(c),
            }))),
        };
        quotient.add(&rest_op)
    }

    /// `self mod c`: `(c*u + r) mod c = r mod c`.
    fn rem_const(&self, c: i64) -> Poly {
        if c == 1 {
            return Poly::default();
        }
        let (_, rest) = self.split_divisible(c);
        match rest.as_constant() {
            Some(r) => Poly::constant(r.rem_euclid(c)),
            None => Poly::atom(Atom::Op(Rc::new(OpNode {
                kind: OpKind::Rem,
                lhs: rest,
                rhs: Poly::constant(c),
            }))),
        }
    }

    /// Replaces atoms for which `value` has a number and simplifies what follows from it.
    pub fn substitute(&self, value: &dyn Fn(&Atom) -> Option<i64>) -> Poly {
        let mut out = Poly::default();
        for (m, c) in &self.terms {
            let mut term = Poly::constant(*c);
            for atom in m {
                let factor = match value(atom) {
                    Some(v) => Poly::constant(v),
                    None => match atom {
                        Atom::Op(node) => Poly::op(node.kind, &node.lhs.substitute(value), &node.rhs.substitute(value)),
                        other => Poly::atom(other.clone()),
                    },
                };
                term = term.mul(&factor);
            }
            out = out.add(&term);
        }
        out
    }

    /// Rebuilds every operation inside out, its operands first: `rewrite` gives the new value
    /// of an operation from its kind and rebuilt operands, or `None` to keep it as it is.
    pub fn map_ops(&self, rewrite: &dyn Fn(OpKind, &Poly, &Poly) -> Option<Poly>) -> Poly {
        let mut out = Poly::default();
        for (m, c) in &self.terms {
            let mut term = Poly::constant(*c);
            for atom in m {
                let factor = match atom {
                    Atom::Op(node) => {
                        let (lhs, rhs) = (node.lhs.map_ops(rewrite), node.rhs.map_ops(rewrite));
                        rewrite(node.kind, &lhs, &rhs).unwrap_or_else(|| Poly::op(node.kind, &lhs, &rhs))
                    }
                    other => Poly::atom(other.clone()),
                };
                term = term.mul(&factor);
            }
            out = out.add(&term);
        }
        out
    }

    /// The value under an assignment of every atom, `None` if some atom has none.
    pub fn eval(&self, value: &dyn Fn(&Atom) -> Option<i64>) -> Option<i64> {
        let mut sum = 0i64;
        for (m, c) in &self.terms {
            let mut term = *c;
            for atom in m {
                let v = match atom {
                    Atom::Op(node) => node.kind.apply(node.lhs.eval(value)?, node.rhs.eval(value)?)?,
                    other => value(other)?,
                };
                term = term.checked_mul(v)?;
            }
            sum = sum.checked_add(term)?;
        }
        Some(sum)
    }

    /// The coefficient of `atom` taken linearly: the sum of the other factors of every monomial
    /// that contains it once.
    pub fn coefficient_of(&self, atom: &Atom) -> Poly {
        let mut out = Poly::default();
        for (m, c) in &self.terms {
            if m.iter().filter(|a| *a == atom).count() == 1 {
                let rest: Monomial = m.iter().filter(|a| *a != atom).cloned().collect();
                out = out.add(&Poly {
                    terms: BTreeMap::from([(rest, *c)]),
                });
            }
        }
        out
    }

    /// The terms for which `keep` holds.
    pub fn filter_terms(&self, keep: impl Fn(&Monomial) -> bool) -> Poly {
        Poly {
            terms: self
                .terms
                .iter()
                .filter(|(m, _)| keep(m))
                .map(|(m, c)| (m.clone(), *c))
                .collect(),
        }
    }
}

impl fmt::Display for Poly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.terms.is_empty() {
            return f.write_str("0");
        }
        // Constant last reads naturally: `tx + 4*bx + 1`.
        let ordered = self
            .terms
            .iter()
            .filter(|(m, _)| !m.is_empty())
            .chain(self.terms.iter().filter(|(m, _)| m.is_empty()));
        for (i, (m, c)) in ordered.enumerate() {
            let (sign, abs) = if *c < 0 {
                ("-", c.unsigned_abs())
            } else {
                ("+", c.unsigned_abs())
            };
            if i == 0 {
                if *c < 0 {
                    f.write_str("-")?;
                }
            } else {
                write!(f, " {sign} ")?;
            }
            let factors: Vec<String> = m.iter().map(|a| a.to_string()).collect();
            match (abs, factors.is_empty()) {
                (_, true) => write!(f, "{abs}")?,
                (1, false) => f.write_str(&factors.join("*"))?,
                (_, false) => write!(f, "{abs}*{}", factors.join("*"))?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tx() -> Poly {
        Poly::thread_idx(Axis::X)
    }
    fn bx() -> Poly {
        Poly::atom(Atom::BlockIdx(Axis::X))
    }
    fn param(name: &str) -> Poly {
        Poly::atom(Atom::Param(name.into()))
    }

    #[test]
    fn arithmetic_collects_terms() {
        let i = bx().scale(256).add(&tx());
        let k = i.add(&param("offset"));
        assert_eq!(k.sub(&param("offset")), i);
        assert_eq!(
            i.mul(&Poly::constant(4)).coefficient_of(&Atom::ThreadIdx(Axis::X)),
            Poly::constant(4)
        );
        let product = tx().add(&Poly::constant(1)).mul(&param("w"));
        assert_eq!(product.to_string(), "tx*w + w");
    }

    #[test]
    fn division_by_a_divisor_of_the_uniform_part_is_exact() {
        // (256*bx + tx) / 2 = 128*bx + tx/2
        let i = bx().scale(256).add(&tx());
        let half = Poly::op(OpKind::Div, &i, &Poly::constant(2));
        assert_eq!(half.coefficient_of(&Atom::BlockIdx(Axis::X)), Poly::constant(128));
        assert_eq!(half.to_string(), "128*bx + (tx / 2)");
        // (256*bx + tx) % 32 = tx % 32; & 31 is the same; >> 1 is / 2.
        let rem = Poly::op(OpKind::Rem, &i, &Poly::constant(32));
        assert_eq!(rem, Poly::op(OpKind::And, &i, &Poly::constant(31)));
        assert!(!rem.is_varying());
        assert_eq!(Poly::op(OpKind::Shr, &i, &Poly::constant(1)), half);
        assert_eq!(Poly::op(OpKind::Shl, &tx(), &Poly::constant(3)), tx().scale(8));
    }

    #[test]
    fn inexact_operations_stay_atoms_and_evaluate() {
        let i = bx().add(&tx());
        let x = Poly::op(OpKind::Xor, &i, &Poly::constant(1));
        let value = |a: &Atom| match a {
            Atom::ThreadIdx(_) => Some(6),
            Atom::BlockIdx(_) => Some(0),
            _ => None,
        };
        assert_eq!(x.eval(&value), Some(7));
        assert_eq!(Poly::op(OpKind::Rem, &i, &param("w")).eval(&value), None);
        let w = Poly::op(OpKind::Rem, &i, &param("w")).substitute(&|a| matches!(a, Atom::Param(_)).then_some(4));
        assert_eq!(w.eval(&value), Some(2));
    }

    #[test]
    fn overflow_becomes_opaque_not_a_panic() {
        let big = Poly::constant(i64::MAX).mul(&tx());
        let sum = big.add(&big);
        assert_eq!(sum.to_string(), "sum");
        assert_eq!(Poly::constant(i64::MAX).scale(2).eval(&|_| None), None);
    }
}
