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
        Some(format!(
            "`{name}` comes from crate `{krate}`, whose source is not in the analyzed workspace"
        ))
    }
}
