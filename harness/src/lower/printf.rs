//! cuda-oxide's `gpu_printf!` as the device `printf`: each `{..}` becomes the printf conversion
//! for the C type of its argument, which is cast to that type, so that the arguments (and the
//! memory they read) stay those of the Rust source.

use super::{Context, Lowered, Scope};
use syn::punctuated::Punctuated;
use syn::{Expr, Token};

/// The Rust scalar type of a printed value, where the source states it.
fn literal_type(lit: &syn::Lit) -> Option<String> {
    match lit {
        syn::Lit::Int(i) if i.suffix().is_empty() => Some("i32".into()),
        syn::Lit::Int(i) => Some(i.suffix().into()),
        syn::Lit::Float(f) if f.suffix().is_empty() => Some("f64".into()),
        syn::Lit::Float(f) => Some(f.suffix().into()),
        syn::Lit::Bool(_) => Some("bool".into()),
        _ => None,
    }
}

/// The Rust scalar type a `let` value states by itself: a literal, a cast, a print's count,
/// or the thread index `index_1d().get()`.
pub(super) fn scalar_type(e: &Expr) -> Option<String> {
    match e {
        Expr::Lit(l) => literal_type(&l.lit),
        Expr::Cast(c) => match &*c.ty {
            syn::Type::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        },
        Expr::Paren(p) => scalar_type(&p.expr),
        Expr::Macro(m) if super::last_segment(&m.mac.path) == "gpu_printf" => Some("i32".into()),
        Expr::MethodCall(m) if m.method == "get" && m.args.is_empty() => match &*m.receiver {
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) if super::last_segment(&p.path) == "index_1d" => Some("usize".into()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The C type and printf length-and-conversion of a Rust scalar printed with `{}`.
fn natural(ty: &str) -> Option<(&'static str, &'static str)> {
    Some(match ty {
        "i8" | "i16" | "i32" => ("int", "d"),
        "u8" | "u16" | "u32" | "char" => ("unsigned int", "u"),
        "i64" | "isize" => ("long long", "lld"),
        "u64" | "usize" => ("unsigned long long", "llu"),
        "f32" | "f64" => ("double", "f"),
        _ => return None,
    })
}

/// The printf conversion and C argument type for a `{:spec}` of a value of Rust type `ty`.
fn conversion(letter: Option<char>, ty: Option<&str>) -> Option<(String, &'static str)> {
    let wide = matches!(ty, Some("i64" | "isize" | "u64" | "usize") | None);
    let signed = matches!(ty, Some("i8" | "i16" | "i32" | "i64" | "isize"));
    Some(match letter {
        None | Some('?') => {
            let (c_ty, conv) = natural(ty?)?;
            (conv.to_string(), c_ty)
        }
        Some(l @ ('x' | 'X' | 'o' | 'u')) => match wide {
            true => (format!("ll{l}"), "unsigned long long"),
            false => (l.to_string(), "unsigned int"),
        },
        Some(l @ ('d' | 'i')) => match (wide, signed || ty.is_none()) {
            (true, true) => (format!("ll{l}"), "long long"),
            (true, false) => ("llu".into(), "unsigned long long"),
            (false, true) => (l.to_string(), "int"),
            (false, false) => ("u".into(), "unsigned int"),
        },
        Some(l @ ('e' | 'E' | 'f' | 'F' | 'g' | 'G' | 'a' | 'A')) => (l.to_string(), "double"),
        Some('c') => ("c".into(), "int"),
        Some('p') => ("p".into(), "const void*"),
        _ => return None,
    })
}

impl Context<'_> {
    /// The Rust scalar type of `e` where literals, casts and declared bindings state it.
    pub(super) fn printed_type(&self, e: &Expr, scope: &Scope) -> Option<String> {
        match e {
            Expr::Lit(l) => literal_type(&l.lit),
            Expr::Cast(c) => match &*c.ty {
                syn::Type::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            },
            Expr::Paren(p) => self.printed_type(&p.expr, scope),
            Expr::Group(g) => self.printed_type(&g.expr, scope),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_) | syn::UnOp::Not(_)) => {
                self.printed_type(&u.expr, scope)
            }
            Expr::Binary(b) => match b.op {
                syn::BinOp::Eq(_)
                | syn::BinOp::Ne(_)
                | syn::BinOp::Lt(_)
                | syn::BinOp::Le(_)
                | syn::BinOp::Gt(_)
                | syn::BinOp::Ge(_)
                | syn::BinOp::And(_)
                | syn::BinOp::Or(_) => Some("bool".into()),
                syn::BinOp::Shl(_) | syn::BinOp::Shr(_) => self.printed_type(&b.left, scope),
                _ => self
                    .printed_type(&b.left, scope)
                    .filter(|t| !(t == "i32" && matches!(&*b.left, Expr::Lit(_))))
                    .or_else(|| self.printed_type(&b.right, scope))
                    .or_else(|| self.printed_type(&b.left, scope)),
            },
            Expr::Path(p) => {
                let name = p.path.get_ident()?.to_string();
                scope.types.get(&scope.lookup(&name)).cloned()
            }
            other => scalar_type(other),
        }
    }

    /// `gpu_printf!("x={} y={:.2f}\n", x, y)` as `printf("x=%d y=%.2f\n", (int)(x), (double)(y))`.
    pub(super) fn gpu_printf(&self, mac: &syn::Macro, scope: &mut Scope) -> Lowered<String> {
        let args = mac
            .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            .map_err(|e| (self.span(mac), format!("`gpu_printf!` not understood: {e}")))?;
        let mut args = args.into_iter();
        let Some(Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(format),
            ..
        })) = args.next()
        else {
            return self.fail(mac, "`gpu_printf!` needs a literal format string");
        };
        let values: Vec<Expr> = args.collect();
        let text = format.value();
        let mut out = String::new();
        let mut c_args = Vec::new();
        let mut chars = text.chars().peekable();
        let mut next = 0;
        while let Some(ch) = chars.next() {
            match ch {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    out.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    out.push('}');
                }
                '%' => out.push_str("%%"),
                '{' => {
                    let mut spec = String::new();
                    for c in chars.by_ref() {
                        if c == '}' {
                            break;
                        }
                        spec.push(c);
                    }
                    let Some(rest) = spec.strip_prefix(':').or(spec.is_empty().then_some("")) else {
                        return self.fail(
                            mac,
                            format!("`{{{spec}}}`: positional or named arguments are not lowered"),
                        );
                    };
                    let Some(value) = values.get(next) else {
                        return self.fail(mac, "`gpu_printf!` with fewer arguments than placeholders");
                    };
                    next += 1;
                    // Flags, width and precision carry over; the last letter (if any) is the conversion.
                    let letter = rest.chars().last().filter(|c| c.is_ascii_alphabetic() || *c == '?');
                    let head = match letter {
                        Some(_) => &rest[..rest.len() - 1],
                        None => rest,
                    };
                    if !head.chars().all(|c| c.is_ascii_digit() || "-+ #.".contains(c)) {
                        return self.fail(mac, format!("`{{{spec}}}` has no printf equivalent"));
                    }
                    let ty = self.printed_type(value, scope);
                    let c_value = self.expr(value, scope)?;
                    if ty.as_deref() == Some("bool") && letter.is_none_or(|l| l == '?') {
                        out.push_str(&format!("%{head}s"));
                        c_args.push(format!("(({c_value}) ? \"true\" : \"false\")"));
                        continue;
                    }
                    let Some((conv, c_ty)) = conversion(letter, ty.as_deref()) else {
                        return self.fail(
                            mac,
                            format!("`{{{spec}}}` of `{}`: its type is not known here", self.text(value)),
                        );
                    };
                    out.push_str(&format!("%{head}{conv}"));
                    c_args.push(format!("({c_ty})({c_value})"));
                }
                other => out.push(other),
            }
        }
        if next != values.len() {
            return self.fail(mac, "`gpu_printf!` with more arguments than placeholders");
        }
        let quoted = format!(
            "\"{}\"",
            out.replace('\\', "\\\\")
                .replace('"', "\\\"")
                .replace('\n', "\\n")
                .replace('\t', "\\t")
        );
        let mut call = format!("printf({quoted}");
        for a in c_args {
            call.push_str(", ");
            call.push_str(&a);
        }
        call.push(')');
        Ok(call)
    }
}
