//! Only the code the crate's features compile is lowered: items and statements under a
//! `#[cfg]` that does not hold (`#[cfg(feature = "dim2")]` in a `dim3` build) are left out, as
//! the analyzer's item index leaves them out.

use super::Context;
use kernel_lint_analyzer::model::cfg::NVPTX;
use kernel_lint_analyzer::model::items::{item_attrs, stmt_attrs};
use kernel_lint_analyzer::model::layout::Scope as ItemScope;
use syn::{Item, Stmt};

/// The items of a file, inline modules flattened, without those its features leave out.
pub(super) fn compiled_items<'a>(items: &'a [Item], layouts: &ItemScope<'_>, out: &mut Vec<&'a Item>) {
    for item in items {
        if !layouts.index.cfg_active(layouts.module, item_attrs(item)) {
            continue;
        }
        match item {
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    compiled_items(inner, layouts, out);
                }
            }
            other => out.push(other),
        }
    }
}

impl Context<'_> {
    /// Whether a statement is compiled for the CUDA device (`target_os = "cuda"`,
    /// `target_arch = "nvptx64"`, as the twin is built) with the crate's features.
    pub(super) fn compiled(&self, stmt: &Stmt) -> bool {
        (self.layouts.index).cfg_active_on(self.layouts.module, stmt_attrs(stmt), Some(NVPTX))
    }
}
