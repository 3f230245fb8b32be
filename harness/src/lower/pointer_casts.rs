//! Pointer reinterpretation and distances: `p.cast::<T>()`, `p.cast()` whose target type the
//! use decides, and `offset_from`, `offset_from_unsigned` and their byte forms.

use super::{Context, Lowered, Scope};
use syn::{GenericArgument, Type};

/// `kl::cast_ptr`: a pointer that converts to the pointer type its use asks for, as Rust infers
/// `cast()`'s target from the use.
#[macro_export]
#[doc(hidden)]
macro_rules! pointer_casts_prelude {
    () => {
        r#"namespace kl {
struct any_ptr {
  const void* p;
  template <typename T> __host__ __device__ operator T*() const { return (T*)p; }
};
template <typename T> __host__ __device__ any_ptr cast_ptr(T* p) { return any_ptr{(const void*)p}; }
template <typename T> __host__ __device__ long long byte_offset_from(const T* a, const T* b) { return (long long)((const char*)a - (const char*)b); }
}
"#
    };
}

impl Context<'_> {
    /// A pointer method of this module; `None` for other methods.
    pub(super) fn pointer_cast_method(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let method = m.method.to_string();
        let known = matches!(
            (method.as_str(), m.args.len()),
            ("cast", 0)
                | (
                    "offset_from" | "offset_from_unsigned" | "byte_offset_from" | "byte_offset_from_unsigned",
                    1
                )
        );
        if !known || self.workspace_method(&method) {
            return Ok(None);
        }
        if method == "cast" {
            if let Some(converted) = self.nalgebra_cast(m, scope)? {
                return Ok(Some(converted));
            }
        }
        let receiver = self.expr(&m.receiver, scope)?;
        if method == "cast" {
            let target = m.turbofish.as_ref().and_then(|t| match t.args.first() {
                Some(GenericArgument::Type(ty)) if t.args.len() == 1 => Some(ty),
                _ => None,
            });
            return Ok(Some(match target {
                // `*mut ()` is an untyped address.
                Some(Type::Tuple(t)) if t.elems.is_empty() => format!("((void*)({receiver}))"),
                Some(ty) => format!("(({}*)({receiver}))", self.c_type(ty)?),
                None => format!("kl::cast_ptr({receiver})"),
            }));
        }
        let other = self.expr(&m.args[0], scope)?;
        Ok(Some(match method.as_str() {
            "offset_from" => format!("((long long)({receiver} - {other}))"),
            "offset_from_unsigned" => format!("((unsigned long long)({receiver} - {other}))"),
            "byte_offset_from" => format!("kl::byte_offset_from({receiver}, {other})"),
            _ => format!("((unsigned long long)kl::byte_offset_from({receiver}, {other}))"),
        }))
    }
}
