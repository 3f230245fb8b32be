//! `let x = match s { p => v, _ => return }`: a `match` used as a value whose other arms leave
//! the function or loop. A value expression cannot `return`, so the binding is declared first
//! and the `match` is lowered as a statement whose value arms assign it.

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Pat};

use super::{Context, Lowered, Scope};

impl Context<'_> {
    pub(super) fn diverging_match_let(&self, local: &syn::Local, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(init) = &local.init else { return Ok(None) };
        if init.diverge.is_some() {
            return Ok(None);
        }
        let Expr::Match(m) = &*init.expr else { return Ok(None) };
        let (binding, ty) = match &local.pat {
            Pat::Ident(b) => (b, None),
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(b) => (b, Some(&*t.ty)),
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        if binding.subpat.is_some() || !m.arms.iter().any(|a| diverges(&a.body)) {
            return Ok(None);
        }
        let rust_name = binding.ident.to_string();
        // `let x = match x { .. }` reads the outer `x` in its arms: declaring first would shadow it.
        if mentions(&m.to_token_stream(), &rust_name) {
            return Ok(None);
        }
        let c_type = match ty {
            Some(t) => self.c_type(t)?,
            None => {
                // The arms' common type, as Rust infers it; arms that bind names are left out
                // because their bindings are not in scope here.
                // Rust gives every arm the same type, so any arm says it; a lambda cannot stand
                // in `decltype` before C++20.
                let mut values = Vec::new();
                for arm in m.arms.iter().filter(|a| !diverges(&a.body) && !binds(&a.pat)) {
                    let value = self.expr(&arm.body, scope)?;
                    if !value.contains("[&]") && !value.contains("[=]") {
                        values.push(value);
                    }
                }
                let Some(last) = values.pop() else { return Ok(None) };
                let common = values
                    .iter()
                    .rev()
                    .fold(last, |acc, v| format!("false ? ({v}) : ({acc})"));
                format!("decltype({common})")
            }
        };
        let name = scope.bind(&rust_name);
        self.note_type(&name, ty, None, scope);
        let target: Expr = syn::parse_str(&rust_name).map_err(|e| (self.span(local), e.to_string()))?;
        let mut statement = m.clone();
        for arm in statement.arms.iter_mut().filter(|a| !diverges(&a.body)) {
            let value = &arm.body;
            // The assignment carries the value's line, for the twin's `#line`.
            let tokens = quote::quote_spanned!(value.span()=> { #target = #value; });
            *arm.body = syn::parse2(tokens).map_err(|e| (self.span(value), e.to_string()))?;
        }
        let body = self.expr_stmt(&Expr::Match(statement), scope)?;
        Ok(Some(format!("{c_type} {name};\n{body}")))
    }
}

/// Whether the arm never yields a value: `return`, `break` or `continue`, alone or ending a block.
fn diverges(e: &Expr) -> bool {
    match e {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Block(b) => match b.block.stmts.last() {
            Some(syn::Stmt::Expr(e, _)) => diverges(e),
            _ => false,
        },
        _ => false,
    }
}

fn binds(p: &Pat) -> bool {
    struct Finder(bool);
    impl<'ast> Visit<'ast> for Finder {
        fn visit_pat_ident(&mut self, _: &'ast syn::PatIdent) {
            self.0 = true;
        }
    }
    let mut f = Finder(false);
    f.visit_pat(p);
    f.0
}

fn mentions(tokens: &proc_macro2::TokenStream, name: &str) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions(&g.stream(), name),
        _ => false,
    })
}
