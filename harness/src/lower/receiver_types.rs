//! More receivers whose type the source shows: an element of a raw pointer (`&mut *p.add(i)`),
//! the value of an `Option` a method returns (`grid.get_node_mut(id).unwrap()`), and a field
//! declared with a scalar alias (`mass: Real`), so that a trait method implemented for several
//! types (`global_atomic_add` of `u32`, `u64`, `f32`) is called on the receiver's own.

use super::receivers::type_name;
use super::{Context, Scope};
use kernel_lint_analyzer::model::items::Target;
use kernel_lint_analyzer::model::layout;
use syn::{Expr, GenericArgument, PathArguments, Type};

const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "bool",
];

/// The primitive a type names through aliases (`type Real = f32;`), read in `owner`.
pub(super) fn primitive_alias(owner: &layout::Scope<'_>, ty: &Type) -> Option<String> {
    let mut ty = ty.clone();
    let mut module = owner.module.clone();
    for _ in 0..8 {
        let Type::Path(p) = &ty else { return None };
        let segments: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let [one] = segments.as_slice() {
            if PRIMITIVES.contains(&one.as_str()) {
                return Some(one.clone());
            }
        }
        let target = owner.index.resolve(&module, &segments)?;
        let (at, alias) = owner.index.alias(&target)?;
        if !matches!(target, Target::Item(..)) {
            return None;
        }
        module = at.clone();
        ty = (*alias.ty).clone();
    }
    None
}

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
