//! Statements: `let` (with shadowing), `if`, `for` over ranges, `while`, `loop`, each
//! preceded by a `#line` directive.

use super::{ident, Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use std::collections::HashMap;
use std::fmt::Write;
use syn::{Expr, Item, Stmt, Type};

impl Context<'_> {
    pub(super) fn block(&self, block: &syn::Block, scope: &mut Scope) -> Lowered<String> {
        let mut out = String::from("{\n");
        scope.names.push(HashMap::new());
        for stmt in &block.stmts {
            match self.stmt(stmt, scope) {
                Ok(text) => out.push_str(&text),
                Err(e) => {
                    scope.names.pop();
                    return Err(e);
                }
            }
        }
        scope.names.pop();
        out.push_str("}\n");
        Ok(out)
    }

    pub(super) fn stmt(&self, stmt: &Stmt, scope: &mut Scope) -> Lowered<String> {
        let mut out = String::new();
        match stmt {
            Stmt::Local(local) => {
                self.line_directive(&mut out, stmt, scope);
                out.push_str(&self.local(local, scope)?);
            }
            Stmt::Item(Item::Static(s)) => {
                self.line_directive(&mut out, stmt, scope);
                let _ = writeln!(out, "{}", self.static_decl(s)?);
            }
            Stmt::Item(Item::Const(c)) => {
                let value = match self.layouts.const_value(&c.expr) {
                    Some(v) => format!("{v}ll"),
                    None => self.expr(&c.expr, scope)?,
                };
                let _ = writeln!(
                    out,
                    "[[maybe_unused]] constexpr {} = {value};",
                    self.declarator(&c.ty, &ident(&c.ident.to_string()))?
                );
            }
            Stmt::Item(_) => {}
            Stmt::Expr(e, _) => {
                self.line_directive(&mut out, stmt, scope);
                out.push_str(&self.expr_stmt(e, scope)?);
            }
            Stmt::Macro(m) => return self.fail(m, format!("macro `{}!` is not lowered", self.text(&m.mac.path))),
        }
        Ok(out)
    }

    pub(super) fn local(&self, local: &syn::Local, scope: &mut Scope) -> Lowered<String> {
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            other => (other, None),
        };
        if let (syn::Pat::Tuple(names), Some(init)) = (pat, &local.init) {
            return self.tuple_local(names, &init.expr, scope);
        }
        let syn::Pat::Ident(binding) = pat else {
            return self.fail(pat, "only `let name = ..` and `let (a, b) = (x, y)` are lowered");
        };
        let rust_name = binding.ident.to_string();
        let Some(init) = &local.init else {
            let name = scope.bind(&rust_name);
            let ty = ty.ok_or_else(|| (self.span(local), "`let` without a value needs a type".to_string()))?;
            return Ok(format!("{};\n", self.declarator(ty, &name)?));
        };
        if let Expr::Macro(m) = &*init.expr {
            if m.mac.path.segments.last().is_some_and(|s| s.ident == "shared_array") {
                let (elem, len): (Type, Expr) = m
                    .mac
                    .parse_body_with(|input: syn::parse::ParseStream| {
                        let ty: Type = input.parse()?;
                        let _: syn::Token![;] = input.parse()?;
                        Ok((ty, input.parse()?))
                    })
                    .map_err(|e| (self.span(m), format!("shared_array! not understood: {e}")))?;
                let len = self.expr(&len, scope)?;
                let name = scope.bind(&rust_name);
                scope.shared_counter += 1;
                let storage = format!("{name}_shared_{}", scope.shared_counter);
                return Ok(format!(
                    "__shared__ {} {storage}[{len}];\nauto {name} = {storage};\n",
                    self.c_type(&elem)?
                ));
            }
        }
        // The value is lowered before the new name exists: `let x = x + 1` reads the old `x`.
        let value = self.expr(&init.expr, scope)?;
        let sub_slice = self.sub_slice_length(&init.expr, scope)?;
        let name = scope.bind(&rust_name);
        if let Some(Type::Reference(r)) = ty {
            if matches!(&*r.elem, Type::Slice(_)) {
                scope.slices.insert(name.clone());
            }
        }
        if let Some(length) = sub_slice {
            scope.slices.insert(name.clone());
            return Ok(format!("auto {name} = {value};\nauto {name}_len = {length};\n"));
        }
        // `let p = &mut *ptr.add(i);` or `let p = &a[i];`: a pointer, read through with `->`.
        if matches!(&*init.expr, Expr::Reference(_)) {
            scope.references.insert(name.clone());
        }
        match ty {
            Some(ty) if !matches!(ty, Type::Infer(_) | Type::Reference(_)) => {
                Ok(format!("{} = {value};\n", self.declarator(ty, &name)?))
            }
            _ => Ok(format!("auto {name} = {value};\n")),
        }
    }

    /// The length of `&base[start..end]` when `base` is a slice, so that `.len()` works on it.
    pub(super) fn sub_slice_length(&self, init: &Expr, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Reference(r) = init else { return Ok(None) };
        let Expr::Index(index) = &*r.expr else { return Ok(None) };
        let Expr::Range(range) = &*index.index else {
            return Ok(None);
        };
        let Expr::Path(base) = &*index.expr else {
            return Ok(None);
        };
        let Some(base) = base.path.get_ident().map(|i| scope.lookup(&i.to_string())) else {
            return Ok(None);
        };
        if !scope.slices.contains(&base) {
            return Ok(None);
        }
        let start = match &range.start {
            Some(s) => self.expr(s, scope)?,
            None => "0".to_string(),
        };
        let end = match &range.end {
            Some(e) => self.expr(e, scope)?,
            None => format!("{base}_len"),
        };
        Ok(Some(format!("(unsigned long long)(({end}) - ({start}))")))
    }

    /// `let (a, b) = (x, y);`: every value first (they may read the old names), then the names.
    pub(super) fn tuple_local(&self, names: &syn::PatTuple, init: &Expr, scope: &mut Scope) -> Lowered<String> {
        let values: Vec<String> = match init {
            Expr::Tuple(values) => values
                .elems
                .iter()
                .map(|v| self.expr(v, scope))
                .collect::<Lowered<_>>()?,
            Expr::Call(c)
                if c.args.is_empty() && matches!(&*c.func, Expr::Path(p) if last_segment(&p.path) == "coords_2d") =>
            {
                vec![
                    "((unsigned long long)(blockIdx.x * blockDim.x + threadIdx.x))".to_string(),
                    "((unsigned long long)(blockIdx.y * blockDim.y + threadIdx.y))".to_string(),
                ]
            }
            _ => return self.fail(init, "a tuple pattern is lowered only from a tuple of values"),
        };
        if values.len() != names.elems.len() {
            return self.fail(init, "tuple sizes differ");
        }
        scope.shared_counter += 1;
        let mut out = String::new();
        let mut temporaries = Vec::new();
        for (i, value) in values.iter().enumerate() {
            let temporary = format!("kl_tuple_{}_{i}", scope.shared_counter);
            let _ = writeln!(out, "auto {temporary} = {value};");
            temporaries.push(temporary);
        }
        for (name, temporary) in names.elems.iter().zip(temporaries) {
            match name {
                syn::Pat::Ident(binding) => {
                    let _ = writeln!(out, "auto {} = {temporary};", scope.bind(&binding.ident.to_string()));
                }
                syn::Pat::Wild(_) => {}
                other => return self.fail(other, "only names are bound from a tuple"),
            }
        }
        Ok(out)
    }

    pub(super) fn expr_stmt(&self, e: &Expr, scope: &mut Scope) -> Lowered<String> {
        match e {
            Expr::If(i) => self.if_stmt(i, scope),
            Expr::While(w) => Ok(format!(
                "while ({}) {}",
                self.expr(&w.cond, scope)?,
                self.block(&w.body, scope)?
            )),
            Expr::Loop(l) => Ok(format!("while (true) {}", self.block(&l.body, scope)?)),
            Expr::ForLoop(f) => self.for_loop(f, scope),
            Expr::Block(b) => self.block(&b.block, scope),
            Expr::Unsafe(u) => self.block(&u.block, scope),
            Expr::Return(r) => match &r.expr {
                Some(v) => Ok(format!("return {};\n", self.expr(v, scope)?)),
                None => Ok("return;\n".to_string()),
            },
            Expr::Break(_) => Ok("break;\n".to_string()),
            Expr::Continue(_) => Ok("continue;\n".to_string()),
            other => Ok(format!("{};\n", self.expr(other, scope)?)),
        }
    }

    pub(super) fn if_stmt(&self, i: &syn::ExprIf, scope: &mut Scope) -> Lowered<String> {
        if matches!(&*i.cond, Expr::Let(_)) {
            return self.fail(&i.cond, "`if let` is not lowered");
        }
        let mut out = format!(
            "if ({}) {}",
            self.expr(&i.cond, scope)?,
            self.block(&i.then_branch, scope)?
        );
        if let Some((_, else_branch)) = &i.else_branch {
            out.push_str("else ");
            out.push_str(&self.expr_stmt(else_branch, scope)?);
        }
        Ok(out)
    }

    pub(super) fn for_loop(&self, f: &syn::ExprForLoop, scope: &mut Scope) -> Lowered<String> {
        let syn::Pat::Ident(var) = &*f.pat else {
            return self.fail(&f.pat, "loop pattern is not a name");
        };
        let rust_var = var.ident.to_string();
        let (range, step) = match &*f.expr {
            Expr::MethodCall(m) if m.method == "step_by" => {
                let step = m
                    .args
                    .first()
                    .ok_or_else(|| (self.span(m), "step_by without a step".to_string()))?;
                (&*m.receiver, self.expr(step, scope)?)
            }
            other => (other, "1".to_string()),
        };
        let range = match range {
            Expr::Paren(p) => &*p.expr,
            other => other,
        };
        let Expr::Range(r) = range else {
            return self.fail(range, "only ranges are iterated");
        };
        let start = r.start.as_ref().map_or(Ok("0".to_string()), |s| self.expr(s, scope))?;
        let end = r.end.as_ref().ok_or_else(|| (self.span(r), "open range".to_string()))?;
        let end = self.expr(end, scope)?;
        let cmp = if matches!(r.limits, syn::RangeLimits::Closed(_)) {
            "<="
        } else {
            "<"
        };
        scope.names.push(HashMap::new());
        let var = scope.bind(&rust_var);
        let body = self.block(&f.body, scope);
        scope.names.pop();
        Ok(format!(
            "for (auto {var} = static_cast<std::decay<decltype({end})>::type>({start}); {var} {cmp} {end}; {var} += {step}) {}",
            body?
        ))
    }
}
