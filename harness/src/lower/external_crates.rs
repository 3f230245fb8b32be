//! Types and functions of crates outside the analyzed workspace (`parry`'s `Cuboid`, `sha2`'s
//! `Sha256`): their definitions are not available, so a kernel using one names the crate.

use super::Context;
use kernel_lint_analyzer::model::items::Target;

/// Crates of the language itself (their items are builtins or not lowered for other reasons),
/// and the workspace's own path roots, left when a path did not resolve.
const NOT_EXTERNAL: &[&str] = &["core", "std", "alloc", "crate", "self", "super"];

impl Context<'_> {
    /// Why an item of another crate is not lowered, when `path` names one.
    pub(super) fn external_item(&self, path: &syn::Path) -> Option<String> {
        let Target::External(full) = self.layouts.resolve(path)? else {
            return None;
        };
        let krate = full.split("::").next().filter(|k| !k.is_empty())?;
        if NOT_EXTERNAL.contains(&krate) {
            return None;
        }
        let name = path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect::<Vec<_>>()
            .join("::");
        let last = path.segments.last()?.ident.to_string();
        if let Some(mac) = self.macro_defining(&last) {
            // The crate is read, but its item is made by a macro the index does not expand.
            return Some(format!(
                "`{name}` of crate `{krate}` is defined by macro `{mac}!`, which is not expanded"
            ));
        }
        Some(format!(
            "`{name}` comes from crate `{krate}`, whose source is not in the analyzed workspace"
        ))
    }

    /// The macro of an item-position invocation in any analyzed file that declares a struct
    /// or enum named `name` (`bitflags! { pub struct Flags: u8 { .. } }`).
    pub(super) fn macro_defining(&self, name: &str) -> Option<String> {
        self.workspace.syntax.iter().flatten().find_map(|file| {
            file.items.iter().find_map(|item| {
                let syn::Item::Macro(m) = item else { return None };
                declares(m.mac.tokens.clone(), name).then(|| {
                    m.mac
                        .path
                        .segments
                        .last()
                        .map_or_else(String::new, |s| s.ident.to_string())
                })
            })
        })
    }
}

/// Whether a macro's tokens hold `struct name` or `enum name`, at any depth.
fn declares(tokens: proc_macro2::TokenStream, name: &str) -> bool {
    let mut keyword = false;
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Ident(ident) => {
                if keyword && ident == name {
                    return true;
                }
                keyword = ident == "struct" || ident == "enum";
            }
            proc_macro2::TokenTree::Group(group) => {
                if declares(group.stream(), name) {
                    return true;
                }
                keyword = false;
            }
            _ => keyword = false,
        }
    }
    false
}
