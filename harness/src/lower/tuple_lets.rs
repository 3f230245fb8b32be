//! `if let (Some(a), Some(b)) = (x, y) { .. }` without `else`: the tuple's elements are
//! evaluated once, in order, into locals, then each pattern is tested in turn, as the tuple
//! pattern tests its fields; the body runs when all match.

use super::{Context, Lowered, Scope};
use std::collections::HashMap;
use std::fmt::Write;
use syn::{Expr, Pat};

impl Context<'_> {
    /// The nested tests of a tuple `if let`; `None` for any other `if`.
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
        let mut out = String::from("{\n");
        let mut tests = Vec::new();
        for (k, (pat, value)) in pats.elems.iter().zip(&values.elems).enumerate() {
            let binding = match pat {
                Pat::TupleStruct(t)
                    if t.path.segments.last().is_some_and(|s| s.ident == "Some") && t.elems.len() == 1 =>
                {
                    match &t.elems[0] {
                        Pat::Ident(b) if b.subpat.is_none() && b.by_ref.is_none() => Some(b.ident.to_string()),
                        Pat::Wild(_) => None,
                        other => return self.fail(other, "only `Some(name)` is lowered in a tuple `if let`"),
                    }
                }
                other => return self.fail(other, "only `Some(name)` is lowered in a tuple `if let`"),
            };
            let local = format!("kl_tuple_{n}_{k}");
            let _ = writeln!(out, "auto {local} = {};", self.expr(value, scope)?);
            tests.push((local, binding, self.option_of_reference(value, scope)));
        }
        scope.names.push(HashMap::new());
        let mut opened = 0;
        for (local, binding, reference) in tests {
            let _ = writeln!(out, "if ({local}.some) {{");
            opened += 1;
            if let Some(binding) = binding {
                let name = scope.bind(&binding);
                // `Option<&T>` holds a pointer: the binding is read through with `->`.
                if reference {
                    scope.references.insert(name.clone());
                }
                let _ = writeln!(out, "auto {name} = {local}.value;");
            }
        }
        let body = self.block(&i.then_branch, scope);
        scope.names.pop();
        out.push_str(&body?);
        out.push_str(&"}\n".repeat(opened + 1));
        Ok(Some(out))
    }

    /// Whether a value is an `Option<&T>`: a method of the workspace returning one.
    fn option_of_reference(&self, e: &Expr, scope: &Scope) -> bool {
        let Expr::MethodCall(m) = e else { return false };
        let method = m.method.to_string();
        let candidates = self
            .layouts
            .index
            .methods_named(&method, self.layouts.module)
            .filter(|f| f.sig.receiver().is_some())
            .collect();
        let candidates = self.methods_of_receiver(&m.receiver, candidates, scope);
        !candidates.is_empty() && candidates.iter().all(|f| returns_option_of_reference(f.sig))
    }
}

/// `-> Option<&T>` / `-> Option<&mut T>`.
fn returns_option_of_reference(sig: &syn::Signature) -> bool {
    let syn::ReturnType::Type(_, ty) = &sig.output else {
        return false;
    };
    let syn::Type::Path(p) = &**ty else { return false };
    let Some(last) = p.path.segments.last() else {
        return false;
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    last.ident == "Option"
        && matches!(
            args.args.first(),
            Some(syn::GenericArgument::Type(syn::Type::Reference(_)))
        )
}
