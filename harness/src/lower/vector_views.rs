//! cuda-oxide's checked vector views, `vector::as_vectors::<F32x4>(s)`: a flat slice read as
//! over-aligned vectors when its length divides and its base is aligned. The view's element
//! is a C struct of the same size and alignment, so a whole-vector copy is one wide access,
//! as the Rust one is.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use std::collections::HashMap;
use std::fmt::Write as _;
use syn::{Expr, Pat};

/// `kl::vector_lanes<T, N>` and `kl::vector_count`: the count is `-1` where `as_vectors`
/// answers `None`.
#[macro_export]
#[doc(hidden)]
macro_rules! vector_views_prelude {
    () => {
        r#"namespace kl {
template <typename T, unsigned long long N> struct alignas(sizeof(T) * N) vector_lanes {
  T v[N];
  template <typename I> __host__ __device__ T& operator[](I i) { return v[i]; }
  template <typename I> __host__ __device__ const T& operator[](I i) const { return v[i]; }
};
template <unsigned long long N, typename T> __device__ long long vector_count(T* p, unsigned long long len) {
  if (len == 0) return 0;
  if (len % N != 0 || (unsigned long long)p % (sizeof(T) * N) != 0) return -1;
  return (long long)(len / N); }
template <unsigned long long N, typename T> __device__ auto vector_view(T* p)
    -> typename std::conditional<std::is_const<T>::value, const vector_lanes<typename std::remove_cv<T>::type, N>,
                                 vector_lanes<T, N>>::type* {
  using V = typename std::conditional<std::is_const<T>::value, const vector_lanes<typename std::remove_cv<T>::type, N>,
                                      vector_lanes<T, N>>::type;
  return reinterpret_cast<V*>(p); }
}
"#
    };
}

/// cuda-oxide's vector types: lanes of a scalar, aligned to their whole size.
fn lanes(name: &str) -> Option<u32> {
    match name {
        "F32x2" | "F64x2" | "U32x2" => Some(2),
        "F32x4" | "U32x4" | "U16x4" => Some(4),
        "U16x8" => Some(8),
        _ => None,
    }
}

impl Context<'_> {
    /// `vector::as_vectors::<V>(s)` (or `as_vectors_mut`) of a slice `s`: the flat slice's C
    /// name and the lanes of `V`.
    fn vector_view(&self, e: &Expr, scope: &mut Scope) -> Lowered<Option<(String, u32)>> {
        let Expr::Call(c) = e else { return Ok(None) };
        let Expr::Path(f) = &*c.func else { return Ok(None) };
        if !self.oxide.enabled || !matches!(last_segment(&f.path).as_str(), "as_vectors" | "as_vectors_mut") {
            return Ok(None);
        }
        let Some(segment) = f.path.segments.last() else {
            return Ok(None);
        };
        let vector = match &segment.arguments {
            syn::PathArguments::AngleBracketed(a) => match a.args.iter().collect::<Vec<_>>()[..] {
                [syn::GenericArgument::Type(syn::Type::Path(t))] => last_segment(&t.path),
                _ => return self.fail(c, "`as_vectors` is lowered with its vector type written as `::<V>`"),
            },
            _ => return self.fail(c, "`as_vectors` is lowered with its vector type written as `::<V>`"),
        };
        let Some(lanes) = lanes(&vector) else {
            return self.fail(c, format!("vector type `{vector}` of `as_vectors` is not lowered"));
        };
        let [flat] = c.args.iter().collect::<Vec<_>>()[..] else {
            return Ok(None);
        };
        let flat = match flat {
            Expr::Reference(r) => &*r.expr,
            other => other,
        };
        let Expr::Path(p) = flat else {
            return self.fail(flat, "`as_vectors` is lowered on a slice named by a variable");
        };
        let Some(name) = p.path.get_ident().map(|i| scope.lookup(&i.to_string())) else {
            return Ok(None);
        };
        if !scope.slices.contains(&name) {
            return self.fail(flat, "`as_vectors` is lowered on a slice named by a variable");
        }
        Ok(Some((name, lanes)))
    }

    /// The count of vectors under a fresh name, and the declaration of the view named `rust`.
    fn vector_parts(&self, flat: &str, lanes: u32, rust: Option<&str>, scope: &mut Scope) -> [String; 3] {
        let count_name = {
            let count = scope.declared.entry(format!("{flat}_vectors")).or_insert(0);
            let name = match *count {
                0 => format!("{flat}_vectors"),
                n => format!("{flat}_vectors_{n}"),
            };
            *count += 1;
            name
        };
        let count = format!("long long {count_name} = kl::vector_count<{lanes}>({flat}, {flat}_len);");
        let mut view = String::new();
        if let Some(rust) = rust {
            let name = scope.bind(rust);
            scope.slices.insert(name.clone());
            scope.reserve_length(&name);
            let _ = writeln!(
                view,
                "auto {name} = kl::vector_view<{lanes}>({flat});\nauto {name}_len = (unsigned long long){count_name};"
            );
        }
        [count, count_name, view]
    }

    /// `let Some(view) = vector::as_vectors::<V>(s) else { .. };`.
    pub(super) fn vector_let_else(&self, local: &syn::Local, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(init) = &local.init else { return Ok(None) };
        let Some((_, diverge)) = &init.diverge else {
            return Ok(None);
        };
        let Some(binding) = some_binding(&local.pat) else {
            return Ok(None);
        };
        let Some((flat, lanes)) = self.vector_view(&init.expr, scope)? else {
            return Ok(None);
        };
        let otherwise = self.expr_stmt(diverge, scope)?;
        let [declaration, count_name, view] = self.vector_parts(&flat, lanes, binding.as_deref(), scope);
        Ok(Some(format!("{declaration}\nif ({count_name} < 0) {otherwise}{view}")))
    }

    /// `if let Some(view) = vector::as_vectors::<V>(s) { .. } else { .. }`.
    pub(super) fn vector_if_let(
        &self,
        l: &syn::ExprLet,
        i: &syn::ExprIf,
        scope: &mut Scope,
    ) -> Lowered<Option<String>> {
        let Some(binding) = some_binding(&l.pat) else {
            return Ok(None);
        };
        let Some((flat, lanes)) = self.vector_view(&l.expr, scope)? else {
            return Ok(None);
        };
        scope.names.push(HashMap::new());
        let [declaration, count_name, view] = self.vector_parts(&flat, lanes, binding.as_deref(), scope);
        let body = self.block(&i.then_branch, scope);
        scope.names.pop();
        let mut out = format!("{{\n{declaration}\nif ({count_name} >= 0) {{\n{view}{}}}\n", body?);
        if let Some((_, else_branch)) = &i.else_branch {
            out.push_str("else ");
            out.push_str(&self.expr_stmt(else_branch, scope)?);
        }
        out.push_str("}\n");
        Ok(Some(out))
    }
}

/// `Some(name)` or `Some(_)`: the name, if any.
fn some_binding(p: &Pat) -> Option<Option<String>> {
    let Pat::TupleStruct(t) = p else { return None };
    if !t.path.is_ident("Some") || t.elems.len() != 1 {
        return None;
    }
    match &t.elems[0] {
        Pat::Ident(b) if b.subpat.is_none() => Some(Some(b.ident.to_string())),
        Pat::Wild(_) => Some(None),
        _ => None,
    }
}
