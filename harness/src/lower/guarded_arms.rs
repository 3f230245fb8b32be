//! `match` statements whose arms bind the value of a compare-exchange (`Err(observed)`) or
//! carry a guard (`Err(observed) if unpack_key(observed) == key`): an `if` chain on the
//! scrutinee, read once into a temporary; a guard is tested after its arm's pattern, with the
//! arm's names bound, as Rust tests it.

use std::collections::HashMap;
use std::fmt::Write;

use kernel_lint_analyzer::parse::last_segment;
use syn::Expr;

use super::{Context, Lowered, Scope};

impl Context<'_> {
    /// `None` when no arm has a guard or binds a compare-exchange's value.
    pub(super) fn guarded_match_stmt(&self, m: &syn::ExprMatch, scope: &mut Scope) -> Lowered<Option<String>> {
        if !m
            .arms
            .iter()
            .any(|a| a.guard.is_some() || exchange_binding(&a.pat).is_some())
        {
            return Ok(None);
        }
        let (temporary, scrutinee) = self.match_scrutinee(&m.expr, scope)?;
        let mut out = String::new();
        let mut closed = false;
        for (k, arm) in m.arms.iter().enumerate() {
            if closed {
                return self.fail(arm, "an arm after the catch-all");
            }
            let (condition, binding) = match exchange_binding(&arm.pat) {
                Some((ok, name)) => {
                    let test = if ok {
                        format!("({scrutinee}).ok")
                    } else {
                        format!("(!({scrutinee}).ok)")
                    };
                    (Some(test), Some((name, format!("({scrutinee}).value"))))
                }
                None => (self.pattern_condition(&arm.pat, &scrutinee)?, None),
            };
            scope.names.push(HashMap::new());
            let declaration = binding.map(|(name, value)| format!("auto {} = {value};\n", scope.bind(&name)));
            let lowered = self.guarded_arm(arm, declaration.as_deref().unwrap_or(""), scope);
            scope.names.pop();
            let (guard, body) = lowered?;
            let condition = match (condition, guard) {
                (Some(c), Some(g)) => Some(format!("({c} && {g})")),
                (c, g) => c.or(g),
            };
            match condition {
                Some(condition) => {
                    let keyword = if k == 0 { "if" } else { "else if" };
                    let _ = write!(out, "{keyword} ({condition}) {body}");
                }
                None if k == 0 => {
                    out.push_str(&body);
                    closed = true;
                }
                None => {
                    let _ = write!(out, "else {body}");
                    closed = true;
                }
            }
        }
        Ok(Some(super::matching::with_temporary(temporary, out)))
    }

    /// The guard (in a statement expression that binds the arm's names) and the arm's body.
    fn guarded_arm(&self, arm: &syn::Arm, declaration: &str, scope: &mut Scope) -> Lowered<(Option<String>, String)> {
        let guard = match &arm.guard {
            Some((_, g)) if declaration.is_empty() => Some(format!("({})", self.expr(g, scope)?)),
            Some((_, g)) => Some(format!("({{\n{declaration}{};\n}})", self.expr(g, scope)?)),
            None => None,
        };
        let body = if super::expr::is_unreachable(&arm.body) {
            "{\n}\n".to_string()
        } else {
            let inner = self.block(&super::arm_blocks::arm_block(&arm.body), scope)?;
            format!("{{\n{declaration}{inner}}}\n")
        };
        Ok((guard, body))
    }
}

/// `Ok(name)` / `Err(name)` of a compare-exchange: whether it is `Ok`, and the name bound.
fn exchange_binding(pattern: &syn::Pat) -> Option<(bool, String)> {
    let syn::Pat::TupleStruct(t) = pattern else { return None };
    let ok = match last_segment(&t.path).as_str() {
        "Ok" => true,
        "Err" => false,
        _ => return None,
    };
    match t.elems.iter().collect::<Vec<_>>().as_slice() {
        [syn::Pat::Ident(i)] if i.subpat.is_none() && i.by_ref.is_none() && !i.ident.to_string().starts_with('_') => {
            Some((ok, i.ident.to_string()))
        }
        _ => None,
    }
}

/// A diverging `loop` without `break` at its own level: the tail of a function that returns
/// from inside it.
pub(super) fn is_diverging_loop(e: &Expr) -> bool {
    let Expr::Loop(l) = e else { return false };
    l.label.is_none() && !l.body.stmts.iter().any(breaks_here)
}

fn breaks_here(s: &syn::Stmt) -> bool {
    use syn::visit::Visit;
    struct Breaks(bool);
    impl<'a> Visit<'a> for Breaks {
        fn visit_expr_break(&mut self, _: &'a syn::ExprBreak) {
            self.0 = true;
        }
        // A `break` inside a nested loop or closure leaves that one.
        fn visit_expr_loop(&mut self, _: &'a syn::ExprLoop) {}
        fn visit_expr_while(&mut self, _: &'a syn::ExprWhile) {}
        fn visit_expr_for_loop(&mut self, _: &'a syn::ExprForLoop) {}
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    }
    let mut v = Breaks(false);
    v.visit_stmt(s);
    v.0
}

impl Context<'_> {
    /// Whether `e` names a binding declared `bool`: `!flag` is a logical not, where C++'s `~`
    /// of a `bool` would give a nonzero `int` for both values.
    pub(super) fn names_boolean(e: &Expr, scope: &Scope) -> bool {
        match e {
            Expr::Paren(p) => Self::names_boolean(&p.expr, scope),
            Expr::Path(p) => p.path.get_ident().is_some_and(|i| {
                scope
                    .types
                    .get(&scope.lookup(&i.to_string()))
                    .is_some_and(|t| t == "bool")
            }),
            _ => false,
        }
    }
}
