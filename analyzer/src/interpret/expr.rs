//! Expressions: index arithmetic, pointers and places, loads and stores, branches and loops.

use super::stmt::{is_compound_assign, Flow};
use super::{Interpreter, Op, Place, Pointer, Value};
use crate::algebra::{Atom, CmpOp, OpKind, Poly, Predicate};
use crate::report::FieldOf;
use syn::{BinOp, Expr, UnOp};

/// An expression evaluated where a place may stand: either a memory location (not yet read)
/// or a plain value.
pub(crate) enum Operand {
    Place(Place),
    Value(Value),
}

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
        let value = match self.value(expr) {
            // Arithmetic on a reference (`*a.get_unchecked(i) * 2.0` written without the `*`)
            // reads through it.
            Value::Place(place) => self.load(&place, expr),
            other => other,
        };
        self.int_of(value, expr)
    }

    fn int_of(&mut self, value: Value, expr: &Expr) -> Poly {
        match value {
            Value::Int(p) => p,
            other => {
                let lane = !matches!(other, Value::Bool(_)) || self.guards.iter().any(Predicate::is_lane_dependent);
                self.opaque(self.text(expr), lane)
            }
        }
    }

    /// A condition as a predicate.
    pub(crate) fn condition(&mut self, expr: &Expr) -> Predicate {
        match self.value(expr) {
            Value::Bool(p) => p,
            Value::Int(p) => Predicate::Cmp(CmpOp::Ne, p, Poly::default()),
            _ => Predicate::Unknown,
        }
    }

    fn load(&mut self, place: &Place, expr: &Expr) -> Value {
        let span = self.span(expr);
        self.access(place, Op::Load, span);
        let primitive = place.layout.as_ref().is_none_or(|l| l.primitive);
        if !primitive {
            return Value::Unknown;
        }
        let id = self.fresh_id();
        let lane = place.offset.is_lane_dependent();
        Value::Int(Poly::atom(Atom::Load {
            id,
            array: place.array.clone(),
            lane,
        }))
    }

    fn store(&mut self, target: &Expr, value_first: &Expr) {
        // The right-hand side runs first: its loads come before the store.
        self.value(value_first);
        match self.operand(target) {
            Operand::Place(place) => {
                let span = self.span(target);
                self.access(&place, Op::Store, span);
            }
            Operand::Value(Value::Place(place)) => {
                let span = self.span(target);
                self.access(&place, Op::Store, span);
            }
            Operand::Value(_) => {}
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
                _ => Operand::Value(Value::Unknown),
            },
            Expr::MethodCall(call) => self.method_call(call),
            _ => Operand::Value(self.plain_value(expr)),
        }
    }

    fn path_value(&mut self, p: &syn::ExprPath) -> Value {
        let Some(last) = p.path.segments.last() else {
            return Value::Unknown;
        };
        let name = last.ident.to_string();
        if p.path.segments.len() == 1 {
            if let Some(v) = self.lookup(&name) {
                return v.clone();
            }
        }
        if let Some(&c) = self.layouts.consts.get(&name) {
            return Value::Int(Poly::constant(c));
        }
        Value::Int(self.opaque(self.text(p), false))
    }

    /// `base[index]`: an element of an array place or of a pointer, a sub-slice, or a vector
    /// component.
    fn index(&mut self, base: &Expr, index: &Expr, reference: bool) -> Operand {
        if let Expr::Range(range) = index {
            let base = self.value(base);
            let start = match &range.start {
                Some(s) => self.int(s),
                None => Poly::default(),
            };
            if let Some(end) = &range.end {
                self.value(end);
            }
            return Operand::Value(match base {
                Value::Pointer(mut p) => {
                    let size = p.elem.as_ref().map_or(4, |l| l.size) as i64;
                    p.offset = p.offset.add(&start.scale(size));
                    Value::Pointer(p)
                }
                other => other,
            });
        }
        let base = self.operand(base);
        let text = self.text(index);
        let span = self.span(index);
        let i = self.int(index);
        let element = |container: Place| -> Option<Place> {
            let layout = container.layout.as_ref()?;
            let elem = layout.fields.first()?.layout.clone();
            let is_array = layout.name.starts_with('[');
            is_array.then(|| Place {
                offset: container.offset.add(&i.scale(elem.size as i64)),
                layout: Some(elem),
                index: Some(match &container.index {
                    Some((outer, _)) if container.field_of.is_none() => (format!("{outer}][{text}"), span),
                    _ => (text.clone(), span),
                }),
                field_of: None,
                ..container
            })
        };
        let place = match base {
            Operand::Place(p) | Operand::Value(Value::Place(p)) => element(p),
            Operand::Value(Value::Pointer(p)) => {
                let size = p.elem.as_ref().map_or(4, |l| l.size) as i64;
                let mut place = Place::at(&p);
                place.offset = p.offset.add(&i.scale(size));
                place.index = Some((text, span));
                Some(place)
            }
            Operand::Value(Value::Vector(components)) => {
                let component = i
                    .as_constant()
                    .and_then(|c| usize::try_from(c).ok())
                    .and_then(|c| components.get(c).cloned());
                return Operand::Value(component.map_or(Value::Unknown, Value::Int));
            }
            Operand::Value(_) => None,
        };
        match place {
            Some(p) if reference => Operand::Value(Value::Place(p)),
            Some(p) => Operand::Place(p),
            None => Operand::Value(Value::Unknown),
        }
    }

    fn field(&mut self, base: Operand, member: &str) -> Operand {
        let place = match base {
            Operand::Place(p) | Operand::Value(Value::Place(p)) => p,
            Operand::Value(Value::Pointer(p)) => Place::at(&p),
            Operand::Value(Value::Struct(fields)) => {
                let v = fields
                    .into_iter()
                    .find(|(n, _)| n == member)
                    .map_or(Value::Unknown, |(_, v)| v);
                return Operand::Value(v);
            }
            Operand::Value(Value::Vector(components)) => {
                let i = ["x", "y", "z", "w"].iter().position(|c| *c == member);
                return Operand::Value(
                    i.and_then(|i| components.get(i).cloned())
                        .map_or(Value::Unknown, Value::Int),
                );
            }
            Operand::Value(Value::Tuple(parts)) => {
                let v = member.parse::<usize>().ok().and_then(|i| parts.get(i).cloned());
                return Operand::Value(v.unwrap_or(Value::Unknown));
            }
            Operand::Value(_) => return Operand::Value(Value::Unknown),
        };
        let Some(layout) = place.layout.clone() else {
            return Operand::Place(Place { layout: None, ..place });
        };
        let Some(field) = layout.field(member) else {
            return Operand::Value(Value::Unknown);
        };
        let field_of = FieldOf {
            type_name: layout.name.clone(),
            field: member.to_string(),
            size: layout.size,
        };
        Operand::Place(Place {
            offset: place.offset.add(&Poly::constant(field.offset as i64)),
            layout: Some(field.layout.clone()),
            field_of: Some(match place.field_of {
                Some(outer) => FieldOf {
                    field: format!("{}.{member}", outer.field),
                    ..outer
                },
                None => field_of,
            }),
            ..place
        })
    }

    fn method_call(&mut self, call: &syn::ExprMethodCall) -> Operand {
        let method = call.method.to_string();
        let arg = call.args.first();
        match (method.as_str(), arg) {
            ("get_unchecked" | "get_unchecked_mut" | "get" | "get_mut", Some(index)) => {
                return self.index(&call.receiver, index, true);
            }
            ("write" | "write_volatile" | "write_unaligned", Some(value)) => {
                self.value(value);
                let span = self.span(call);
                match self.operand(&call.receiver) {
                    Operand::Place(p) | Operand::Value(Value::Place(p)) => self.access(&p, Op::Store, span),
                    Operand::Value(Value::Pointer(p)) => self.access(&Place::at(&p), Op::Store, span),
                    Operand::Value(_) => {}
                }
                return Operand::Value(Value::Unknown);
            }
            (
                "assume_init" | "assume_init_read" | "assume_init_ref" | "read" | "read_volatile" | "read_unaligned",
                _,
            ) => {
                return match self.operand(&call.receiver) {
                    Operand::Place(p) | Operand::Value(Value::Place(p)) => Operand::Place(p),
                    Operand::Value(Value::Pointer(p)) => Operand::Place(Place::at(&p)),
                    Operand::Value(v) => Operand::Value(v),
                };
            }
            _ => {}
        }
        let receiver = match self.operand(&call.receiver) {
            Operand::Place(p) if matches!(method.as_str(), "as_ptr" | "as_mut_ptr") => {
                let elem = p
                    .layout
                    .as_ref()
                    .and_then(|l| l.fields.first())
                    .map(|f| f.layout.clone());
                return Operand::Value(Value::Pointer(Pointer {
                    array: p.array,
                    offset: p.offset,
                    elem,
                    space: p.space,
                    index: None,
                }));
            }
            Operand::Place(p) => self.load(&p, &call.receiver),
            Operand::Value(v) => v,
        };
        let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
        Operand::Value(self.apply_method(call, &method, receiver, args))
    }

    fn apply_method(&mut self, call: &syn::ExprMethodCall, method: &str, receiver: Value, args: Vec<Value>) -> Value {
        let first_int = |this: &mut Self, args: &[Value]| -> Option<Poly> {
            match args.first() {
                Some(Value::Int(p)) => Some(p.clone()),
                Some(_) => Some(this.opaque(this.text(&call.args[0]), true)),
                None => None,
            }
        };
        match (method, receiver) {
            ("add" | "offset" | "wrapping_add" | "wrapping_offset", Value::Pointer(mut p)) => {
                let Some(i) = first_int(self, &args) else {
                    return Value::Pointer(p);
                };
                let size = p.elem.as_ref().map_or(4, |l| l.size) as i64;
                p.offset = p.offset.add(&i.scale(size));
                p.index = Some((self.text(&call.args[0]), self.span(&call.args[0])));
                Value::Pointer(p)
            }
            ("sub" | "wrapping_sub", Value::Pointer(mut p)) => {
                let Some(i) = first_int(self, &args) else {
                    return Value::Pointer(p);
                };
                let size = p.elem.as_ref().map_or(4, |l| l.size) as i64;
                p.offset = p.offset.sub(&i.scale(size));
                Value::Pointer(p)
            }
            ("byte_add" | "byte_offset", Value::Pointer(mut p)) => {
                let Some(i) = first_int(self, &args) else {
                    return Value::Pointer(p);
                };
                p.offset = p.offset.add(&i);
                Value::Pointer(p)
            }
            ("cast", Value::Pointer(mut p)) => {
                let target = call
                    .turbofish
                    .as_ref()
                    .and_then(|t| t.args.first())
                    .and_then(|a| match a {
                        syn::GenericArgument::Type(t) => self.layouts.layout(t),
                        _ => None,
                    });
                p.elem = target;
                Value::Pointer(p)
            }
            ("len", Value::Pointer(p)) => Value::Int(Poly::atom(Atom::Len(p.array))),
            (
                "as_ptr" | "as_mut_ptr" | "unwrap" | "expect" | "clone" | "into" | "try_into" | "to_owned" | "as_ref"
                | "as_mut",
                v,
            ) => v,
            ("wrapping_add" | "saturating_add" | "checked_add", Value::Int(a)) => match first_int(self, &args) {
                Some(b) => Value::Int(a.add(&b)),
                None => Value::Unknown,
            },
            ("wrapping_sub" | "saturating_sub" | "checked_sub", Value::Int(a)) => match first_int(self, &args) {
                Some(b) => Value::Int(a.sub(&b)),
                None => Value::Unknown,
            },
            ("wrapping_mul" | "saturating_mul" | "checked_mul", Value::Int(a)) => match first_int(self, &args) {
                Some(b) => Value::Int(a.mul(&b)),
                None => Value::Unknown,
            },
            ("min" | "max", Value::Int(a)) => match first_int(self, &args) {
                Some(b) => Value::Int(Poly::op(
                    if method == "min" { OpKind::Min } else { OpKind::Max },
                    &a,
                    &b,
                )),
                None => Value::Unknown,
            },
            ("pow", Value::Int(a)) => match args.first().and_then(Value::as_int).and_then(Poly::as_constant) {
                Some(k @ 0..=8) => Value::Int((0..k).fold(Poly::constant(1), |acc, _| acc.mul(&a))),
                _ => Value::Int(self.opaque(self.text(call), a.is_lane_dependent())),
            },
            ("div_ceil", Value::Int(a)) => match first_int(self, &args) {
                Some(b) => Value::Int(Poly::op(OpKind::Div, &a.add(&b).sub(&Poly::constant(1)), &b)),
                None => Value::Unknown,
            },
            (_, Value::Int(a)) => {
                let lane = a.is_lane_dependent()
                    || args
                        .iter()
                        .any(|v| !matches!(v, Value::Int(p) if !p.is_lane_dependent()));
                Value::Int(self.opaque(self.text(call), lane))
            }
            _ => Value::Unknown,
        }
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
                _ => Value::Int(self.opaque(self.text(lit), false)),
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
                        p.elem = self.layouts.layout(&ptr.elem);
                        Value::Pointer(p)
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
            Expr::Match(m) => {
                self.value(&m.expr);
                for arm in &m.arms {
                    self.guards.push(Predicate::Unknown);
                    let before = self.scopes.clone();
                    self.value(&arm.body);
                    let after = std::mem::replace(&mut self.scopes, before.clone());
                    self.merge(&before, &after);
                    self.guards.pop();
                }
                Value::Unknown
            }
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
                self.returns.push(v);
                Value::Unknown
            }
            Expr::Break(b) => {
                if let Some(e) = &b.expr {
                    self.value(e);
                }
                Value::Unknown
            }
            Expr::Macro(m) => self.macro_call(&m.mac),
            Expr::Tuple(t) => Value::Tuple(t.elems.iter().map(|e| self.value(e)).collect()),
            Expr::Array(a) => {
                for e in &a.elems {
                    self.value(e);
                }
                Value::Unknown
            }
            Expr::Repeat(r) => {
                self.value(&r.expr);
                Value::Unknown
            }
            Expr::Struct(s) => {
                for f in &s.fields {
                    self.value(&f.expr);
                }
                Value::Unknown
            }
            Expr::Let(l) => {
                self.value(&l.expr);
                Value::Unknown
            }
            Expr::Range(r) => {
                for e in r.start.iter().chain(r.end.iter()) {
                    self.value(e);
                }
                Value::Unknown
            }
            Expr::Continue(_) | Expr::Verbatim(_) => Value::Unknown,
            other => {
                self.unsupported(other, format!("`{}` is not analyzed", self.text(other)));
                Value::Unknown
            }
        }
    }

    fn binary(&mut self, b: &syn::ExprBinary) -> Value {
        if is_compound_assign(&b.op) {
            return self.compound_assign(b);
        }
        match b.op {
            BinOp::And(_) | BinOp::Or(_) => {
                let l = self.condition(&b.left);
                let r = self.condition(&b.right);
                let (l, r) = (Box::new(l), Box::new(r));
                return Value::Bool(if matches!(b.op, BinOp::And(_)) {
                    Predicate::And(l, r)
                } else {
                    Predicate::Or(l, r)
                });
            }
            _ => {}
        }
        let l = self.int(&b.left);
        let r = self.int(&b.right);
        let cmp = |op| Value::Bool(Predicate::Cmp(op, l.clone(), r.clone()));
        match b.op {
            BinOp::Add(_) => Value::Int(l.add(&r)),
            BinOp::Sub(_) => Value::Int(l.sub(&r)),
            BinOp::Mul(_) => Value::Int(l.mul(&r)),
            BinOp::Div(_) => Value::Int(Poly::op(OpKind::Div, &l, &r)),
            BinOp::Rem(_) => Value::Int(Poly::op(OpKind::Rem, &l, &r)),
            BinOp::Shl(_) => Value::Int(Poly::op(OpKind::Shl, &l, &r)),
            BinOp::Shr(_) => Value::Int(Poly::op(OpKind::Shr, &l, &r)),
            BinOp::BitAnd(_) => Value::Int(Poly::op(OpKind::And, &l, &r)),
            BinOp::BitOr(_) => Value::Int(Poly::op(OpKind::Or, &l, &r)),
            BinOp::BitXor(_) => Value::Int(Poly::op(OpKind::Xor, &l, &r)),
            BinOp::Lt(_) => cmp(CmpOp::Lt),
            BinOp::Le(_) => cmp(CmpOp::Le),
            BinOp::Gt(_) => cmp(CmpOp::Gt),
            BinOp::Ge(_) => cmp(CmpOp::Ge),
            BinOp::Eq(_) => cmp(CmpOp::Eq),
            BinOp::Ne(_) => cmp(CmpOp::Ne),
            _ => Value::Unknown,
        }
    }

    /// `target op= value`: on a variable, new arithmetic; on a place, a load then a store.
    fn compound_assign(&mut self, b: &syn::ExprBinary) -> Value {
        if let Some(name) = local_name(&b.left) {
            if self.lookup(&name).is_some() {
                let current = self.int(&b.left);
                let rhs = self.int(&b.right);
                let kind = match b.op {
                    BinOp::AddAssign(_) => None,
                    BinOp::SubAssign(_) => Some(Poly::sub as fn(&Poly, &Poly) -> Poly),
                    BinOp::MulAssign(_) => Some(Poly::mul as fn(&Poly, &Poly) -> Poly),
                    _ => Some((|_: &Poly, _: &Poly| Poly::default()) as fn(&Poly, &Poly) -> Poly),
                };
                let new = match (b.op, kind) {
                    (BinOp::AddAssign(_), _) => current.add(&rhs),
                    (BinOp::DivAssign(_), _) => Poly::op(OpKind::Div, &current, &rhs),
                    (BinOp::RemAssign(_), _) => Poly::op(OpKind::Rem, &current, &rhs),
                    (BinOp::ShlAssign(_), _) => Poly::op(OpKind::Shl, &current, &rhs),
                    (BinOp::ShrAssign(_), _) => Poly::op(OpKind::Shr, &current, &rhs),
                    (BinOp::BitAndAssign(_), _) => Poly::op(OpKind::And, &current, &rhs),
                    (BinOp::BitOrAssign(_), _) => Poly::op(OpKind::Or, &current, &rhs),
                    (BinOp::BitXorAssign(_), _) => Poly::op(OpKind::Xor, &current, &rhs),
                    (_, Some(f)) => f(&current, &rhs),
                    (_, None) => current.add(&rhs),
                };
                self.assign(&name, Value::Int(new));
                return Value::Unknown;
            }
        }
        self.value(&b.right);
        let span = self.span(&b.left);
        let place = match self.operand(&b.left) {
            Operand::Place(p) | Operand::Value(Value::Place(p)) => p,
            Operand::Value(_) => return Value::Unknown,
        };
        self.access(&place, Op::Load, span);
        self.access(&place, Op::Store, span);
        Value::Unknown
    }

    /// `if` / `else if` / `else`: each branch under its guard; variables that differ after the
    /// branches become opaque. Returns whether each side diverges, the condition and the value.
    pub(crate) fn if_flow(&mut self, i: &syn::ExprIf) -> (Flow, Flow, Predicate, Value) {
        let cond = self.condition(&i.cond);
        let before = self.scopes.clone();
        self.guards.push(cond.clone());
        let (then_flow, then_value) = self.block(&i.then_branch);
        self.guards.pop();
        let after_then = std::mem::replace(&mut self.scopes, before.clone());
        let (else_flow, else_value) = match &i.else_branch {
            Some((_, else_expr)) => {
                self.guards.push(Predicate::Not(Box::new(cond.clone())));
                let outcome = match &**else_expr {
                    Expr::Block(b) => self.block(&b.block),
                    Expr::If(nested) => {
                        let (a, b, _, v) = self.if_flow(nested);
                        let both = if a == Flow::Diverges && b == Flow::Diverges {
                            Flow::Diverges
                        } else {
                            Flow::Falls
                        };
                        (both, v)
                    }
                    other => (Flow::Falls, self.value(other)),
                };
                self.guards.pop();
                outcome
            }
            None => (Flow::Falls, Value::Unknown),
        };
        let after_else = std::mem::replace(&mut self.scopes, before.clone());
        // A value set under a lane-dependent condition differs between lanes.
        self.guards.push(cond.clone());
        match (then_flow, else_flow) {
            (Flow::Diverges, _) => self.scopes = after_else,
            (_, Flow::Diverges) => self.scopes = after_then,
            _ => {
                self.merge(&before, &after_then);
                let merged_then = self.scopes.clone();
                self.merge(&merged_then, &after_else);
            }
        }
        self.guards.pop();
        let value = if then_value == else_value {
            then_value
        } else {
            match (&then_value, &else_value) {
                (Value::Int(a), Value::Int(b)) => {
                    let lane = a.is_lane_dependent() || b.is_lane_dependent();
                    Value::Int(self.opaque(self.text(i), lane))
                }
                _ => Value::Unknown,
            }
        };
        (then_flow, else_flow, cond, value)
    }

    fn for_loop(&mut self, f: &syn::ExprForLoop) {
        let (start, step, end) = self.range_of(&f.expr);
        self.scopes.push(Default::default());
        let mut guard = None;
        let name = match &*f.pat {
            syn::Pat::Ident(p) => Some(p.ident.to_string()),
            _ => None,
        };
        match (start, name) {
            (Some(start), Some(name)) => {
                let id = self.fresh_id();
                let index = start.add(&Poly::atom(Atom::Iter(id, name.clone())).mul(&step));
                // The body runs while the variable is inside the range: this bounds the iteration.
                guard = end.map(|(op, end)| Predicate::Cmp(op, index.clone(), end));
                self.define(name, Value::Int(index));
            }
            _ => {
                let value = Value::Int(self.opaque(self.text(&f.pat), false));
                self.bind_pattern(&f.pat, value);
            }
        }
        let pushed = guard.map(|g| self.guards.push(g)).is_some();
        self.loop_body(&f.body, None);
        if pushed {
            self.guards.pop();
        }
        self.scopes.pop();
    }

    /// Start, step and (for the first iteration) the condition of a range being iterated.
    fn range_of(&mut self, expr: &Expr) -> (Option<Poly>, Poly, Option<(CmpOp, Poly)>) {
        match expr {
            Expr::Paren(p) => self.range_of(&p.expr),
            Expr::Range(r) => {
                let start = r.start.as_ref().map_or(Poly::default(), |s| self.int(s));
                let guard = r.end.as_ref().map(|e| {
                    let end = self.int(e);
                    let op = if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                        CmpOp::Le
                    } else {
                        CmpOp::Lt
                    };
                    (op, end)
                });
                (Some(start), Poly::constant(1), guard)
            }
            Expr::MethodCall(m) if m.method == "step_by" => {
                let (start, _, guard) = self.range_of(&m.receiver);
                let step = m.args.first().map_or(Poly::constant(1), |s| self.int(s));
                (start, step, guard)
            }
            other => {
                self.value(other);
                (None, Poly::constant(1), None)
            }
        }
    }
}

fn local_name(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}
