//! A pointer to a cuda-oxide `SharedArray<T, N>` (`&raw mut TILE` passed to a helper's
//! `*mut SharedArray<f32, 1>` parameter, a field holding it): the static is declared
//! `T name[N]`, so its address is a `T (*)[N]`, which `kl::carray<T, N>*` spells.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::{GenericArgument, Type};

/// `kl::carray<T, N>`: the built-in array type, named so that it composes as a pointee.
#[macro_export]
#[doc(hidden)]
macro_rules! shared_array_types_prelude {
    () => {
        r#"namespace kl {
template <typename T, unsigned long long N> using carray = T[N];
}
"#
    };
}

impl Context<'_> {
    /// `SharedArray<T, N[, ALIGN]>` as a type (not a static's declarator): `kl::carray<T, N>`.
    pub(super) fn shared_array_type(&self, ty: &Type) -> Lowered<Option<String>> {
        let Type::Path(p) = ty else { return Ok(None) };
        if !self.oxide.enabled || last_segment(&p.path) != "SharedArray" {
            return Ok(None);
        }
        let args = super::oxide::generic_args(&p.path);
        let (Some(GenericArgument::Type(elem)), Some(len)) = (args.first(), args.get(1)) else {
            return Ok(None);
        };
        let len = self.generic_value(len)?;
        Ok(Some(format!("kl::carray<{}, {len}>", self.c_type(elem)?)))
    }
}

impl Context<'_> {
    /// `SharedArray::as_raw_mut_ptr(p)` (the first element's address, taken from the array's
    /// without a reference) and `ptr::eq(a, b)` (the addresses compared).
    pub(super) fn shared_array_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let syn::Expr::Path(p) = &*c.func else { return Ok(None) };
        let words: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        match (words.as_slice(), c.args.len()) {
            ([.., "SharedArray", "as_raw_mut_ptr"], 1) if self.oxide.enabled => {
                let array = self.expr(&c.args[0], scope)?;
                Ok(Some(format!("(&(*({array}))[0])")))
            }
            (["core" | "std", "ptr", "eq"] | ["ptr", "eq"], 2) => {
                let a = self.expr(&c.args[0], scope)?;
                let b = self.expr(&c.args[1], scope)?;
                Ok(Some(format!("(kl::pointer_of({a}) == kl::pointer_of({b}))")))
            }
            _ => Ok(None),
        }
    }
}
