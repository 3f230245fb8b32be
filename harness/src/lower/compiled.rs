//! Only the code the crate's features compile is lowered: items and statements under a
//! `#[cfg]` that does not hold (`#[cfg(feature = "dim2")]` in a `dim3` build) are left out, as
//! the analyzer's item index leaves them out.

use super::Context;
use kernel_lint_analyzer::model::items::item_attrs;
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
    /// Whether a statement is compiled with the crate's features.
    pub(super) fn compiled(&self, stmt: &Stmt) -> bool {
        let attrs = match stmt {
            Stmt::Local(local) => &local.attrs[..],
            Stmt::Item(item) => item_attrs(item),
            Stmt::Macro(mac) => &mac.attrs[..],
            Stmt::Expr(..) => return true,
        };
        self.layouts.index.cfg_active(self.layouts.module, attrs)
    }
}
