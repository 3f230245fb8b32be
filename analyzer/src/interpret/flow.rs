//! Control flow: `if` branches under their guards, `for` ranges, loops and grid-stride steps,
//! and the merge of variables that differ between paths.

use super::arith::is_compound_assign;
use super::iterate::{counter, Seq};
use super::stmt::Flow;
use super::value::{why, Operand};
use super::{Bindings, BreakExit, Interpreter, LaneExits, Pointer, SavedLoop, Value};
use crate::algebra::{Atom, CmpOp, OpKind, Poly, Predicate, CANNOT_FOLLOW, READ_FROM_MEMORY};
use std::collections::BTreeSet;
use syn::visit::Visit;
use syn::{Block, Expr, Pat};

impl Interpreter<'_> {
    /// `if` / `else if` / `else`: each branch under its guard; variables that differ after the
    /// branches become opaque. Returns whether each side diverges, the condition and the value.
    pub(crate) fn if_flow(&mut self, i: &syn::ExprIf) -> (Flow, Flow, Predicate, Value) {
        let (cond, bindings) = self.condition_with_bindings(&i.cond);
        let before = self.scopes.clone();
        self.guards.push(cond.clone());
        self.scopes.push(bindings);
        let (then_flow, then_value) = self.block(&i.then_branch);
        self.scopes.pop();
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
            _ => self.merge_branches(&cond, &before, &after_then, &after_else),
        }
        self.guards.pop();
        let text = self.text(i);
        let value = self.chosen_value(&cond, &text, &then_value, &else_value);
        (then_flow, else_flow, cond, value)
    }

    /// The value of `if cond { a } else { b }`; tuples side by side, element by element
    /// (`if ok { (Some(p), Some(q)) } else { (None, None) }`).
    fn chosen_value(&mut self, cond: &Predicate, text: &str, a: &Value, b: &Value) -> Value {
        if a == b {
            return a.clone();
        }
        match (a, b) {
            // `if out_of_range { None } else { Some(&mut *p.add(i)) }`: what goes through
            // the option is the present side.
            (Value::Absent, present) | (present, Value::Absent) => present.clone(),
            (Value::Int(x), Value::Int(y)) => match select(cond, x, y) {
                Some(chosen) => Value::Int(chosen),
                None => {
                    let lane = x.is_lane_dependent() || y.is_lane_dependent() || cond.is_lane_dependent();
                    Value::Int(self.derived(text.to_string(), lane, &[a, b]))
                }
            },
            (Value::Pointer(x), Value::Pointer(y)) => {
                let lane = cond.is_lane_dependent();
                self.either_buffer(text.to_string(), x, y, Some(cond), lane)
            }
            (Value::Tuple(xs), Value::Tuple(ys)) if xs.len() == ys.len() => Value::Tuple(
                xs.iter()
                    .zip(ys)
                    .map(|(x, y)| self.chosen_value(cond, text, x, y))
                    .collect(),
            ),
            _ => Value::Unknown,
        }
    }

    /// A condition, with the names its `let`s bind (in a scope of their own, for the branch
    /// or loop body it guards only).
    fn condition_with_bindings(&mut self, cond: &Expr) -> (Predicate, Bindings) {
        self.scopes.push(Bindings::new());
        let predicate = self.condition(cond);
        let bindings = self.scopes.pop().unwrap_or_default();
        (predicate, bindings)
    }

    /// `match`: each arm with its pattern bound, under a guard the analysis cannot read (one
    /// that differs between lanes when the scrutinee does); variables set in an arm merge.
    /// Its value is the arms' value when they agree.
    pub(crate) fn match_arms(&mut self, m: &syn::ExprMatch) -> Value {
        let scrutinee = self.value(&m.expr);
        let lane = scrutinee.is_lane_dependent();
        let mut outcomes = Vec::new();
        // The arms before this one, as conditions on an integer scrutinee, while each is one
        // the analysis can state (literals and ranges, no `if` guard): a later arm runs where
        // none of them matched.
        let mut earlier: Option<Vec<Predicate>> = Some(Vec::new());
        for arm in &m.arms {
            let text = self.text(&arm.pat);
            let literal = match &scrutinee {
                Value::Int(value) => literal_condition(&arm.pat, value),
                _ => None,
            };
            let unmatched = earlier.as_ref().map(|before| {
                before.iter().fold(None, |all: Option<Predicate>, p| {
                    let not = Predicate::Not(Box::new(p.clone()));
                    Some(match all {
                        Some(all) => Predicate::And(Box::new(all), Box::new(not)),
                        None => not,
                    })
                })
            });
            let matched = match (literal.clone(), unmatched) {
                (Some(this), Some(Some(rest))) => Predicate::And(Box::new(rest), Box::new(this)),
                (Some(this), Some(None)) => this,
                // A catch-all after stated arms: where none of them matched.
                (None, Some(Some(rest))) if is_catch_all(&arm.pat) => rest,
                _ => self.unknown_condition(text, lane),
            };
            match (&mut earlier, literal) {
                (Some(before), Some(this)) if arm.guard.is_none() => before.push(this),
                _ => earlier = None,
            }
            self.guards.push(matched);
            let before = self.scopes.clone();
            self.scopes.push(Bindings::new());
            self.bind_pattern(&arm.pat, scrutinee.clone());
            let guarded = arm.guard.as_ref().map(|(_, g)| {
                let g = self.condition(g);
                self.guards.push(g);
            });
            let (flow, value) = self.arm_body(&arm.body);
            if guarded.is_some() {
                self.guards.pop();
            }
            self.scopes.pop();
            let after = std::mem::replace(&mut self.scopes, before.clone());
            self.merge(&before, &after);
            self.guards.pop();
            if flow == Flow::Falls {
                outcomes.push(value);
            }
        }
        match outcomes.as_slice() {
            [first, rest @ ..] if rest.iter().all(|v| v == first) => first.clone(),
            values if values.iter().all(|v| matches!(v, Value::Int(_))) => {
                let lane = lane || values.iter().any(Value::is_lane_dependent);
                let inputs: Vec<&Value> = values.iter().collect();
                Value::Int(self.derived(self.text(m), lane, &inputs))
            }
            _ => Value::Unknown,
        }
    }

    /// The body of a `match` arm: whether it falls through, and its value.
    fn arm_body(&mut self, body: &Expr) -> (Flow, Value) {
        match body {
            Expr::Block(b) => self.block(&b.block),
            Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => {
                self.value(body);
                (Flow::Diverges, Value::Unknown)
            }
            other => (Flow::Falls, self.value(other)),
        }
    }

    /// A closure, walked where it is written: its parameters may be anything, its body runs
    /// when (and as often as) it is called, and the variables it changes may differ between
    /// lanes afterwards. The closure itself is not a value the analysis tracks.
    pub(crate) fn closure(&mut self, c: &syn::ExprClosure) -> Value {
        let before = self.scopes.clone();
        self.scopes.push(Bindings::new());
        for input in &c.inputs {
            self.bind_opaque(input, true, why::CLOSURE_PARAMETER);
        }
        self.guards.push(Predicate::Unknown);
        let saved = self.enter_loop();
        // A `return` inside leaves the closure, not the function around it.
        let returns = std::mem::take(&mut self.returns);
        self.value(&c.body);
        self.returns = returns;
        self.leave_loop(saved);
        self.guards.pop();
        self.scopes.pop();
        let after = std::mem::replace(&mut self.scopes, before.clone());
        let called = self.unknown_condition(format!("`{}` is called", self.text(c)), true);
        self.guards.push(called);
        self.merge(&before, &after);
        self.guards.pop();
        Value::Unknown
    }

    /// `for pattern in iterator`: the pattern binds the item of iteration `n` (see
    /// [`Seq`]), the body runs while the iterator's condition on `n` holds.
    pub(crate) fn for_loop(&mut self, f: &syn::ExprForLoop) {
        let seq = self.sequence(&f.expr);
        self.scopes.push(Default::default());
        let name = match &*f.pat {
            syn::Pat::Ident(p) => p.ident.to_string(),
            syn::Pat::Wild(_) => "_".to_string(),
            other => self.text(other),
        };
        let id = self.fresh_id();
        let n = counter(id, name);
        // The body runs while the variable is inside the range: this bounds the iteration.
        let guard = seq.guard(&n);
        let pushed = guard.map(|g| self.guards.push(g)).is_some();
        match &seq {
            Seq::Items { lane } => self.bind_opaque(&f.pat, *lane, why::ITEM),
            _ => {
                // An element copied out is read in every iteration.
                self.loop_depth += 1;
                let item = self.item(&seq, &n, &f.expr);
                self.loop_depth -= 1;
                self.bind_pattern(&f.pat, item);
            }
        }
        self.loop_body(&f.body, None);
        if pushed {
            self.guards.pop();
        }
        self.scopes.pop();
    }

    /// Marks the start of a loop body (or a closure body): `break` and `continue` from here on
    /// leave it. Returns what to restore.
    pub(crate) fn enter_loop(&mut self) -> SavedLoop {
        let saved = SavedLoop {
            guards: self.loop_guards,
            exits: self.lane_exits,
            breaks: std::mem::take(&mut self.break_scopes),
        };
        self.loop_guards = self.guards.len();
        self.lane_exits = LaneExits::default();
        saved
    }

    /// Restores the loop state saved by [`Self::enter_loop`]; returns where lanes parted ways
    /// in the body, and the variables as each `break` left them.
    pub(crate) fn leave_loop(&mut self, saved: SavedLoop) -> (LaneExits, Vec<BreakExit>) {
        self.loop_guards = saved.guards;
        let breaks = std::mem::replace(&mut self.break_scopes, saved.breaks);
        (std::mem::replace(&mut self.lane_exits, saved.exits), breaks)
    }

    /// Walks a loop body. Variables the body changes take, inside it, the value they have at
    /// iteration `n`: `x0 + n * step` for `x += step` with a warp-uniform step (the
    /// grid-stride idiom), an opaque value otherwise. When one of them can come out of an
    /// iteration differing between lanes (set under a lane-dependent condition, changed after
    /// a lane-dependent `continue`, or accumulating loaded data) though it went in the same,
    /// the body is walked again with that variable differing between lanes from the first
    /// iteration; a counter stepped the same way in every lane keeps its count. Lanes that
    /// leave the loop early (a lane-dependent condition or `break`) do not make the others
    /// differ inside it, only after it.
    pub(crate) fn loop_body(&mut self, body: &Block, condition: Option<&Expr>) {
        self.loop_depth += 1;
        self.walk_loop_body(body, condition);
        self.loop_depth -= 1;
    }

    fn walk_loop_body(&mut self, body: &Block, condition: Option<&Expr>) {
        let mut assigned = AssignedVariables::default();
        assigned.visit_block(body);
        let every: BTreeSet<String> = assigned.by_name.iter().map(|(n, _)| n.clone()).collect();
        let mark = (
            self.scopes.clone(),
            self.body.accesses.len(),
            self.body.unsupported.len(),
            self.returns.len(),
        );
        let mut varying = BTreeSet::new();
        let mut from_memory = BTreeSet::new();
        loop {
            crate::budget::tick();
            self.loop_walks += 1;
            let last = self.loop_walks > super::MAX_LOOP_WALKS;
            if last {
                varying.clone_from(&every);
            }
            let (leaked, loaded) = self.walk_loop(body, condition, &assigned.by_name, &varying, &from_memory);
            let settled = leaked.is_subset(&varying) && loaded.is_subset(&from_memory);
            if settled || last || (varying == every && from_memory == every) {
                return;
            }
            let (scopes, accesses, unsupported, returns) = mark.clone();
            self.scopes = scopes;
            self.body.accesses.truncate(accesses);
            self.body.unsupported.truncate(unsupported);
            self.returns.truncate(returns);
            varying.extend(leaked);
            from_memory.extend(loaded);
        }
    }

    /// One walk of a loop body with the variables in `varying` differing between lanes from
    /// the first iteration, and those in `from_memory` set from memory read at per-lane
    /// addresses; returns the changed variables that went in the same for every lane and came
    /// out differing, and those that came out read from memory per lane.
    fn walk_loop(
        &mut self,
        body: &Block,
        condition: Option<&Expr>,
        assigned: &[(String, Vec<Option<Update>>)],
        varying: &BTreeSet<String>,
        from_memory: &BTreeSet<String>,
    ) -> (BTreeSet<String>, BTreeSet<String>) {
        let mut uniform_inside = Vec::new();
        // The opaque value each variable enters the body with, by atom id, and where this
        // walk's accesses start: a variable set from memory matters only where an address
        // uses it.
        let mut entered: Vec<(u32, &String)> = Vec::new();
        let first_access = self.body.accesses.len();
        for (name, steps) in assigned {
            let Some(Value::Int(start)) = self.lookup(name).cloned() else {
                continue;
            };
            let lane_varying = varying.contains(name);
            let step = match steps.as_slice() {
                [Some(update)] if !lane_varying => self
                    .dry_run(&update.by)
                    .as_int()
                    .cloned()
                    .filter(|s| !s.is_lane_dependent())
                    .map(|by| (update.kind, by)),
                _ => None,
            };
            let value = match step {
                Some((kind, by)) => {
                    let id = self.fresh_id();
                    let n = Poly::atom(Atom::Iter(id, format!("{name}_step"))).mul(&by);
                    match kind {
                        Step::Add => start.add(&n),
                        Step::Halve => Poly::op(OpKind::Shr, &start, &n),
                        Step::Double => Poly::op(OpKind::Shl, &start, &n),
                    }
                }
                None => {
                    // A variable the loop sets from memory, or that starts from it, differs
                    // between lanes as the data does.
                    let loaded = from_memory.contains(name) || start.is_loaded_per_lane();
                    let id = self.fresh_id();
                    entered.push((id, name));
                    let text = format!("{name} (changed by the loop)");
                    if loaded {
                        Poly::opaque_because(id, text, true, READ_FROM_MEMORY)
                    } else {
                        Poly::opaque(id, text, lane_varying || start.is_lane_dependent())
                    }
                }
            };
            if !value.is_lane_dependent() {
                uniform_inside.push(name.clone());
            }
            self.assign(name, Value::Int(value));
        }
        let (guard, bindings) = match condition {
            Some(c) => {
                let (guard, bindings) = self.condition_with_bindings(c);
                (Some(guard), bindings)
            }
            None => (None, Bindings::new()),
        };
        let pushed = guard.map(|g| self.guards.push(g)).is_some();
        let before = self.scopes.clone();
        let saved = self.enter_loop();
        self.scopes.push(bindings);
        self.block(body);
        self.scopes.pop();
        let (exits, breaks) = self.leave_loop(saved);
        let after = std::mem::replace(&mut self.scopes, before.clone());
        let leaked = uniform_inside
            .into_iter()
            .filter(|name| {
                let (old, new) = (lookup_in(&before, name), lookup_in(&after, name));
                new.is_some_and(Value::is_lane_dependent) || (exits.continues && old != new)
            })
            .collect();
        let mut addressed = BTreeSet::new();
        for access in &self.body.accesses[first_access.min(self.body.accesses.len())..] {
            access.address.visit_atoms(&mut |a| {
                if let Atom::Opaque { id, .. } = a {
                    if let Some((_, name)) = entered.iter().find(|(e, _)| e == id) {
                        addressed.insert((*name).clone());
                    }
                }
            });
        }
        let loaded = addressed
            .into_iter()
            .filter(|name| !from_memory.contains(name))
            .filter(|name| matches!(lookup_in(&after, name), Some(Value::Int(p)) if p.is_loaded_per_lane()))
            .collect();
        // After the loop, a variable it changes differs between lanes that left it after
        // different iterations.
        let parted = exits.breaks || exits.continues;
        if parted {
            let exit = self.unknown_condition("the loop exits".into(), true);
            self.guards.push(exit);
        }
        self.merge(&before, &after);
        // A `break` hands on the variables as it left them: set before it on that path
        // (`level = j; break;`), they merge in too.
        for (left, taken_under) in breaks {
            let depth = self.guards.len();
            self.guards.extend(taken_under);
            let current = self.scopes.clone();
            self.merge(&current, &left);
            self.guards.truncate(depth);
        }
        if parted {
            self.guards.pop();
        }
        if pushed {
            self.guards.pop();
        }
        (leaked, loaded)
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

    /// The variables after `if cond { .. } else { .. }` when both sides fall through: an
    /// integer set differently on the two sides is the value the condition selects, lane by
    /// lane; anything else set differently merges as on any two paths.
    fn merge_branches(&mut self, cond: &Predicate, before: &[Bindings], then: &[Bindings], otherwise: &[Bindings]) {
        for (depth, scope) in before.iter().enumerate() {
            for (name, old) in scope {
                let (Some(a), Some(b)) = (
                    then.get(depth).and_then(|s| s.get(name)),
                    otherwise.get(depth).and_then(|s| s.get(name)),
                ) else {
                    continue;
                };
                let merged = match (a, b) {
                    _ if a == b => a.clone(),
                    (Value::Int(x), Value::Int(y)) => match select(cond, x, y) {
                        Some(chosen) => Value::Int(chosen),
                        None => self.merge_values(name, old, a),
                    },
                    _ if a == old => self.merge_values(name, old, b),
                    _ => self.merge_values(name, old, a),
                };
                self.scopes[depth].insert(name.clone(), merged);
            }
        }
    }

    /// One variable set differently on two paths: an opaque value, lane-dependent when either
    /// side or the condition that chose between them is.
    fn merge_values(&mut self, name: &str, old: &Value, new: &Value) -> Value {
        let text = format!("{name} (set on some paths)");
        let guarded = self.guards.iter().any(|g| g.is_lane_dependent());
        // Chosen by data each lane read: the value is data too, and an index made from it a
        // gather.
        if self.guards.iter().any(Predicate::is_loaded_per_lane) && !matches!(old, Value::Pointer(_)) {
            let id = self.fresh_id();
            return Value::Int(Poly::opaque_because(id, text, true, READ_FROM_MEMORY));
        }
        match (old, new) {
            (Value::Pointer(a), Value::Pointer(b)) => self.either_buffer(text, a, b, None, guarded),
            (Value::Int(a), Value::Int(b)) => {
                let lane = a.is_lane_dependent() || b.is_lane_dependent() || guarded;
                Value::Int(self.derived(text, lane, &[old, new]))
            }
            // Read from memory per lane on either path: so is the merged value.
            _ if old.is_loaded_per_lane() || new.is_loaded_per_lane() => {
                Value::Int(self.derived(text, true, &[old, new]))
            }
            _ => Value::Unknown,
        }
    }

    /// One of two buffers (`if c { a } else { b }`): an access through it is one instruction
    /// whichever it is, so it is recorded once, on `a or b`. The offset is the one both share,
    /// else the one the condition selects; when lanes may pick differently, where each lane
    /// goes is not known.
    fn either_buffer(&mut self, text: String, a: &Pointer, b: &Pointer, cond: Option<&Predicate>, lane: bool) -> Value {
        if a.space != b.space {
            return Value::Unknown;
        }
        let array = if a.array == b.array {
            a.array.clone()
        } else {
            format!("({} or {})", a.array, b.array)
        };
        let offset = if lane && a.array != b.array {
            let id = self.fresh_id();
            Poly::opaque_because(
                id,
                format!("the buffer `{text}` picks for each lane"),
                true,
                CANNOT_FOLLOW,
            )
        } else if a.offset == b.offset {
            a.offset.clone()
        } else {
            match cond.and_then(|c| select(c, &a.offset, &b.offset)) {
                Some(chosen) => chosen,
                None => {
                    let inputs = [&Value::Int(a.offset.clone()), &Value::Int(b.offset.clone())];
                    let lane = lane || a.offset.is_lane_dependent() || b.offset.is_lane_dependent();
                    self.derived(text, lane, &inputs)
                }
            }
        };
        Value::Pointer(Pointer {
            array,
            offset,
            elem: if a.elem == b.elem { a.elem.clone() } else { None },
            space: a.space,
            index: None,
            len: if a.len == b.len { a.len.clone() } else { None },
            raw: a.raw && b.raw,
        })
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
    by_name: Vec<(String, Vec<Option<Update>>)>,
}

/// How a loop changes a variable in each iteration, when it is one of the regular ways.
struct Update {
    kind: Step,
    by: Expr,
}

/// `x += s`, `x >>= s` (or `x /= 2^s`), `x <<= s` (or `x *= 2^s`).
#[derive(Clone, Copy)]
enum Step {
    Add,
    Halve,
    Double,
}

impl Step {
    /// The update `op=` makes, with its amount as a shift where it multiplies or divides by a
    /// power of two (`/= 8` is `>>= 3`); `None` for any other update.
    fn of(op: &syn::BinOp, by: &Expr) -> Option<Update> {
        let shift_of = |e: &Expr| {
            let Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i), ..
            }) = e
            else {
                return None;
            };
            let v = i.base10_parse::<u64>().ok()?;
            (v > 1 && v.is_power_of_two()).then(|| syn::parse_str::<Expr>(&v.trailing_zeros().to_string()).ok())?
        };
        let (kind, by) = match op {
            syn::BinOp::Add(_) | syn::BinOp::AddAssign(_) => (Step::Add, by.clone()),
            syn::BinOp::Shr(_) | syn::BinOp::ShrAssign(_) => (Step::Halve, by.clone()),
            syn::BinOp::Shl(_) | syn::BinOp::ShlAssign(_) => (Step::Double, by.clone()),
            syn::BinOp::Div(_) | syn::BinOp::DivAssign(_) => (Step::Halve, shift_of(by)?),
            syn::BinOp::Mul(_) | syn::BinOp::MulAssign(_) => (Step::Double, shift_of(by)?),
            _ => return None,
        };
        Some(Update { kind, by })
    }
}

impl AssignedVariables {
    fn record(&mut self, target: &Expr, step: Option<Update>) {
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
        // `x = x + step` is the same as `x += step`, `x = x >> 1` as `x >>= 1`.
        let step = match &*e.right {
            Expr::Binary(b) if same_path(&b.left, &e.left) => Step::of(&b.op, &b.right),
            _ => None,
        };
        self.record(&e.left, step);
        syn::visit::visit_expr_assign(self, e);
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        match e.op {
            op if is_compound_assign(&op) => self.record(&e.left, Step::of(&op, &e.right)),
            _ => {}
        }
        syn::visit::visit_expr_binary(self, e);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// `if cond { a } else { b }` as one index, `b + [cond] * (a - b)`, when the condition can be
/// read.
fn select(cond: &Predicate, a: &Poly, b: &Poly) -> Option<Poly> {
    Some(b.add(&cond.indicator()?.mul(&a.sub(b))))
}

/// A variable's value in a saved set of scopes.
fn lookup_in<'s>(scopes: &'s [Bindings], name: &str) -> Option<&'s Value> {
    scopes.iter().rev().find_map(|s| s.get(name))
}

fn same_path(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Path(a), Expr::Path(b)) => a.path == b.path,
        _ => false,
    }
}

/// The condition under which an integer `value` matches a pattern of literals and ranges
/// (`0`, `1 | 2`, `4..=7`, `b'a'`), when it is one.
fn literal_condition(pat: &syn::Pat, value: &Poly) -> Option<Predicate> {
    match pat {
        Pat::Lit(l) => {
            pattern_number(&Expr::Lit(l.clone())).map(|n| Predicate::Cmp(CmpOp::Eq, value.clone(), Poly::constant(n)))
        }
        Pat::Paren(p) => literal_condition(&p.pat, value),
        Pat::Or(or) => or.cases.iter().try_fold(None, |any: Option<Predicate>, case| {
            let this = literal_condition(case, value)?;
            Some(Some(match any {
                Some(any) => Predicate::Or(Box::new(any), Box::new(this)),
                None => this,
            }))
        })?,
        Pat::Range(r) => {
            let start = match r.start.as_deref() {
                Some(e) => Some(Predicate::Cmp(
                    CmpOp::Ge,
                    value.clone(),
                    Poly::constant(pattern_number(e)?),
                )),
                None => None,
            };
            let end = match r.end.as_deref() {
                Some(e) => {
                    let op = match r.limits {
                        syn::RangeLimits::Closed(_) => CmpOp::Le,
                        syn::RangeLimits::HalfOpen(_) => CmpOp::Lt,
                    };
                    Some(Predicate::Cmp(op, value.clone(), Poly::constant(pattern_number(e)?)))
                }
                None => None,
            };
            match (start, end) {
                (Some(a), Some(b)) => Some(Predicate::And(Box::new(a), Box::new(b))),
                (a, b) => a.or(b),
            }
        }
        _ => None,
    }
}

/// The number a literal of a pattern stands for (`7`, `-1`, `b'a'`, `'x'`).
fn pattern_number(e: &Expr) -> Option<i64> {
    match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse().ok(),
            syn::Lit::Byte(b) => Some(i64::from(b.value())),
            syn::Lit::Char(c) => Some(i64::from(u32::from(c.value()))),
            _ => None,
        },
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => pattern_number(&u.expr).map(|n| -n),
        _ => None,
    }
}

/// `_` or a plain binding: matches whatever the earlier arms did not.
fn is_catch_all(pat: &syn::Pat) -> bool {
    match pat {
        Pat::Wild(_) => true,
        // A name in capitals is a constant, not a binding.
        Pat::Ident(i) => i.subpat.is_none() && !i.ident.to_string().starts_with(|c: char| c.is_ascii_uppercase()),
        _ => false,
    }
}
