//! `while let P = e { .. }` outside the cuda-oxide forms: each round is the `if let` of the
//! pattern, leaving the loop when it does not match.

use super::stmt::ROLLED;
use super::{Context, Lowered, Scope};

impl Context<'_> {
    /// The loop of a `while` whose condition is `let`, without a label.
    pub(super) fn while_let(&self, w: &syn::ExprWhile, scope: &mut Scope) -> Lowered<String> {
        let (cond, body) = (&w.cond, &w.body);
        let round: syn::ExprIf = syn::parse_quote!(if #cond #body else { break; });
        Ok(format!("{ROLLED}while (true) {{\n{}}}\n", self.if_stmt(&round, scope)?))
    }
}
