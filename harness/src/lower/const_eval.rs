//! Constants built by a `const` block (`let mut t = [0; N]; while i < N { t[i] = ..; i += 1 }
//! t`): evaluated here over integers, floats, arrays and tuples, and defined by the value's
//! initializer, since a device table must be initialised by a constant expression.

use super::Context;
use kernel_lint_analyzer::model::layout::int_width;
use std::collections::HashMap;
use syn::{BinOp, Expr, Lit, Stmt, UnOp};

/// A value of the evaluated constant. Integers carry their Rust type where it is stated.
#[derive(Clone, Debug)]
enum Value {
    Int(i128, Option<String>),
    Float(f64, bool),
    Bool(bool),
    Array(Vec<Value>),
    Tuple(Vec<Value>),
    /// A field-less enum variant, by its discriminant.
    Variant(i64),
}

/// Loop iterations allowed before the evaluation gives up.
const STEP_LIMIT: usize = 1 << 20;

fn wrap(v: i128, ty: Option<&str>) -> i128 {
    let Some((bits, signed)) = ty.and_then(int_width) else {
        return v;
    };
    let m = v & ((1i128 << bits) - 1);
    if signed && m >= 1i128 << (bits - 1) {
        m - (1i128 << bits)
    } else {
        m
    }
}

struct Eval<'a, 'c> {
    cx: &'a Context<'c>,
    env: HashMap<String, Value>,
    steps: usize,
}

type R<T> = Result<T, String>;

impl Eval<'_, '_> {
    fn block(&mut self, b: &syn::Block) -> R<Option<Value>> {
        let mut last = None;
        for s in &b.stmts {
            last = None;
            match s {
                Stmt::Local(l) => {
                    let name = match &l.pat {
                        syn::Pat::Ident(i) => i.ident.to_string(),
                        syn::Pat::Type(t) => match &*t.pat {
                            syn::Pat::Ident(i) => i.ident.to_string(),
                            _ => return Err("a `let` pattern".into()),
                        },
                        _ => return Err("a `let` pattern".into()),
                    };
                    let init = l.init.as_ref().ok_or("a `let` without a value")?;
                    let v = self.expr(&init.expr)?;
                    self.env.insert(name, v);
                }
                Stmt::Expr(e, semi) => {
                    let v = self.expr(e)?;
                    if semi.is_none() {
                        last = Some(v);
                    }
                }
                _ => return Err("an item or macro".into()),
            }
        }
        Ok(last)
    }

    fn place(&mut self, e: &Expr, f: &mut dyn FnMut(&mut Value) -> R<()>) -> R<()> {
        match e {
            Expr::Path(p) => {
                let name = p.path.get_ident().ok_or("a path place")?.to_string();
                let v = self.env.get_mut(&name).ok_or_else(|| format!("`{name}`"))?;
                f(v)
            }
            Expr::Index(i) => {
                let Value::Int(k, _) = self.expr(&i.index)? else {
                    return Err("an index".into());
                };
                self.place(&i.expr, &mut |base| match base {
                    Value::Array(items) => f(items.get_mut(k as usize).ok_or("an index out of bounds")?),
                    _ => Err("indexing a non-array".into()),
                })
            }
            Expr::Field(fe) => {
                let syn::Member::Unnamed(n) = &fe.member else {
                    return Err("a named field".into());
                };
                let n = n.index as usize;
                self.place(&fe.base, &mut |base| match base {
                    Value::Tuple(items) => f(items.get_mut(n).ok_or("a tuple field")?),
                    _ => Err("a field of a non-tuple".into()),
                })
            }
            Expr::Paren(p) => self.place(&p.expr, f),
            _ => Err("an assignment target".into()),
        }
    }

    fn expr(&mut self, e: &Expr) -> R<Value> {
        Ok(match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Int(i) => Value::Int(
                    i.base10_parse::<i128>().map_err(|e| e.to_string())?,
                    (!i.suffix().is_empty()).then(|| i.suffix().to_string()),
                ),
                Lit::Float(f) => {
                    let v: f64 = f.base10_parse().map_err(|e| e.to_string())?;
                    let single = f.suffix() == "f32";
                    Value::Float(if single { v as f32 as f64 } else { v }, single)
                }
                Lit::Bool(b) => Value::Bool(b.value),
                _ => return Err("a literal".into()),
            },
            Expr::Paren(p) => self.expr(&p.expr)?,
            Expr::Group(g) => self.expr(&g.expr)?,
            Expr::Block(b) => self.block(&b.block)?.unwrap_or(Value::Tuple(Vec::new())),
            Expr::Path(p) => match p.path.get_ident().and_then(|i| self.env.get(&i.to_string())) {
                Some(v) => v.clone(),
                None if self.cx.variant_tag(&p.path).is_some() => {
                    Value::Variant(self.cx.variant_tag(&p.path).unwrap_or(0))
                }
                None => Value::Int(
                    self.cx
                        .layouts
                        .const_named(&p.path)
                        .ok_or_else(|| format!("`{}`", self.cx.text(p)))? as i128,
                    None,
                ),
            },
            Expr::Array(a) => Value::Array(a.elems.iter().map(|e| self.expr(e)).collect::<R<_>>()?),
            Expr::Tuple(t) => Value::Tuple(t.elems.iter().map(|e| self.expr(e)).collect::<R<_>>()?),
            Expr::Repeat(r) => {
                let v = self.expr(&r.expr)?;
                let Value::Int(n, _) = self.expr(&r.len)? else {
                    return Err("a length".into());
                };
                Value::Array(vec![v; n as usize])
            }
            Expr::Index(i) => {
                let base = self.expr(&i.expr)?;
                let Value::Int(k, _) = self.expr(&i.index)? else {
                    return Err("an index".into());
                };
                match base {
                    Value::Array(items) => items.get(k as usize).cloned().ok_or("an index out of bounds")?,
                    _ => return Err("indexing a non-array".into()),
                }
            }
            Expr::Field(f) => match (self.expr(&f.base)?, &f.member) {
                (Value::Tuple(items), syn::Member::Unnamed(n)) => {
                    items.get(n.index as usize).cloned().ok_or("a tuple field")?
                }
                _ => return Err("a field".into()),
            },
            Expr::Cast(c) => {
                let ty = match &*c.ty {
                    syn::Type::Path(p) => p.path.get_ident().map(|i| i.to_string()).ok_or("a cast")?,
                    _ => return Err("a cast".into()),
                };
                let v = self.expr(&c.expr)?;
                match (v, ty.as_str()) {
                    (Value::Int(v, _), "f32") => Value::Float(v as f32 as f64, true),
                    (Value::Int(v, _), "f64") => Value::Float(v as f64, false),
                    (Value::Float(v, _), "f32") => Value::Float(v as f32 as f64, true),
                    (Value::Float(v, _), "f64") => Value::Float(v, false),
                    (Value::Int(v, _), t) if int_width(t).is_some() => Value::Int(wrap(v, Some(t)), Some(ty)),
                    (Value::Bool(b), t) if int_width(t).is_some() => Value::Int(b as i128, Some(ty)),
                    (Value::Float(v, _), t) if int_width(t).is_some() => {
                        let (bits, signed) = int_width(t).unwrap_or((64, false));
                        let (lo, hi) = match signed {
                            true => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
                            false => (0, (1i128 << bits) - 1),
                        };
                        Value::Int((v.trunc() as i128).clamp(lo, hi), Some(ty))
                    }
                    _ => return Err("a cast".into()),
                }
            }
            Expr::Unary(u) => match (&u.op, self.expr(&u.expr)?) {
                (UnOp::Neg(_), Value::Int(v, t)) => Value::Int(-v, t),
                (UnOp::Neg(_), Value::Float(v, s)) => Value::Float(-v, s),
                (UnOp::Not(_), Value::Bool(b)) => Value::Bool(!b),
                (UnOp::Not(_), Value::Int(v, t)) => Value::Int(wrap(!v, t.as_deref()), t),
                _ => return Err("a unary operator".into()),
            },
            Expr::MethodCall(m) => {
                let recv = self.expr(&m.receiver)?;
                let args: Vec<Value> = m.args.iter().map(|a| self.expr(a)).collect::<R<_>>()?;
                let op = match m.method.to_string().as_str() {
                    "wrapping_add" => "+",
                    "wrapping_sub" => "-",
                    "wrapping_mul" => "*",
                    other => return Err(format!("method `{other}`")),
                };
                let [arg] = args.as_slice() else {
                    return Err("a method's arguments".into());
                };
                arith(op, recv, arg.clone(), true)?
            }
            Expr::Binary(b) => {
                let l = self.expr(&b.left)?;
                let r = self.expr(&b.right)?;
                let compound = |op: &BinOp| -> Option<&'static str> {
                    Some(match op {
                        BinOp::AddAssign(_) => "+",
                        BinOp::SubAssign(_) => "-",
                        BinOp::MulAssign(_) => "*",
                        BinOp::DivAssign(_) => "/",
                        BinOp::RemAssign(_) => "%",
                        BinOp::BitAndAssign(_) => "&",
                        BinOp::BitOrAssign(_) => "|",
                        BinOp::BitXorAssign(_) => "^",
                        BinOp::ShlAssign(_) => "<<",
                        BinOp::ShrAssign(_) => ">>",
                        _ => return None,
                    })
                };
                if let Some(op) = compound(&b.op) {
                    let v = arith(op, l, r, false)?;
                    self.place(&b.left, &mut |slot| {
                        *slot = v.clone();
                        Ok(())
                    })?;
                    return Ok(Value::Tuple(Vec::new()));
                }
                let op = match b.op {
                    BinOp::Add(_) => "+",
                    BinOp::Sub(_) => "-",
                    BinOp::Mul(_) => "*",
                    BinOp::Div(_) => "/",
                    BinOp::Rem(_) => "%",
                    BinOp::BitAnd(_) => "&",
                    BinOp::BitOr(_) => "|",
                    BinOp::BitXor(_) => "^",
                    BinOp::Shl(_) => "<<",
                    BinOp::Shr(_) => ">>",
                    BinOp::Lt(_) => "<",
                    BinOp::Le(_) => "<=",
                    BinOp::Gt(_) => ">",
                    BinOp::Ge(_) => ">=",
                    BinOp::Eq(_) => "==",
                    BinOp::Ne(_) => "!=",
                    BinOp::And(_) => "&&",
                    BinOp::Or(_) => "||",
                    _ => return Err("an operator".into()),
                };
                arith(op, l, r, false)?
            }
            Expr::Assign(a) => {
                let v = self.expr(&a.right)?;
                self.place(&a.left, &mut |slot| {
                    *slot = v.clone();
                    Ok(())
                })?;
                Value::Tuple(Vec::new())
            }
            Expr::While(w) => {
                loop {
                    self.steps += 1;
                    if self.steps > STEP_LIMIT {
                        return Err("a loop of too many steps".into());
                    }
                    match self.expr(&w.cond)? {
                        Value::Bool(true) => {
                            self.block(&w.body)?;
                        }
                        Value::Bool(false) => break,
                        _ => return Err("a loop condition".into()),
                    }
                }
                Value::Tuple(Vec::new())
            }
            Expr::If(i) => match self.expr(&i.cond)? {
                Value::Bool(true) => self.block(&i.then_branch)?.unwrap_or(Value::Tuple(Vec::new())),
                Value::Bool(false) => match &i.else_branch {
                    Some((_, e)) => self.expr(e)?,
                    None => Value::Tuple(Vec::new()),
                },
                _ => return Err("a condition".into()),
            },
            Expr::Call(c) => self.call(c)?,
            Expr::Match(m) => {
                let v = self.expr(&m.expr)?;
                let arm = m
                    .arms
                    .iter()
                    .find_map(|arm| match arm.guard {
                        Some(_) => Some(Err("a match guard".to_string())),
                        None => arm_matches(&arm.pat, &v)
                            .map(|hit| hit.map(|bind| (arm, bind)))
                            .transpose(),
                    })
                    .ok_or("a match no arm covers")??;
                if let Some(name) = arm.1 {
                    self.env.insert(name, v);
                }
                self.expr(&arm.0.body)?
            }
            _ => return Err(format!("`{}`", self.cx.text(e))),
        })
    }

    /// A call of a `const fn` of this file, evaluated with its parameters bound.
    fn call(&mut self, c: &syn::ExprCall) -> R<Value> {
        let Expr::Path(p) = &*c.func else {
            return Err("a call".into());
        };
        let name = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let syntax = self.cx.workspace.syntax.get(self.cx.here).copied().flatten();
        let f = syntax
            .and_then(|s| const_fn(&s.items, &name))
            .ok_or_else(|| format!("a call of `{}`", self.cx.text(p)))?;
        let args: Vec<Value> = c.args.iter().map(|a| self.expr(a)).collect::<R<_>>()?;
        let mut env = HashMap::new();
        for (input, arg) in f.sig.inputs.iter().zip(args) {
            let syn::FnArg::Typed(t) = input else {
                return Err("a method".into());
            };
            let syn::Pat::Ident(i) = &*t.pat else {
                return Err("a parameter pattern".into());
            };
            env.insert(i.ident.to_string(), arg);
        }
        let outer = std::mem::replace(&mut self.env, env);
        let value = self.block(&f.block);
        self.env = outer;
        let value = value?.unwrap_or(Value::Tuple(Vec::new()));
        // An untyped integer result takes the function's return type.
        Ok(match (value, &f.sig.output) {
            (Value::Int(v, None), syn::ReturnType::Type(_, ty)) => {
                let ty = quote::ToTokens::to_token_stream(&**ty).to_string();
                match int_width(&ty) {
                    Some(_) => Value::Int(wrap(v, Some(&ty)), Some(ty)),
                    None => Value::Int(v, None),
                }
            }
            (other, _) => other,
        })
    }
}

/// The `const fn` named `name` among `items` and their inline modules.
fn const_fn<'a>(items: &'a [syn::Item], name: &str) -> Option<&'a syn::ItemFn> {
    items.iter().find_map(|item| match item {
        syn::Item::Fn(f) if f.sig.ident == name && f.sig.constness.is_some() => Some(f),
        syn::Item::Mod(m) => const_fn(&m.content.as_ref()?.1, name),
        _ => None,
    })
}

/// Whether arm pattern `pat` matches `v`: `Some(binding)` when it does.
fn arm_matches(pat: &syn::Pat, v: &Value) -> R<Option<Option<String>>> {
    Ok(match (pat, v) {
        (syn::Pat::Wild(_), _) => Some(None),
        (syn::Pat::Ident(i), _) if i.subpat.is_none() => Some(Some(i.ident.to_string())),
        (syn::Pat::Lit(l), Value::Int(x, _)) => match &l.lit {
            Lit::Int(i) => (i.base10_parse::<i128>().map_err(|e| e.to_string())? == *x).then_some(None),
            _ => return Err("a literal pattern".into()),
        },
        (syn::Pat::Or(o), _) => {
            for case in &o.cases {
                if let Some(hit) = arm_matches(case, v)? {
                    return Ok(Some(hit));
                }
            }
            None
        }
        _ => return Err("a match pattern".into()),
    })
}

/// A binary operation; integers wrap to their type when `wrapping` or when the type is known.
fn arith(op: &str, l: Value, r: Value, wrapping: bool) -> R<Value> {
    Ok(match (l, r) {
        (Value::Int(a, ta), Value::Int(b, tb)) => {
            let ty = ta.or(tb);
            let t = ty.as_deref();
            let int = |v: i128| Value::Int(wrap(v, t), ty.clone());
            match op {
                "+" => int(a + b),
                "-" => int(a - b),
                "*" => int(a.checked_mul(b).ok_or("an overflow")?),
                "/" if b != 0 => int(a / b),
                "%" if b != 0 => int(a % b),
                "&" => int(a & b),
                "|" => int(a | b),
                "^" => int(a ^ b),
                "<<" if (0..64).contains(&b) => int(a << b),
                ">>" if (0..128).contains(&b) => int(a >> b),
                "<" => Value::Bool(a < b),
                "<=" => Value::Bool(a <= b),
                ">" => Value::Bool(a > b),
                ">=" => Value::Bool(a >= b),
                "==" => Value::Bool(a == b),
                "!=" => Value::Bool(a != b),
                _ => return Err(format!("`{op}` on integers")),
            }
        }
        (Value::Float(a, s), Value::Float(b, _)) if !wrapping => {
            let f = |v: f64| Value::Float(if s { v as f32 as f64 } else { v }, s);
            match op {
                "+" => f(a + b),
                "-" => f(a - b),
                "*" => f(a * b),
                "/" => f(a / b),
                "<" => Value::Bool(a < b),
                "<=" => Value::Bool(a <= b),
                ">" => Value::Bool(a > b),
                ">=" => Value::Bool(a >= b),
                _ => return Err(format!("`{op}` on floats")),
            }
        }
        (Value::Bool(a), Value::Bool(b)) => match op {
            "&&" | "&" => Value::Bool(a && b),
            "||" | "|" => Value::Bool(a || b),
            "==" => Value::Bool(a == b),
            "!=" => Value::Bool(a != b),
            _ => return Err(format!("`{op}` on booleans")),
        },
        _ => return Err(format!("`{op}` on mixed operands")),
    })
}

/// The C++ initializer of a value, fully braced.
fn initializer(v: &Value) -> R<String> {
    Ok(match v {
        Value::Int(i, ty) => match ty.as_deref() {
            Some("u64" | "usize") => format!("{i}ull"),
            Some("i64" | "isize") if *i == i64::MIN as i128 => "(-9223372036854775807ll - 1)".to_string(),
            Some("i64" | "isize") => format!("{i}ll"),
            Some("u32") => format!("{i}u"),
            _ if *i > i32::MAX as i128 || *i < i32::MIN as i128 => format!("{i}ll"),
            _ => i.to_string(),
        },
        Value::Float(f, _) if !f.is_finite() => return Err("a non-finite float".into()),
        Value::Float(f, true) => format!("{:?}f", *f as f32),
        Value::Float(f, false) => format!("{f:?}"),
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => {
            let items = items.iter().map(initializer).collect::<R<Vec<_>>>()?;
            format!("{{{{{}}}}}", items.join(", "))
        }
        Value::Tuple(items) => {
            let items = items.iter().map(initializer).collect::<R<Vec<_>>>()?;
            format!("{{{}}}", items.join(", "))
        }
        // The lowered enum is a struct whose first member is the tag.
        Value::Variant(tag) => format!("{{{tag}}}"),
    })
}

impl Context<'_> {
    /// The initializer of a constant built by a `const` block, evaluated here; `Err` names the
    /// construct the evaluation does not cover.
    pub(super) fn evaluated_constant(&self, e: &Expr) -> Result<String, String> {
        let mut eval = Eval {
            cx: self,
            env: HashMap::new(),
            steps: 0,
        };
        initializer(&eval.expr(e)?)
    }
}

impl Context<'_> {
    /// `const T: [f32; N] = super::TABLE;` where `TABLE` is built by a block: its value.
    pub(super) fn evaluated_table(&self, p: &syn::ExprPath, built: &Expr, cx: &Context<'_>) -> super::Lowered<String> {
        cx.evaluated_constant(built).or_else(|why| {
            self.fail(
                p,
                format!(
                    "`{}` is built by a block this evaluation does not cover: {why}",
                    self.text(p)
                ),
            )
        })
    }
}
