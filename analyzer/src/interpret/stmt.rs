//! Statements and control flow: blocks, `let`, assignment, `if` guards and early returns,
//! `for`, grid-stride `while` and `loop`.

use super::{Interpreter, Value};
use crate::algebra::{Atom, Poly, Predicate};
use std::collections::HashMap;
use syn::visit::Visit;
use syn::{Block, Expr, Local, Pat, Stmt};

/// Whether control reaches the end of a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// It does.
    Falls,
    /// It leaves through `return`, `break` or `continue`.
    Diverges,
}

impl<'a> Interpreter<'a> {
    /// Walks a block in a scope of its own; returns the value of its tail expression.
    pub(crate) fn block(&mut self, block: &Block) -> (Flow, Value) {
        self.scopes.push(HashMap::new());
        let guards_before = self.guards.len();
        let mut result = (Flow::Falls, Value::Unknown);
        for (i, stmt) in block.stmts.iter().enumerate() {
            let last = i + 1 == block.stmts.len();
            match self.stmt(stmt, last) {
                (Flow::Diverges, _) => {
                    result = (Flow::Diverges, Value::Unknown);
                    break;
                }
                (Flow::Falls, value) if last => result = (Flow::Falls, value),
                _ => {}
            }
        }
        self.guards.truncate(guards_before);
        self.scopes.pop();
        result
    }

    fn stmt(&mut self, stmt: &Stmt, last: bool) -> (Flow, Value) {
        match stmt {
            Stmt::Local(local) => {
                self.local(local);
                (Flow::Falls, Value::Unknown)
            }
            Stmt::Item(syn::Item::Static(s)) => {
                self.declare_static(s);
                (Flow::Falls, Value::Unknown)
            }
            Stmt::Item(syn::Item::Const(c)) => {
                if let Some(v) = self.layouts.const_value(&c.expr) {
                    self.define(c.ident.to_string(), Value::Int(Poly::constant(v)));
                }
                (Flow::Falls, Value::Unknown)
            }
            Stmt::Item(_) => (Flow::Falls, Value::Unknown),
            Stmt::Expr(expr, semi) => {
                if let Expr::If(if_expr) = expr {
                    // `if cond { return; }`: the rest of the block runs where `cond` is false
                    // (and the other way round for a diverging `else`).
                    let (then_flow, else_flow, cond, value) = self.if_flow(if_expr);
                    match (then_flow, else_flow) {
                        (Flow::Diverges, Flow::Diverges) => return (Flow::Diverges, Value::Unknown),
                        (Flow::Diverges, Flow::Falls) => self.guards.push(Predicate::Not(Box::new(cond))),
                        (Flow::Falls, Flow::Diverges) => self.guards.push(cond),
                        (Flow::Falls, Flow::Falls) => {}
                    }
                    return (Flow::Falls, if semi.is_none() && last { value } else { Value::Unknown });
                }
                let value = self.value(expr);
                let diverges = matches!(expr, Expr::Return(_) | Expr::Break(_) | Expr::Continue(_));
                let flow = if diverges { Flow::Diverges } else { Flow::Falls };
                (flow, if semi.is_none() && last { value } else { Value::Unknown })
            }
            Stmt::Macro(m) => {
                self.macro_call(&m.mac);
                (Flow::Falls, Value::Unknown)
            }
        }
    }

    /// Variables that differ between `before` and `after` become opaque.
    pub(crate) fn merge(&mut self, before: &[HashMap<String, Value>], after: &[HashMap<String, Value>]) {
        for (depth, scope) in before.iter().enumerate() {
            for (name, old) in scope {
                let Some(new) = after.get(depth).and_then(|s| s.get(name)) else {
                    continue;
                };
                if new != old {
                    let merged = self.merge_values(name, old, new);
                    self.scopes[depth].insert(name.clone(), merged);
                }
            }
        }
    }

    fn merge_values(&mut self, name: &str, old: &Value, new: &Value) -> Value {
        match (old, new) {
            (Value::Int(a), Value::Int(b)) => {
                let lane =
                    a.is_lane_dependent() || b.is_lane_dependent() || self.guards.iter().any(|g| g.is_lane_dependent());
                Value::Int(self.opaque(format!("{name} (set on some paths)"), lane))
            }
            _ => Value::Unknown,
        }
    }

    fn local(&mut self, local: &Local) {
        let value = match &local.init {
            Some(init) => {
                let v = self.value(&init.expr);
                if let Some((_, diverge)) = &init.diverge {
                    self.value(diverge);
                }
                v
            }
            None => Value::Unknown,
        };
        // `let tile = shared_array![..]`: the array is known by the variable's name.
        let value = match (value, &local.pat) {
            (Value::Pointer(mut p), Pat::Ident(ident)) if p.array.starts_with('<') => {
                p.array = ident.ident.to_string();
                Value::Pointer(p)
            }
            (value, _) => value,
        };
        self.bind_pattern(&local.pat, value);
    }

    pub(crate) fn bind_pattern(&mut self, pat: &Pat, value: Value) {
        match pat {
            Pat::Ident(ident) => self.define(ident.ident.to_string(), value),
            Pat::Type(typed) => {
                // A typed `let` to a pointer type casts the pointer.
                let value = match (&value, &*typed.ty) {
                    (Value::Pointer(p), syn::Type::Ptr(ptr)) => {
                        let mut p = p.clone();
                        if let Some(layout) = self.layouts.layout(&ptr.elem) {
                            p.elem = Some(layout);
                        }
                        Value::Pointer(p)
                    }
                    _ => value,
                };
                self.bind_pattern(&typed.pat, value)
            }
            Pat::Tuple(tuple) => {
                let parts = match value {
                    Value::Tuple(parts) if parts.len() == tuple.elems.len() => parts,
                    _ => vec![Value::Unknown; tuple.elems.len()],
                };
                for (p, v) in tuple.elems.iter().zip(parts) {
                    self.bind_pattern(p, v);
                }
            }
            Pat::Paren(p) => self.bind_pattern(&p.pat, value),
            Pat::Wild(_) => {}
            other => {
                let mut names = BindingNames::default();
                names.visit_pat(other);
                for name in names.0 {
                    self.define(name, Value::Unknown);
                }
            }
        }
    }

    /// Walks a loop body once. Variables the body changes take, inside it, the value they have
    /// at iteration `n`: `x0 + n * step` for `x += step` with a warp-uniform step (the
    /// grid-stride idiom), an opaque value otherwise.
    pub(crate) fn loop_body(&mut self, body: &Block, condition: Option<&Expr>) {
        let mut assigned = AssignedVariables::default();
        assigned.visit_block(body);
        for (name, steps) in assigned.by_name {
            let Some(Value::Int(start)) = self.lookup(&name).cloned() else {
                continue;
            };
            let step = match steps.as_slice() {
                [Some(step)] => self.dry_run(step).as_int().cloned().filter(|s| !s.is_lane_dependent()),
                _ => None,
            };
            let value = match step {
                Some(step) => {
                    let id = self.fresh_id();
                    start.add(&Poly::atom(Atom::Iter(id, format!("{name}_step"))).mul(&step))
                }
                None => self.opaque(format!("{name} (changed by the loop)"), start.is_lane_dependent()),
            };
            self.assign(&name, Value::Int(value));
        }
        let guard = condition.map(|c| self.condition(c));
        let pushed = guard.map(|g| self.guards.push(g)).is_some();
        let before = self.scopes.clone();
        self.block(body);
        let after = std::mem::replace(&mut self.scopes, before.clone());
        self.merge(&before, &after);
        if pushed {
            self.guards.pop();
        }
    }
}

impl Interpreter<'_> {
    /// Evaluates an expression for its value only: accesses and notes it would record are
    /// dropped (the loop body records them when it is walked).
    fn dry_run(&mut self, expr: &Expr) -> Value {
        let (accesses, unsupported) = (self.body.accesses.len(), self.body.unsupported.len());
        let value = self.value(expr);
        self.body.accesses.truncate(accesses);
        self.body.unsupported.truncate(unsupported);
        value
    }
}

/// Names bound by a pattern.
#[derive(Default)]
struct BindingNames(Vec<String>);

impl<'ast> Visit<'ast> for BindingNames {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.push(p.ident.to_string());
    }
}

/// Variables assigned in a loop body, with the step of each `x += step`.
#[derive(Default)]
struct AssignedVariables {
    by_name: Vec<(String, Vec<Option<Expr>>)>,
}

impl AssignedVariables {
    fn record(&mut self, target: &Expr, step: Option<Expr>) {
        let Expr::Path(p) = target else { return };
        let Some(ident) = p.path.get_ident() else { return };
        let name = ident.to_string();
        match self.by_name.iter_mut().find(|(n, _)| *n == name) {
            Some((_, steps)) => steps.push(step),
            None => self.by_name.push((name, vec![step])),
        }
    }
}

impl<'ast> Visit<'ast> for AssignedVariables {
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        // `x = x + step` is the same as `x += step`.
        let step = match &*e.right {
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Add(_)) && same_path(&b.left, &e.left) => {
                Some((*b.right).clone())
            }
            _ => None,
        };
        self.record(&e.left, step);
        syn::visit::visit_expr_assign(self, e);
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        match e.op {
            syn::BinOp::AddAssign(_) => self.record(&e.left, Some((*e.right).clone())),
            op if is_compound_assign(&op) => self.record(&e.left, None),
            _ => {}
        }
        syn::visit::visit_expr_binary(self, e);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

fn same_path(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Path(a), Expr::Path(b)) => a.path == b.path,
        _ => false,
    }
}

/// Whether the operator is `op=`.
pub(crate) fn is_compound_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}
