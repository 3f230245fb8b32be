//! Statements: blocks and their scopes, `let` and its patterns, items inside bodies, and the
//! early returns that guard the rest of a block.

use super::{Interpreter, Value};
use crate::algebra::{Poly, Predicate};
use std::collections::BTreeMap;
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
        self.scopes.push(BTreeMap::new());
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
                if let Some(v) = self.scope().const_value(&c.expr) {
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
                        if let Some(layout) = self.scope().layout(&ptr.elem) {
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
}

/// Names bound by a pattern.
#[derive(Default)]
struct BindingNames(Vec<String>);

impl<'ast> Visit<'ast> for BindingNames {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.push(p.ident.to_string());
    }
}
