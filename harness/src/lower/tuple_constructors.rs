//! A tuple struct's constructor named where the struct is not in scope of the module the
//! code is read from: a constant of `mod kernels { .. }` is lowered with the file's items,
//! so `Marker(())` names the tuple struct of that inline module by its name alone.

use super::{Context, Lowered};
use syn::{Item, Type};

/// Whether one inline module of the file (at any depth) defines a tuple struct named `name`,
/// and no other item of the file spells the same name.
fn defines_tuple_struct(items: &[Item], name: &str) -> usize {
    items
        .iter()
        .map(|item| match item {
            Item::Struct(s) if s.ident == name && matches!(s.fields, syn::Fields::Unnamed(_)) => 1,
            Item::Mod(m) => m
                .content
                .as_ref()
                .map_or(0, |(_, inner)| defines_tuple_struct(inner, name)),
            _ => 0,
        })
        .sum()
}

impl Context<'_> {
    /// `Name(a, b)` as the aggregate `Name{a, b}` when `Name` is one tuple struct of this file.
    pub(super) fn file_tuple_struct(&self, path: &syn::Path, args: &[String]) -> Lowered<Option<String>> {
        let Some(name) = path.get_ident().map(|i| i.to_string()) else {
            return Ok(None);
        };
        let Some(syntax) = self.workspace.syntax.get(self.here).copied().flatten() else {
            return Ok(None);
        };
        if defines_tuple_struct(&syntax.items, &name) != 1 || !self.structs.contains(&name) {
            return Ok(None);
        }
        let ty = Type::Path(syn::TypePath {
            qself: None,
            path: path.clone(),
        });
        Ok(Some(format!("{}{{{}}}", self.c_type(&ty)?, args.join(", "))))
    }
}
