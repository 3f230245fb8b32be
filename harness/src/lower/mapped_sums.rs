//! `s.iter().map(|&x| f(x)).sum()`: a counted loop reading the elements in order, adding the
//! closure's value of each, in the closure's result type as Rust's `Sum` does.

use super::stmt::ROLLED;
use super::{Context, Lowered, Scope};
use std::collections::HashMap;
use syn::{Expr, Pat};

impl Context<'_> {
    /// `<walk>.map(closure).sum()`; `None` for other calls.
    pub(super) fn mapped_sum(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        if m.method != "sum" || !m.args.is_empty() {
            return Ok(None);
        }
        let Expr::MethodCall(map) = &*m.receiver else {
            return Ok(None);
        };
        if map.method != "map" || map.args.len() != 1 {
            return Ok(None);
        }
        let Expr::Closure(closure) = &map.args[0] else {
            return Ok(None);
        };
        if closure.inputs.len() != 1 {
            return Ok(None);
        }
        let Some(walk) = self.walk(&map.receiver, scope)? else {
            return Ok(None);
        };
        if walk.enumerate {
            return self.fail(map, "`enumerate().map(..).sum()` is not lowered");
        }
        scope.names.push(HashMap::new());
        let body = self.mapped_element(&closure.inputs[0], &closure.body, &walk, scope);
        scope.names.pop();
        let (binding, body) = body?;
        Ok(Some(format!(
            "[&]() {{ auto kl_map = [&](unsigned long long kl_k) {{ {binding} return {body}; }};\n\
             decltype(kl_map(0)) kl_sum{{}};\n\
             {ROLLED}for (unsigned long long kl_k = 0; kl_k < (unsigned long long)({}); ++kl_k) kl_sum += kl_map(kl_k); return kl_sum; }}()",
            walk.len
        )))
    }

    /// The closure's parameter bound to element `kl_k`, and its body.
    fn mapped_element(
        &self,
        param: &Pat,
        body: &Expr,
        walk: &super::iterate::Walk,
        scope: &mut Scope,
    ) -> Lowered<(String, String)> {
        let base = &walk.base;
        let param = match param {
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        let binding = match (param, walk.by_reference) {
            (Pat::Ident(i), true) => {
                let name = scope.bind(&i.ident.to_string());
                scope.references.insert(name.clone());
                format!("auto {name} = &{base}[kl_k];")
            }
            (Pat::Ident(i), false) => {
                let name = scope.bind(&i.ident.to_string());
                format!("auto {name} = {base}[kl_k];")
            }
            (Pat::Reference(r), true) => match &*r.pat {
                Pat::Ident(i) => {
                    let name = scope.bind(&i.ident.to_string());
                    format!("auto {name} = {base}[kl_k];")
                }
                other => return self.fail(other, "a `map` closure parameter that is not a name"),
            },
            (other, _) => return self.fail(other, "a `map` closure parameter that is not a name"),
        };
        Ok((binding, self.expr(body, scope)?))
    }
}
