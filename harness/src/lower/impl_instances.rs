//! Methods of an impl of one instance of a generic struct (`impl Wrapper<Vec2> { .. }`): the
//! receiver and every `Self` are that instance (`Wrapper_Vec2`), not the bare generic name,
//! which has no C struct.

use super::Context;
use kernel_lint_analyzer::model::items::FunctionRef;
use syn::visit_mut::VisitMut;
use syn::{GenericParam, ImplItem, Item, Type};

/// The impls of `items` and of their inline modules.
fn impls<'s>(items: &'s [Item], out: &mut Vec<&'s syn::ItemImpl>) {
    for item in items {
        match item {
            Item::Impl(i) => out.push(i),
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    impls(inner, out);
                }
            }
            _ => {}
        }
    }
}

impl Context<'_> {
    /// The one inherent impl of the method's file that defines it; `None` when there are several
    /// or none.
    pub(super) fn owning_impl(&self, function: &FunctionRef<'_>) -> Option<&syn::ItemImpl> {
        let self_type = function.self_type?;
        let syntax = self.workspace.syntax.get(function.file).copied().flatten()?;
        let mut all = Vec::new();
        impls(&syntax.items, &mut all);
        let mut found = all.into_iter().filter(|i| {
            i.trait_.is_none()
                && matches!(&*i.self_ty, Type::Path(p) if p.qself.is_none()
                    && p.path.segments.last().is_some_and(|s| s.ident == self_type))
                && i.items
                    .iter()
                    .any(|ii| matches!(ii, ImplItem::Fn(f) if f.sig.ident == function.name.as_str()))
        });
        match (found.next(), found.next()) {
            (Some(owner), None) => Some(owner),
            _ => None,
        }
    }

    /// `Wrapper<Vec2>` for a method of `impl Wrapper<Vec2>`: an inherent impl with no
    /// parameters of its own whose self type gives its arguments. `None` for any other.
    pub(super) fn concrete_self_type(&self, function: &FunctionRef<'_>) -> Option<Type> {
        let owner = self.owning_impl(function)?;
        if owner
            .generics
            .params
            .iter()
            .any(|g| !matches!(g, GenericParam::Lifetime(_)))
        {
            return None;
        }
        let Type::Path(p) = &*owner.self_ty else { return None };
        let last = p.path.segments.last()?;
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
            return None;
        };
        if args.args.iter().all(|a| matches!(a, syn::GenericArgument::Lifetime(_))) {
            return None;
        }
        Some((*owner.self_ty).clone())
    }
}

/// Each bare `Self` of the method (a type, a literal, a constructor) as the instance
/// `Wrapper::<Vec2>`; `Self::item` paths are left to the name-only rewrite.
pub(super) fn write_self(item: &mut syn::ItemFn, instance: &Type) {
    let Type::Path(p) = instance else { return };
    let Some(mut segment) = p.path.segments.last().cloned() else {
        return;
    };
    if let syn::PathArguments::AngleBracketed(args) = &mut segment.arguments {
        args.colon2_token = Some(Default::default());
    }
    InstanceSelf(segment).visit_item_fn_mut(item);
}

struct InstanceSelf(syn::PathSegment);

impl VisitMut for InstanceSelf {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.segments.len() == 1 && path.segments[0].ident == "Self" {
            path.segments[0] = self.0.clone();
            return;
        }
        syn::visit_mut::visit_path_mut(self, path);
    }
}

/// The receiver's type of a method lowered for `self_type`, which names either the struct
/// (`Wrapper`) or one instance of it (`Wrapper < Vec2 >`).
pub(super) fn receiver_type(self_type: &str) -> Type {
    let bare = || {
        Type::Path(syn::TypePath {
            qself: None,
            path: quote::format_ident!("{}", self_type).into(),
        })
    };
    if !self_type.contains('<') {
        return bare();
    }
    // Spans of parsed text point into that text, not the file: they would quote the wrong
    // source in a reason.
    match self_type.parse::<proc_macro2::TokenStream>() {
        Ok(tokens) => syn::parse2(call_site(tokens)).unwrap_or_else(|_| bare()),
        Err(_) => bare(),
    }
}

/// The tokens with every span at the call site.
fn call_site(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    use proc_macro2::{Group, Span, TokenTree};
    tokens
        .into_iter()
        .map(|mut t| {
            if let TokenTree::Group(g) = &t {
                t = TokenTree::Group(Group::new(g.delimiter(), call_site(g.stream())));
            }
            t.set_span(Span::call_site());
            t
        })
        .collect()
}

/// The struct's own name in `self_type` (`Wrapper` of `Wrapper < Vec2 >`), which the scope
/// records as the receiver's type for method look-ups.
pub(super) fn owner_name(self_type: &str) -> String {
    match receiver_type(self_type) {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default(),
        _ => self_type.to_string(),
    }
}
