//! `s.get_mut(i).map(|e| *e = v);` as a statement: the `Option` it yields is dropped, so it is
//! `if let Some(e) = s.get_mut(i) { *e = v; }`, the same bounds check and the same access.

use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Pat};

use super::{Context, Lowered, Scope};

impl Context<'_> {
    pub(super) fn option_map_stmt(&self, e: &Expr, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::MethodCall(map) = e else { return Ok(None) };
        if map.method != "map" || map.args.len() != 1 {
            return Ok(None);
        }
        let Expr::MethodCall(get) = &*map.receiver else {
            return Ok(None);
        };
        if !matches!(get.method.to_string().as_str(), "get" | "get_mut") || get.args.len() != 1 {
            return Ok(None);
        }
        let Expr::Closure(c) = &map.args[0] else {
            return Ok(None);
        };
        let [param] = c.inputs.iter().collect::<Vec<_>>()[..] else {
            return Ok(None);
        };
        let param = match param {
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        if !matches!(param, Pat::Ident(_) | Pat::Wild(_)) {
            return Ok(None);
        }
        // In the closure `return` leaves the closure only; in the `if let` it would leave the kernel.
        if leaves(&c.body) {
            return self.fail(c, "a `return` or `?` inside `get(i).map(|e| ..)` is not lowered");
        }
        let body = &c.body;
        // Spanned at the call, for the twin's `#line`.
        let tokens = quote::quote_spanned!(map.span()=> if let Some(#param) = #get { #body; });
        let rewritten: Expr = syn::parse2(tokens).map_err(|e| (self.span(map), e.to_string()))?;
        self.expr_stmt(&rewritten, scope).map(Some)
    }
}

fn leaves(e: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
            self.0 = true;
        }
    }
    let mut f = Finder(false);
    f.visit_expr(e);
    f.0
}
