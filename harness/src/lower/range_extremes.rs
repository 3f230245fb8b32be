//! `(a..b).map(|s| f(s)).max().unwrap_or(d)` (and `min`, `unwrap`): a counted loop over the
//! range keeping the greatest (or least) value; Rust's `max` keeps the last of equal values,
//! `min` the first.

use super::stmt::ROLLED;
use super::{Context, Lowered, Scope};
use std::collections::HashMap;
use syn::{Expr, Pat, RangeLimits};

impl Context<'_> {
    /// `<range>.map(closure).max()` unwrapped; `None` for other calls.
    pub(super) fn range_extreme(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let empty = match (m.method.to_string().as_str(), m.args.len()) {
            ("unwrap_or", 1) => None,
            ("unwrap", 0) => Some("__trap()"),
            _ => return Ok(None),
        };
        let Expr::MethodCall(extreme) = &*m.receiver else {
            return Ok(None);
        };
        let better = match extreme.method.to_string().as_str() {
            "max" if extreme.args.is_empty() => ">=",
            "min" if extreme.args.is_empty() => "<",
            _ => return Ok(None),
        };
        let Expr::MethodCall(map) = &*extreme.receiver else {
            return Ok(None);
        };
        if map.method != "map" || map.args.len() != 1 {
            return Ok(None);
        }
        let Expr::Closure(closure) = &map.args[0] else {
            return Ok(None);
        };
        let mut range = &*map.receiver;
        while let Expr::Paren(p) = range {
            range = &p.expr;
        }
        let Expr::Range(range) = range else { return Ok(None) };
        let (Some(start), Some(end)) = (&range.start, &range.end) else {
            return Ok(None);
        };
        let [param] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
            return Ok(None);
        };
        let param = match param {
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        let Pat::Ident(param) = param else {
            return self.fail(param, "a `map` closure parameter that is not a name");
        };
        let untyped =
            |e: &Expr| matches!(e, Expr::Lit(l) if matches!(&l.lit, syn::Lit::Int(i) if i.suffix().is_empty()));
        let inferred = untyped(start) && untyped(end);
        let (start, end) = (self.expr(start, scope)?, self.expr(end, scope)?);
        let compare = match range.limits {
            RangeLimits::HalfOpen(_) => "<",
            RangeLimits::Closed(_) => "<=",
        };
        let otherwise = match empty {
            Some(trap) => format!("({trap}, kl_best)"),
            None => format!("(decltype(kl_best))({})", self.expr(&m.args[0], scope)?),
        };
        scope.names.push(HashMap::new());
        let name = scope.bind(&param.ident.to_string());
        let body = self.expr(&closure.body, scope);
        scope.names.pop();
        // Untyped integer literals on both ends take their type from the closure's use: 64
        // bits holds every index it can form.
        let counter = if inferred {
            "long long".to_string()
        } else {
            format!("decltype(({start}) + ({end}))")
        };
        Ok(Some(format!(
            "[&]() {{ auto kl_map = [&]({counter} {name}) {{ return {}; }};\n\
             bool kl_any = false;\n\
             decltype(kl_map({start})) kl_best{{}};\n\
             {ROLLED}for ({counter} kl_k = {start}; kl_k {compare} ({end}); ++kl_k) {{ auto kl_v = kl_map(kl_k); if (!kl_any || kl_v {better} kl_best) {{ kl_best = kl_v; kl_any = true; }} }}\n\
             return kl_any ? kl_best : {otherwise}; }}()",
            body?
        )))
    }
}
