//! A struct of the kernel's file generic over types or constants, as one C struct per
//! instantiation (`Tagged<u32, On>` as `Tagged_u32_On`): its fields with the arguments put in,
//! less the `PhantomData` markers, which take no bytes.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, GenericParam, Item, Stmt, Type};

/// `Tagged_u32_On` for `Tagged<u32, On>`: the name and the arguments' words.
fn instance_name(ty: &Type) -> String {
    let text = ty.to_token_stream().to_string();
    let words: Vec<&str> = text
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .collect();
    words.join("_")
}

/// Whether a struct or union of the file has a field whose type names `generic`.
fn own_struct_contains(items: &[&Item], generic: &syn::Ident) -> bool {
    let generic = generic.to_string();
    let names = |ty: &Type| {
        let text = ty.to_token_stream().to_string();
        text.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|w| w == generic)
    };
    items.iter().any(|i| match i {
        Item::Struct(s) => s.fields.iter().any(|f| names(&f.ty)),
        Item::Union(u) => u.fields.named.iter().any(|f| names(&f.ty)),
        _ => false,
    })
}

impl Context<'_> {
    /// The C struct of one instantiation of a generic struct of the kernel's file, defined once
    /// ahead of the file's own items; `None` when `ty` names no such struct.
    pub(super) fn generic_struct_instance(&self, ty: &Type) -> Lowered<Option<String>> {
        let Type::Path(p) = ty else { return Ok(None) };
        let Some(last) = p.path.segments.last() else {
            return Ok(None);
        };
        let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else {
            return Ok(None);
        };
        let Some(syntax) = self.workspace.syntax.get(self.here).copied().flatten() else {
            return Ok(None);
        };
        let mut items = Vec::new();
        super::compiled::compiled_items(&syntax.items, &self.layouts, &mut items);
        let Some(def) = items.iter().find_map(|i| match i {
            Item::Struct(s) if s.ident == last.ident => Some(s),
            _ => None,
        }) else {
            return Ok(None);
        };
        let params = generic_names(&def.generics);
        let values = generic_values(arguments);
        if params.is_empty() || params.len() != values.len() {
            return Ok(None);
        }
        let mut instance = match instantiate(def, &params, &values) {
            Ok(Some(instance)) => instance,
            Ok(None) => return Ok(None),
            Err(why) => return self.fail(ty, why),
        };
        // An instance naming the file's own structs is defined after them, which the file's
        // own structs then may not contain; any other is defined ahead of them.
        let mut area = super::items::Area::Early;
        for field in &instance.fields {
            if let Type::Path(fp) = &field.ty {
                if self.structs.contains(&last_segment(&fp.path)) {
                    if !own_struct_contains(&items, &def.ident) {
                        area = super::items::Area::Late;
                        continue;
                    }
                    return self.fail(
                        ty,
                        format!(
                            "generic struct `{}`: a field of the file's own struct `{}` is not lowered",
                            def.ident,
                            last_segment(&fp.path)
                        ),
                    );
                }
            }
        }
        let wanted = instance_name(ty);
        // Keyed by the defining module: every module of the file that names the instance
        // shares one C struct.
        let owner = match self.layouts.resolve(&p.path) {
            Some(kernel_lint_analyzer::model::items::Target::Item(module, _)) => module,
            _ => self.layouts.module.clone(),
        };
        let key = ("struct", owner, wanted);
        self.require(ty, key, area, |name| {
            instance.ident = syn::Ident::new(name, def.ident.span());
            Ok((String::new(), self.lower_struct(&instance)?))
        })
        .map(Some)
    }
}

impl Context<'_> {
    /// `{v}` for `Tagged::new(v)` assigned to a place: a constructor of a generic struct of the
    /// workspace whose body is one `Self { .. }` literal of its parameters, in their order, and
    /// markers. The place's type gives the instantiation, so the brace list needs no name.
    pub(super) fn generic_constructor(&self, e: &Expr, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Call(call) = e else { return Ok(None) };
        let Expr::Path(path) = &*call.func else { return Ok(None) };
        if path.path.segments.len() < 2 {
            return Ok(None);
        }
        let Some(target) = self.layouts.resolve(&path.path) else {
            return Ok(None);
        };
        let Some(function) = self.layouts.index.function(&target) else {
            return Ok(None);
        };
        let Some(self_type) = function.self_type else {
            return Ok(None);
        };
        let owner_path: syn::Path = syn::Ident::new(self_type, path.span()).into();
        let Some(owner) = self.layouts.struct_fields(&owner_path) else {
            return Ok(None);
        };
        if !self.file_generic_struct(self_type) {
            return Ok(None);
        }
        let [Stmt::Expr(Expr::Struct(built), None)] = function.block.stmts.as_slice() else {
            return Ok(None);
        };
        if built.rest.is_some() || !built.path.is_ident("Self") {
            return Ok(None);
        }
        let params: Vec<String> = function
            .sig
            .inputs
            .iter()
            .filter_map(|i| match i {
                syn::FnArg::Typed(t) => match &*t.pat {
                    syn::Pat::Ident(p) => Some(p.ident.to_string()),
                    _ => None,
                },
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        if params.len() != function.sig.inputs.len() || params.len() != call.args.len() {
            return Ok(None);
        }
        // Each field, in the struct's order, takes the next parameter: the arguments are then
        // evaluated in their Rust order.
        let mut values = Vec::new();
        for (field, field_ty) in &owner.1 {
            let given = built
                .fields
                .iter()
                .find(|f| matches!(&f.member, syn::Member::Named(n) if n == field));
            let Some(given) = given else { return Ok(None) };
            if super::types::is_marker(field_ty) {
                continue;
            }
            let Expr::Path(value) = &given.expr else {
                return Ok(None);
            };
            if !value.path.is_ident(&params[values.len().min(params.len() - 1)]) || values.len() >= params.len() {
                return Ok(None);
            }
            values.push(self.expr(&call.args[values.len()], scope)?);
        }
        if values.len() != params.len() {
            return Ok(None);
        }
        Ok(Some(format!("{{{}}}", values.join(", "))))
    }
}

impl Context<'_> {
    /// Whether the kernel's file defines a struct `name` generic over types or constants.
    fn file_generic_struct(&self, name: &str) -> bool {
        let Some(syntax) = self.workspace.syntax.get(self.here).copied().flatten() else {
            return false;
        };
        let mut items = Vec::new();
        super::compiled::compiled_items(&syntax.items, &self.layouts, &mut items);
        items.iter().any(|i| {
            matches!(i, Item::Struct(s) if s.ident == name
                && s.generics.params.iter().any(|g| !matches!(g, GenericParam::Lifetime(_))))
        })
    }
}

impl Context<'_> {
    /// The C struct of one instantiation of a generic struct of another file (`Uniform<u32>`
    /// as `Uniform_u32`): its fields with the arguments put in, less the markers. Only
    /// arguments that mean the same in both files are put in: scalars and constants.
    pub(super) fn foreign_struct_instance(
        &self,
        ty: &Type,
        module: &kernel_lint_analyzer::ModulePath,
        def: &syn::ItemStruct,
        area: super::items::Area,
    ) -> Lowered<String> {
        let refused = || format!("generic struct `{}` is not lowered", def.ident);
        if let Some(c) = self.class_template(ty, module, def)? {
            return Ok(c);
        }
        let Type::Path(p) = ty else {
            return self.fail(ty, refused());
        };
        let Some(syn::PathArguments::AngleBracketed(arguments)) = p.path.segments.last().map(|s| &s.arguments) else {
            return self.fail(ty, format!("{}: its arguments are not written here", refused()));
        };
        let params = generic_names(&def.generics);
        let mut values = Vec::new();
        for a in &arguments.args {
            let value = match a {
                syn::GenericArgument::Lifetime(_) => continue,
                syn::GenericArgument::Type(Type::Path(t)) if t.qself.is_none() => {
                    match t.path.get_ident() {
                        Some(i) if Self::primitive(&i.to_string()).is_some() => Some(t.to_token_stream()),
                        // A constant argument written as a path (`N`) reads as a type.
                        _ => self
                            .layouts
                            .const_named(&t.path)
                            .map(|v| v.to_string().parse().unwrap_or_default()),
                    }
                }
                syn::GenericArgument::Const(e) => self
                    .layouts
                    .const_value(e)
                    .map(|v| v.to_string().parse().unwrap_or_default()),
                _ => None,
            };
            match value {
                Some(v) => values.push(v),
                None => return self.fail(ty, format!("{}: argument `{}`", refused(), self.text(a))),
            }
        }
        if params.len() != values.len() {
            return self.fail(ty, refused());
        }
        let mut instance = match instantiate(def, &params, &values) {
            Ok(Some(instance)) => instance,
            Ok(None) => return self.fail(ty, refused()),
            Err(why) => return self.fail(ty, why),
        };
        let mut words = vec![def.ident.to_string()];
        words.extend(
            values
                .iter()
                .map(|v| v.to_string().replace(|c: char| !c.is_ascii_alphanumeric(), "_")),
        );
        let key = ("struct", module.clone(), words.join("_"));
        self.require(ty, key, area, |name| {
            let inner = self
                .within(module)
                .ok_or_else(|| (self.span(ty), "no file".to_string()))?;
            instance.ident = syn::Ident::new(name, def.ident.span());
            Ok((String::new(), inner.lower_struct(&instance)?))
        })
    }
}

/// The written generic arguments, lifetimes left out, as tokens.
pub(super) fn generic_values(arguments: &syn::AngleBracketedGenericArguments) -> Vec<TokenStream> {
    arguments
        .args
        .iter()
        .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)))
        .map(|a| match a {
            syn::GenericArgument::Const(e) => e.to_token_stream(),
            other => other.to_token_stream(),
        })
        .collect()
}

/// The names a generic item's type and const parameters bind, in order.
pub(super) fn generic_names(generics: &syn::Generics) -> Vec<String> {
    generics
        .params
        .iter()
        .filter_map(|g| match g {
            GenericParam::Type(t) => Some(t.ident.to_string()),
            GenericParam::Const(c) => Some(c.ident.to_string()),
            GenericParam::Lifetime(_) => None,
        })
        .collect()
}

/// A generic struct with its parameters replaced by `values` and its `PhantomData` fields
/// dropped (they take no room); none for a unit struct.
fn instantiate(
    def: &syn::ItemStruct,
    params: &[String],
    values: &[TokenStream],
) -> Result<Option<syn::ItemStruct>, &'static str> {
    let mut instance = def.clone();
    instance.generics = syn::Generics::default();
    let fields = match &mut instance.fields {
        syn::Fields::Named(named) => &mut named.named,
        syn::Fields::Unnamed(unnamed) => {
            if unnamed.unnamed.iter().any(|f| super::types::is_marker(&f.ty)) {
                return Err("a tuple struct with a `PhantomData` field is not lowered");
            }
            &mut unnamed.unnamed
        }
        syn::Fields::Unit => return Ok(None),
    };
    *fields = fields
        .iter()
        .filter(|f| !super::types::is_marker(&f.ty))
        .map(|f| {
            let mut f = f.clone();
            let tokens = super::substitution::substitute(f.ty.to_token_stream(), params, values);
            f.ty = syn::parse2(tokens).unwrap_or(f.ty);
            f
        })
        .collect();
    Ok(Some(instance))
}
