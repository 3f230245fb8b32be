//! Associated functions and constants of trait impls for concrete types, resolved through the
//! impls of the workspace: `Bitdepth::<8>::conv_to_f(v)` calls the impl's `conv_to_f`, or the
//! trait's default body when the impl has none, lowered once for that type with `Self` being
//! it; `<Bitdepth<8>>::MAX_VALUE` is the impl's constant.

use super::{Context, Lowered};
use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::{Expr, ImplItem, Item, TraitItem};

/// An `impl Trait for Type` of the workspace, with the module it is written in.
struct TraitImpl<'a> {
    trait_name: String,
    module: Vec<String>,
    item: &'a syn::ItemImpl,
}

/// A type as comparable text: `Bitdepth::<8>` and `Bitdepth<8>` are one type.
fn normalize(tokens: TokenStream) -> String {
    tokens.to_string().replace(' ', "").replace("::<", "<")
}

/// What `Type::name` or `<Type as Trait>::name` names: the type and, when written, the trait.
fn split(p: &syn::ExprPath) -> Option<(TokenStream, Option<String>, String)> {
    let last = p.path.segments.last()?;
    if !matches!(
        last.arguments,
        syn::PathArguments::None | syn::PathArguments::AngleBracketed(_)
    ) {
        return None;
    }
    let name = last.ident.to_string();
    if let Some(q) = &p.qself {
        let trait_name = q
            .position
            .checked_sub(1)
            .and_then(|i| p.path.segments.get(i))
            .map(|s| s.ident.to_string());
        return (p.path.segments.len() == q.position + 1).then(|| (q.ty.to_token_stream(), trait_name, name));
    }
    if p.path.segments.len() < 2 {
        return None;
    }
    let ty: Vec<_> = p.path.segments.iter().take(p.path.segments.len() - 1).collect();
    Some((quote!(#(#ty)::*), None, name))
}

impl<'a> Context<'a> {
    /// The impls of traits for the type `ty` anywhere in the workspace.
    fn trait_impls(&self, ty: &str, trait_name: Option<&str>) -> Vec<TraitImpl<'a>> {
        fn walk<'a>(items: &'a [Item], module: Vec<String>, out: &mut Vec<TraitImpl<'a>>) {
            for item in items {
                match item {
                    Item::Mod(m) => {
                        if let Some((_, inner)) = &m.content {
                            let mut nested = module.clone();
                            nested.push(m.ident.to_string());
                            walk(inner, nested, out);
                        }
                    }
                    Item::Impl(i) => {
                        if let Some((_, path, _)) = &i.trait_ {
                            if let Some(last) = path.segments.last() {
                                out.push(TraitImpl {
                                    trait_name: last.ident.to_string(),
                                    module: module.clone(),
                                    item: i,
                                });
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut all = Vec::new();
        for (file, syntax) in self.workspace.syntax.iter().enumerate() {
            if let (Some(syntax), Some(module)) = (syntax, self.workspace.modules.get(file)) {
                walk(&syntax.items, module.clone(), &mut all);
            }
        }
        // Another crate's impl for a type of the same name is another type's.
        let krate = self.workspace.modules.get(self.here).and_then(|m| m.first());
        all.retain(|i| {
            i.item.generics.params.is_empty()
                && i.module.first() == krate
                && normalize(i.item.self_ty.to_token_stream()) == ty
                && trait_name.is_none_or(|t| t == i.trait_name)
        });
        all
    }

    /// Whether an inherent impl of the type `ty` defines a function `name`.
    fn inherent_function(&self, ty: &str, name: &str) -> bool {
        fn walk(items: &[Item], ty: &str, name: &str) -> bool {
            items.iter().any(|item| match item {
                Item::Mod(m) => m.content.as_ref().is_some_and(|(_, inner)| walk(inner, ty, name)),
                Item::Impl(i) => {
                    i.trait_.is_none()
                        && normalize(i.self_ty.to_token_stream()) == ty
                        && i.items
                            .iter()
                            .any(|m| matches!(m, ImplItem::Fn(f) if f.sig.ident == name))
                }
                _ => false,
            })
        }
        self.workspace.syntax.iter().flatten().any(|s| walk(&s.items, ty, name))
    }

    /// The trait an impl implements: the one of that name in the impl's crate.
    fn trait_def(&self, imp: &TraitImpl<'_>) -> Option<&'a syn::ItemTrait> {
        let name = imp.trait_name.as_str();
        fn find<'a>(items: &'a [Item], name: &str) -> Option<&'a syn::ItemTrait> {
            items.iter().find_map(|item| match item {
                Item::Mod(m) => find(&m.content.as_ref()?.1, name),
                Item::Trait(t) if t.ident == name => Some(t),
                _ => None,
            })
        }
        let krate = imp.module.first();
        self.workspace
            .syntax
            .iter()
            .zip(self.workspace.modules)
            .filter(|(_, m)| m.first() == krate)
            .find_map(|(s, _)| find(&(*s)?.items, name))
    }

    /// `<Bitdepth<8>>::MAX_VALUE`, `Bitdepth::<8>::MAX_VALUE`: the constant of the type's
    /// trait impl, or the trait's default, as its value.
    pub(super) fn trait_const(&self, p: &syn::ExprPath) -> Lowered<Option<String>> {
        let Some((ty, trait_name, name)) = split(p) else {
            return Ok(None);
        };
        let impls = self.trait_impls(&normalize(ty), trait_name.as_deref());
        let found = impls.iter().find_map(|i| {
            i.item.items.iter().find_map(|m| match m {
                ImplItem::Const(c) if c.ident == name => Some(c.expr.clone()),
                _ => None,
            })
        });
        let found = found.or_else(|| {
            impls.iter().find_map(|i| {
                self.trait_def(i)?.items.iter().find_map(|m| match m {
                    TraitItem::Const(c) if c.ident == name => c.default.as_ref().map(|(_, e)| e.clone()),
                    _ => None,
                })
            })
        });
        let Some(value) = found else { return Ok(None) };
        if let Some(v) = self.layouts.const_value(&value) {
            return Ok(Some(format!("{v}ll")));
        }
        match &value {
            Expr::Lit(l) => self.literal(&l.lit).map(Some),
            // A constant computed by `const fn`s (`constants_from_primaries(..)`): the same
            // expression, evaluated where it is used, in the impl's module.
            _ => {
                let imp = impls.first().map(|i| i.module.clone());
                let module = imp.as_ref().and_then(|m| self.layouts.index.module_key(m));
                let Some(inner) = module.and_then(|m| self.within(m)) else {
                    return self.fail(p, format!("associated constant `{}` is not a literal", self.text(p)));
                };
                let value = syn::parse2::<Expr>(respan(value.to_token_stream(), p.path.segments[0].ident.span()))
                    .unwrap_or(value);
                inner
                    .expr(&value, &mut super::Scope::default())
                    .map(|v| Some(format!("({v})")))
            }
        }
    }

    /// `Bitdepth::<8>::conv_to_f(v)`: a call of the associated function of the type's trait
    /// impl (or of the trait's default), lowered once for that type.
    pub(super) fn trait_call(&self, c: &syn::ExprCall, args: &[String]) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let Some((ty, trait_name, name)) = split(p) else {
            return Ok(None);
        };
        let ty_text = normalize(ty.clone());
        // nvptx-std's `RoundFromf32::round(x)`: the impl is the one of the type the result is
        // stored as, which C++ picks as the conversion the proxy is assigned through.
        if ty_text == "RoundFromf32" && name == "round" && args.len() == 1 {
            return Ok(Some(format!("kl::RoundFromF32{{(float)({})}}", args[0])));
        }
        // Rust calls an inherent function of that name before any trait's.
        if trait_name.is_none() && self.inherent_function(&ty_text, &name) {
            return Ok(None);
        }
        let impls = self.trait_impls(&ty_text, trait_name.as_deref());
        let own = impls.iter().find_map(|i| {
            i.item.items.iter().find_map(|m| match m {
                ImplItem::Fn(f) if f.sig.ident == name => Some((i, f.sig.clone(), f.block.clone())),
                _ => None,
            })
        });
        let found = own.or_else(|| {
            impls.iter().find_map(|i| {
                self.trait_def(i)?.items.iter().find_map(|m| match m {
                    TraitItem::Fn(f) if f.sig.ident == name => Some((i, f.sig.clone(), f.default.clone()?)),
                    _ => None,
                })
            })
        });
        let Some((imp, sig, block)) = found else {
            return Ok(None);
        };
        if sig.receiver().is_some() {
            return self.fail(c, format!("`{}` takes `self`: it is not lowered", self.text(&c.func)));
        }
        let explicit = match &p.path.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(a)) => {
                a.args.iter().map(|g| g.to_token_stream().to_string()).collect()
            }
            _ => Vec::new(),
        };
        // Generic over types or constants: one copy per argument list, given at the call or
        // inferred from the caller's bounds (`Bitdepth<N>: Sample` takes the caller's `N`).
        let (sig, block, arguments) = match super::trait_generics::instance(&sig, &block, &explicit) {
            Ok(found) => found,
            Err(why) => return self.fail(c, format!("trait function `{name}` of `{ty_text}`: {why}")),
        };
        // The type as a type (`Bitdepth<8>`, not the expression's `Bitdepth::<8>`), with the
        // call's span, so that what the copy fails on is reported at the call.
        let span = p
            .path
            .segments
            .first()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
        let Ok(ty) = ty_text.parse::<TokenStream>() else {
            return Ok(None);
        };
        let ty = respan(ty, span);
        let trait_ident = syn::Ident::new(&imp.trait_name, span);
        let qualified = respan(quote!(<#ty as #trait_ident>), span);
        let function = syn::ItemFn {
            attrs: Vec::new(),
            vis: syn::Visibility::Inherited,
            sig,
            block: Box::new(block),
        };
        let Ok(mut item) = syn::parse2::<syn::ItemFn>(self_as(function.to_token_stream(), &ty, &qualified)) else {
            return self.fail(c, format!("`{}` is not lowered", self.text(&c.func)));
        };
        let Some(area) = self.area(&imp.module, "method") else {
            return self.fail(
                c,
                format!(
                    "`{}` of the kernel's own file is used by another file",
                    self.text(&c.func)
                ),
            );
        };
        let words: Vec<&str> = ty_text
            .split(|ch: char| !ch.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let mut wanted = format!("{}::{name}", words.join("_"));
        for a in &arguments {
            wanted.push('_');
            wanted.extend(a.chars().map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '_' }));
        }
        let key = ("method", imp.module.clone(), wanted);
        let module = imp.module.clone();
        let called = self.require(c, key, area, |c_name| {
            let module: &'a Vec<String> = match self.layouts.index.module_key(&module) {
                Some(m) => m,
                None => return self.fail(c, "function of an unknown module"),
            };
            let inner = self
                .within(module)
                .ok_or_else(|| (self.span(c), "no file".to_string()))?;
            item.sig.ident = syn::Ident::new(c_name, item.sig.ident.span());
            let (prototype, code) = inner.lower_function(&item, None)?;
            Ok((format!("{prototype};\n"), code))
        })?;
        Ok(Some(format!("{called}({})", args.join(", "))))
    }
}

/// `tokens` with `Self::` written `<Type as Trait>::` and any other `Self` written `Type`.
pub(super) fn self_as(tokens: TokenStream, ty: &TokenStream, qualified: &TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::new();
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Ident(id) if id == "Self" => {
                let path = matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                let with = if path { qualified } else { ty };
                let mut g = Group::new(Delimiter::None, with.clone());
                g.set_span(id.span());
                if path {
                    out.extend(with.clone());
                } else {
                    out.push(TokenTree::Group(g));
                }
            }
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), self_as(g.stream(), ty, qualified));
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

pub(super) fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut t| {
            if let TokenTree::Group(g) = &t {
                let mut inner = Group::new(g.delimiter(), respan(g.stream(), span));
                inner.set_span(span);
                t = TokenTree::Group(inner);
            }
            t.set_span(span);
            t
        })
        .collect()
}

/// The conversions of nvptx-std's `RoundFromf32` impls (round to nearest even, as
/// `float2uint_rn`), chosen by the type the value is stored as.
#[macro_export]
#[doc(hidden)]
macro_rules! trait_prelude {
    () => {
        r#"namespace kl {
struct RoundFromF32 {
  float v;
  __device__ operator unsigned int() const { return __float2uint_rn(v); }
  __device__ operator unsigned short() const { return (unsigned short)__float2uint_rn(v); }
  __device__ operator unsigned char() const { return (unsigned char)__float2uint_rn(v); }
};
}
"#
    };
}
