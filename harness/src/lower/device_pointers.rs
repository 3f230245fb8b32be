//! The element type behind a pointer-wrapper field (`entries: DevicePointer<Entry>`): what
//! `self.entries.as_mut_ptr().add(i)` points at, through an `unsafe { .. }` block, so that a
//! trait method implemented for several types (`global_atomic_cas` of `u32` and `u64`) is
//! called on the receiver's own.

use super::receivers::type_name;
use super::{Context, Scope};
use syn::{Expr, GenericArgument, PathArguments, Type};

/// `Wrapper<T>`: its one type argument.
fn wrapped_element(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let PathArguments::AngleBracketed(args) = &p.path.segments.last()?.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let one = types.next()?;
    types.next().is_none().then_some(one)
}

fn unparen(mut e: &Expr) -> &Expr {
    while let Expr::Paren(p) = e {
        e = &p.expr;
    }
    e
}

/// The value an `unsafe { .. }` or plain block ends with.
fn block_tail(block: &syn::Block) -> Option<&Expr> {
    match block.stmts.last()? {
        syn::Stmt::Expr(e, None) => Some(e),
        _ => None,
    }
}

impl Context<'_> {
    /// The type of a value the other readers leave unknown: the tail of a block, or the
    /// element a wrapped pointer field points at.
    pub(super) fn wrapped_value_type(&self, e: &Expr, scope: &Scope) -> Option<String> {
        match unparen(e) {
            Expr::Unsafe(u) => self.value_type_of(block_tail(&u.block)?, scope),
            Expr::Block(b) if b.label.is_none() => self.value_type_of(block_tail(&b.block)?, scope),
            Expr::MethodCall(m) => {
                let method = m.method.to_string();
                match method.as_str() {
                    "as_ptr" | "as_mut_ptr" => self.wrapped_field_element(&m.receiver, scope),
                    "add" | "offset" | "sub" | "wrapping_add" | "wrapping_sub" | "wrapping_offset" => {
                        let Expr::MethodCall(inner) = unparen(&m.receiver) else {
                            return None;
                        };
                        matches!(inner.method.to_string().as_str(), "as_ptr" | "as_mut_ptr")
                            .then(|| self.wrapped_field_element(&inner.receiver, scope))
                            .flatten()
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `self.entries` declared `DevicePointer<Entry>`: `Entry` (a scalar alias read as its
    /// primitive).
    fn wrapped_field_element(&self, field: &Expr, scope: &Scope) -> Option<String> {
        let Expr::Field(f) = unparen(field) else { return None };
        let base = self.value_type_of(&f.base, scope)?;
        let path: syn::Path = syn::Ident::new(&base, proc_macro2::Span::call_site()).into();
        let (owner, fields) = self.layouts.struct_fields(&path)?;
        let member = match &f.member {
            syn::Member::Named(name) => name.to_string(),
            syn::Member::Unnamed(index) => index.index.to_string(),
        };
        let (_, ty) = fields.iter().find(|(name, _)| *name == member)?;
        let element = wrapped_element(ty)?;
        super::receivers::primitive_alias(&owner, element).or_else(|| type_name(element))
    }
}

impl Context<'_> {
    /// `if let Some(block) = grid.get_block_mut(id)`: the payload type of the `Option` the
    /// method returns, read before the binding shadows anything.
    pub(super) fn some_payload(&self, l: &syn::ExprLet, scope: &Scope) -> Option<(String, String, bool)> {
        let syn::Pat::TupleStruct(t) = &*l.pat else { return None };
        if !t.path.is_ident("Some") || t.elems.len() != 1 {
            return None;
        }
        let syn::Pat::Ident(binding) = &t.elems[0] else {
            return None;
        };
        let Expr::MethodCall(m) = unparen(&l.expr) else {
            return None;
        };
        let (payload, reference) = self.option_payload(m, scope)?;
        Some((binding.ident.to_string(), payload, reference))
    }

    /// Records the payload type on the binding once it is declared; a payload `&mut T` is a
    /// `T*` in C, read through with `->`.
    pub(super) fn note_some_payload(&self, payload: Option<(String, String, bool)>, scope: &mut Scope) {
        if let Some((binding, ty, reference)) = payload {
            let name = scope.lookup(&binding);
            if reference {
                scope.references.insert(name.clone());
            }
            scope.types.insert(name, ty);
        }
    }
}
