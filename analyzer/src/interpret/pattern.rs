//! Patterns: the names that `let`, `if let`, `while let`, `match` arms, `for` loops and closure
//! parameters bind. Each name gets the part of the value it matches where the analysis tracks
//! that part (`Some(e)` over `c.get_mut(i)` is the place), and otherwise an opaque value that
//! differs between lanes whenever the matched value may.

use super::value::why;
use super::{Interpreter, Value};
use crate::algebra::{CmpOp, Poly, Predicate, CANNOT_FOLLOW};
use crate::parse::last_segment;
use syn::visit::Visit;
use syn::Pat;

/// Constructors whose one field the interpreter represents by the field itself: `Some(x)`
/// evaluates to `x`, so `Some(x)` as a pattern binds `x` to the value.
const WRAPPERS: &[&str] = &["Some", "Ok", "Wrapping"];

impl Interpreter<'_> {
    /// Binds the names of a pattern to the parts of `value` they match.
    pub(crate) fn bind_pattern(&mut self, pat: &Pat, value: Value) {
        match pat {
            Pat::Ident(ident) => {
                if let Some((_, sub)) = &ident.subpat {
                    self.bind_pattern(sub, value.clone());
                }
                self.define(ident.ident.to_string(), value);
            }
            Pat::Type(typed) => {
                // A typed `let` to a pointer type casts the pointer.
                let value = match (&value, &*typed.ty) {
                    (Value::Pointer(p), syn::Type::Ptr(ptr)) => {
                        let mut p = p.clone();
                        if let Some(layout) = self.scope().layout(&ptr.elem) {
                            p.elem = Some(layout);
                        }
                        p.raw = true;
                        Value::Pointer(p)
                    }
                    _ => value,
                };
                self.bind_pattern(&typed.pat, value)
            }
            Pat::Paren(p) => self.bind_pattern(&p.pat, value),
            // `&x` over a reference to memory copies the value out: one read, here.
            Pat::Reference(r) => match value {
                Value::Place(place) => {
                    let read = self.load_at(&place, &r.pat);
                    self.bind_pattern(&r.pat, read)
                }
                other => self.bind_pattern(&r.pat, other),
            },
            Pat::Tuple(tuple) => {
                let has_rest = tuple.elems.iter().any(|p| matches!(p, Pat::Rest(_)));
                match value {
                    Value::Tuple(parts) if parts.len() == tuple.elems.len() && !has_rest => {
                        for (p, v) in tuple.elems.iter().zip(parts) {
                            self.bind_pattern(p, v);
                        }
                    }
                    other => self.bind_opaque(pat, other.is_lane_dependent(), why::PATTERN),
                }
            }
            Pat::TupleStruct(ts) => {
                let wrapper = WRAPPERS.contains(&last_segment(&ts.path).as_str()) && ts.elems.len() == 1;
                match (ts.elems.first(), value) {
                    (Some(inner), value) if wrapper && !matches!(value, Value::Unknown | Value::Absent) => {
                        self.bind_pattern(inner, value)
                    }
                    (_, Value::Struct { fields, .. }) if !ts.elems.iter().any(|p| matches!(p, Pat::Rest(_))) => {
                        for (i, p) in ts.elems.iter().enumerate() {
                            let field = fields.iter().find(|(n, _)| *n == i.to_string());
                            self.bind_field(p, field.map(|(_, v)| v.clone()));
                        }
                    }
                    (_, other) => self.bind_opaque(pat, other.is_lane_dependent(), why::PATTERN),
                }
            }
            Pat::Struct(ps) => match value {
                Value::Struct { fields, .. } => {
                    for field in &ps.fields {
                        let member = match &field.member {
                            syn::Member::Named(ident) => ident.to_string(),
                            syn::Member::Unnamed(i) => i.index.to_string(),
                        };
                        let value = fields.iter().find(|(n, _)| *n == member).map(|(_, v)| v.clone());
                        self.bind_field(&field.pat, value);
                    }
                }
                other => self.bind_opaque(pat, other.is_lane_dependent(), why::PATTERN),
            },
            Pat::Wild(_) | Pat::Rest(_) | Pat::Lit(_) | Pat::Range(_) | Pat::Path(_) => {}
            // Slices, alternatives and the rest: parts the analysis does not track.
            other => self.bind_opaque(other, value.is_lane_dependent(), why::PATTERN),
        }
    }

    /// A field of a destructured struct: its value when known, else an opaque one that may
    /// differ between lanes.
    fn bind_field(&mut self, pat: &Pat, value: Option<Value>) {
        match value {
            Some(value) => self.bind_pattern(pat, value),
            None => self.bind_opaque(pat, true, why::PATTERN),
        }
    }

    /// Binds every name of a pattern to an opaque integer of its own.
    pub(crate) fn bind_opaque(&mut self, pat: &Pat, lane: bool, why: &'static str) {
        let mut names = BindingNames::default();
        names.visit_pat(pat);
        for name in names.0 {
            let id = self.fresh_id();
            let value = Value::Int(Poly::opaque_because(id, name.clone(), lane, why));
            self.define(name, value);
        }
    }

    /// A condition the analysis cannot read; when it may differ between lanes, one that says
    /// so, so that values set under it differ between lanes too.
    pub(crate) fn unknown_condition(&mut self, text: String, lane: bool) -> Predicate {
        if !lane {
            return Predicate::Unknown;
        }
        let id = self.fresh_id();
        Predicate::Cmp(
            CmpOp::Ne,
            Poly::opaque_because(id, text, true, CANNOT_FOLLOW),
            Poly::default(),
        )
    }

    /// `let PAT = EXPR` in a condition: binds the pattern (in the scope the caller opened for
    /// the branch it guards) and is true where the value matches.
    pub(crate) fn let_condition(&mut self, l: &syn::ExprLet) -> Value {
        let value = self.value(&l.expr);
        let lane = value.is_lane_dependent();
        self.bind_pattern(&l.pat, value);
        let text = self.text(l);
        Value::Bool(self.unknown_condition(text, lane))
    }
}

/// Names bound by a pattern.
#[derive(Default)]
struct BindingNames(Vec<String>);

impl<'ast> Visit<'ast> for BindingNames {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
}
