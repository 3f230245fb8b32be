//! `let o: Option<&T> = transmute(p)`: `Option<&T>` (and `Option<&mut T>`,
//! `Option<NonNull<T>>`) is one pointer whose null is `None`, so the option is `Some(p)` for
//! a non-null `p` and `None` for null, with the same address.

use super::{Context, Lowered, Scope};
use syn::{Expr, GenericArgument, PathArguments, Type};

/// `kl::option_of_pointer`, appended to the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! option_transmutes_prelude {
    () => {
        r#"namespace kl {
template <typename P, typename Q> __device__ option<P> option_of_pointer(Q q) {
  static_assert(std::is_pointer<Q>::value || (std::is_integral<Q>::value && sizeof(Q) == sizeof(P)),
                "an address becomes the option's pointer");
  return option<P>{q != Q(0), (P)q};
}
}
"#
    };
}

/// The expression inside `unsafe { .. }` and parentheses.
fn inner(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => inner(&p.expr),
        Expr::Group(g) => inner(&g.expr),
        Expr::Unsafe(u) if u.block.stmts.len() == 1 => match &u.block.stmts[0] {
            syn::Stmt::Expr(e, None) => inner(e),
            _ => e,
        },
        _ => e,
    }
}

/// The argument of `mem::transmute(x)` (no turbofish: the `let` states the type).
fn transmute_argument(e: &Expr) -> Option<&Expr> {
    let Expr::Call(c) = inner(e) else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let segments: Vec<_> = p.path.segments.iter().collect();
    let last = segments.last()?;
    let owner_is_mem = segments.len() == 1 || segments[segments.len() - 2].ident == "mem";
    let plain = matches!(last.arguments, PathArguments::None);
    (last.ident == "transmute" && owner_is_mem && plain && c.args.len() == 1).then(|| &c.args[0])
}

/// The pointer type inside `Option<&T>`, `Option<&mut T>` or `Option<NonNull<T>>`.
fn option_pointer(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let [GenericArgument::Type(inner)] = args.args.iter().collect::<Vec<_>>().as_slice() else {
        return None;
    };
    let pointer = match inner {
        Type::Reference(_) => true,
        Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "NonNull"),
        _ => false,
    };
    pointer.then_some(inner)
}

impl Context<'_> {
    /// `let o: Option<&T> = unsafe { mem::transmute(p) };` as the option of the same address.
    pub(super) fn option_transmute_local(
        &self,
        rust_name: &str,
        ty: Option<&Type>,
        init: &Expr,
        scope: &mut Scope,
    ) -> Lowered<Option<String>> {
        let (Some(ty), Some(argument)) = (ty, transmute_argument(init)) else {
            return Ok(None);
        };
        let Some(pointer) = option_pointer(ty) else {
            return Ok(None);
        };
        let pointer = match self.non_null_type(pointer) {
            Some(p) => p?,
            None => self.c_type(pointer)?,
        };
        let value = self.expr(argument, scope)?;
        let name = scope.bind(rust_name);
        self.note_type(&name, Some(ty), None, scope);
        Ok(Some(format!(
            "kl::option<{pointer}> {name} = kl::option_of_pointer<{pointer}>({value});\n"
        )))
    }
}
