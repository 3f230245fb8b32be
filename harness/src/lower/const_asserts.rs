//! `const CHECK: () = assert!(..);` and its use `let () = Self::CHECK;`: a check rustc makes
//! while it monomorphizes, so a kernel that compiled passed it; the value is `()`. Such checks
//! guard the parameters of const-generic types, whose associated functions name them.

use syn::Expr;

/// Whether a constant's initializer is a compile-time assertion (`assert!` and the like).
pub(super) fn is_const_assertion(e: &Expr) -> bool {
    match e {
        Expr::Macro(m) => m
            .mac
            .path
            .segments
            .last()
            .is_some_and(|s| matches!(s.ident.to_string().as_str(), "assert" | "assert_eq" | "assert_ne")),
        Expr::Block(b) => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => is_const_assertion(inner),
            [syn::Stmt::Macro(m)] => m
                .mac
                .path
                .segments
                .last()
                .is_some_and(|s| matches!(s.ident.to_string().as_str(), "assert" | "assert_eq" | "assert_ne")),
            _ => false,
        },
        Expr::Paren(p) => is_const_assertion(&p.expr),
        _ => false,
    }
}

/// `Swizzle::<5, 0, 5>::apply`: the function's body names the type's const parameters, which
/// a helper lowered once for the type does not define.
pub(super) fn const_generic_owner(path: &syn::Path) -> Option<String> {
    let n = path.segments.len();
    let owner = path.segments.iter().take(n.saturating_sub(1)).find(|s| {
        matches!(&s.arguments, syn::PathArguments::AngleBracketed(a)
            if a.args.iter().any(|g| matches!(g, syn::GenericArgument::Const(_))
                || matches!(g, syn::GenericArgument::Type(syn::Type::Path(t)) if t.path.segments.is_empty())))
    })?;
    let text = quote::ToTokens::to_token_stream(path).to_string().replace(' ', "");
    Some(format!(
        "`{text}`: an associated function of a const-generic type `{}` is not lowered",
        owner.ident
    ))
}
