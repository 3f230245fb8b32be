//! `match` arms on named constants (`V1 => 1` where `const V1: u128 = 1 << 100`): the arm
//! compares the scrutinee with the constant, as Rust does for a constant pattern.

use syn::Expr;

use super::{Context, Lowered, Scope};

impl Context<'_> {
    /// The condition of a constant pattern, `None` when the pattern does not name a constant.
    pub(super) fn constant_pattern(&self, pattern: &syn::Pat, scrutinee: &str) -> Lowered<Option<String>> {
        let path = match pattern {
            syn::Pat::Path(p) => p.path.clone(),
            syn::Pat::Ident(i) if i.subpat.is_none() && i.by_ref.is_none() && i.mutability.is_none() => {
                syn::Path::from(i.ident.clone())
            }
            _ => return Ok(None),
        };
        let name = kernel_lint_analyzer::parse::last_segment(&path);
        if !(self.consts.contains(&name) || self.layouts.const_named(&path).is_some()) {
            return Ok(None);
        }
        let value = self.expr(
            &Expr::Path(syn::ExprPath {
                attrs: Vec::new(),
                qself: None,
                path,
            }),
            &mut Scope::default(),
        )?;
        Ok(Some(format!("({scrutinee} == {value})")))
    }
}
