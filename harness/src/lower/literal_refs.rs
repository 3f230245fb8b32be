//! `*opt.unwrap_or(&77)`: Rust promotes the literal to a constant and reads either it or the
//! option's referent; the twin reads the same referent, or the literal's value directly.

use super::{Context, Lowered, Scope};
use syn::{Expr, UnOp};

/// `kl::deref_or`: the value an `Option<&T>` refers to, else the fallback value.
#[macro_export]
#[doc(hidden)]
macro_rules! literal_refs_prelude {
    () => {
        r#"namespace kl {
template <typename P, typename D> __host__ __device__ auto deref_or(const option<P>& o, D fallback) -> typename std::remove_cv<typename std::remove_reference<decltype(*o.value)>::type>::type {
  using T = typename std::remove_cv<typename std::remove_reference<decltype(*o.value)>::type>::type;
  return o.some ? *o.value : static_cast<T>(fallback);
}
}
"#
    };
}

/// The literal that `expr` refers to: `&77`, `&2.5`.
fn referenced_literal(e: &Expr) -> Option<&syn::Lit> {
    match e {
        Expr::Reference(r) if r.mutability.is_none() => match &*r.expr {
            Expr::Lit(l) => Some(&l.lit),
            _ => None,
        },
        Expr::Paren(p) => referenced_literal(&p.expr),
        _ => None,
    }
}

/// `*x.unwrap_or(&lit)`: the only use of a reference to a literal the twin takes, since the
/// value is read at once and no address of the literal outlives the expression.
pub(super) fn is_literal_fallback(u: &syn::ExprUnary) -> bool {
    matches!(u.op, UnOp::Deref(_))
        && matches!(&*u.expr, Expr::MethodCall(m) if m.method == "unwrap_or" && m.args.len() == 1 && referenced_literal(&m.args[0]).is_some())
}

impl Context<'_> {
    /// `*x.unwrap_or(&lit)` as `kl::deref_or(x, lit)`.
    pub(super) fn literal_fallback(&self, u: &syn::ExprUnary, scope: &mut Scope) -> Lowered<String> {
        let Expr::MethodCall(m) = &*u.expr else {
            return self.fail(u, "`*` of a call other than `unwrap_or(&literal)`");
        };
        let Some(lit) = referenced_literal(&m.args[0]) else {
            return self.fail(m, "`unwrap_or` of a value other than a reference to a literal");
        };
        let option = self.expr(&m.receiver, scope)?;
        Ok(format!("kl::deref_or({option}, {})", self.literal(lit)?))
    }
}
