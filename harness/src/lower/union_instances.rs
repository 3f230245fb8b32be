//! A literal of one instance of a generic union of the kernel's file (`Generic::<u32> { .. }`):
//! a C++ union per instance (`Generic_u32`) with the arguments put in, so that every field is
//! still a view of the same bytes at offset zero.

use super::{Context, Lowered, Scope};
use quote::ToTokens;
use syn::Item;

impl Context<'_> {
    /// `Generic::<u32> { bytes: [..] }` as a zeroed `Generic_u32` with that one member set;
    /// `None` when the path names no generic union of the file with its arguments written.
    pub(super) fn generic_union_literal(&self, s: &syn::ExprStruct, scope: &mut Scope) -> Lowered<Option<String>> {
        if s.path.segments.len() != 1 {
            return Ok(None);
        }
        let last = &s.path.segments[0];
        let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else {
            return Ok(None);
        };
        let Some(syntax) = self.workspace.syntax.get(self.here).copied().flatten() else {
            return Ok(None);
        };
        let mut items = Vec::new();
        super::compiled::compiled_items(&syntax.items, &self.layouts, &mut items);
        let Some(def) = items.iter().find_map(|i| match i {
            Item::Union(u) if u.ident == last.ident => Some(u),
            _ => None,
        }) else {
            return Ok(None);
        };
        let params = super::struct_instances::generic_names(&def.generics);
        let values = super::struct_instances::generic_values(arguments);
        if params.is_empty() || params.len() != values.len() {
            return Ok(None);
        }
        let mut instance = (*def).clone();
        instance.generics = syn::Generics::default();
        for field in instance.fields.named.iter_mut() {
            let tokens = super::substitution::substitute(field.ty.to_token_stream(), &params, &values);
            field.ty = syn::parse2(tokens).unwrap_or(field.ty.clone());
        }
        let [given] = s.fields.iter().collect::<Vec<_>>()[..] else {
            return self.fail(s, format!("union `{}` literal must name one field", def.ident));
        };
        let syn::Member::Named(member) = &given.member else {
            return self.fail(s, "union literal with a positional field");
        };
        let Some(declared) = instance.fields.named.iter().find(|f| f.ident.as_ref() == Some(member)) else {
            return self.fail(s, format!("`{member}` is not a field of union `{}`", def.ident));
        };
        let declared = declared.ty.clone();
        let words: Vec<String> = std::iter::once(def.ident.to_string())
            .chain(values.iter().map(|v| {
                v.to_string()
                    .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .filter(|w| !w.is_empty())
                    .collect::<Vec<_>>()
                    .join("_")
            }))
            .collect();
        let key = ("union", self.layouts.module.clone(), words.join("_"));
        let c_type = self.require(s, key, super::items::Area::Late, |name| {
            instance.ident = syn::Ident::new(name, def.ident.span());
            Ok((String::new(), self.lower_union(&instance)?))
        })?;
        let member = super::ident(&member.to_string());
        let value = self.field_value(&given.expr, &c_type, &member, scope)?;
        let elem = self.c_type(&declared)?;
        Ok(Some(format!(
            "([&]() {{ {c_type} u{{}}; u.{member} = static_cast<{elem}>({value}); return u; }}())"
        )))
    }
}
