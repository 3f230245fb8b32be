//! Fields of a struct passed to a kernel by value that are not one scalar: a fixed-size
//! array of scalars (`counts: [u32; 3]`), set by the host element by element, and a field of
//! a struct's type parameter (`Uniform<u32>`'s `value: T`), with the argument put in.

use super::{Context, Lowered, Param};
use kernel_lint_analyzer::parse::last_segment;
use quote::ToTokens;
use syn::Type;

/// The most elements an array field is set by: beyond that the host would write a table.
const MOST_ELEMENTS: i64 = 64;

impl Context<'_> {
    /// `counts[0]`, `counts[1]`, .. for a field `counts: [u32; 3]`: each element a scalar the
    /// host sets in place (`shape.counts[1] = ..`); the struct keeps its C array field, so
    /// its layout is Rust's `repr(C)`. `None` for any other field type.
    pub(super) fn array_field_params(&self, field: &str, ty: &Type) -> Lowered<Option<Vec<Param>>> {
        let Type::Array(a) = ty else { return Ok(None) };
        let Type::Path(elem) = &*a.elem else { return Ok(None) };
        let elem_name = last_segment(&elem.path);
        let Some(c_type) = Self::primitive(&elem_name) else {
            return Ok(None);
        };
        let Some(len) = self.layouts.const_value(&a.len) else {
            return Ok(None);
        };
        if !(1..=MOST_ELEMENTS).contains(&len) {
            return self.fail(ty, format!("array field `{field}` of {len} elements is not lowered"));
        }
        Ok(Some(
            (0..len)
                .map(|i| Param::Scalar {
                    name: format!("{field}[{i}]"),
                    c_type: c_type.to_string(),
                    float: elem_name.starts_with('f') || elem_name == "bf16",
                })
                .collect(),
        ))
    }

    /// A field's type with the struct's type parameters replaced by the arguments the
    /// parameter's type gives (`T` of `Uniform<u32>` is `u32`); the type unchanged when the
    /// struct takes no arguments.
    pub(super) fn field_type_instance(&self, owner: &syn::TypePath, field_ty: &Type) -> Type {
        let Some(last) = owner.path.segments.last() else {
            return field_ty.clone();
        };
        let syn::PathArguments::AngleBracketed(arguments) = &last.arguments else {
            return field_ty.clone();
        };
        let Some((_, def)) = self.layouts.struct_def(&owner.path) else {
            return field_ty.clone();
        };
        let params: Vec<String> = def
            .generics
            .params
            .iter()
            .filter_map(|g| match g {
                syn::GenericParam::Type(t) => Some(t.ident.to_string()),
                syn::GenericParam::Const(c) => Some(c.ident.to_string()),
                syn::GenericParam::Lifetime(_) => None,
            })
            .collect();
        if params.is_empty() {
            return field_ty.clone();
        }
        let values: Vec<proc_macro2::TokenStream> = arguments
            .args
            .iter()
            .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)))
            .map(|a| a.to_token_stream())
            .collect();
        if params.len() != values.len() {
            return field_ty.clone();
        }
        let tokens = super::substitution::substitute(field_ty.to_token_stream(), &params, &values);
        syn::parse2(tokens).unwrap_or_else(|_| field_ty.clone())
    }
}

impl Context<'_> {
    /// `kl::len(shape.counts)` for `shape.counts.len()` when the struct declares the field an
    /// array: its length is the array's, not a slice's length field.
    pub(super) fn array_field_length(&self, receiver: &syn::Expr, text: &str, scope: &super::Scope) -> Option<String> {
        let syn::Expr::Field(f) = receiver else { return None };
        let base = self.value_type_of(&f.base, scope)?;
        let path: syn::Path = syn::Ident::new(&base, proc_macro2::Span::call_site()).into();
        let (_, fields) = self.layouts.struct_fields(&path)?;
        let syn::Member::Named(member) = &f.member else {
            return None;
        };
        let (_, ty) = fields.iter().find(|(name, _)| member == name)?;
        matches!(ty, Type::Array(_)).then(|| format!("kl::len({text})"))
    }
}
