//! The fields of `x.overflowing_sub(y)` bound by `let (r, borrow) = ..`: the wrapped value has
//! the receiver's type and the flag is a `bool`, so `gpu_printf!` knows how to print each.

use syn::Expr;

use super::{Context, Scope};

impl Context<'_> {
    /// The Rust type of field `i` of an `overflowing_*` pair, when the receiver's type is known.
    pub(super) fn overflow_pair_field(&self, init: &Expr, i: usize, scope: &Scope) -> Option<String> {
        let Expr::MethodCall(m) = init else { return None };
        if !m.method.to_string().starts_with("overflowing_") {
            return None;
        }
        match i {
            0 => self.printed_type(&m.receiver, scope),
            1 => Some("bool".to_string()),
            _ => None,
        }
    }
}
