//! Statements: `let` (with shadowing), `if`, `for` over ranges, `while`, `loop`, each
//! preceded by a `#line` directive.

use super::{ident, Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use std::collections::HashMap;
use std::fmt::Write;
use syn::{Expr, Item, Stmt, Type};

/// Loops of a twin stay rolled: a warp then makes one request per source iteration, as the
/// analysis counts them. Unrolled, a loop whose trip count differs between lanes regroups the
/// lanes of its last iterations into other requests.
pub(super) const ROLLED: &str = "#pragma unroll 1\n";

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
        if !self.compiled(stmt) {
            return Ok(out);
        }
        match stmt {
            Stmt::Local(local) => {
                self.line_directive(&mut out, stmt, scope);
                out.push_str(&self.local(local, scope)?);
            }
            Stmt::Item(Item::Static(s)) => {
                self.line_directive(&mut out, stmt, scope);
                let _ = writeln!(out, "{}", self.static_decl(s)?);
            }
            // A table indexed at run time is read from memory, as Rust's promoted constant is;
            // `NAME.len()` reads its length.
            Stmt::Item(Item::Const(c)) if matches!(&*c.expr, Expr::Array(_)) => {
                if let Expr::Array(a) = &*c.expr {
                    let elems = a
                        .elems
                        .iter()
                        .map(|e| self.expr(e, scope))
                        .collect::<Lowered<Vec<_>>>()?;
                    let name = ident(&c.ident.to_string());
                    scope.reserve_length(&name);
                    let _ = writeln!(
                        out,
                        "static const {} = {{{}}};\n[[maybe_unused]] constexpr unsigned long long {name}_len = {};",
                        self.declarator(&c.ty, &name)?,
                        elems.join(", "),
                        a.elems.len()
                    );
                }
            }
            // The text of `ptx_asm!`'s `in("C")` operands is spliced into the template.
            Stmt::Item(Item::Const(c)) if super::asm_strings::asm_text_const(c, &self.file.text) => {}
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
            Stmt::Macro(m) => {
                self.line_directive(&mut out, stmt, scope);
                out.push_str(&self.macro_stmt(&m.mac, scope)?);
            }
        }
        Ok(out)
    }

    pub(super) fn local(&self, local: &syn::Local, scope: &mut Scope) -> Lowered<String> {
        if let Some(out) = self.split_local(local, scope)? {
            return Ok(out);
        }
        if let Some(out) = self.vector_let_else(local, scope)? {
            return Ok(out);
        }
        if let Some(out) = self.option_try_let(local, scope)? {
            return Ok(out);
        }
        if let Some(out) = self.run_match_let(local, scope)? {
            return Ok(out);
        }
        if let Some(out) = self.enum_let_else(local, scope)? {
            return Ok(out);
        }
        if let Some(out) = self.oxide_let_else(local, scope)? {
            return Ok(out);
        }
        if let Some(out) = self.diverging_match_let(local, scope)? {
            return Ok(out);
        }
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            other => (other, None),
        };
        if let Some(out) = self.pattern_local(pat, local.init.as_ref().map(|i| &*i.expr), scope)? {
            return Ok(out);
        }
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
            // `let p: *mut u32;` assigned later is still written through with `p.write(..)`.
            self.note_type(&name, Some(ty), None, scope);
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
        if let Some(slice) = self.static_slice_local(&rust_name, &init.expr, scope)? {
            return Ok(slice);
        }
        if let Expr::Repeat(_) | Expr::Array(_) = &*init.expr {
            if let Some(empty) = self.empty_array_local(&rust_name, ty, &init.expr, scope)? {
                return Ok(empty);
            }
            return self.local_array(&rust_name, ty, &init.expr, scope);
        }
        if let Some(out) = self.option_transmute_local(&rust_name, ty, &init.expr, scope)? {
            return Ok(out);
        }
        if let Some(out) = self.generated_array_local(&rust_name, ty, &init.expr, scope)? {
            return Ok(out);
        }
        if let Some(out) = self.oxide_array_slice(&rust_name, ty, &init.expr, scope)? {
            return Ok(out);
        }
        if let Some(out) = self.disjoint_local(&rust_name, &init.expr, scope)? {
            return Ok(out);
        }
        if let Some(out) = self.raw_slice_local(&rust_name, ty, &init.expr, scope)? {
            return Ok(out);
        }
        if let Some(out) = self.promoted_range_local(&rust_name, ty, &init.expr, scope)? {
            return Ok(out);
        }
        // The value is lowered before the new name exists: `let x = x + 1` reads the old `x`.
        scope.reference_call = false;
        let value = self.expr(&init.expr, scope)?;
        let returns_reference =
            std::mem::take(&mut scope.reference_call) && matches!(&*init.expr, Expr::Call(_) | Expr::MethodCall(_));
        let sub_slice = self.sub_slice_length(&init.expr, scope)?;
        // `let f = f();` of a function `f`: C++ would read the new variable, so it takes another name.
        if calls_function_named(&value, &super::ident(&rust_name)) {
            scope.declared.entry(rust_name.clone()).or_insert(1);
        }
        let name = scope.bind(&rust_name);
        if let Some(Type::Reference(r)) = ty {
            if matches!(&*r.elem, Type::Slice(_)) {
                if sub_slice.is_none() {
                    if let Some(out) = self.unsized_local(&name, &init.expr, &value, scope) {
                        return Ok(out);
                    }
                }
                scope.slices.insert(name.clone());
            }
        }
        if let Some(length) = sub_slice {
            scope.slices.insert(name.clone());
            return Ok(format!("auto {name} = {value};\nauto {name}_len = {length};\n"));
        }
        // `let p = &mut *ptr.add(i);` or `let p = &a[i];`: a pointer, read through with `->`.
        if is_reference(&init.expr) || returns_reference {
            scope.references.insert(name.clone());
        }
        self.oxide_bound(&name, &init.expr, scope);
        self.note_type(&name, ty, Some(&init.expr), scope);
        match ty {
            Some(ty) if !matches!(ty, Type::Infer(_) | Type::Reference(_)) => {
                Ok(format!("{} = {value};\n", self.declarator(ty, &name)?))
            }
            _ => Ok(format!("auto {name} = {value};\n")),
        }
    }

    /// `let mut a = [0u32; 4];`, `let m = [[0.0f32; 3]; 3];`, `let w = [1.0f32, 2.0];`: a C
    /// array of the declared type, or of the type of the innermost literal.
    fn local_array(&self, rust_name: &str, ty: Option<&Type>, init: &Expr, scope: &mut Scope) -> Lowered<String> {
        // Dimensions, outermost first, and the innermost element.
        let mut dims = Vec::new();
        let mut element = init;
        let mut elements = None;
        loop {
            match element {
                Expr::Repeat(r) => {
                    let len = match self.layouts.const_value(&r.len) {
                        Some(len) => len.to_string(),
                        None if super::types::is_constant_expression(&r.len) => self.expr(&r.len, scope)?,
                        None => return self.fail(&r.len, "array length is not a constant"),
                    };
                    dims.push(len);
                    element = &r.expr;
                }
                Expr::Array(a) if elements.is_none() && dims.is_empty() => {
                    let values = a
                        .elems
                        .iter()
                        .map(|e| self.expr(e, scope))
                        .collect::<Lowered<Vec<_>>>()?;
                    dims.push(values.len().to_string());
                    elements = Some(values);
                    match a.elems.first() {
                        Some(first) => element = first,
                        None => return self.fail(a, "empty array"),
                    }
                }
                _ => break,
            }
        }
        let value = match &elements {
            Some(_) => None,
            None => Some(self.expr(element, scope)?),
        };
        let name = scope.bind(rust_name);
        let declaration = match ty {
            Some(ty) if !matches!(ty, Type::Infer(_)) => self.declarator(ty, &name)?,
            _ if self.ptx_op_type(element).is_some() => {
                Self::inferred_array(self.ptx_op_type(element).unwrap_or_default(), &dims, &name)
            }
            _ => 'inferred: {
                let Expr::Lit(lit) = element else {
                    let first = elements.as_ref().and_then(|v| v.first()).or(value.as_ref());
                    match first {
                        Some(first) => {
                            break 'inferred Self::inferred_array(&super::element_types::of_value(first), &dims, &name)
                        }
                        None => {
                            return self.fail(
                                element,
                                "the element type of an array needs a literal or a declared type",
                            )
                        }
                    }
                };
                if let Some(base) = super::element_types::of_literal(&lit.lit) {
                    break 'inferred Self::inferred_array(base, &dims, &name);
                }
                let base = match &lit.lit {
                    syn::Lit::Int(i) => match i.suffix() {
                        "" => "int",
                        suffix => {
                            Self::primitive(suffix).ok_or_else(|| (self.span(lit), "integer suffix".to_string()))?
                        }
                    },
                    syn::Lit::Float(f) => match f.suffix() {
                        "f64" => "double",
                        _ => "float",
                    },
                    syn::Lit::Bool(_) => "bool",
                    other => return self.fail(other, "literal is not lowered"),
                };
                Self::inferred_array(base, &dims, &name)
            }
        };
        Ok(match (elements, value) {
            (Some(values), _) => format!("{declaration} = {{{}}};\n", values.join(", ")),
            (None, Some(value)) => {
                scope.shared_counter += 1;
                let k = format!("kl_k_{}", scope.shared_counter);
                let total = dims.iter().map(|d| format!("({d})")).collect::<Vec<_>>().join(" * ");
                format!(
                    "{declaration};\nfor (unsigned long long {k} = 0; {k} < (unsigned long long)({total}); ++{k}) (&{name}{})[{k}] = {value};\n",
                    "[0]".repeat(dims.len())
                )
            }
            (None, None) => return self.fail(init, "array without a value"),
        })
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
            // A helper returning a tuple: its fields, from one temporary.
            other => {
                scope.shared_counter += 1;
                let whole = format!("kl_tuple_{}", scope.shared_counter);
                let value = self.expr(other, scope)?;
                let fields = (0..names.elems.len()).map(|i| format!("{whole}._{i}"));
                let mut out = format!("auto {whole} = {value};\n");
                for (i, (name, field)) in names.elems.iter().zip(fields).enumerate() {
                    match name {
                        syn::Pat::Ident(binding) => {
                            let bound = scope.bind(&binding.ident.to_string());
                            let _ = writeln!(out, "auto {bound} = {field};");
                            if let Some(ty) = self.overflow_pair_field(other, i, scope) {
                                scope.types.insert(bound, ty);
                            }
                        }
                        syn::Pat::Wild(_) => {}
                        other => return self.fail(other, "only names are bound from a tuple"),
                    }
                }
                return Ok(out);
            }
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
        if let Some(out) = self.option_map_stmt(e, scope)? {
            return Ok(out);
        }
        match e {
            Expr::If(i) => self.if_stmt(i, scope),
            Expr::While(w) if self.oxide.enabled && matches!(&*w.cond, Expr::Let(_)) => {
                match self.run_walk(w, scope)? {
                    Some(out) => Ok(out),
                    None => Ok(format!(
                        "{ROLLED}while ({}) {}",
                        self.expr(&w.cond, scope)?,
                        self.block(&w.body, scope)?
                    )),
                }
            }
            Expr::While(w) if matches!(&*w.cond, Expr::Let(_)) && w.label.is_none() => self.while_let(w, scope),
            Expr::While(w) => Ok(format!(
                "{ROLLED}while ({}) {}",
                self.expr(&w.cond, scope)?,
                self.block(&w.body, scope)?
            )),
            Expr::Loop(l) => Ok(format!("{ROLLED}while (true) {}", self.block(&l.body, scope)?)),
            Expr::ForLoop(f) => self.for_loop(f, scope),
            Expr::Match(m) => self.match_stmt(m, scope),
            Expr::Block(b) => self.block(&b.block, scope),
            Expr::Unsafe(u) => self.block(&u.block, scope),
            Expr::Return(r) => match &r.expr {
                Some(v) => Ok(format!("return {};\n", self.expr(v, scope)?)),
                None => Ok("return;\n".to_string()),
            },
            Expr::Break(_) => Ok("break;\n".to_string()),
            Expr::Continue(_) => Ok("continue;\n".to_string()),
            Expr::Macro(m) => self.macro_stmt(&m.mac, scope),
            other => Ok(format!("{};\n", self.expr(other, scope)?)),
        }
    }

    pub(super) fn if_stmt(&self, i: &syn::ExprIf, scope: &mut Scope) -> Lowered<String> {
        if let Expr::Let(l) = &*i.cond {
            if let Some(out) = self.split_if_let(l, i, scope)? {
                return Ok(out);
            }
            if let Some(out) = self.vector_if_let(l, i, scope)? {
                return Ok(out);
            }
        }
        match self.oxide_if(i, scope) {
            Ok(Some(out)) => return Ok(out),
            Ok(None) => {}
            // A tuple of options the cuda-oxide forms do not take: tested one by one.
            Err(refused) => return self.tuple_if_let(i, scope)?.ok_or(refused),
        }
        if let Expr::Let(l) = &*i.cond {
            self.tile_view(&l.expr, scope)?;
            if self.option_of_element(&l.expr, scope).is_err() {
                if let Some(out) = self.enum_if_let(l, i, scope)? {
                    return Ok(out);
                }
            }
            return self.if_let(l, i, scope);
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

    /// `if let Some(x) = s.get(i)` (or `get_mut`) of a slice: a bounds check, then `x` refers
    /// to the element.
    fn if_let(&self, l: &syn::ExprLet, i: &syn::ExprIf, scope: &mut Scope) -> Lowered<String> {
        let (condition, element) = self.option_of_element(&l.expr, scope)?;
        let binding = match &*l.pat {
            syn::Pat::TupleStruct(t)
                if t.path.segments.last().is_some_and(|s| s.ident == "Some") && t.elems.len() == 1 =>
            {
                match &t.elems[0] {
                    syn::Pat::Ident(b) if b.subpat.is_none() => Some(b.ident.to_string()),
                    syn::Pat::Wild(_) => None,
                    other => return self.fail(other, "only `Some(name)` is lowered in `if let`"),
                }
            }
            other => return self.fail(other, "only `Some(name)` is lowered in `if let`"),
        };
        scope.names.push(HashMap::new());
        let mut then = String::from("{\n");
        if let Some(binding) = binding {
            let name = scope.bind(&binding);
            scope.references.insert(name.clone());
            self.oxide_bound(&name, &l.expr, scope);
            let _ = writeln!(then, "auto {name} = {element};");
        }
        let body = self.block(&i.then_branch, scope);
        scope.names.pop();
        then.push_str(&body?);
        then.push_str("}\n");
        let mut out = format!("if ({condition}) {then}");
        if let Some((_, else_branch)) = &i.else_branch {
            out.push_str("else ");
            out.push_str(&self.expr_stmt(else_branch, scope)?);
        }
        Ok(out)
    }

    /// `s.get(i)` / `s.get_mut(i)` of a slice: the bounds check and a reference to the element.
    pub(super) fn option_of_element(&self, e: &Expr, scope: &mut Scope) -> Lowered<(String, String)> {
        if let Some(index) = self.oxide_option(e, scope)? {
            return Ok(index);
        }
        let Expr::MethodCall(m) = e else {
            return self.fail(e, "`if let` is lowered only on `get(i)` of a slice");
        };
        if let Some(found) = self.option_of_array_element(m, scope)? {
            return Ok(found);
        }
        let slice = matches!(&*m.receiver, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.slices.contains(&scope.lookup(&i.to_string()))));
        if !(slice && matches!(m.method.to_string().as_str(), "get" | "get_mut") && m.args.len() == 1) {
            return self.fail(e, "`if let` is lowered only on `get(i)` of a slice");
        }
        let base = self.expr(&m.receiver, scope)?;
        let index = self.expr(&m.args[0], scope)?;
        Ok((
            format!("(unsigned long long)({index}) < {base}_len"),
            format!("kl::make_ref(&{base}[{index}])"),
        ))
    }

    /// `match` as a statement: an `if` chain on literal patterns, or a bounds check for
    /// `Some(x)` / `None` of `s.get(i)`.
    pub(super) fn match_stmt(&self, m: &syn::ExprMatch, scope: &mut Scope) -> Lowered<String> {
        if self.option_of_element(&m.expr, scope).is_err() {
            if let Some(out) = self.enum_match_stmt(m, scope)? {
                return Ok(out);
            }
        }
        if let Some(out) = self.guarded_match_stmt(m, scope)? {
            return Ok(out);
        }
        if m.arms.iter().any(|a| a.guard.is_some()) {
            return self.fail(m, "`match` guards are not lowered");
        }
        let is_option = m.arms.iter().any(
            |a| matches!(&a.pat, syn::Pat::TupleStruct(t) if t.path.segments.last().is_some_and(|s| s.ident == "Some")),
        );
        if is_option {
            let mut some = None;
            let mut none = None;
            for arm in &m.arms {
                match &arm.pat {
                    syn::Pat::TupleStruct(_) => some = Some(arm),
                    syn::Pat::Ident(n) if n.ident == "None" => none = Some(arm),
                    syn::Pat::Path(p) if p.path.is_ident("None") => none = Some(arm),
                    syn::Pat::Wild(_) => none = Some(arm),
                    other => return self.fail(other, "only `Some(name)` and `None` are lowered"),
                }
            }
            let Some(some) = some else {
                return self.fail(m, "`match` on an option without `Some`");
            };
            let as_if = syn::ExprIf {
                attrs: Vec::new(),
                if_token: Default::default(),
                cond: Box::new(Expr::Let(syn::ExprLet {
                    attrs: Vec::new(),
                    let_token: Default::default(),
                    pat: Box::new(some.pat.clone()),
                    eq_token: Default::default(),
                    expr: m.expr.clone(),
                })),
                then_branch: super::arm_blocks::arm_block(&some.body),
                else_branch: none.map(|n| {
                    (
                        Default::default(),
                        Box::new(Expr::Block(syn::ExprBlock {
                            attrs: Vec::new(),
                            label: None,
                            block: super::arm_blocks::arm_block(&n.body),
                        })),
                    )
                }),
            };
            return self.if_stmt(&as_if, scope);
        }
        let (temporary, scrutinee) = self.match_scrutinee(&m.expr, scope)?;
        let mut out = String::new();
        let mut closed = false;
        for (k, arm) in m.arms.iter().enumerate() {
            if closed {
                return self.fail(arm, "an arm after the catch-all");
            }
            let bound = super::atomics::exchange_binding(&m.expr, &arm.pat);
            let body = if super::expr::is_unreachable(&arm.body) {
                "{\n}\n".to_string()
            } else if let Some((name, _)) = &bound {
                self.exchange_arm(name, &scrutinee, &arm.body, scope)?
            } else {
                self.block(&super::arm_blocks::arm_block(&arm.body), scope)?
            };
            let pattern = bound.map_or_else(|| arm.pat.clone(), |(_, unbound)| unbound);
            match self.pattern_condition(&pattern, &scrutinee)? {
                Some(condition) => {
                    let keyword = if k == 0 { "if" } else { "else if" };
                    let _ = write!(out, "{keyword} ({condition}) {body}");
                }
                None if k == 0 => {
                    out.push_str(&body);
                    closed = true;
                }
                None => {
                    let _ = write!(out, "else {body}");
                    closed = true;
                }
            }
        }
        Ok(super::matching::with_temporary(temporary, out))
    }

    pub(super) fn for_loop(&self, f: &syn::ExprForLoop, scope: &mut Scope) -> Lowered<String> {
        if let Some(looped) = self.zip_loop(f, scope)? {
            return Ok(looped);
        }
        if let Some(looped) = self.collection_loop(f, scope)? {
            return Ok(looped);
        }
        if let Some(looped) = self.literal_array_loop(f, scope)? {
            return Ok(looped);
        }
        if let Some(looped) = self.returned_array_loop(f, scope)? {
            return Ok(looped);
        }
        let mut rust_var = match &*f.pat {
            syn::Pat::Ident(var) => var.ident.to_string(),
            // `for _ in 0..n`: a counter no statement reads.
            syn::Pat::Wild(_) => "kl_unused".to_string(),
            other => return self.fail(other, "loop pattern is not a name"),
        };
        // `for x in (a..b).map(|i| f(i))`: the loop runs over `i`, and `x` is `f(i)` first thing.
        let mut mapped = None;
        let mut iterated = &*f.expr;
        if let Expr::MethodCall(m) = iterated {
            if m.method == "map" && m.args.len() == 1 {
                let Some(Expr::Closure(c)) = m.args.first() else {
                    return self.fail(&m.args, "`map` of something other than a closure");
                };
                let [syn::Pat::Ident(param)] = c.inputs.iter().collect::<Vec<_>>()[..] else {
                    return self.fail(c, "a closure of one named parameter is lowered in `map`");
                };
                mapped = Some((rust_var.clone(), &*c.body));
                rust_var = param.ident.to_string();
                iterated = &m.receiver;
            }
        }
        if mapped.is_none() {
            if let Some(looped) = self.stepped_loop(&rust_var, iterated, &f.body, scope)? {
                return Ok(looped);
            }
        }
        let (range, step) = match iterated {
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
        let body = match mapped {
            Some((name, value)) => match self.expr(value, scope) {
                Ok(value) => {
                    let name = scope.bind(&name);
                    self.block(&f.body, scope)
                        .map(|body| format!("{{\nauto {name} = {value};\n{body}}}\n"))
                }
                Err(e) => Err(e),
            },
            None => self.block(&f.body, scope),
        };
        scope.names.pop();
        Ok(format!(
            "{ROLLED}for (auto {var} = static_cast<std::decay_t<decltype({end})>>({start}); {var} {cmp} {end}; {var} += {step}) {}",
            body?
        ))
    }
}

impl Context<'_> {
    /// `for s in mult_step(1, 2).take_while(|&s| s < n)`: a helper that builds an iterator
    /// struct whose `next` yields a field and then steps it by another (`self.next *= self.factor`)
    /// is a counted loop: the same values, tested and stepped in the same order.
    fn stepped_loop(
        &self,
        rust_var: &str,
        iterated: &Expr,
        body: &syn::Block,
        scope: &mut Scope,
    ) -> Lowered<Option<String>> {
        let Expr::MethodCall(take) = iterated else {
            return Ok(None);
        };
        let (Expr::Call(call), true, Some(Expr::Closure(test))) =
            (&*take.receiver, take.method == "take_while", take.args.first())
        else {
            return Ok(None);
        };
        let Expr::Path(func) = &*call.func else { return Ok(None) };
        let Some(target) = self.layouts.resolve(&func.path) else {
            return Ok(None);
        };
        let index = self.layouts.index;
        let Some(function) = index.function(&target) else {
            return Ok(None);
        };
        // The helper's body: `Iter { field: param, .. }`.
        let [Stmt::Expr(Expr::Struct(built), None)] = function.block.stmts.as_slice() else {
            return Ok(None);
        };
        let params: Vec<String> = function
            .sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => match &*t.pat {
                    syn::Pat::Ident(i) => Some(i.ident.to_string()),
                    _ => None,
                },
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        let field_param = |field: &str| {
            built.fields.iter().find_map(|fv| {
                let syn::Member::Named(n) = &fv.member else { return None };
                let Expr::Path(p) = &fv.expr else { return None };
                (n == field)
                    .then(|| p.path.get_ident().map(|i| i.to_string()))
                    .flatten()
                    .and_then(|name| params.iter().position(|q| *q == name))
            })
        };
        let Some(iter_type) = built.path.get_ident().map(|i| i.to_string()) else {
            return Ok(None);
        };
        let Some(next) = index
            .methods_named("next", function.module)
            .find(|m| m.self_type == Some(iter_type.as_str()) && m.module == function.module)
        else {
            return Ok(None);
        };
        // `let v = self.a; self.a OP= self.b; Some(v)`
        let self_field = |e: &Expr| match e {
            Expr::Field(f) if matches!(&*f.base, Expr::Path(p) if p.path.is_ident("self")) => match &f.member {
                syn::Member::Named(n) => Some(n.to_string()),
                _ => None,
            },
            _ => None,
        };
        let [Stmt::Local(yielded), Stmt::Expr(Expr::Binary(update), Some(_)), Stmt::Expr(Expr::Call(some), None)] =
            next.block.stmts.as_slice()
        else {
            return Ok(None);
        };
        let (Some(current), Some(value)) = (
            yielded.init.as_ref().and_then(|i| self_field(&i.expr)),
            match &yielded.pat {
                syn::Pat::Ident(i) => Some(i.ident.to_string()),
                _ => None,
            },
        ) else {
            return Ok(None);
        };
        let returns_value = matches!(&*some.func, Expr::Path(p) if p.path.is_ident("Some"))
            && matches!(some.args.first(), Some(Expr::Path(p)) if p.path.is_ident(&value));
        let op = match update.op {
            syn::BinOp::MulAssign(_) => "*=",
            syn::BinOp::DivAssign(_) => "/=",
            syn::BinOp::AddAssign(_) => "+=",
            syn::BinOp::SubAssign(_) => "-=",
            _ => return Ok(None),
        };
        let (Some(stepped), Some(by)) = (self_field(&update.left), self_field(&update.right)) else {
            return Ok(None);
        };
        if !returns_value || stepped != current {
            return Ok(None);
        }
        let (Some(start_arg), Some(step_arg)) = (field_param(&current), field_param(&by)) else {
            return Ok(None);
        };
        let Some((_, def)) = index
            .resolve(function.module, std::slice::from_ref(&iter_type))
            .and_then(|t| index.struct_def(&t))
        else {
            return Ok(None);
        };
        let field_type = def
            .fields
            .iter()
            .find(|f| f.ident.as_ref().is_some_and(|i| *i == current));
        let (Some(field_type), Some(defining)) = (field_type, self.within(function.module)) else {
            return Ok(None);
        };
        let c_type = defining.c_type(&field_type.ty)?;
        let [test_param] = test.inputs.iter().collect::<Vec<_>>()[..] else {
            return self.fail(test, "a `take_while` closure of one parameter is lowered");
        };
        // `take_while` hands its closure a reference to the value.
        let (test_name, by_reference) = match test_param {
            syn::Pat::Ident(i) => (i.ident.to_string(), true),
            syn::Pat::Reference(r) => match &*r.pat {
                syn::Pat::Ident(i) => (i.ident.to_string(), false),
                other => return self.fail(other, "`take_while` parameter is not a name"),
            },
            other => return self.fail(other, "`take_while` parameter is not a name"),
        };
        // The helper's arguments, in their order, once.
        let mut out = String::from("{\n");
        scope.names.push(HashMap::new());
        let mut arg_names = Vec::new();
        for arg in &call.args {
            let value = self.expr(arg, scope);
            let value = match value {
                Ok(v) => v,
                Err(e) => {
                    scope.names.pop();
                    return Err(e);
                }
            };
            let name = scope.bind("step_arg");
            let _ = writeln!(out, "const {c_type} {name} = ({c_type})({value});");
            arg_names.push(name);
        }
        let (Some(start), Some(step)) = (arg_names.get(start_arg).cloned(), arg_names.get(step_arg).cloned()) else {
            scope.names.pop();
            return Ok(None);
        };
        let var = scope.bind(rust_var);
        if let Some(top) = scope.names.last_mut() {
            top.insert(test_name, if by_reference { format!("(&{var})") } else { var.clone() });
        }
        let condition = self.expr(&test.body, scope);
        if let Some(top) = scope.names.last_mut() {
            top.insert(rust_var.to_string(), var.clone());
        }
        let lowered = condition.and_then(|condition| {
            self.block(body, scope)
                .map(|body| format!("{ROLLED}for ({c_type} {var} = {start}; {condition}; {var} {op} {step}) {body}"))
        });
        scope.names.pop();
        out.push_str(&lowered?);
        out.push_str("}\n");
        Ok(Some(out))
    }
}

/// `&x`, also inside `unsafe { .. }`, a block of one expression or parentheses.
fn is_reference(e: &Expr) -> bool {
    match e {
        Expr::Reference(_) => true,
        Expr::Paren(p) => is_reference(&p.expr),
        Expr::Unsafe(u) => matches!(u.block.stmts.as_slice(), [Stmt::Expr(inner, None)] if is_reference(inner)),
        Expr::Block(b) => matches!(b.block.stmts.as_slice(), [Stmt::Expr(inner, None)] if is_reference(inner)),
        _ => false,
    }
}

/// Whether C++ `text` calls a function named `name` (not one whose name ends in it).
fn calls_function_named(text: &str, name: &str) -> bool {
    let call = format!("{name}(");
    text.match_indices(&call).any(|(at, _)| {
        !text[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '>')
    })
}
