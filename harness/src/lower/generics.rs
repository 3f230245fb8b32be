//! Helpers generic over constants, lowered once per constant they are called with
//! (`blur::<8>(..)` calls the copy `blur_8`, in which `N` is `8`), and the associated types
//! of trait impls for concrete types (`<Bit<8> as Sample>::Type` is the `type Type` of
//! `impl Sample for Bit<8>`).

use super::{Context, Lowered};
use proc_macro2::TokenStream;
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
    // A kernel still generic has no launch to instantiate it: its calls name its parameters.
    let concrete_kernels = kernels.iter().filter(|f| !super::launch_instances::is_generic(f));
    for f in concrete_kernels.chain(helpers.iter().filter(|f| !const_generic(f))) {
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
        let words: Vec<&str> = values
            .iter()
            .flat_map(|v| v.split(|c: char| !c.is_ascii_alphanumeric()))
            .filter(|w| !w.is_empty())
            .collect();
        let mut c_name = format!("{name}_{}", words.join("_"));
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

/// Whether `f` is generic over constants or types only.
fn const_generic(f: &syn::ItemFn) -> bool {
    !f.sig.generics.params.is_empty()
        && f.sig
            .generics
            .params
            .iter()
            .all(|p| matches!(p, GenericParam::Const(_) | GenericParam::Type(_)))
}

/// `::<8, 16>` as its integer literals, `::<f32, Limited>` as its types.
pub(super) fn literal_arguments(arguments: &PathArguments) -> Option<Vec<String>> {
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
            GenericArgument::Type(t) if !matches!(t, Type::Infer(_)) => {
                Some(t.to_token_stream().to_string().replace(' ', ""))
            }
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
    // `apply_once(add_const::<9>, x)`: a copy passed as a function value.
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let (None, [only]) = (&p.qself, p.path.segments.iter().collect::<Vec<_>>().as_slice()) {
            if let Some(values) = literal_arguments(&only.arguments) {
                self.found.push((only.ident.to_string(), values));
            }
        }
        syn::visit::visit_expr_path(self, p);
    }
}

/// `f` with its constants and types replaced by `values`, named `name`. The tokens keep their
/// spans, so that `#line` directives still name the generic function's lines.
pub(super) fn instantiate(f: &syn::ItemFn, values: &[String], name: &str) -> Option<syn::ItemFn> {
    let params: Vec<String> = f
        .sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            GenericParam::Const(c) => Some(c.ident.to_string()),
            GenericParam::Type(t) => Some(t.ident.to_string()),
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    let values: Vec<TokenStream> = values.iter().map(|v| v.parse().ok()).collect::<Option<_>>()?;
    let mut plain = f.clone();
    // The where clause stays: the bounds the copy's calls of generic trait functions are met by.
    let where_clause = plain.sig.generics.where_clause.take();
    plain.sig.generics = syn::Generics::default();
    plain.sig.generics.where_clause = where_clause;
    plain.sig.ident = syn::Ident::new(name, f.sig.ident.span());
    let tokens = super::substitution::substitute(plain.to_token_stream(), &params, &values);
    syn::parse2(tokens).ok()
}

impl Context<'_> {
    /// Why a path type naming a struct of the file generic over types or constants has no C
    /// type, with its arguments as the instantiation gives them (`Tagged<u32, On>`).
    pub(super) fn generic_struct(&self, ty: &Type) -> Option<String> {
        let Type::Path(p) = ty else { return None };
        let last = p.path.segments.last()?;
        if last.arguments.is_none() {
            return None;
        }
        let syntax = self.workspace.syntax.get(self.here).copied().flatten()?;
        let mut items = Vec::new();
        super::compiled::compiled_items(&syntax.items, &self.layouts, &mut items);
        items.iter().find_map(|i| match i {
            Item::Struct(s)
                if s.ident == last.ident
                    && s.generics
                        .params
                        .iter()
                        .any(|g| !matches!(g, GenericParam::Lifetime(_))) =>
            {
                Some(format!(
                    "generic struct `{}` (`{}`) is not lowered",
                    s.ident,
                    ty.to_token_stream().to_string().replace(' ', "").replace(',', ", ")
                ))
            }
            _ => None,
        })
    }

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
