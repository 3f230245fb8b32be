//! Expressions: arithmetic, casts, pointers and places, geometry builtins, methods.

use super::{ident, Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::{BinOp, Expr, Stmt, Type, UnOp};

impl Context<'_> {
    /// An expression as C++.
    pub(super) fn expr(&self, e: &Expr, scope: &mut Scope) -> Lowered<String> {
        Ok(match e {
            Expr::Lit(lit) => self.literal(&lit.lit)?,
            Expr::Paren(p) => format!("({})", self.expr(&p.expr, scope)?),
            Expr::Group(g) => self.expr(&g.expr, scope)?,
            Expr::Path(p) => {
                let Some(last) = p.path.segments.last() else {
                    return self.fail(p, "empty path");
                };
                let name = last.ident.to_string();
                if let Some(reader) = self.intrinsic_value(p).filter(|_| !scope.is_bound(&name)) {
                    return Ok(reader);
                }
                if let Some(none) = self.option_none(p, scope) {
                    return Ok(none);
                }
                if let Some(constant) = glam_constant(&p.path) {
                    return Ok(constant);
                }
                if let Some(constant) = numeric_constant(&p.path) {
                    return Ok(constant);
                }
                if let Some(constant) = self.trait_const(p)? {
                    return Ok(constant);
                }
                if let Some(variant) = self.variant_value(p) {
                    return Ok(variant);
                }
                if let Some(item) = self.item_value(p, scope)? {
                    return Ok(item);
                }
                if let Some(function) = self.function_value(p, scope)? {
                    return Ok(function);
                }
                if let Some(ordering) = super::ordering::ordering_value(&p.path) {
                    return Ok(ordering);
                }
                if p.path.segments.len() > 1 && self.undefined.contains(&name) {
                    return self.fail(p, super::const_reasons::undefined(&name));
                }
                if p.path.segments.len() > 1
                    && self.layouts.const_named(&p.path).is_none()
                    && !self.consts.contains(&name)
                {
                    if let Some(reason) = self.generated_item(p) {
                        return self.fail(p, reason);
                    }
                    return self.fail(p, format!("path `{}` is not lowered", self.text(p)));
                }
                if p.path.segments.len() > 1 {
                    ident(&name)
                } else if self.undefined.contains(&name) && !scope.is_bound(&name) {
                    return self.fail(p, super::const_reasons::undefined(&name));
                } else if self.structs.contains(&name) && !scope.is_bound(&name) {
                    // A unit struct as a value.
                    format!("{name}{{}}")
                } else {
                    scope.lookup(&name)
                }
            }
            Expr::Binary(b) if self.borrowed_operands(b) => self.reference_operator(b, scope)?,
            Expr::Binary(b) => {
                let op = binary_op(&b.op).ok_or_else(|| (self.span(b), "operator".to_string()))?;
                self.overloaded_operator(b)?;
                // A reference operand reads its value, as Rust's operators on `&T` do.
                let mut operand = |e: &Expr| -> Lowered<String> {
                    let text = self.expr(e, scope)?;
                    let reference = matches!(e, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.references.contains(&scope.lookup(&i.to_string()))));
                    Ok(if reference { format!("(*{text})") } else { text })
                };
                let left = operand(&b.left)?;
                format!("({left} {op} {})", operand(&b.right)?)
            }
            Expr::Assign(a) => {
                let left = self.expr(&a.left, scope)?;
                match self.generic_constructor(&a.right, scope)? {
                    Some(built) => format!("{left} = {built}"),
                    None => format!("{left} = {}", self.expr(&a.right, scope)?),
                }
            }
            Expr::Unary(u) if super::literal_refs::is_literal_fallback(u) => self.literal_fallback(u, scope)?,
            Expr::Unary(u) => {
                let inner = self.expr(&u.expr, scope)?;
                match u.op {
                    // `*self` of a `&self` method: `self` is a C++ reference.
                    UnOp::Deref(_) if Self::is_receiver_reference(&u.expr, scope) => inner,
                    UnOp::Deref(_) => format!("(*{inner})"),
                    UnOp::Neg(_) => format!("(-{inner})"),
                    UnOp::Not(_) if is_boolean(&u.expr) || Self::names_boolean(&u.expr, scope) => format!("(!{inner})"),
                    UnOp::Not(_) => format!("(~{inner})"),
                    _ => return self.fail(u, "operator"),
                }
            }
            Expr::Cast(c) => match &*c.ty {
                // `self as *mut _`: the pointee's type is the operand's own.
                Type::Ptr(p) if matches!(&*p.elem, Type::Infer(_)) => self.inferred_pointer_cast(c, p, scope)?,
                Type::Ptr(_) => format!("(({})({}))", self.c_type(&c.ty)?, self.pointer_operand(&c.expr, scope)?),
                ty => format!("(({})({}))", self.c_type(ty)?, self.expr(&c.expr, scope)?),
            },
            Expr::Index(i) => match &*i.index {
                Expr::Range(r) => {
                    let base = self.expr(&i.expr, scope)?;
                    match (&r.start, &r.end) {
                        (Some(s), _) => format!("({base} + {})", self.expr(s, scope)?),
                        (None, _) => base,
                    }
                }
                index if super::nalgebra::indexes_matrix_reference(&i.expr, index, scope) => {
                    format!("(*{})[{}]", self.expr(&i.expr, scope)?, self.expr(index, scope)?)
                }
                // Rust indexes through a reference to an array.
                index if is_reference_name(&i.expr, scope) => {
                    format!("(*{})[{}]", self.expr(&i.expr, scope)?, self.expr(index, scope)?)
                }
                index => format!("{}[{}]", self.expr(&i.expr, scope)?, self.expr(index, scope)?),
            },
            Expr::Field(f) => {
                let member = match &f.member {
                    syn::Member::Named(n) => ident(&n.to_string()),
                    syn::Member::Unnamed(i) => format!("_{}", i.index),
                };
                if let Some(geometry) = self.geometry_field(&f.base, &member) {
                    return Ok(geometry);
                }
                let base_is_reference = matches!(&*f.base, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.references.contains(&scope.lookup(&i.to_string()))));
                // `grid.block(id).len`: a function returning `&T` lowers to one returning `T*`.
                let outer_call = std::mem::take(&mut scope.reference_call);
                let base = self.expr(&f.base, scope)?;
                let call_returns_reference = std::mem::replace(&mut scope.reference_call, outer_call)
                    && matches!(&*f.base, Expr::Call(_) | Expr::MethodCall(_));
                if base_is_reference || call_returns_reference {
                    format!("{base}->{member}")
                } else {
                    format!("{base}.{member}")
                }
            }
            // `&a[offset..]` is already a pointer.
            Expr::Reference(r) if matches!(&*r.expr, Expr::Index(i) if matches!(&*i.index, Expr::Range(_))) => {
                self.expr(&r.expr, scope)?
            }
            // Rust promotes `&77` to a constant in memory; C++ has no address for a literal.
            Expr::Reference(r) if matches!(&*r.expr, Expr::Lit(_)) => {
                return self.fail(
                    r,
                    format!("`{}`: a reference to a literal is not lowered", self.text(r)),
                )
            }
            Expr::Reference(r) if self.promoted_constant(r, scope).is_some() => {
                self.promoted_constant(r, scope).unwrap_or_default()
            }
            Expr::Reference(r) => format!("(&{})", self.expr(&r.expr, scope)?),
            Expr::MethodCall(m) => self.method(m, scope)?,
            Expr::Call(c) => self.call(c, scope)?,
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                Stmt::Expr(inner, None) => self.expr(inner, scope)?,
                _ => return self.fail(b, "block expression is not lowered"),
            },
            Expr::Unsafe(u) if u.block.stmts.len() == 1 => match &u.block.stmts[0] {
                Stmt::Expr(inner, None) => self.expr(inner, scope)?,
                _ => return self.fail(u, "block expression is not lowered"),
            },
            // `unsafe { let raw = ..; f(raw) }` as a value: a statement expression.
            Expr::Block(b) if b.label.is_none() && b.block.stmts.len() > 1 => self.block_value(&b.block, scope)?,
            Expr::Unsafe(u) if u.block.stmts.len() > 1 => self.block_value(&u.block, scope)?,
            Expr::If(i) if self.is_variant_let(&i.cond) => self.enum_if_let_value(i, scope)?,
            Expr::If(i) => {
                let tail = |b: &syn::Block| match b.stmts.as_slice() {
                    [Stmt::Expr(e, None)] => Some(e.clone()),
                    _ => None,
                };
                let else_expr = match &i.else_branch {
                    Some((_, e)) => match &**e {
                        Expr::Block(b) => tail(&b.block),
                        other => Some(other.clone()),
                    },
                    None => None,
                };
                match (tail(&i.then_branch), else_expr) {
                    (Some(a), Some(b)) if matches!((&a, &b), (Expr::Tuple(_), Expr::Tuple(_))) => {
                        let cond = self.expr(&i.cond, scope)?;
                        let (a, b) = (self.expr(&a, scope)?, self.expr(&b, scope)?);
                        super::tuple_arms::same_type_arms(&cond, &a, &b)
                    }
                    (Some(a), Some(b)) => format!(
                        "(({}) ? ({}) : ({}))",
                        self.expr(&i.cond, scope)?,
                        self.expr(&a, scope)?,
                        self.expr(&b, scope)?
                    ),
                    _ => self.if_value_with_statements(i, scope)?,
                }
            }
            Expr::Tuple(t) if (1..=8).contains(&t.elems.len()) => {
                let elems = t
                    .elems
                    .iter()
                    .map(|e| self.expr(e, scope))
                    .collect::<Lowered<Vec<_>>>()?;
                format!("kl::make_tuple({})", elems.join(", "))
            }
            Expr::Struct(s) => match self.variant_struct(s, scope)? {
                Some(v) => v,
                None => self.struct_literal(s, scope)?,
            },
            Expr::Array(a) => self.array_literal(a, scope)?,
            Expr::Closure(c) => self.closure(c, scope)?,
            Expr::Repeat(r) => self.array_repeat(r, scope)?,
            Expr::Tuple(t) if t.elems.is_empty() => "kl::unit{}".to_string(),
            Expr::Match(m) => match self.enum_match_value(m, scope)? {
                Some(v) => v,
                None => self.match_value(m, scope)?,
            },
            Expr::RawAddr(_) | Expr::Macro(_) if super::oxide::raw_address(e).is_some() => {
                match super::oxide::raw_address(e) {
                    Some(place) => format!("(&{})", self.expr(&place, scope)?),
                    None => return self.fail(e, "address"),
                }
            }
            Expr::Macro(m) if super::last_segment(&m.mac.path) == "gpu_printf" => self.gpu_printf(&m.mac, scope)?,
            Expr::Macro(m) if m.mac.path.is_ident("matches") => match self.matches_macro(&m.mac, scope)? {
                Some(c) => c,
                None => return self.fail(m, "`matches!` is not lowered"),
            },
            Expr::Macro(m) => match self.nalgebra_macro(m, scope)? {
                Some(c) => c,
                None => return self.fail(m, format!("macro `{}!` is not lowered", self.text(&m.mac.path))),
            },
            other => return self.fail(other, format!("`{}` is not lowered", self.text(other))),
        })
    }

    /// `Foo { a: 1, b: x }` as the aggregate `Foo{1, x}`, in the order the fields are declared.
    fn struct_literal(&self, s: &syn::ExprStruct, scope: &mut Scope) -> Lowered<String> {
        if s.rest.is_some() {
            return self.fail(s, "struct update syntax `..base` is not lowered");
        }
        if let Some(literal) = self.closure_struct_literal(s, scope)? {
            return Ok(literal);
        }
        if let Some(literal) = self.union_literal(s, scope)? {
            return Ok(literal);
        }
        if let Some(literal) = self.generic_union_literal(s, scope)? {
            return Ok(literal);
        }
        if let Some(literal) = self.vek_literal(s, scope)? {
            return Ok(literal);
        }
        let (_, fields) = self
            .layouts
            .struct_fields(&s.path)
            .or_else(|| self.layouts.struct_fields(&self.nested_struct_path(&s.path)?))
            .ok_or_else(|| (self.span(&s.path), format!("unknown struct `{}`", self.text(&s.path))))?;
        let ty = self.c_type(&Type::Path(syn::TypePath {
            qself: None,
            path: s.path.clone(),
        }))?;
        let mut values = Vec::new();
        let mut markers = 0;
        for (field, field_ty) in &fields {
            // `PhantomData` fields take no bytes: the C struct has none.
            if super::types::is_marker(field_ty) {
                markers += 1;
                continue;
            }
            let value = s
                .fields
                .iter()
                .find(|f| match &f.member {
                    syn::Member::Named(n) => n == field,
                    syn::Member::Unnamed(i) => i.index.to_string() == *field,
                })
                .ok_or_else(|| (self.span(s), format!("field `{field}` is not given")))?;
            let text = self.field_value(&value.expr, &ty, field, scope)?;
            if is_slice_reference(field_ty) {
                // The C struct holds a slice field as its pointer and its length.
                values.push(self.slice_field_value(&value.expr, &text, field, scope)?);
            } else {
                values.push(text);
            }
        }
        if values.len() + markers != s.fields.len() {
            return self.fail(s, "a field given is not one of the struct's");
        }
        Ok(format!("{ty}{{{}}}", values.join(", ")))
    }

    /// A slice given to a struct literal's slice field, as its pointer and length: a slice
    /// binding, a sub-slice `&a[i..]` or an array.
    fn slice_field_value(&self, value: &Expr, text: &str, field: &str, scope: &mut Scope) -> Lowered<String> {
        if let Expr::Path(p) = value {
            if let Some(ident) = p.path.get_ident() {
                if scope.slices.contains(&scope.lookup(&ident.to_string())) {
                    return Ok(format!("{text}, {text}_len"));
                }
                if let Some(both) = self.unsized_argument(value, text) {
                    return Ok(both);
                }
            }
        }
        if let Some(length) = self.sub_slice_length(value, scope)? {
            return Ok(format!("{text}, {length}"));
        }
        self.fail(
            value,
            format!("the length of the slice given to field `{field}` is not known"),
        )
    }

    /// The condition under which `pattern` matches the C expression `scrutinee`: integer and
    /// boolean literals, ranges, alternatives and `_`; `None` for the catch-all.
    pub(super) fn pattern_condition(&self, pattern: &syn::Pat, scrutinee: &str) -> Lowered<Option<String>> {
        Ok(match pattern {
            syn::Pat::Wild(_) => None,
            syn::Pat::TupleStruct(_) if self.exchange_pattern(pattern, scrutinee)?.is_some() => {
                self.exchange_pattern(pattern, scrutinee)?
            }
            syn::Pat::Lit(l) => Some(format!("({scrutinee} == {})", self.literal(&l.lit)?)),
            syn::Pat::Paren(p) => self.pattern_condition(&p.pat, scrutinee)?,
            syn::Pat::Range(r) => {
                let bound = |e: &Option<Box<Expr>>| -> Lowered<Option<String>> {
                    match e.as_deref() {
                        Some(Expr::Lit(l)) => Ok(Some(self.literal(&l.lit)?)),
                        Some(Expr::Unary(u)) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
                            Expr::Lit(l) => Ok(Some(format!("(-{})", self.literal(&l.lit)?))),
                            other => self.fail(other, "range bound is not a literal"),
                        },
                        Some(other) => self.fail(other, "range bound is not a literal"),
                        None => Ok(None),
                    }
                };
                let mut parts = Vec::new();
                if let Some(start) = bound(&r.start)? {
                    parts.push(format!("{scrutinee} >= {start}"));
                }
                if let Some(end) = bound(&r.end)? {
                    let cmp = if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                        "<="
                    } else {
                        "<"
                    };
                    parts.push(format!("{scrutinee} {cmp} {end}"));
                }
                if parts.is_empty() {
                    None
                } else {
                    Some(format!("({})", parts.join(" && ")))
                }
            }
            syn::Pat::Or(o) => {
                let mut cases = Vec::new();
                for case in &o.cases {
                    match self.pattern_condition(case, scrutinee)? {
                        Some(c) => cases.push(c),
                        None => return Ok(None),
                    }
                }
                Some(format!("({})", cases.join(" || ")))
            }
            syn::Pat::Path(p) if super::ordering::ordering_value(&p.path).is_some() => Some(format!(
                "({scrutinee} == {})",
                super::ordering::ordering_value(&p.path).unwrap_or_default()
            )),
            other => match self.constant_pattern(other, scrutinee)? {
                Some(condition) => Some(condition),
                None => return self.fail(other, "only literal, range and `_` patterns are lowered in `match`"),
            },
        })
    }

    /// The scrutinee of a `match`, which must be a name or a field: it is read once per arm.
    pub(super) fn scrutinee(&self, e: &Expr, scope: &mut Scope) -> Lowered<String> {
        match e {
            Expr::Path(_) | Expr::Field(_) | Expr::Lit(_) => self.expr(e, scope),
            Expr::Paren(p) => self.scrutinee(&p.expr, scope),
            other => self.fail(other, "`match` on a computed value is not lowered"),
        }
    }

    /// `match` used as a value: a chain of conditionals; an arm that cannot be reached
    /// (`unreachable!()`, `unreachable_unchecked()`) gives way to the one before it.
    fn match_value(&self, m: &syn::ExprMatch, scope: &mut Scope) -> Lowered<String> {
        let (temporary, scrutinee) = self.match_scrutinee(&m.expr, scope)?;
        let mut arms = Vec::new();
        for arm in &m.arms {
            if arm.guard.is_some() {
                return self.fail(arm, "`match` guards are not lowered");
            }
            if is_unreachable(&arm.body) {
                continue;
            }
            let condition = self.pattern_condition(&arm.pat, &scrutinee)?;
            let value = self.expr(&arm.body, scope)?;
            arms.push((condition, value));
        }
        let Some((_, last)) = arms.pop() else {
            return self.fail(m, "`match` without a reachable arm");
        };
        let mut out = last;
        for (condition, value) in arms.into_iter().rev() {
            let Some(condition) = condition else {
                return self.fail(m, "an arm after the catch-all");
            };
            out = format!("({condition} ? ({value}) : ({out}))");
        }
        Ok(super::matching::value_with_temporary(temporary, out))
    }

    pub(super) fn literal(&self, lit: &syn::Lit) -> Lowered<String> {
        Ok(match lit {
            syn::Lit::Int(i) => {
                let digits = i.base10_digits();
                match i.suffix() {
                    "u32" | "u16" | "u8" => format!("{digits}u"),
                    "u64" | "usize" => format!("{digits}ull"),
                    "i64" | "isize" => format!("{digits}ll"),
                    // Past `long long`: C++ gives an unsuffixed decimal no standard type.
                    _ if digits.parse::<u128>().is_ok_and(|v| v > i64::MAX as u128) => format!("{digits}ull"),
                    _ => digits.to_string(),
                }
            }
            syn::Lit::Float(f) => {
                let digits = f.base10_digits();
                let digits = if digits.contains(['.', 'e', 'E']) {
                    digits.to_string()
                } else {
                    format!("{digits}.0")
                };
                if f.suffix() == "f64" {
                    digits
                } else if let Some(half) = super::numeric::half_literal(f.suffix(), &digits) {
                    half
                } else {
                    format!("{digits}f")
                }
            }
            syn::Lit::Bool(b) => b.value.to_string(),
            syn::Lit::Char(c) => super::element_types::char_literal(c),
            other => return self.fail(other, "literal is not lowered"),
        })
    }

    /// `thread::thread_idx().x` and friends.
    pub(super) fn geometry_field(&self, base: &Expr, member: &str) -> Option<String> {
        let Expr::Call(call) = base else { return None };
        let Expr::Path(p) = &*call.func else { return None };
        let name = p.path.segments.last()?.ident.to_string();
        let builtin = match name.as_str() {
            "thread_idx" => "threadIdx",
            "block_idx" => "blockIdx",
            "block_dim" => "blockDim",
            "grid_dim" => "gridDim",
            _ => return None,
        };
        matches!(member, "x" | "y" | "z").then(|| format!("{builtin}.{member}"))
    }

    pub(super) fn call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<String> {
        let Expr::Path(p) = &*c.func else {
            if let Some(call) = self.callee_call(c, scope)? {
                return Ok(call);
            }
            return self.fail(c, "call through an expression");
        };
        if let Some(call) = self.local_call(c, scope)? {
            return Ok(call);
        }
        if let Some(call) = self.kernel_function_call(c, scope)? {
            return Ok(call);
        }
        if let Some(variant) = self.variant_call(c, scope)? {
            return Ok(variant);
        }
        if let Some(some) = self.option_call(c, scope)? {
            return Ok(some);
        }
        if let Some(shared) = self.shared_array_call(c, scope)? {
            return Ok(shared);
        }
        if let Some(oxide) = self.oxide_call(c, scope)? {
            return Ok(oxide);
        }
        if let Some(context) = self.ptx_context_call(c)? {
            return Ok(context);
        }
        if let Some(intrinsic) = self.device_intrinsic(c, scope)? {
            return Ok(intrinsic);
        }
        if let Some(numeric) = self.numeric_call(c, scope)? {
            return Ok(numeric);
        }
        if let Some(atomic) = self.core_atomic_intrinsic(c, scope)? {
            return Ok(atomic);
        }
        if let Some(uninit) = self.uninit_call(c, &p.path)? {
            return Ok(uninit);
        }
        let name = last_segment(&p.path);
        // `blur::<8>(..)` calls the copy of `blur` for 8.
        let name = super::generics::instance_call(&p.path)
            .and_then(|call| self.instances.get(&call).cloned())
            .unwrap_or(name);
        let bare = name.strip_prefix('_').unwrap_or(&name);
        if name == "vprintf" && c.args.len() == 2 && !self.helpers.contains(&name) {
            return self.vprintf(&c.args[0], &c.args[1], scope);
        }
        if c.args.is_empty() {
            if let Some(g) = geometry_call(bare) {
                return Ok(g);
            }
        }
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        if name == "size_of" && c.args.is_empty() {
            if let Some(syn::PathArguments::AngleBracketed(generic)) = p.path.segments.last().map(|s| &s.arguments) {
                if let Some(syn::GenericArgument::Type(ty)) = generic.args.first() {
                    return Ok(format!("((unsigned long long)sizeof({}))", self.c_type(ty)?));
                }
            }
        }
        // `u64::from(x)`, `f32::from(x)`: a conversion that cannot lose anything.
        if name == "from" && args.len() == 1 {
            if let Some(c) = p
                .path
                .segments
                .iter()
                .rev()
                .nth(1)
                .and_then(|t| Self::primitive(&t.ident.to_string()))
            {
                return Ok(format!("(({c})({}))", args[0]));
            }
        }
        if let Some(vector) = glam_new(&p.path) {
            return Ok(format!("{vector}{{{}}}", args.join(", ")));
        }
        if let Some(vector) = Self::glam_splat(&p.path, &args) {
            return Ok(vector);
        }
        if let Some(made) = self.nalgebra_constructor(&p.path, &args)? {
            return Ok(made);
        }
        match name.as_str() {
            "from_raw_parts" | "from_raw_parts_mut" if !args.is_empty() => return Ok(args[0].clone()),
            "min" | "max" if args.len() == 2 => return Ok(format!("{name}({}, {})", args[0], args[1])),
            // Function pointers are equal when they name the same function.
            "fn_addr_eq" if args.len() == 2 => return Ok(format!("({} == {})", args[0], args[1])),
            _ => {}
        }
        if let (Some(op), [a, b]) = (fast_math_op(&name), args.as_slice()) {
            if !self.helpers.contains(&name) {
                return Ok(format!("({a} {op} {b})"));
            }
        }
        if !self.helpers.contains(&name) && CUDA_STD_SHUFFLES.contains(&name.as_str()) && args.len() == 4 {
            return Ok(format!(
                "kl::{name}((unsigned int)({}), {}, (unsigned int)({}), (unsigned int)({}))",
                args[0], args[1], args[2], args[3]
            ));
        }
        if !self.helpers.contains(&name) && NVPTX_STD_HELPERS.contains(&name.as_str()) {
            return Ok(format!("kl::{name}({})", args.join(", ")));
        }
        if let Some(call) = self.qualified_method_call(c, scope)? {
            return Ok(call);
        }
        if let Some(call) = self.trait_call(c, &args)? {
            return Ok(call);
        }
        if let Some(call) = self.item_call(c, &p.path, &args, scope)? {
            return Ok(call);
        }
        if let Some(reason) = self.helpers_failed.get(&name) {
            return self.fail(c, format!("helper `{name}` is not lowered: {reason}"));
        }
        if let Some(call) = self.foreign_call(c, &name, &args)? {
            return Ok(call);
        }
        if !self.helpers.contains(&name) {
            if let Some(reason) = super::cuda_std_api::absent(&p.path, &self.file.text) {
                return self.fail(c, reason);
            }
            if let Some(reason) = self.external_item(&p.path) {
                return self.fail(c, format!("call to `{}` is not lowered: {reason}", self.text(&c.func)));
            }
            // The program would not build: the harness defines no such function.
            return self.fail(
                c,
                format!(
                    "call to `{}` is not lowered: no helper or builtin of that name",
                    self.text(&c.func)
                ),
            );
        }
        if p.path.segments.len() <= 2 && self.layouts.struct_fields(&p.path).is_none() {
            // Slices passed to helpers travel with their length.
            let mut with_lengths = Vec::new();
            let slice_params = self.slice_parameters(&p.path);
            for (i, (arg, text)) in c.args.iter().zip(args).enumerate() {
                let slice = super::disjoint_views::slice_argument(arg, scope);
                with_lengths.push(match self.sub_slice_length(arg, scope)? {
                    _ if slice.is_some() => slice
                        .map(|s| super::disjoint_views::slice_call_arguments(&s, scope))
                        .unwrap_or_default(),
                    // `&bytes[2 * i..]`: the view's start and its own length.
                    Some(length) => format!("{text}, {length}"),
                    None if slice_params.get(i) == Some(&true) => self.unsized_argument(arg, &text).unwrap_or(text),
                    None => text,
                });
            }
            return Ok(format!("{}({})", ident(&name), with_lengths.join(", ")));
        }
        self.fail(c, format!("call to `{}` is not lowered", self.text(&c.func)))
    }

    /// `vprintf(fmt, &(a, b) as *const _ as _)`: the device's own print. CUDA C++ reaches
    /// `vprintf` only through `printf`, which packs its arguments into a buffer as the tuple
    /// is; the arguments' reads stay, in their order.
    fn vprintf(&self, format: &Expr, arguments: &Expr, scope: &mut Scope) -> Lowered<String> {
        let format = match strip_casts(format) {
            Expr::MethodCall(m) if m.method == "as_ptr" => match strip_casts(&m.receiver) {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s), ..
                }) => c_string(&s.value()),
                _ => {
                    return self.fail(
                        format,
                        "`vprintf` of a format other than a string literal is not lowered",
                    )
                }
            },
            _ => {
                return self.fail(
                    format,
                    "`vprintf` of a format other than a string literal is not lowered",
                )
            }
        };
        let mut out = format!("printf({format}");
        match strip_casts(arguments) {
            Expr::Call(c)
                if c.args.is_empty() && matches!(&*c.func, Expr::Path(p) if last_segment(&p.path) == "null") => {}
            Expr::Reference(r) => match strip_casts(&r.expr) {
                Expr::Tuple(t) => {
                    for e in &t.elems {
                        out.push_str(", ");
                        out.push_str(&self.expr(e, scope)?);
                    }
                }
                other => out.push_str(&format!(", {}", self.expr(other, scope)?)),
            },
            other => {
                return self.fail(
                    other,
                    "`vprintf` of arguments other than a tuple's address or null is not lowered",
                )
            }
        }
        out.push(')');
        Ok(out)
    }

    pub(super) fn method(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<String> {
        if let Some(oxide) = self.oxide_method(m, scope)? {
            return Ok(oxide);
        }
        if let Some(ordering) = self.primitive_cmp(m, scope)? {
            return Ok(ordering);
        }
        if let Some(numeric) = self.numeric_method(m, scope)? {
            return Ok(numeric);
        }
        if let Some(walked) = self.iterator_method(m, scope)? {
            return Ok(walked);
        }
        if let Some(extreme) = self.range_extreme(m, scope)? {
            return Ok(extreme);
        }
        if let Some(sum) = self.mapped_sum(m, scope)? {
            return Ok(sum);
        }
        if let Some(pointer) = self.pointer_cast_method(m, scope)? {
            return Ok(pointer);
        }
        if let Some(query) = self.slice_query(m, scope)? {
            return Ok(query);
        }
        if let Some(lanes) = self.glam_lane_method(m, scope)? {
            return Ok(lanes);
        }
        let method = m.method.to_string();
        let receiver = self.expr(&m.receiver, scope)?;
        let receiver = self.referent_receiver(m, receiver, scope);
        if let Some(context) = self.ptx_context_method(m, &receiver) {
            return Ok(context);
        }
        let args: Vec<String> = m.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        let arg = |i: usize| {
            args.get(i)
                .cloned()
                .ok_or_else(|| (self.span(m), format!("`{method}` needs an argument")))
        };
        Ok(match method.as_str() {
            "add" | "offset" | "wrapping_add" | "wrapping_offset" if !args.is_empty() => {
                format!("({receiver} + {})", arg(0)?)
            }
            "sub" | "wrapping_sub" => format!("({receiver} - {})", arg(0)?),
            "wrapping_mul" => format!("({receiver} * {})", arg(0)?),
            "wrapping_neg" => format!("(-{receiver})"),
            // A Rust reference reads through itself in arithmetic: `kl::ref` converts likewise.
            "get_unchecked" | "get_unchecked_mut" => format!("kl::make_ref(&{receiver}[{}])", arg(0)?),
            "write" | "write_volatile" | "write_unaligned" => {
                if receiver_is_pointer(&m.receiver) || Self::names_raw_pointer(&m.receiver, scope) {
                    format!("(*{receiver} = {})", arg(0)?)
                } else {
                    format!("({receiver} = {})", arg(0)?)
                }
            }
            "read" | "read_volatile" | "read_unaligned" => format!("(*{receiver})"),
            "assume_init" | "assume_init_read" | "clone" | "unwrap" | "into" => receiver,
            // An array's elements' address; a pointer or slice stays itself.
            "as_ptr" | "as_mut_ptr" if is_slice_name(&m.receiver, scope) => receiver,
            "as_ptr" | "as_mut_ptr" => format!("kl::as_ptr({receiver})"),
            "len" => self.length_of(&m.receiver, &receiver, scope),
            // The receiver's type, as in Rust: `max(n, 1)` of two C types would be ambiguous.
            "min" | "max" => format!("kl::{method}({receiver}, {})", arg(0)?),
            "to_usize" | "to_u64" => format!("((unsigned long long)({receiver}))"),
            "to_u32" => format!("((unsigned int)({receiver}))"),
            "to_i32" => format!("((int)({receiver}))"),
            "to_f32" => format!("((float)({receiver}))"),
            "to_f64" => format!("((double)({receiver}))"),
            "abs_diff" => format!("kl::abs_diff({receiver}, {})", arg(0)?),
            "unsigned_abs" if args.is_empty() => format!("kl::unsigned_abs({receiver})"),
            "rsqrt" | "recip" | "signum" | "to_radians" | "to_degrees" if args.is_empty() => {
                format!("kl::{method}({receiver})")
            }
            "sqrt" => format!("sqrtf({receiver})"),
            "abs" => format!("fabsf({receiver})"),
            "mul_add" => format!("fmaf({receiver}, {}, {})", arg(0)?, arg(1)?),
            // Only integers have `pow`: it stays in the integer's type.
            "pow" => format!("kl::ipow({receiver}, {})", arg(0)?),
            "powi" => format!("powf({receiver}, {})", arg(0)?),
            "powf" => format!("kl::powf({receiver}, {})", arg(0)?),
            "clamp" => format!("kl::clamp({receiver}, {}, {})", arg(0)?, arg(1)?),
            "floor" | "ceil" | "round" | "trunc" | "exp" | "exp2" | "ln" | "log2" | "log10" | "sin" | "cos" | "tan"
            | "tanh" | "cbrt" | "next_power_of_two" | "length" | "xy" | "xyz" | "to_array"
                if args.is_empty() =>
            {
                format!("kl::{method}({receiver})")
            }
            "rem_euclid" | "dot" | "powf_fast" => format!("kl::{method}({receiver}, {})", arg(0)?),
            "byte_add" | "byte_offset" | "wrapping_byte_add" => format!("kl::byte_add({receiver}, {})", arg(0)?),
            "byte_sub" | "wrapping_byte_sub" => format!("kl::byte_sub({receiver}, {})", arg(0)?),
            _ => match self.nalgebra_method(m, &receiver, scope)? {
                Some(c) => c,
                None => match self.option_method(m, &receiver, &args) {
                    Some(option) => option,
                    None => return self.item_method(m, &receiver, &args, scope),
                },
            },
        })
    }
}

/// An expression under its `as` casts and parentheses.
fn strip_casts(e: &Expr) -> &Expr {
    match e {
        Expr::Cast(c) => strip_casts(&c.expr),
        Expr::Paren(p) => strip_casts(&p.expr),
        Expr::Group(g) => strip_casts(&g.expr),
        other => other,
    }
}

/// A Rust string as a C string literal; bytes outside printable ASCII as three-digit octal
/// escapes, which cannot swallow the characters after them.
fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            b'?' => out.push_str("\\?"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// `u32::MAX`, `f32::INFINITY`, `core::f32::consts::PI` and friends.
fn numeric_constant(path: &syn::Path) -> Option<String> {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let [.., ty, name] = segments.as_slice() else {
        return None;
    };
    let (ty, name) = if ty == "consts" {
        let float = segments.iter().rev().nth(2)?;
        (float.as_str(), name.as_str())
    } else {
        (ty.as_str(), name.as_str())
    };
    let f = |v: &str| if ty == "f32" { format!("{v}f") } else { v.to_string() };
    if let Some(nan) = super::numeric::nan_constant(ty, name) {
        return Some(nan);
    }
    Some(match (ty, name) {
        ("u8", "MAX") => "255u".into(),
        ("u16", "MAX") => "65535u".into(),
        ("u32", "MAX") => "4294967295u".into(),
        ("u64" | "usize", "MAX") => "18446744073709551615ull".into(),
        ("i8", "MAX") => "127".into(),
        ("i8", "MIN") => "(-128)".into(),
        ("i16", "MAX") => "32767".into(),
        ("i16", "MIN") => "(-32768)".into(),
        ("i32", "MAX") => "2147483647".into(),
        ("i32", "MIN") => "(-2147483647 - 1)".into(),
        ("i64" | "isize", "MAX") => "9223372036854775807ll".into(),
        ("i64" | "isize", "MIN") => "(-9223372036854775807ll - 1)".into(),
        ("u8" | "u16" | "u32", "MIN") => "0u".into(),
        ("u64" | "usize", "MIN") => "0ull".into(),
        ("f32", "MAX") => "3.40282347e+38f".into(),
        ("f32", "MIN") => "(-3.40282347e+38f)".into(),
        ("f32", "EPSILON") => "1.1920929e-7f".into(),
        ("f32", "MIN_POSITIVE") => "1.17549435e-38f".into(),
        ("f64", "MAX") => "1.7976931348623157e+308".into(),
        ("f64", "MIN") => "(-1.7976931348623157e+308)".into(),
        ("f64", "EPSILON") => "2.220446049250313e-16".into(),
        ("f64", "MIN_POSITIVE") => "2.2250738585072014e-308".into(),
        ("f32" | "f64", "INFINITY") => format!("kl::infinity<{}>()", if ty == "f32" { "float" } else { "double" }),
        ("f32" | "f64", "NEG_INFINITY") => {
            format!("(-kl::infinity<{}>())", if ty == "f32" { "float" } else { "double" })
        }
        ("f32" | "f64", "PI") => f("3.14159265358979323846"),
        ("f32" | "f64", "TAU") => f("6.28318530717958647692"),
        ("f32" | "f64", "E") => f("2.71828182845904523536"),
        ("f32" | "f64", "FRAC_PI_2") => f("1.57079632679489661923"),
        ("f32" | "f64", "SQRT_2") => f("1.41421356237309504880"),
        ("f32" | "f64", "LN_2") => f("0.693147180559945309417"),
        _ => return None,
    })
}

/// `Vec3::new` and friends: the C++ aggregate to initialise.
fn glam_new(path: &syn::Path) -> Option<String> {
    let [ty, f] = path.segments.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if f.ident != "new" {
        return None;
    }
    super::types::glam_vector(&ty.ident.to_string()).map(str::to_string)
}

/// `Vec3::ZERO`, `Vec3::ONE`, `Vec3::X` and friends.
fn glam_constant(path: &syn::Path) -> Option<String> {
    let [ty, c] = path.segments.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let vector = super::types::glam_vector(&ty.ident.to_string())?;
    let lanes = match vector.as_bytes().last() {
        Some(b'2') => 2,
        Some(b'3') | Some(b'A') => 3,
        _ => 4,
    };
    let one = |lane: usize| {
        (0..lanes)
            .map(|i| if i == lane || lane == usize::MAX { "1" } else { "0" })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let values = match c.ident.to_string().as_str() {
        "ZERO" => one(usize::MAX - 1),
        "ONE" => one(usize::MAX),
        "X" => one(0),
        "Y" => one(1),
        "Z" if lanes >= 3 => one(2),
        "W" if lanes == 4 => one(3),
        _ => return None,
    };
    Some(format!("{vector}{{{values}}}"))
}

/// `core::intrinsics::fadd_fast`, `unchecked_add` and friends: the plain operation (the
/// overflow they exclude would be undefined).
fn fast_math_op(name: &str) -> Option<&'static str> {
    Some(match name {
        "fadd_fast" | "fadd_algebraic" => "+",
        "fsub_fast" | "fsub_algebraic" => "-",
        "fmul_fast" | "fmul_algebraic" => "*",
        "fdiv_fast" | "fdiv_algebraic" => "/",
        "unchecked_add" => "+",
        "unchecked_sub" => "-",
        "unchecked_mul" => "*",
        "unchecked_div" | "exact_div" => "/",
        "unchecked_rem" => "%",
        "unchecked_shl" => "<<",
        "unchecked_shr" => ">>",
        _ => return None,
    })
}

/// nvptx-std's warp and atomic helpers, defined in the prelude.
const NVPTX_STD_HELPERS: &[&str] = &[
    "lane",
    "shfl_down_sync_u32",
    "shfl_down_sync_f32",
    "warp_sum_u32",
    "warp_sum_f32",
    "atomic_add_global_u32",
    "atomic_add_global_u64",
    "atomic_add_global_f32",
    "atomic_add_global_f64",
];

/// cuda_std's warp shuffles (`cuda_std::warp::warp_shuffle_xor` and kin), defined in the
/// prelude: each returns the target lane's value and whether that lane was active.
const CUDA_STD_SHUFFLES: &[&str] = &[
    "warp_shuffle_xor",
    "warp_shuffle_down",
    "warp_shuffle_up",
    "warp_shuffle_idx",
];

/// `unreachable!()`, `unreachable_unchecked()` and `core::hint::unreachable_unchecked()`.
pub(super) fn is_unreachable(e: &Expr) -> bool {
    match e {
        Expr::Macro(m) => m.mac.path.segments.last().is_some_and(|s| s.ident == "unreachable"),
        Expr::Call(c) => {
            matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "unreachable_unchecked"))
        }
        Expr::Unsafe(u) => matches!(u.block.stmts.as_slice(), [Stmt::Expr(e, _)] if is_unreachable(e)),
        Expr::Block(b) => matches!(b.block.stmts.as_slice(), [Stmt::Expr(e, _)] if is_unreachable(e)),
        _ => false,
    }
}

/// A name bound to a slice (a pointer and a length in C).
fn is_slice_name(e: &Expr, scope: &Scope) -> bool {
    matches!(e, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.slices.contains(&scope.lookup(&i.to_string()))))
}

/// A name bound to a reference (a pointer in C).
fn is_reference_name(e: &Expr, scope: &Scope) -> bool {
    matches!(e, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.references.contains(&scope.lookup(&i.to_string()))))
}

pub(super) fn receiver_is_pointer(e: &Expr) -> bool {
    match e {
        // `(p as *mut u32).write(v)` writes through the cast pointer.
        Expr::Paren(p) => receiver_is_pointer(&p.expr),
        Expr::Cast(c) => matches!(&*c.ty, Type::Ptr(_)),
        _ => {
            matches!(e, Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "add" | "offset" | "wrapping_add" | "sub"))
        }
    }
}

pub(super) fn is_boolean(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => is_boolean(&p.expr),
        Expr::Binary(b) => matches!(
            b.op,
            BinOp::And(_)
                | BinOp::Or(_)
                | BinOp::Lt(_)
                | BinOp::Le(_)
                | BinOp::Gt(_)
                | BinOp::Ge(_)
                | BinOp::Eq(_)
                | BinOp::Ne(_)
        ),
        Expr::Lit(l) => matches!(l.lit, syn::Lit::Bool(_)),
        Expr::Unary(u) => matches!(u.op, UnOp::Not(_)) && is_boolean(&u.expr),
        Expr::MethodCall(m) => super::slice_queries::is_predicate(m),
        _ => false,
    }
}

pub(super) fn binary_op(op: &BinOp) -> Option<&'static str> {
    use BinOp::*;
    Some(match op {
        Add(_) => "+",
        Sub(_) => "-",
        Mul(_) => "*",
        Div(_) => "/",
        Rem(_) => "%",
        And(_) => "&&",
        Or(_) => "||",
        BitXor(_) => "^",
        BitAnd(_) => "&",
        BitOr(_) => "|",
        Shl(_) => "<<",
        Shr(_) => ">>",
        Eq(_) => "==",
        Lt(_) => "<",
        Le(_) => "<=",
        Ne(_) => "!=",
        Ge(_) => ">=",
        Gt(_) => ">",
        AddAssign(_) => "+=",
        SubAssign(_) => "-=",
        MulAssign(_) => "*=",
        DivAssign(_) => "/=",
        RemAssign(_) => "%=",
        BitXorAssign(_) => "^=",
        BitAndAssign(_) => "&=",
        BitOrAssign(_) => "|=",
        ShlAssign(_) => "<<=",
        ShrAssign(_) => ">>=",
        _ => return None,
    })
}

/// CUDA builtins for the geometry functions of `cuda_std::thread` and NVPTX intrinsics.
pub(super) fn geometry_call(name: &str) -> Option<String> {
    let vector = |b: &str| format!("kl::uvec3{{{b}.x, {b}.y, {b}.z}}");
    Some(match name {
        "thread_idx" => vector("threadIdx"),
        "block_idx" => vector("blockIdx"),
        "block_dim" => vector("blockDim"),
        "grid_dim" => vector("gridDim"),
        "index_1d" => "(blockIdx.x * blockDim.x + threadIdx.x)".to_string(),
        "coords_1d" => "((unsigned long long)(blockIdx.x * blockDim.x + threadIdx.x))".to_string(),
        "index_2d" => "kl::uvec3{blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y, 0u}".to_string(),
        "index_3d" => "kl::uvec3{blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y, blockIdx.z * blockDim.z + threadIdx.z}".to_string(),
        "index" => "((blockIdx.x + blockIdx.y * gridDim.x + gridDim.x * gridDim.y * blockIdx.z) * (blockDim.x * blockDim.y * blockDim.z) + threadIdx.z * (blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x)".to_string(),
        // rust-gpu's `spirv_std::arch` workgroup barriers are the block barrier.
        "sync_threads" | "syncthreads" | "workgroup_memory_barrier_with_group_sync" => "__syncthreads()".to_string(),
        "threadfence" => "__threadfence()".to_string(),
        "threadfence_block" => "__threadfence_block()".to_string(),
        _ => {
            let (stem, axis) = name.rsplit_once('_')?;
            if !matches!(axis, "x" | "y" | "z") {
                return None;
            }
            let builtin = match stem {
                "thread_idx" => "threadIdx",
                "block_idx" => "blockIdx",
                "block_dim" => "blockDim",
                "grid_dim" => "gridDim",
                _ => return None,
            };
            format!("{builtin}.{axis}")
        }
    })
}

/// `&[T]` or `&mut [T]`: a field the C struct holds as a pointer and a length.
fn is_slice_reference(ty: &Type) -> bool {
    matches!(ty, Type::Reference(r) if matches!(&*r.elem, Type::Slice(_)))
}
