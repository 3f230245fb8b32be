//! Expressions: the dispatch from each kind of expression to the part of the interpreter that
//! owns it (places in `place`, arithmetic in `arith`, control flow in `flow`, calls in `call`).

use super::arith::local_name;
use super::value::{why, Operand, THREAD_INDEX};
use super::{Interpreter, Place, Value};
use crate::algebra::{CmpOp, Poly, Predicate};
use syn::{Expr, UnOp};

impl<'a> Interpreter<'a> {
    /// Evaluates an expression for its value, reading memory where it names a place.
    pub(crate) fn value(&mut self, expr: &Expr) -> Value {
        match self.operand(expr) {
            Operand::Place(place) => self.load(&place, expr),
            Operand::Value(value) => value,
        }
    }

    /// The value as an integer polynomial; anything else becomes an opaque symbol.
    pub(crate) fn int(&mut self, expr: &Expr) -> Poly {
        let value = self.value(expr);
        self.read_int(value, expr)
    }

    /// The integer a value stands for; a reference (`*a.get_unchecked(i) * 2.0` written
    /// without the `*`) is read through.
    pub(crate) fn read_int(&mut self, value: Value, expr: &Expr) -> Poly {
        let value = match value {
            Value::Place(place) => self.load(&place, expr),
            other => other,
        };
        self.int_of(value, expr)
    }

    fn int_of(&mut self, value: Value, expr: &Expr) -> Poly {
        match value {
            Value::Int(p) => p,
            // A cuda-oxide thread index stands for the element it selects.
            Value::Struct { ty: Some(ty), fields } if ty == THREAD_INDEX => {
                match fields.into_iter().find(|(n, _)| n == "raw") {
                    Some((_, Value::Int(p))) => p,
                    _ => self.opaque(self.text(expr), true),
                }
            }
            other => {
                let lane = !matches!(&other, Value::Bool(p) if !p.is_lane_dependent())
                    || self.guards.iter().any(Predicate::is_lane_dependent);
                self.derived(self.text(expr), lane, &[&other])
            }
        }
    }

    /// A condition as a predicate.
    pub(crate) fn condition(&mut self, expr: &Expr) -> Predicate {
        match self.value(expr) {
            Value::Bool(p) => p,
            Value::Int(p) => Predicate::Cmp(CmpOp::Ne, p, Poly::default()),
            other => {
                let text = self.text(expr);
                self.unknown_condition(text, other.is_lane_dependent())
            }
        }
    }

    /// Evaluates an expression that may denote a place.
    pub(crate) fn operand(&mut self, expr: &Expr) -> Operand {
        match expr {
            Expr::Paren(e) => self.operand(&e.expr),
            Expr::Group(e) => self.operand(&e.expr),
            Expr::Path(p) => {
                if let Some(ident) = p.path.get_ident() {
                    let name = ident.to_string();
                    if let Some(value) = self.cube_constant(&name) {
                        return Operand::Value(value);
                    }
                    if self.lookup(&name).is_none() {
                        if let Some(place) = self.statics.get(&name) {
                            return Operand::Place(place.clone());
                        }
                    }
                }
                Operand::Value(self.path_value(p))
            }
            Expr::Index(index) => self.index(&index.expr, &index.index, false),
            Expr::Field(field) => {
                let member = match &field.member {
                    syn::Member::Named(ident) => ident.to_string(),
                    syn::Member::Unnamed(i) => i.index.to_string(),
                };
                let base = self.operand(&field.base);
                self.field(base, &member)
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => match self.value(&u.expr) {
                Value::Pointer(pointer) => Operand::Place(Place::at(&pointer)),
                Value::Place(place) => Operand::Place(place),
                // A reference the analysis tracks by its value (`*w` for an item `w`).
                other => Operand::Value(other),
            },
            Expr::MethodCall(call) => self.method_call(call),
            _ => Operand::Value(self.plain_value(expr)),
        }
    }

    /// Whether a guard pushed after the first `base` differs between lanes.
    pub(crate) fn lane_guarded_since(&self, base: usize) -> bool {
        self.guards
            .get(base..)
            .is_some_and(|guards| guards.iter().any(Predicate::is_lane_dependent))
    }

    /// Expressions that are never places.
    fn plain_value(&mut self, expr: &Expr) -> Value {
        match expr {
            Expr::Lit(lit) => match &lit.lit {
                syn::Lit::Int(i) => i
                    .base10_parse::<i64>()
                    .map_or(Value::Unknown, |v| Value::Int(Poly::constant(v))),
                syn::Lit::Bool(b) => {
                    let op = if b.value { CmpOp::Eq } else { CmpOp::Ne };
                    Value::Bool(Predicate::Cmp(op, Poly::default(), Poly::default()))
                }
                _ => {
                    let id = self.fresh_id();
                    Value::Int(Poly::opaque_because(id, self.text(lit), false, why::LITERAL))
                }
            },
            Expr::Binary(b) => self.binary(b),
            Expr::Unary(u) => match u.op {
                UnOp::Neg(_) => match self.value(&u.expr) {
                    Value::Int(p) => Value::Int(p.neg()),
                    _ => Value::Unknown,
                },
                UnOp::Not(_) => match self.value(&u.expr) {
                    Value::Bool(p) => Value::Bool(Predicate::Not(Box::new(p))),
                    Value::Int(p) => Value::Int(self.opaque(self.text(expr), p.is_lane_dependent())),
                    _ => Value::Unknown,
                },
                _ => self.value(&u.expr),
            },
            Expr::Cast(c) => {
                let value = self.value(&c.expr);
                match (value, &*c.ty) {
                    (Value::Pointer(mut p), syn::Type::Ptr(ptr)) => {
                        p.elem = self.scope().layout(&ptr.elem);
                        p.raw = true;
                        Value::Pointer(p)
                    }
                    // A reference cast to an integer is its address: nothing is read.
                    (Value::Place(place), syn::Type::Path(t))
                        if t.path
                            .get_ident()
                            .is_some_and(|i| matches!(i.to_string().as_str(), "usize" | "isize" | "u64" | "i64")) =>
                    {
                        Value::Int(self.opaque(self.text(expr), place.offset.is_lane_dependent()))
                    }
                    // An address computed as an integer: the analysis cannot tell which buffer
                    // it points into, and says so rather than drop what goes through it.
                    (Value::Int(address), syn::Type::Ptr(_))
                        if address.as_constant().is_none() && is_integer_arithmetic(&c.expr) =>
                    {
                        let text = self.text(&c.expr);
                        self.unsupported(
                            c,
                            format!("`{text}` makes a pointer from an integer: accesses through it are not analyzed"),
                        );
                        Value::Int(address)
                    }
                    (v, _) => v,
                }
            }
            Expr::Reference(r) => match self.operand(&r.expr) {
                Operand::Place(p) => Value::Place(p),
                Operand::Value(v) => v,
            },
            Expr::Call(call) => self.call(call),
            Expr::Block(b) => self.block(&b.block).1,
            Expr::Unsafe(u) => self.block(&u.block).1,
            Expr::If(i) => self.if_flow(i).3,
            Expr::While(w) => {
                self.loop_body(&w.body, Some(&w.cond));
                Value::Unknown
            }
            Expr::Loop(l) => {
                self.loop_body(&l.body, None);
                Value::Unknown
            }
            Expr::ForLoop(f) => {
                self.for_loop(f);
                Value::Unknown
            }
            Expr::Match(m) => self.match_arms(m),
            Expr::Closure(c) => self.closure(c),
            Expr::Assign(a) => {
                if let Some(name) = local_name(&a.left) {
                    if self.lookup(&name).is_some() {
                        let v = self.value(&a.right);
                        self.assign(&name, v);
                        return Value::Unknown;
                    }
                }
                self.store(&a.left, &a.right);
                Value::Unknown
            }
            Expr::Return(r) => {
                let v = r.expr.as_ref().map_or(Value::Unknown, |e| self.value(e));
                let lane = self.lane_guarded_since(self.call_guards);
                self.returns.push((v, lane));
                Value::Unknown
            }
            Expr::Break(b) => {
                if let Some(e) = &b.expr {
                    self.value(e);
                }
                let taken_under = self.guards.get(self.loop_guards..).unwrap_or_default().to_vec();
                self.break_scopes.push((self.scopes.clone(), taken_under));
                self.lane_exits.breaks |= self.lane_guarded_since(self.loop_guards);
                Value::Unknown
            }
            Expr::Continue(_) => {
                self.lane_exits.continues |= self.lane_guarded_since(self.loop_guards);
                Value::Unknown
            }
            Expr::Macro(m) => self.macro_call(&m.mac),
            Expr::Tuple(t) => Value::Tuple(t.elems.iter().map(|e| self.value(e)).collect()),
            // A local array is not tracked element by element; made from values read per lane,
            // it is such data as a whole, and so is each element taken from it.
            Expr::Array(a) => {
                let elements: Vec<Value> = a.elems.iter().map(|e| self.value(e)).collect();
                let whole = Value::Tuple(elements);
                self.part_of(&whole, self.text(expr))
            }
            Expr::Repeat(r) => {
                let element = self.value(&r.expr);
                self.part_of(&element, self.text(expr))
            }
            Expr::Struct(s) => {
                let fields: Vec<(String, Value)> = s
                    .fields
                    .iter()
                    .map(|f| {
                        let member = match &f.member {
                            syn::Member::Named(ident) => ident.to_string(),
                            syn::Member::Unnamed(i) => i.index.to_string(),
                        };
                        (member, self.value(&f.expr))
                    })
                    .collect();
                match &s.rest {
                    // `..base` fills fields the analysis would have to look up.
                    Some(rest) => {
                        self.value(rest);
                        Value::Unknown
                    }
                    None => Value::Struct {
                        ty: s.path.segments.last().map(|seg| seg.ident.to_string()),
                        fields,
                    },
                }
            }
            Expr::Let(l) => self.let_condition(l),
            Expr::Range(r) => {
                for e in r.start.iter().chain(r.end.iter()) {
                    self.value(e);
                }
                Value::Unknown
            }
            Expr::Verbatim(_) => Value::Unknown,
            // `value?`: the `Some`/`Ok` payload (the constructors pass their value through).
            // Lanes that meet `None` or `Err` return early: when that may differ between
            // lanes, the rest of the block runs under a condition the analysis cannot decide.
            Expr::Try(t) => {
                let value = self.value(&t.expr);
                if value.is_lane_dependent() {
                    let gave = self.unknown_condition(self.text(t), true);
                    self.tried.push(gave);
                }
                value
            }
            other => {
                self.unsupported(other, format!("`{}` is not analyzed", self.text(other)));
                Value::Unknown
            }
        }
    }
}

/// Whether an expression is integer arithmetic on its face: `a + b` and the like, or a cast to
/// an integer type (`p as usize`), in parentheses or not. A value the analysis tracks for a
/// reference or a pointer variable is neither.
fn is_integer_arithmetic(expr: &Expr) -> bool {
    match expr {
        Expr::Paren(p) => is_integer_arithmetic(&p.expr),
        Expr::Group(g) => is_integer_arithmetic(&g.expr),
        Expr::Binary(b) => !matches!(
            b.op,
            syn::BinOp::Eq(_)
                | syn::BinOp::Ne(_)
                | syn::BinOp::Lt(_)
                | syn::BinOp::Le(_)
                | syn::BinOp::Gt(_)
                | syn::BinOp::Ge(_)
                | syn::BinOp::And(_)
                | syn::BinOp::Or(_)
        ),
        Expr::Cast(c) => matches!(&*c.ty, syn::Type::Path(t) if t.path.get_ident().is_some_and(|i| {
            matches!(i.to_string().as_str(), "usize" | "isize" | "u64" | "i64" | "u32" | "i32")
        })),
        _ => false,
    }
}
