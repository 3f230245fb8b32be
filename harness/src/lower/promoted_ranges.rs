//! `let r: &Range<u64> = &(8..16);`: Rust promotes a constant range to memory and reads its
//! ends there, so the twin names a `__device__` copy of it and reads through the reference.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::{Expr, Type};

/// `kl::range<T>` and `kl::promoted_range<T, S, E>`: one `__device__` object per range.
#[macro_export]
#[doc(hidden)]
macro_rules! promoted_ranges_prelude {
    () => {
        r#"namespace kl {
template <typename T> struct range { T start; T end; };
template <typename T, T S, T E> __device__ const range<T> promoted_range = {S, E};
}
"#
    };
}

/// `Range<T>` (any path to it): `T`.
fn range_element(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    if last_segment(&p.path) != "Range" {
        return None;
    }
    match &p.path.segments.last()?.arguments {
        syn::PathArguments::AngleBracketed(a) => match a.args.iter().collect::<Vec<_>>()[..] {
            [syn::GenericArgument::Type(t)] => Some(t),
            _ => None,
        },
        _ => None,
    }
}

fn without_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => without_parens(&p.expr),
        other => other,
    }
}

impl Context<'_> {
    /// `let r: &Range<T> = &(a..b);` of constant integer ends.
    pub(super) fn promoted_range_local(
        &self,
        rust_name: &str,
        ty: Option<&Type>,
        init: &Expr,
        scope: &mut Scope,
    ) -> Lowered<Option<String>> {
        let Some(Type::Reference(reference)) = ty else {
            return Ok(None);
        };
        let Some(element) = range_element(&reference.elem) else {
            return Ok(None);
        };
        let Expr::Reference(r) = init else { return Ok(None) };
        let Expr::Range(range) = without_parens(&r.expr) else {
            return Ok(None);
        };
        if r.mutability.is_some() || !matches!(range.limits, syn::RangeLimits::HalfOpen(_)) {
            return Ok(None);
        }
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            return Ok(None);
        };
        let integer = matches!(element, Type::Path(p) if p.path.get_ident().is_some_and(|i| matches!(
            i.to_string().as_str(),
            "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize"
        )));
        if !integer || !super::types::is_constant_expression(start) || !super::types::is_constant_expression(end) {
            return self.fail(init, "a reference to a range is lowered for constant integer ends");
        }
        let element = self.c_type(element)?;
        let start = self.expr(start, scope)?;
        let end = self.expr(end, scope)?;
        let name = scope.bind(rust_name);
        scope.references.insert(name.clone());
        Ok(Some(format!(
            "const kl::range<{element}>* {name} = &kl::promoted_range<{element}, {start}, {end}>;\n"
        )))
    }
}
