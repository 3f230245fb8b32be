//! Structs defined in an inline module (`mod kernels { struct Point {..} }`) named by a
//! kernel of that module: the path from the file's root that reaches them.

use super::Context;
use syn::Item;

/// The module path (from the root) of the first inline module defining struct `name`.
fn find(items: &[Item], name: &str, trail: &mut Vec<syn::Ident>) -> bool {
    for item in items {
        match item {
            Item::Struct(s) if s.ident == name && !trail.is_empty() => return true,
            Item::Mod(m) => {
                let Some((_, inner)) = &m.content else { continue };
                trail.push(m.ident.clone());
                if find(inner, name, trail) {
                    return true;
                }
                trail.pop();
            }
            _ => {}
        }
    }
    false
}

impl Context<'_> {
    /// `Point` as `kernels::Point` where only an inline module of this file defines it.
    pub(super) fn nested_struct_path(&self, path: &syn::Path) -> Option<syn::Path> {
        let name = path.get_ident()?.to_string();
        if !self.structs.contains(&name) {
            return None;
        }
        let syntax = syn::parse_file(&self.file.text).ok()?;
        let mut trail = Vec::new();
        if !find(&syntax.items, &name, &mut trail) {
            return None;
        }
        trail.push(path.get_ident()?.clone());
        Some(syn::Path {
            leading_colon: None,
            segments: trail.into_iter().map(syn::PathSegment::from).collect(),
        })
    }
}
