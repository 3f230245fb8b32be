//! Integer methods called on a reference, `*x = x.wrapping_add(1)` of an element from
//! `iter_mut()`: Rust's method call reads through the reference, so the twin does too
//! (C++ would step the pointer instead).

use super::{Context, Scope};
use syn::Expr;

impl Context<'_> {
    /// `receiver` read through where `m` is an integer method of a reference name.
    pub(super) fn referent_receiver(&self, m: &syn::ExprMethodCall, receiver: String, scope: &Scope) -> String {
        let integer_method = matches!(
            m.method.to_string().as_str(),
            "wrapping_add" | "wrapping_sub" | "wrapping_mul" | "wrapping_neg"
        );
        let reference = matches!(&*m.receiver, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.references.contains(&scope.lookup(&i.to_string()))));
        if integer_method && reference && !Self::names_raw_pointer(&m.receiver, scope) {
            format!("(*{receiver})")
        } else {
            receiver
        }
    }
}
