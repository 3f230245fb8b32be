//! Statements: blocks and their scopes, `let` and its patterns, items inside bodies, and the
//! early returns that guard the rest of a block.

use super::value::{DYNAMIC_SHARED, SHARED_ARRAY};
use super::{Interpreter, Value};
use crate::algebra::{Atom, Poly, Predicate};
use std::collections::BTreeMap;
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
        // A statement the `#[cfg]`s leave out is not there: the one before it may be the tail.
        let compiled: Vec<&Stmt> = (block.stmts.iter())
            .filter(|stmt| {
                let attrs = crate::model::items::stmt_attrs(stmt);
                self.sources.index.cfg_active_on(self.module, attrs, self.target)
            })
            .collect();
        for (i, stmt) in compiled.iter().enumerate() {
            let last = i + 1 == compiled.len();
            if self.bind_called_closure(stmt, &compiled[i + 1..]) {
                continue;
            }
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
        crate::budget::tick();
        let tried = std::mem::take(&mut self.tried);
        let walked = self.walk_stmt(stmt, last);
        // The `?` of this statement guard what follows it in the block.
        let gave = std::mem::replace(&mut self.tried, tried);
        self.guards.extend(gave);
        walked
    }

    fn walk_stmt(&mut self, stmt: &Stmt, last: bool) -> (Flow, Value) {
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
                let diverges = match expr {
                    Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
                    Expr::Macro(m) => self.cube.is_some() && super::cubecl::is_terminate(&m.mac),
                    _ => false,
                };
                let flow = if diverges { Flow::Diverges } else { Flow::Falls };
                (flow, if semi.is_none() && last { value } else { Value::Unknown })
            }
            Stmt::Macro(m) => {
                self.macro_call(&m.mac);
                let diverges = self.cube.is_some() && super::cubecl::is_terminate(&m.mac);
                (if diverges { Flow::Diverges } else { Flow::Falls }, Value::Unknown)
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
        let value = match (value, &local.pat, &local.init) {
            // `let tile = shared_array![..]`: the array is known by the variable's name.
            (Value::Pointer(mut p), Pat::Ident(ident), _) if p.array == SHARED_ARRAY || p.array == DYNAMIC_SHARED => {
                p.array = ident.ident.to_string();
                Value::Pointer(p)
            }
            (value, pat, Some(init)) => match plain_name(pat) {
                Some(name) => named_after(value, &name, &init.expr),
                None => value,
            },
            (value, _, None) => value,
        };
        // A pointee whose type the index cannot lay out (a struct a dependency's macro
        // defines, a re-export it does not follow): laid out by the Rust semantics.
        let value = match value {
            Value::Pointer(mut pointer) if pointer.elem.is_none() => {
                pointer.elem = self.semantic_pointee(&local.pat);
                Value::Pointer(pointer)
            }
            Value::Place(mut place) if place.layout.is_none() => {
                place.layout = self.semantic_pointee(&local.pat);
                Value::Place(place)
            }
            other => other,
        };
        self.bind_pattern(&local.pat, value);
    }
}

/// The variable a `let` pattern names, when it is one name (typed or not).
fn plain_name(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(ident) if ident.subpat.is_none() => Some(ident.ident.to_string()),
        Pat::Type(typed) => plain_name(&typed.pat),
        _ => None,
    }
}

/// A value read straight into a variable (`let first = header[b] as usize`) is named after the
/// variable, so that conditions on it read `first % 8 == 0`.
fn named_after(value: Value, name: &str, init: &Expr) -> Value {
    let mut inner = init;
    loop {
        inner = match inner {
            Expr::Cast(c) => &c.expr,
            Expr::Paren(p) => &p.expr,
            Expr::Group(g) => &g.expr,
            // A copy of another variable keeps that variable's atom.
            Expr::Path(_) => return value,
            _ => break,
        };
    }
    let renamed = value.as_int().and_then(|p| {
        let mut terms = p.terms();
        match (terms.next(), terms.next()) {
            (Some((monomial, 1)), None) => match monomial.as_slice() {
                [Atom::Load { id, array, lane, .. }] => Some(Poly::atom(Atom::Load {
                    id: *id,
                    array: array.clone(),
                    lane: *lane,
                    text: name.to_string(),
                })),
                _ => None,
            },
            _ => None,
        }
    });
    renamed.map_or(value, Value::Int)
}
