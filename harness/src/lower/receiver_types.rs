//! More receivers whose type the source shows: an element of a raw pointer (`&mut *p.add(i)`),
//! the value of an `Option` a method returns (`grid.get_node_mut(id).unwrap()`), and a field
//! declared with a scalar alias (`mass: Real`), so that a trait method implemented for several
//! types (`global_atomic_add` of `u32`, `u64`, `f32`) is called on the receiver's own.

use super::receivers::type_name;
use super::{Context, Scope};
use syn::{Expr, GenericArgument, PathArguments, Type};

impl Context<'_> {
    /// `p.add(i)` of a raw pointer: its pointee; `x.unwrap()` of a method returning
    /// `Option<T>`: `T`.
    pub(super) fn pointee_or_payload(&self, m: &syn::ExprMethodCall, scope: &Scope) -> Option<String> {
        let method = m.method.to_string();
        match method.as_str() {
            "add" | "offset" | "sub" | "wrapping_add" | "wrapping_sub" | "wrapping_offset"
                if Self::names_raw_pointer(&m.receiver, scope) =>
            {
                self.value_type_of(&m.receiver, scope)
            }
            "unwrap" | "expect" | "unwrap_unchecked" => {
                let Expr::MethodCall(inner) = &*m.receiver else {
                    return None;
                };
                self.option_payload(inner, scope).map(|(name, _)| name)
            }
            _ => None,
        }
    }

    /// The payload of the `Option` a method of the workspace returns: the type's name, and
    /// whether it is a reference.
    pub(super) fn option_payload(&self, m: &syn::ExprMethodCall, scope: &Scope) -> Option<(String, bool)> {
        let owner = self.value_type_of(&m.receiver, scope)?;
        let name = m.method.to_string();
        let mut found = self
            .layouts
            .index
            .methods_named(&name, self.layouts.module)
            .filter(|f| f.self_type == Some(owner.as_str()));
        let f = found.next()?;
        if found.next().is_some() {
            return None;
        }
        let syn::ReturnType::Type(_, ty) = &f.sig.output else {
            return None;
        };
        let Type::Path(p) = &**ty else { return None };
        let last = p.path.segments.last()?;
        if last.ident != "Option" {
            return None;
        }
        let PathArguments::AngleBracketed(args) = &last.arguments else {
            return None;
        };
        let GenericArgument::Type(payload) = args.args.first()? else {
            return None;
        };
        let reference = matches!(payload, Type::Reference(_));
        match type_name(payload)? {
            n if n == "Self" => Some((owner, reference)),
            n => Some((n, reference)),
        }
    }
}
