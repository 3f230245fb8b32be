//! `&NAME` of an integer constant: Rust promotes the constant to memory and reads it there.
//! A scalar constant is a host `constexpr` in the twin, whose address device code may not
//! take, so the reference names a `__device__` copy made from its value.

use super::{Context, Scope};
use syn::Expr;

/// `kl::promoted<V>`: one `__device__` object per constant value and type.
#[macro_export]
#[doc(hidden)]
macro_rules! promoted_consts_prelude {
    () => {
        r#"namespace kl {
template <auto V> __device__ const decltype(V) promoted = V;
}
"#
    };
}

impl Context<'_> {
    /// The integer constant a reference names, as its C++ name; `None` for other referents.
    pub(super) fn promoted_constant(&self, r: &syn::ExprReference, scope: &Scope) -> Option<String> {
        if r.mutability.is_some() {
            return None;
        }
        let Expr::Path(p) = &*r.expr else { return None };
        let name = p.path.segments.last()?.ident.to_string();
        let plain = p.path.segments.len() == 1 && p.qself.is_none();
        if !plain || scope.is_bound(&name) || !self.consts.contains(&name) {
            return None;
        }
        self.layouts.const_named(&p.path)?;
        Some(format!("(&kl::promoted<{name}>)"))
    }
}
