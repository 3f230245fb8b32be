//! `if let (Some(a), Some(b)) = (x, y) { .. }` without `else`: the tuple's elements are
//! evaluated once, in order, into locals, then each pattern is tested in turn, as the tuple
//! pattern tests its fields; the body runs when all match.

use super::{Context, Lowered, Scope};
use syn::{Expr, Pat};

impl Context<'_> {
    /// The nested `if let`s of a tuple `if let`; `None` for any other `if`.
    pub(super) fn tuple_if_let(&self, i: &syn::ExprIf, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Let(l) = &*i.cond else { return Ok(None) };
        let (Pat::Tuple(pats), Expr::Tuple(values)) = (&*l.pat, &*l.expr) else {
            return Ok(None);
        };
        if i.else_branch.is_some() || pats.elems.len() != values.elems.len() || pats.elems.is_empty() {
            return Ok(None);
        }
        scope.shared_counter += 1;
        let n = scope.shared_counter;
        let names: Vec<syn::Ident> = (0..values.elems.len())
            .map(|k| syn::Ident::new(&format!("kl_tuple_{n}_{k}"), proc_macro2::Span::call_site()))
            .collect();
        let mut body = i.then_branch.clone();
        for (pat, name) in pats.elems.iter().zip(&names).rev() {
            let nested: Expr = syn::parse_quote! { if let #pat = #name #body };
            body = syn::parse_quote! { { #nested } };
        }
        let mut block: syn::Block = syn::parse_quote! { {} };
        for (value, name) in values.elems.iter().zip(&names) {
            block.stmts.push(syn::parse_quote! { let #name = #value; });
        }
        block.stmts.extend(body.stmts);
        self.block(&block, scope).map(Some)
    }
}
