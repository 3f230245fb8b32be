//! Pointers whose pointee Rust infers: `self as *mut _`, and `transmute(p)` of a raw pointer
//! into a reference (`Some(transmute(buf.as_mut_ptr().add(i)))` for an `Option<&mut T>`): the
//! address itself, since references are pointers in C.

use super::{Context, Lowered, Scope};
use syn::Expr;

impl Context<'_> {
    /// `p as *mut _` / `p as *const _` of a raw pointer (a name, or an offset of one), a
    /// reference binding or a by-reference `self` (a C++ reference): the address, made mutable
    /// for `*mut _`.
    pub(super) fn inferred_pointer_cast(
        &self,
        c: &syn::ExprCast,
        ty: &syn::TypePtr,
        scope: &mut Scope,
    ) -> Lowered<String> {
        if is_pointer_value(&c.expr) {
            let value = self.expr(&c.expr, scope)?;
            return Ok(if ty.mutability.is_some() {
                format!("kl::mut_ptr({value})")
            } else {
                value
            });
        }
        let Expr::Path(p) = &*c.expr else {
            return self.fail(
                c,
                "a cast to a pointer of inferred pointee of other than a name is not lowered",
            );
        };
        let Some(name) = p.path.get_ident().map(|i| i.to_string()) else {
            return self.fail(
                c,
                "a cast to a pointer of inferred pointee of other than a name is not lowered",
            );
        };
        let c_name = scope.lookup(&name);
        let value = self.pointer_operand(&c.expr, scope)?;
        let address = if scope.raw_pointers.contains(&c_name) || scope.references.contains(&c_name) {
            value
        } else if name == "self" && scope.types.contains_key(&c_name) {
            format!("(&{value})")
        } else {
            return self.fail(c, "a cast to a pointer of inferred pointee of a value is not lowered");
        };
        Ok(if ty.mutability.is_some() {
            format!("kl::mut_ptr({address})")
        } else {
            address
        })
    }
}

/// `kl::mut_ptr`: a pointer to a mutable pointee, as `*const T as *mut _` is.
#[macro_export]
#[doc(hidden)]
macro_rules! inferred_pointers_prelude {
    () => {
        r#"namespace kl {
template <typename T> __host__ __device__ T* mut_ptr(const T* p) { return const_cast<T*>(p); }
}
"#
    };
}

/// Whether `e` is syntactically a raw pointer: a cast to `*const _` / `*mut _`, or an offset of
/// `as_ptr()` / `as_mut_ptr()`.
pub(super) fn is_pointer_value(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => is_pointer_value(&p.expr),
        Expr::Group(g) => is_pointer_value(&g.expr),
        Expr::Cast(c) => matches!(&*c.ty, syn::Type::Ptr(_)),
        Expr::MethodCall(m) => match m.method.to_string().as_str() {
            "as_ptr" | "as_mut_ptr" => m.args.is_empty(),
            // `self.nodes.add(i)`: an offset pointer; an integer's `add` is never cast to one.
            "add" | "offset" | "wrapping_add" | "wrapping_offset" => m.args.len() == 1,
            "sub" => is_pointer_value(&m.receiver),
            _ => false,
        },
        _ => false,
    }
}
