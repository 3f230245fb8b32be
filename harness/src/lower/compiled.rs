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
            Stmt::Expr(e, _) => expr_attrs(e),
        };
        attrs.iter().filter(|a| a.path().is_ident("cfg")).all(|a| {
            a.parse_args::<syn::Meta>()
                .map_or(true, |m| on_device(&m) != Some(false))
        }) && self.layouts.index.cfg_active(self.layouts.module, attrs)
    }
}

/// Attributes of the expressions that carry `#[cfg]` as statements.
fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
    use syn::Expr;
    match e {
        Expr::Block(b) => &b.attrs,
        Expr::Unsafe(u) => &u.attrs,
        Expr::Return(r) => &r.attrs,
        Expr::Macro(m) => &m.attrs,
        Expr::Call(c) => &c.attrs,
        Expr::MethodCall(m) => &m.attrs,
        Expr::Assign(a) => &a.attrs,
        Expr::If(i) => &i.attrs,
        _ => &[],
    }
}

/// A predicate on the target, as the twin is built: for the CUDA device (`target_os = "cuda"`,
/// `target_arch = "nvptx64"`); `None` for whatever is not about the target.
fn on_device(meta: &syn::Meta) -> Option<bool> {
    kernel_lint_analyzer::model::cfg::eval_with(meta, &|leaf| match leaf {
        syn::Meta::NameValue(nv) if nv.path.is_ident("target_os") || nv.path.is_ident("target_arch") => {
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(value),
                ..
            }) = &nv.value
            else {
                return None;
            };
            let device = if nv.path.is_ident("target_os") {
                "cuda"
            } else {
                "nvptx64"
            };
            Some(value.value() == device)
        }
        _ => None,
    })
}
