//! A constant holding a static's address cast to a pointer of its element type, possibly moved
//! on by a constant count: `(&raw const W as *const [f32; 2]).add(4)` of `W: [[f32; 2]; 4]`.
//! The cast address is that of the array's first element, so the constant is `(W.v + 4)`, an
//! address constant (one past the end included) that a `__device__` initializer accepts.

use super::ident;
use quote::ToTokens;
use syn::{Expr, Item, Type};

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

/// `&raw const S as *const U`: the static `S` and `U`.
fn cast_static(e: &Expr) -> Option<(String, &Type)> {
    let Expr::Cast(cast) = inner(e) else { return None };
    let Type::Ptr(ptr) = &*cast.ty else { return None };
    let name = match inner(&cast.expr) {
        Expr::RawAddr(r) if matches!(r.mutability, syn::PointerMutability::Const(_)) => match inner(&r.expr) {
            Expr::Path(p) => p.path.get_ident()?.to_string(),
            _ => return None,
        },
        _ => return None,
    };
    Some((name, &ptr.elem))
}

/// A count written as an integer literal.
fn literal_count(e: &Expr) -> Option<u64> {
    match inner(e) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i), ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}

fn same_type(a: &Type, b: &Type) -> bool {
    a.to_token_stream().to_string() == b.to_token_stream().to_string()
}

/// The C++ address constant of a constant's value, `None` when it is not of that shape.
pub(super) fn element_address(value: &Expr, items: &[&Item]) -> Option<String> {
    let (base, count) = match inner(value) {
        Expr::MethodCall(m) if m.method == "add" && m.args.len() == 1 => (&*m.receiver, literal_count(&m.args[0])?),
        other => (other, 0),
    };
    let (name, pointee) = cast_static(base)?;
    let stat = items.iter().find_map(|i| match i {
        Item::Static(s) if s.ident == name && matches!(s.mutability, syn::StaticMutability::None) => Some(s),
        _ => None,
    })?;
    let Type::Array(array) = &*stat.ty else { return None };
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Int(len),
        ..
    }) = &array.len
    else {
        return None;
    };
    let len: u64 = len.base10_parse().ok()?;
    // Only the element type keeps the stride; one past the end is the last address formed.
    if !same_type(&array.elem, pointee) || count > len {
        return None;
    }
    Some(format!("({}.v + {count})", ident(&name)))
}
