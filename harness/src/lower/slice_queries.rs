//! Checked slice queries: `s.is_empty()`, and `s.get(i)` as an option of the element's address
//! that `copied()`, `unwrap()` and `unwrap_or(..)` read only when the index is in bounds.

use super::{Context, Lowered, Scope};
use syn::Expr;

/// `kl::slice_get`, `kl::copied`, `kl::unwrap_checked`: an out-of-bounds `get` reads nothing
/// and its `unwrap` traps, as Rust's panic aborts the kernel.
#[macro_export]
#[doc(hidden)]
macro_rules! slice_queries_prelude {
    () => {
        r#"namespace kl {
template <typename T> __host__ __device__ option<T*> slice_get(T* base, unsigned long long len, unsigned long long i) {
  return i < len ? option<T*>{true, base + i} : option<T*>{false, nullptr};
}
template <typename T> __host__ __device__ option<typename std::remove_cv<T>::type> copied(const option<T*>& o) {
  using V = typename std::remove_cv<T>::type;
  return o.some ? option<V>{true, *o.value} : option<V>{false, V{}};
}
template <typename T> __device__ T unwrap_checked(const option<T>& o) {
  if (!o.some) __trap();
  return o.value;
}
}
"#
    };
}

/// `s.get(i)`, maybe followed by `.copied()` or `.cloned()`.
fn is_checked_get(e: &Expr, scope: &Scope) -> bool {
    match e {
        Expr::MethodCall(m) if m.args.is_empty() && matches!(m.method.to_string().as_str(), "copied" | "cloned") => {
            is_checked_get(&m.receiver, scope)
        }
        Expr::MethodCall(m) => m.method == "get" && m.args.len() == 1 && names_slice(&m.receiver, scope),
        Expr::Paren(p) => is_checked_get(&p.expr, scope),
        _ => false,
    }
}

/// `s.is_empty()`, `o.is_some()`, `x.is_nan()`: Rust's `is_*` queries answer a `bool`, which
/// `!` negates logically (C's `~` of a `bool` would not).
pub(super) fn is_predicate(m: &syn::ExprMethodCall) -> bool {
    m.method.to_string().starts_with("is_")
}

fn names_slice(e: &Expr, scope: &Scope) -> bool {
    matches!(e, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.slices.contains(&scope.lookup(&i.to_string()))))
}

impl Context<'_> {
    /// A slice query of this module; `None` for other methods.
    pub(super) fn slice_query(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let method = m.method.to_string();
        match (method.as_str(), m.args.len()) {
            ("is_empty", 0) if names_slice(&m.receiver, scope) => {
                let receiver = self.expr(&m.receiver, scope)?;
                Ok(Some(format!(
                    "({} == 0)",
                    self.length_of(&m.receiver, &receiver, scope)
                )))
            }
            ("get", 1) if names_slice(&m.receiver, scope) => {
                let receiver = self.expr(&m.receiver, scope)?;
                let len = self.length_of(&m.receiver, &receiver, scope);
                let index = self.expr(&m.args[0], scope)?;
                Ok(Some(format!("kl::slice_get({receiver}, {len}, {index})")))
            }
            ("copied" | "cloned", 0) if is_checked_get(&m.receiver, scope) => {
                Ok(Some(format!("kl::copied({})", self.expr(&m.receiver, scope)?)))
            }
            ("unwrap", 0) if is_checked_get(&m.receiver, scope) => {
                Ok(Some(format!("kl::unwrap_checked({})", self.expr(&m.receiver, scope)?)))
            }
            _ => Ok(None),
        }
    }
}
