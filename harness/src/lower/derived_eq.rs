//! `#[derive(PartialEq)]` on a struct: `a == b` compares the fields in order, as the derived
//! `eq` does, so the twin of `entry.key == key` reads the same fields.

use super::{types, Context};
use syn::Type;

impl Context<'_> {
    /// The member operators `==` and `!=` of a struct deriving `PartialEq`, or nothing.
    pub(super) fn derived_comparisons(&self, s: &syn::ItemStruct) -> String {
        let derived = s
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("derive"))
            .any(|a| quote::ToTokens::to_token_stream(a).to_string().contains("PartialEq"));
        if !derived {
            return String::new();
        }
        let mut parts = Vec::new();
        for (i, field) in s.fields.iter().enumerate() {
            // A marker is equal to every other.
            if types::is_marker(&field.ty) && field.ident.is_some() {
                continue;
            }
            // A slice compares its elements, which the twin's pointer and length do not.
            if matches!(&field.ty, Type::Reference(r) if matches!(&*r.elem, Type::Slice(_))) {
                return String::new();
            }
            let name = field
                .ident
                .as_ref()
                .map_or_else(|| format!("_{i}"), |f| super::ident(&f.to_string()));
            parts.push(format!("a.{name} == b.{name}"));
        }
        let all = if parts.is_empty() {
            "true".to_string()
        } else {
            parts.join(" && ")
        };
        let name = &s.ident;
        // Templates, so that a field type without `==` only matters where it is compared.
        format!(
            "  template <typename A = {name}> __host__ __device__ bool operator==(const A& b) const {{ const A& a = static_cast<const A&>(*this); return {all}; }}\n  template <typename A = {name}> __host__ __device__ bool operator!=(const A& b) const {{ return !(*this == b); }}\n"
        )
    }
}
