//! `a.cmp(&b)` of primitive integers and `char`s: Rust's three-way compare, an `Ordering`
//! computed with the operand type's own (signed or unsigned) order. A receiver known to be a
//! struct of the file keeps its `Ord` impl's method.

use super::{Context, Lowered, Scope};
use syn::Expr;

/// The compare, in `kl`, on the prelude's `Ordering`; `b` converts to `a`'s type as Rust's
/// `Ord::cmp(&self, &Self)` has both of one type.
#[macro_export]
macro_rules! three_way_prelude {
    () => {
        r#"namespace kl {
template <typename T> struct same_type { using type = T; };
template <typename T> __device__ inline ::Ordering three_way(T a, typename same_type<T>::type b) {
  return a < b ? ::Ordering::Less : (b < a ? ::Ordering::Greater : ::Ordering::Equal);
}
}
"#
    };
}

const ORDERED: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "char", "bool",
];

impl Context<'_> {
    /// `a.cmp(&b)` where `a` or `b` is known to be a primitive integer.
    pub(super) fn primitive_cmp(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        if m.method != "cmp" || m.args.len() != 1 {
            return Ok(None);
        }
        let Expr::Reference(other) = &m.args[0] else {
            return Ok(None);
        };
        let primitive = |e: &Expr| {
            self.value_type_of(e, scope)
                .is_some_and(|t| ORDERED.contains(&t.as_str()))
        };
        if !primitive(&m.receiver) && !primitive(&other.expr) {
            return Ok(None);
        }
        let a = self.expr(&m.receiver, scope)?;
        let b = self.expr(&other.expr, scope)?;
        Ok(Some(format!("kl::three_way({a}, {b})")))
    }
}
