//! Blocks whose value follows statements, `if c { let t = ..; t * 2 } else { .. }`: a GNU
//! statement expression `({ ..; value; })`, which nvcc and g++ accept, keeps the statements in
//! the order Rust runs them and where Rust runs them, in the branch taken.

use std::collections::HashMap;

use syn::{Expr, Stmt};

use super::{Context, Lowered, Scope};

impl Context<'_> {
    /// The value of a block: its tail expression after its statements.
    pub(super) fn block_value(&self, block: &syn::Block, scope: &mut Scope) -> Lowered<String> {
        let Some((Stmt::Expr(tail, None), body)) = block.stmts.split_last() else {
            return self.fail(block, "a block used as a value ends without a value");
        };
        if diverges(tail) {
            return self.fail(
                tail,
                "a block used as a value that leaves with `return`, `break` or `continue`",
            );
        }
        if body.is_empty() {
            return self.expr(tail, scope);
        }
        scope.names.push(HashMap::new());
        let lowered = self.statements_then(body, tail, scope);
        scope.names.pop();
        lowered
    }

    fn statements_then(&self, body: &[Stmt], tail: &Expr, scope: &mut Scope) -> Lowered<String> {
        let mut out = String::from("({\n");
        for stmt in body {
            out.push_str(&self.stmt(stmt, scope)?);
        }
        out.push_str(&self.expr(tail, scope)?);
        out.push_str(";\n})");
        Ok(out)
    }

    /// `if c { ..; a } else { ..; b }` as a value: only the branch taken runs its statements.
    pub(super) fn if_value_with_statements(&self, i: &syn::ExprIf, scope: &mut Scope) -> Lowered<String> {
        let Some((_, else_branch)) = &i.else_branch else {
            return self.fail(i, "`if` without `else` used as a value");
        };
        let condition = self.expr(&i.cond, scope)?;
        let then = self.block_value(&i.then_branch, scope)?;
        let otherwise = match &**else_branch {
            Expr::Block(b) => self.block_value(&b.block, scope)?,
            other => self.expr(other, scope)?,
        };
        Ok(format!("(({condition}) ? ({then}) : ({otherwise}))"))
    }
}

fn diverges(e: &Expr) -> bool {
    matches!(e, Expr::Return(_) | Expr::Break(_) | Expr::Continue(_))
}
