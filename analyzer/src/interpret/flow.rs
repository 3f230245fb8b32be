//! Control flow: `if` branches under their guards, `for` ranges, loops and grid-stride steps,
//! and the merge of variables that differ between paths.

use super::arith::is_compound_assign;
use super::stmt::Flow;
use super::value::Operand;
use super::{Bindings, Interpreter, Value};
use crate::algebra::{Atom, CmpOp, Poly, Predicate};
use syn::visit::Visit;
use syn::{Block, Expr};

impl Interpreter<'_> {
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

    /// `match`: each arm under a guard the analysis cannot read; variables set in an arm merge.
    pub(crate) fn match_arms(&mut self, m: &syn::ExprMatch) {
        self.value(&m.expr);
        for arm in &m.arms {
            self.guards.push(Predicate::Unknown);
            let before = self.scopes.clone();
            self.value(&arm.body);
            let after = std::mem::replace(&mut self.scopes, before.clone());
            self.merge(&before, &after);
            self.guards.pop();
        }
    }

    /// `for x in a..b` (or `.step_by(s)`): the variable is `a + n*s` in iteration `n`, bounded
    /// by the range; other iterators give an opaque uniform variable.
    pub(crate) fn for_loop(&mut self, f: &syn::ExprForLoop) {
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

    /// Variables that differ between `before` and `after` become opaque.
    pub(crate) fn merge(&mut self, before: &[Bindings], after: &[Bindings]) {
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

    /// One variable set differently on two paths: an opaque value, lane-dependent when either
    /// side or the condition that chose between them is.
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

    /// Evaluates an expression for its value only: accesses and notes it would record are
    /// dropped (the loop body records them when it is walked).
    fn dry_run(&mut self, expr: &Expr) -> Value {
        let (accesses, unsupported) = (self.body.accesses.len(), self.body.unsupported.len());
        let value = self.value(expr);
        self.body.accesses.truncate(accesses);
        self.body.unsupported.truncate(unsupported);
        value
    }

    /// What an expression denotes (a place is not read), with nothing it would record kept.
    pub(crate) fn dry_operand(&mut self, expr: &Expr) -> Value {
        let (accesses, unsupported) = (self.body.accesses.len(), self.body.unsupported.len());
        let value = match self.operand(expr) {
            Operand::Place(place) => Value::Place(place),
            Operand::Value(value) => value,
        };
        self.body.accesses.truncate(accesses);
        self.body.unsupported.truncate(unsupported);
        value
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
