//! `match` on a computed value: the value is computed once into a temporary, which the arms'
//! conditions then read, as Rust evaluates the scrutinee once.

use super::{Context, Lowered, Scope};
use syn::Expr;

impl Context<'_> {
    /// The scrutinee to test, and the declaration of its temporary when it is computed.
    pub(super) fn match_scrutinee(&self, e: &Expr, scope: &mut Scope) -> Lowered<(Option<String>, String)> {
        if let Ok(place) = self.scrutinee(e, scope) {
            return Ok((None, place));
        }
        let value = self.expr(e, scope)?;
        scope.shared_counter += 1;
        let name = format!("kl_match_{}", scope.shared_counter);
        Ok((Some(format!("auto {name} = {value};")), name))
    }
}

/// A `match` statement's arms after its temporary, in a block of their own.
pub(super) fn with_temporary(declaration: Option<String>, arms: String) -> String {
    match declaration {
        Some(d) => format!("{{\n{d}\n{arms}}}\n"),
        None => arms,
    }
}

/// A `match` value after its temporary, in a lambda called at once.
pub(super) fn value_with_temporary(declaration: Option<String>, value: String) -> String {
    match declaration {
        Some(d) => format!("[&]() {{ {d} return {value}; }}()"),
        None => value,
    }
}
