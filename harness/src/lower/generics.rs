//! Helpers generic over constants, lowered once per constant they are called with
//! (`blur::<8>(..)` calls the copy `blur_8`, in which `N` is `8`), and the associated types
//! of trait impls for concrete types (`<Bit<8> as Sample>::Type` is the `type Type` of
//! `impl Sample for Bit<8>`).

use super::{Context, Lowered};
use proc_macro2::{Group, Literal, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::HashSet;
use syn::visit::Visit;
use syn::{Expr, GenericArgument, GenericParam, Item, PathArguments, Type};

/// The copies of the const-generic helpers among `helpers` that the kernels and helpers call
/// with literal constants, and those the copies call in turn, each with the call it stands for
/// (`blur::<8>`); a copy's name is unlike any function's of the file.
pub(super) fn instances(helpers: &[&syn::ItemFn], kernels: &[&syn::ItemFn]) -> Vec<(String, syn::ItemFn)> {
    let generic: Vec<&syn::ItemFn> = helpers.iter().copied().filter(|f| const_generic(f)).collect();
    if generic.is_empty() {
        return Vec::new();
    }
    let mut taken: HashSet<String> = helpers.iter().chain(kernels).map(|f| f.sig.ident.to_string()).collect();
    let mut calls = Calls::default();
    for f in kernels.iter().chain(helpers.iter().filter(|f| !const_generic(f))) {
        calls.visit_item_fn(f);
    }
    let mut done = HashSet::new();
    let mut out = Vec::new();
    while let Some((name, values)) = calls.found.pop() {
        let Some(f) = generic.iter().find(|f| f.sig.ident == name.as_str()) else {
            continue;
        };
        let key = instance_key(&name, &values);
        if f.sig.generics.params.len() != values.len() || !done.insert(key.clone()) {
            continue;
        }
        let mut c_name = format!("{name}_{}", values.join("_"));
        while !taken.insert(c_name.clone()) {
            c_name.push('_');
        }
        if let Some(copy) = instantiate(f, &values, &c_name) {
            calls.visit_item_fn(&copy);
            out.push((key, copy));
        }
    }
    out
}

/// The call a path such as `blur::<8>` stands for, when its arguments are literals.
pub(super) fn instance_call(path: &syn::Path) -> Option<String> {
    let last = path.segments.last()?;
    let values = literal_arguments(&last.arguments)?;
    Some(instance_key(&last.ident.to_string(), &values))
}

fn instance_key(name: &str, values: &[String]) -> String {
    format!("{name}::<{}>", values.join(", "))
}

/// Whether every generic parameter of `f` is a constant.
fn const_generic(f: &syn::ItemFn) -> bool {
    !f.sig.generics.params.is_empty()
        && f.sig
            .generics
            .params
            .iter()
            .all(|p| matches!(p, GenericParam::Const(_)))
}

/// `::<8, 16>` as its integer literals.
fn literal_arguments(arguments: &PathArguments) -> Option<Vec<String>> {
    let PathArguments::AngleBracketed(args) = arguments else {
        return None;
    };
    args.args
        .iter()
        .map(|a| match a {
            GenericArgument::Const(Expr::Lit(l)) => match &l.lit {
                syn::Lit::Int(i) => Some(i.base10_digits().to_string()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Calls with literal generic arguments.
#[derive(Default)]
struct Calls {
    found: Vec<(String, Vec<String>)>,
}

impl<'ast> Visit<'ast> for Calls {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*c.func {
            if let Some(last) = p.path.segments.last() {
                if let Some(values) = literal_arguments(&last.arguments) {
                    self.found.push((last.ident.to_string(), values));
                }
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
}

/// `f` with its constants replaced by `values`, named `name`. The tokens keep their spans, so
/// that `#line` directives still name the generic function's lines.
fn instantiate(f: &syn::ItemFn, values: &[String], name: &str) -> Option<syn::ItemFn> {
    let params: Vec<String> = f
        .sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Const(c) => Some(c.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut plain = f.clone();
    plain.sig.generics = syn::Generics::default();
    plain.sig.ident = syn::Ident::new(name, f.sig.ident.span());
    let tokens = substitute(plain.to_token_stream(), &params, values);
    syn::parse2(tokens).ok()
}

fn substitute(tokens: TokenStream, params: &[String], values: &[String]) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Ident(i) => match params.iter().position(|p| i == p.as_str()) {
                Some(k) => {
                    let mut value: Literal = values[k].parse().unwrap_or_else(|_| Literal::usize_unsuffixed(0));
                    value.set_span(i.span());
                    TokenTree::Literal(value)
                }
                None => TokenTree::Ident(i),
            },
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), substitute(g.stream(), params, values));
                inner.set_span(g.span());
                TokenTree::Group(inner)
            }
            other => other,
        })
        .collect()
}

impl Context<'_> {
    /// `<Bit<8> as Sample>::Type`: the type the impl of the trait for that type gives, looked
    /// up in the file being lowered, then in the others.
    pub(super) fn associated_type(&self, ty: &Type, qself: &syn::QSelf, path: &syn::Path) -> Lowered<String> {
        let text = self.text(ty);
        let (Some(trait_segment), Some(assoc)) = (
            qself.position.checked_sub(1).and_then(|i| path.segments.get(i)),
            path.segments.last(),
        ) else {
            return self.fail(ty, format!("type `{text}` has no CUDA C equivalent here"));
        };
        let self_ty = qself.ty.to_token_stream().to_string();
        let order = std::iter::once(self.here).chain((0..self.workspace.files.len()).filter(|&i| i != self.here));
        for file in order {
            let Some(syntax) = self.workspace.syntax.get(file).copied().flatten() else {
                continue;
            };
            if let Some(found) = impl_type(&syntax.items, &trait_segment.ident, &self_ty, &assoc.ident) {
                if file != self.here && !is_primitive(&found) {
                    return self.fail(ty, format!("associated type `{text}` is defined in another file"));
                }
                return self.c_type(&found);
            }
        }
        self.fail(
            ty,
            format!(
                "associated type `{text}`: no impl of `{}` for `{}` is known",
                trait_segment.ident,
                self_ty.replace(' ', "")
            ),
        )
    }
}

fn is_primitive(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.get_ident().is_some_and(|i| Context::primitive(&i.to_string()).is_some()))
}

/// The `type assoc = ..;` of `impl trait_name for self_ty`, in any module of `items`.
fn impl_type(items: &[Item], trait_name: &syn::Ident, self_ty: &str, assoc: &syn::Ident) -> Option<Type> {
    items.iter().find_map(|item| match item {
        Item::Mod(m) => impl_type(&m.content.as_ref()?.1, trait_name, self_ty, assoc),
        Item::Impl(i) => {
            let (_, trait_path, _) = i.trait_.as_ref()?;
            if trait_path.segments.last()?.ident != *trait_name || i.self_ty.to_token_stream().to_string() != self_ty {
                return None;
            }
            i.items.iter().find_map(|member| match member {
                syn::ImplItem::Type(t) if t.ident == *assoc => Some(t.ty.clone()),
                _ => None,
            })
        }
        _ => None,
    })
}
