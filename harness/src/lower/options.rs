//! `Option<T>` as a value: `kl::option<T>`, a flag and the value, built by `Some(x)` and
//! `None` or `bool::then`, read by `unwrap_or`, `map_or`, `unwrap_or_default`, `is_some` and `is_none`.

use super::{Context, Lowered, Scope};
use syn::Expr;

/// `kl::option` and `kl::none`; spliced into the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! option_prelude {
    () => {
        r#"template <typename T> struct option {
  bool some;
  T value;
  // `Option<&mut T>` where an `Option<&T>` is wanted, and the like.
  template <typename U, typename = typename std::enable_if<!std::is_same<U, T>::value>::type>
  __host__ __device__ constexpr operator option<U>() const { return option<U>{some, static_cast<U>(value)}; }
  // `unwrap()` and `expect()`: the value.
  __host__ __device__ constexpr operator T() const { return value; }
};
// Constant expressions, so that a `__device__` constant may hold an option.
struct none {
  template <typename T> __host__ __device__ constexpr operator option<T>() const { return option<T>{false, T{}}; }
};
template <typename T> __host__ __device__ constexpr option<T> some(T value) { return option<T>{true, value}; }
template <typename T, typename D> __host__ __device__ T unwrap_or(const option<T>& o, D fallback) {
  return o.some ? o.value : static_cast<T>(fallback);
}
// `map_or(d, f)`: `f` runs only on a value, as the `None` arm may hold no valid referent.
template <typename T, typename D, typename F>
__host__ __device__ auto map_or(const option<T>& o, D fallback, F f) -> decltype(f(o.value)) {
  if (o.some) return f(o.value);
  return static_cast<decltype(f(o.value))>(fallback);
}
template <typename T> __host__ __device__ T unwrap_or_default(const option<T>& o) { return o.some ? o.value : T{}; }
// `cond.then(f)`: `f` runs only when `cond` holds.
template <typename F> __host__ __device__ auto bool_then(bool c, F f) -> option<decltype(f())> {
  if (c) return some(f());
  return option<decltype(f())>{false, decltype(f()){}};
}
"#
    };
}

impl Context<'_> {
    /// `Option<T>` as `kl::option<T>`.
    pub(super) fn option_type(&self, segment: &syn::PathSegment) -> Lowered<Option<String>> {
        if segment.ident != "Option" {
            return Ok(None);
        }
        let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
            return Ok(None);
        };
        let Some(syn::GenericArgument::Type(inner)) = args.args.first() else {
            return Ok(None);
        };
        Ok(Some(format!("kl::option<{}>", self.c_type(inner)?)))
    }

    /// `Some(x)`.
    pub(super) fn option_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        if !p.path.is_ident("Some") || c.args.len() != 1 || scope.is_bound("Some") {
            return Ok(None);
        }
        Ok(Some(format!("kl::some({})", self.expr(&c.args[0], scope)?)))
    }

    /// `None`.
    pub(super) fn option_none(&self, p: &syn::ExprPath, scope: &Scope) -> Option<String> {
        (p.path.is_ident("None") && !scope.is_bound("None")).then(|| "kl::none{}".to_string())
    }

    /// The methods of an option, where the workspace defines none of that name.
    pub(super) fn option_method(&self, m: &syn::ExprMethodCall, receiver: &str, args: &[String]) -> Option<String> {
        let method = m.method.to_string();
        if self
            .layouts
            .index
            .methods_named(&method, self.layouts.module)
            .next()
            .is_some()
        {
            return None;
        }
        Some(match (method.as_str(), args) {
            ("unwrap_or", [fallback]) => format!("kl::unwrap_or({receiver}, {fallback})"),
            ("map_or", [fallback, f]) if matches!(m.args.last(), Some(Expr::Closure(_))) => {
                format!("kl::map_or({receiver}, {fallback}, {f})")
            }
            ("unwrap_or_default", []) => format!("kl::unwrap_or_default({receiver})"),
            ("is_some", []) => format!("({receiver}).some"),
            ("is_none", []) => format!("(!({receiver}).some)"),
            // `bool::then` takes a closure; `Ordering::then` an ordering.
            ("then", [f]) if matches!(m.args.first(), Some(Expr::Closure(_))) => {
                format!("kl::bool_then({receiver}, {f})")
            }
            _ => return None,
        })
    }
}
