//! Values of the core library that kernels build in place: one-field tuples `(x,)` passed as
//! a single argument, and the empty array `[]`, whose every index is out of bounds and so
//! panics, which the twin traps on; `MaybeUninit::uninit()`, storage the kernel writes
//! before it reads, and of an uninhabited type a value that rustc guards with a panic.

use super::{Context, Lowered, Scope};
use syn::{Expr, GenericArgument, PathArguments, Type};

/// `kl::tuple1` for `(x,)`, `kl::empty_array` for `[T; 0]`, `kl::uninhabited` for the guard.
#[macro_export]
#[doc(hidden)]
macro_rules! core_values_prelude {
    () => {
        r#"namespace kl {
template <typename A> struct tuple1 {
  A _0;
};
template <typename A> __host__ __device__ constexpr tuple1<A> make_tuple(A a) { return {a}; }
// `[T; 0]`: indexing it panics in Rust (the bounds check fails for every index).
template <typename T> struct empty_array {
  __device__ T operator[](unsigned long long) const {
    __trap();
    return T{};
  }
};
// `MaybeUninit::<Infallible>::uninit().assume_init()`: rustc's `assert_inhabited` panics.
__device__ inline unit uninhabited() {
  __trap();
  return {};
}
}
"#
    };
}

impl Context<'_> {
    /// `let e: [T; 0] = [];`: an array with no element, whose reads all trap.
    pub(super) fn empty_array_local(
        &self,
        rust_name: &str,
        ty: Option<&Type>,
        init: &Expr,
        scope: &mut Scope,
    ) -> Lowered<Option<String>> {
        let Expr::Array(a) = init else { return Ok(None) };
        if !a.elems.is_empty() {
            return Ok(None);
        }
        let Some(Type::Array(t)) = ty else {
            return self.fail(a, "empty array without a declared `[T; 0]` type");
        };
        if self.layouts.const_value(&t.len) != Some(0) {
            return self.fail(a, "empty array whose declared length is not 0");
        }
        let element = self.c_type(&t.elem)?;
        let name = scope.bind(rust_name);
        Ok(Some(format!("const kl::empty_array<{element}> {name}{{}};\n")))
    }

    /// `MaybeUninit::uninit()`: storage of the declared type, value-initialized (the kernel
    /// writes it before it reads it); `MaybeUninit::<T>::uninit()` of `T`.
    pub(super) fn uninit_call(&self, c: &syn::ExprCall, path: &syn::Path) -> Lowered<Option<String>> {
        let segments: Vec<_> = path.segments.iter().collect();
        let [.., owner, last] = segments.as_slice() else {
            return Ok(None);
        };
        if owner.ident != "MaybeUninit" || last.ident != "uninit" || !c.args.is_empty() {
            return Ok(None);
        }
        let inner = match &owner.arguments {
            PathArguments::AngleBracketed(a) => match a.args.first() {
                Some(GenericArgument::Type(t)) => Some(t),
                _ => None,
            },
            _ => None,
        };
        Ok(Some(match inner {
            Some(Type::Never(_)) => "kl::uninhabited()".to_string(),
            Some(Type::Path(p)) if p.path.segments.last().is_some_and(|s| s.ident == "Infallible") => {
                "kl::uninhabited()".to_string()
            }
            Some(t) => format!("{}{{}}", self.c_type(t)?),
            None => "{}".to_string(),
        }))
    }
}
