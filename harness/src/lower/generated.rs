//! Items a build script writes (`mod consts { include!(concat!(env!("OUT_DIR"), "/x.rs")); }`):
//! their values are computed when the crate builds and are not in the source, so a kernel
//! naming one is refused with that reason.

use super::Context;
use quote::ToTokens;
use syn::Item;

impl Context<'_> {
    /// Why `consts::RADIUS` has no value here, when its module is the build script's output.
    pub(super) fn generated_item(&self, p: &syn::ExprPath) -> Option<String> {
        if p.qself.is_some() || p.path.segments.len() < 2 {
            return None;
        }
        let syntax = self.workspace.syntax.get(self.here).copied().flatten()?;
        let module: Vec<String> = p
            .path
            .segments
            .iter()
            .take(p.path.segments.len() - 1)
            .map(|s| s.ident.to_string())
            .collect();
        let included = find_module(&syntax.items, &module)?
            .iter()
            .find_map(|item| match item {
                Item::Macro(m) if m.mac.path.is_ident("include") => {
                    let arguments = m.mac.tokens.to_token_stream().to_string();
                    arguments.contains("OUT_DIR").then(|| arguments.replace(' ', ""))
                }
                _ => None,
            })?;
        Some(format!(
            "`{}` is written by the build script (`include!({included})`): its value is computed when the crate builds, not in the source",
            self.text(p)
        ))
    }
}

/// The items of the inline module at `path` below `items`.
fn find_module<'a>(items: &'a [Item], path: &[String]) -> Option<&'a [Item]> {
    let Some((first, rest)) = path.split_first() else {
        return Some(items);
    };
    items.iter().find_map(|item| match item {
        Item::Mod(m) if m.ident == first.as_str() => find_module(&m.content.as_ref()?.1, rest),
        _ => None,
    })
}
