//! Unsizing coercions: `&[T; N]` where `&[T]` is expected. A slice is a pointer and a length in
//! C, so an array (by value, through a pointer, `kl::ref` or `kl::aref`) becomes its first
//! element's address and its constant length. `.len()` of an array reads that length too.

use super::{Context, Scope};
use std::collections::HashMap;
use syn::{Expr, FnArg, Type};

/// `kl::slice_ptr` / `kl::slice_len`: the two halves of an array seen as a slice.
#[macro_export]
#[doc(hidden)]
macro_rules! unsize_prelude {
    () => {
        r#"namespace kl {
template <typename T, unsigned long long N> __host__ __device__ T* slice_ptr(array<T, N>& a) { return a.begin(); }
template <typename T, unsigned long long N> __host__ __device__ const T* slice_ptr(const array<T, N>& a) { return a.begin(); }
template <typename T, unsigned long long N> __host__ __device__ T* slice_ptr(array<T, N>* a) { return a->begin(); }
template <typename T, unsigned long long N> __host__ __device__ const T* slice_ptr(const array<T, N>* a) { return a->begin(); }
template <typename A> __host__ __device__ auto slice_ptr(ref<A> a) { return slice_ptr(a.p); }
template <typename A> __host__ __device__ auto slice_ptr(aref<A> a) { return slice_ptr(a.p); }
template <typename T, unsigned long long N> __host__ __device__ constexpr unsigned long long slice_len(const array<T, N>&) { return N; }
template <typename T, unsigned long long N> __host__ __device__ constexpr unsigned long long slice_len(const array<T, N>*) { return N; }
template <typename A> __host__ __device__ constexpr unsigned long long slice_len(ref<A>) { return slice_len(static_cast<A*>(nullptr)); }
template <typename A> __host__ __device__ constexpr unsigned long long slice_len(aref<A>) { return slice_len(static_cast<A*>(nullptr)); }
template <typename A> __host__ __device__ constexpr unsigned long long len(ref<A> a) { return len(*a.p); }
}
"#
    };
}

/// A Rust type `&[T]` or `&mut [T]`.
pub(super) fn is_slice_type(ty: &Type) -> bool {
    matches!(ty, Type::Reference(r) if matches!(&*r.elem, Type::Slice(_)))
}

/// An expression that names or addresses a place without reading memory: it may be written
/// twice (once for the pointer, once for the length) without adding an access.
fn is_place(e: &Expr) -> bool {
    match e {
        Expr::Path(_) => true,
        Expr::Paren(p) => is_place(&p.expr),
        Expr::Reference(r) => matches!(&*r.expr, Expr::Path(_) | Expr::Index(_) | Expr::Field(_)),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => matches!(&*u.expr, Expr::Path(_)),
        _ => false,
    }
}

/// For each helper function, which of its parameters are slices.
pub(super) fn slice_parameters_of(helpers: &[&syn::ItemFn]) -> HashMap<String, Vec<bool>> {
    helpers
        .iter()
        .map(|h| (h.sig.ident.to_string(), slice_flags(&h.sig)))
        .collect()
}

fn slice_flags(sig: &syn::Signature) -> Vec<bool> {
    sig.inputs
        .iter()
        .filter_map(|i| match i {
            FnArg::Typed(t) => Some(is_slice_type(&t.ty)),
            FnArg::Receiver(_) => None,
        })
        .collect()
}

impl Context<'_> {
    /// Which parameters of the function a call path names are slices, when it is known.
    pub(super) fn slice_parameters(&self, path: &syn::Path) -> Vec<bool> {
        if let Some(i) = path.get_ident() {
            if let Some(known) = self.helper_slices.get(&i.to_string()) {
                return known.clone();
            }
        }
        let Some(target) = self.layouts.resolve(path) else {
            return Vec::new();
        };
        let Some(function) = self.layouts.index.function(&target) else {
            return Vec::new();
        };
        slice_flags(function.sig)
    }

    /// An argument passed where a slice is expected that is not itself a slice: an array's
    /// pointer and length.
    pub(super) fn unsized_argument(&self, arg: &Expr, text: &str) -> Option<String> {
        is_place(arg).then(|| format!("kl::slice_ptr({text}), kl::slice_len({text})"))
    }

    /// `let s: &[T] = a;` of an array `a` (or of another slice): the slice's pointer and length.
    pub(super) fn unsized_local(&self, name: &str, init: &Expr, value: &str, scope: &mut Scope) -> Option<String> {
        if let Expr::Path(p) = init {
            if let Some(i) = p.path.get_ident() {
                let source = scope.lookup(&i.to_string());
                if scope.slices.contains(&source) {
                    scope.slices.insert(name.to_string());
                    return Some(format!("auto {name} = {source};\nauto {name}_len = {source}_len;\n"));
                }
            }
        }
        if !is_place(init) {
            return None;
        }
        scope.slices.insert(name.to_string());
        Some(format!(
            "auto {name} = kl::slice_ptr({value});\nauto {name}_len = kl::slice_len({value});\n"
        ))
    }

    /// `x.len()`: a slice's `x_len`, else (an array, a table) the array's constant length.
    pub(super) fn length_of(&self, receiver: &Expr, text: &str, scope: &Scope) -> String {
        if let Some(length) = self.array_field_length(receiver, text, scope) {
            return length;
        }
        let Expr::Path(p) = receiver else {
            return format!("{text}_len");
        };
        let Some(i) = p.path.get_ident() else {
            return format!("kl::len({text})");
        };
        let c_name = scope.lookup(&i.to_string());
        if scope.slices.contains(&c_name) || scope.declared.contains_key(&format!("{c_name}_len")) {
            return format!("{text}_len");
        }
        format!("kl::len({text})")
    }
}
