//! Closures whose body never returns, `|_| loop {}`: the body is the lambda's statement, not a
//! returned value, so the lambda returns `void` as a `!` function lowers.

use syn::visit::Visit;
use syn::Expr;

use super::{Context, Lowered, Scope};

impl Context<'_> {
    /// The lambda body of a closure whose body is a `loop` that no `break` leaves.
    pub(super) fn diverging_closure_body(&self, body: &Expr, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Loop(l) = body else { return Ok(None) };
        if breaks(&l.body) {
            return Ok(None);
        }
        Ok(Some(format!("{{\n{}}}", self.expr_stmt(body, scope)?)))
    }
}

/// Whether a `break` occurs in the block (one of an inner loop counts: refusing is safe).
fn breaks(block: &syn::Block) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_break(&mut self, _: &'ast syn::ExprBreak) {
            self.0 = true;
        }
    }
    let mut f = Finder(false);
    f.visit_block(block);
    f.0
}
