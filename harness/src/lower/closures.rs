//! Closures as C++ lambdas: `let f = |x: u32| x * factor;` is a lambda capturing by
//! reference (by copy for `move`), called where Rust calls it, so its body's accesses happen
//! at the same points and as often.

use super::{Context, Lowered, Scope};
use std::collections::HashMap;
use syn::{Expr, Pat};

impl Context<'_> {
    /// `|a: T, b| body` as `[&](T a, auto b) -> R { .. }`.
    pub(super) fn closure(&self, c: &syn::ExprClosure, scope: &mut Scope) -> Lowered<String> {
        if c.asyncness.is_some() {
            return self.fail(c, "async closures are not lowered");
        }
        let capture = if c.capture.is_some() { "[=]" } else { "[&]" };
        // A `move` closure may change its own copies, as an `FnMut` does.
        let mutable = if c.capture.is_some() { " mutable" } else { "" };
        let ret = match &c.output {
            syn::ReturnType::Default => String::new(),
            syn::ReturnType::Type(_, ty) => format!(" -> {}", self.c_type(ty)?),
        };
        scope.names.push(HashMap::new());
        let lowered = self.closure_parts(c, scope);
        scope.names.pop();
        let (params, body) = lowered?;
        Ok(format!("{capture}({}){mutable}{ret} {body}", params.join(", ")))
    }

    fn closure_parts(&self, c: &syn::ExprClosure, scope: &mut Scope) -> Lowered<(Vec<String>, String)> {
        let mut params = Vec::new();
        for input in &c.inputs {
            let (pat, ty) = match input {
                Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
                other => (other, None),
            };
            let name = match pat {
                Pat::Ident(b) if b.by_ref.is_none() && b.subpat.is_none() => b.ident.to_string(),
                Pat::Wild(_) => "kl_unused".to_string(),
                other => return self.fail(other, "a closure parameter that is not a name is not lowered"),
            };
            let name = scope.bind(&name);
            let c_type = match ty {
                Some(syn::Type::Reference(r)) if matches!(&*r.elem, syn::Type::Slice(_)) => {
                    return self.fail(input, "a closure parameter of slice type is not lowered")
                }
                Some(ty @ syn::Type::Reference(_)) => {
                    scope.references.insert(name.clone());
                    self.c_type(ty)?
                }
                Some(syn::Type::Infer(_)) | None => "auto".to_string(),
                Some(ty) => self.c_type(ty)?,
            };
            params.push(format!("{c_type} {name}"));
        }
        let body = match &*c.body {
            Expr::Block(b) if b.label.is_none() => self.function_body(&b.block, scope, true)?,
            other if matches!(other, Expr::Loop(_)) => match self.diverging_closure_body(other, scope)? {
                Some(body) => body,
                None => format!("{{\nreturn {};\n}}", self.expr(other, scope)?),
            },
            other => format!("{{\nreturn {};\n}}", self.expr(other, scope)?),
        };
        Ok((params, body))
    }

    /// `f(x)` where `f` is a local binding (a closure): the lambda called.
    pub(super) fn local_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let Some(name) = p.path.get_ident().map(|i| i.to_string()) else {
            return Ok(None);
        };
        if !scope.is_bound(&name) {
            return Ok(None);
        }
        let callee = scope.lookup(&name);
        let args = c
            .args
            .iter()
            .map(|a| self.expr(a, scope))
            .collect::<Lowered<Vec<_>>>()?;
        // A callable taken by reference (`f: &F`) is a pointer in C++.
        if scope.references.contains(&callee) {
            return Ok(Some(format!("(*{callee})({})", args.join(", "))));
        }
        Ok(Some(format!("{callee}({})", args.join(", "))))
    }
}

impl Context<'_> {
    /// `(**rr)(x)`, `(*f)(x)`, `(holder.f)(x)`: the callable the expression reaches (a lambda,
    /// a pointer to one, a function pointer), called as C++ calls it.
    pub(super) fn callee_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Paren(inner) = &*c.func else { return Ok(None) };
        if !matches!(&*inner.expr, Expr::Unary(_) | Expr::Field(_) | Expr::Path(_)) {
            return Ok(None);
        }
        let callee = self.expr(&inner.expr, scope)?;
        let args = c
            .args
            .iter()
            .map(|a| self.expr(a, scope))
            .collect::<Lowered<Vec<_>>>()?;
        Ok(Some(format!("({callee})({})", args.join(", "))))
    }
}

/// `fn(A, B) -> R` as a C++ type that fits a declarator: `kl::fn_ptr<R, A, B>`.
#[macro_export]
macro_rules! callables_prelude {
    () => {
        r#"namespace kl {
template <typename R, typename... A> using fn_ptr = R (*)(A...);
}
"#
    };
}

impl Context<'_> {
    /// `fn(u32) -> u32`: a pointer to a `__device__` function.
    pub(super) fn fn_pointer_type(&self, f: &syn::TypeBareFn) -> Lowered<String> {
        if f.variadic.is_some() || f.abi.is_some() {
            return self.fail(f, "a variadic or extern function pointer type is not lowered");
        }
        let ret = match &f.output {
            syn::ReturnType::Default => "void".to_string(),
            syn::ReturnType::Type(_, ty) => self.c_type(ty)?,
        };
        let mut types = vec![ret];
        for input in &f.inputs {
            types.push(self.c_type(&input.ty)?);
        }
        Ok(format!("kl::fn_ptr<{}>", types.join(", ")))
    }
}
