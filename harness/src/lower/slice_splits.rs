//! Views that divide a slice in place: `split_at(k)` and its `_mut` and `_checked` forms,
//! `as_chunks::<N>()`, and slices rebuilt from a raw pointer and a length. Every part keeps
//! the pointer into the original buffer, so its accesses keep their addresses.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use std::collections::HashMap;
use std::fmt::Write as _;
use syn::{Expr, Pat, Type};

/// `kl::split_point`, `kl::as_chunks`: where Rust's `split_at` panics the twin traps; a chunk
/// is an array of `N` elements laid over the slice, read as Rust reads `[T; N]`.
#[macro_export]
#[doc(hidden)]
macro_rules! slice_splits_prelude {
    () => {
        r#"namespace kl {
template <typename K> __device__ unsigned long long split_point(K k, unsigned long long len) {
  if ((unsigned long long)k > len) __trap();
  return (unsigned long long)k; }
template <unsigned long long N, typename T> __device__ auto as_chunks(T* p)
    -> typename std::conditional<std::is_const<T>::value, const array<typename std::remove_cv<T>::type, N>,
                                 array<T, N>>::type* {
  using C = typename std::conditional<std::is_const<T>::value, const array<typename std::remove_cv<T>::type, N>,
                                      array<T, N>>::type;
  return reinterpret_cast<C*>(p); }
}
"#
    };
}

/// `unsafe { e }` and `(e)` as `e`.
fn bare(e: &Expr) -> &Expr {
    match e {
        Expr::Unsafe(u) => match u.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => bare(inner),
            _ => e,
        },
        Expr::Paren(p) => bare(&p.expr),
        _ => e,
    }
}

/// A binding of a split's part: its Rust name, `None` for `_`.
fn part_name(p: &Pat) -> Option<Option<String>> {
    match p {
        Pat::Ident(b) if b.subpat.is_none() => Some(Some(b.ident.to_string())),
        Pat::Wild(_) => Some(None),
        Pat::Type(t) => part_name(&t.pat),
        _ => None,
    }
}

/// `(a, b)` of two plain names.
fn pair(p: &Pat) -> Option<[Option<String>; 2]> {
    let Pat::Tuple(t) = p else { return None };
    match t.elems.iter().collect::<Vec<_>>()[..] {
        [a, b] => Some([part_name(a)?, part_name(b)?]),
        _ => None,
    }
}

/// What divides a slice: the C receiver, and how.
enum Division {
    /// `split_at(k)` (panics past the end) or `split_at_checked(k)` (`None` past the end).
    At { mid: String },
    /// `as_chunks::<N>()`: whole chunks, then the remainder.
    Chunks { width: String },
}

impl Context<'_> {
    /// `let s = core::slice::from_raw_parts_mut(p, n);`: a slice of `n` elements at `p`.
    pub(super) fn raw_slice_local(
        &self,
        rust_name: &str,
        ty: Option<&Type>,
        init: &Expr,
        scope: &mut Scope,
    ) -> Lowered<Option<String>> {
        if !matches!(ty, None | Some(Type::Infer(_)))
            && !matches!(ty, Some(Type::Reference(r)) if matches!(&*r.elem, Type::Slice(_)))
        {
            return Ok(None);
        }
        let Expr::Call(c) = bare(init) else { return Ok(None) };
        let Expr::Path(f) = &*c.func else { return Ok(None) };
        let owner = f.path.segments.iter().rev().nth(1).map(|s| s.ident.to_string());
        if owner.as_deref() != Some("slice")
            || !matches!(last_segment(&f.path).as_str(), "from_raw_parts" | "from_raw_parts_mut")
            || c.args.len() != 2
        {
            return Ok(None);
        }
        let pointer = self.expr(&c.args[0], scope)?;
        let length = self.expr(&c.args[1], scope)?;
        let name = scope.bind(rust_name);
        scope.slices.insert(name.clone());
        scope.reserve_length(&name);
        Ok(Some(format!(
            "auto {name} = {pointer};\nauto {name}_len = (unsigned long long)({length});\n"
        )))
    }

    /// `s.split_at(k)`, `s.split_at_mut_checked(k)`, `s.as_chunks::<N>()` of a slice `s`: the
    /// slice's C name, the division, and whether it answers an option.
    fn division(&self, e: &Expr, scope: &mut Scope) -> Lowered<Option<(String, Division, bool)>> {
        let Expr::MethodCall(m) = bare(e) else { return Ok(None) };
        let Expr::Path(p) = &*m.receiver else { return Ok(None) };
        let Some(slice) = p.path.get_ident().map(|i| scope.lookup(&i.to_string())) else {
            return Ok(None);
        };
        if !scope.slices.contains(&slice) {
            return Ok(None);
        }
        let method = m.method.to_string();
        let found = match (method.as_str(), m.args.len()) {
            ("split_at" | "split_at_mut", 1) => (
                Division::At {
                    mid: self.expr(&m.args[0], scope)?,
                },
                false,
            ),
            ("split_at_checked" | "split_at_mut_checked", 1) => (
                Division::At {
                    mid: self.expr(&m.args[0], scope)?,
                },
                true,
            ),
            ("as_chunks" | "as_chunks_mut", 0) => {
                let width = match m.turbofish.as_ref().map(|t| t.args.iter().collect::<Vec<_>>()) {
                    Some(args) if args.len() == 1 => self.generic_value(args[0])?,
                    _ => return self.fail(m, "`as_chunks` is lowered with its chunk length written as `::<N>`"),
                };
                (Division::Chunks { width }, false)
            }
            _ => return Ok(None),
        };
        Ok(Some((slice, found.0, found.1)))
    }

    /// The declarations of the two parts of `slice`, named `names`.
    fn parts(&self, slice: &str, division: &Division, names: &[Option<String>; 2], scope: &mut Scope) -> String {
        let mut out = String::new();
        let count = scope.declared.entry(format!("{slice}_mid")).or_insert(0);
        let mid_name = match *count {
            0 => format!("{slice}_mid"),
            n => format!("{slice}_mid_{n}"),
        };
        *count += 1;
        let [first, second] = names.clone().map(|n| {
            n.map(|n| {
                let c = scope.bind(&n);
                scope.slices.insert(c.clone());
                scope.reserve_length(&c);
                c
            })
        });
        match division {
            Division::At { mid } => {
                let _ = writeln!(
                    out,
                    "unsigned long long {mid_name} = kl::split_point({mid}, {slice}_len);"
                );
                if let Some(a) = &first {
                    let _ = writeln!(out, "auto {a} = {slice};\nauto {a}_len = {mid_name};");
                }
                if let Some(b) = &second {
                    let _ = writeln!(
                        out,
                        "auto {b} = {slice} + {mid_name};\nauto {b}_len = {slice}_len - {mid_name};"
                    );
                }
            }
            Division::Chunks { width } => {
                if let Some(a) = &first {
                    let _ = writeln!(
                        out,
                        "auto {a} = kl::as_chunks<{width}>({slice});\nauto {a}_len = {slice}_len / ({width});"
                    );
                }
                if let Some(b) = &second {
                    let _ = writeln!(
                        out,
                        "auto {b} = {slice} + {slice}_len / ({width}) * ({width});\nauto {b}_len = {slice}_len % ({width});"
                    );
                }
            }
        }
        out
    }

    /// `let (a, b) = s.split_at(k);` or `let (chunks, rest) = s.as_chunks::<N>();`.
    pub(super) fn split_local(&self, local: &syn::Local, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(init) = &local.init else { return Ok(None) };
        if init.diverge.is_some() {
            return Ok(None);
        }
        let Some(names) = pair(&local.pat) else { return Ok(None) };
        let Some((slice, division, checked)) = self.division(&init.expr, scope)? else {
            return Ok(None);
        };
        if checked {
            return Ok(None);
        }
        Ok(Some(self.parts(&slice, &division, &names, scope)))
    }

    /// `if let Some((a, b)) = s.split_at_mut_checked(k) { .. }`: the parts where `k` is within
    /// the slice, the `else` branch where it is not.
    pub(super) fn split_if_let(&self, l: &syn::ExprLet, i: &syn::ExprIf, scope: &mut Scope) -> Lowered<Option<String>> {
        let Pat::TupleStruct(t) = &*l.pat else { return Ok(None) };
        if !t.path.is_ident("Some") || t.elems.len() != 1 {
            return Ok(None);
        }
        let Some(names) = pair(&t.elems[0]) else {
            return Ok(None);
        };
        let Some((slice, division, true)) = self.division(&l.expr, scope)? else {
            return Ok(None);
        };
        let Division::At { mid } = &division else {
            return Ok(None);
        };
        let mut out = format!("if ((unsigned long long)({mid}) <= {slice}_len) {{\n");
        scope.names.push(HashMap::new());
        out.push_str(&self.parts(&slice, &division, &names, scope));
        let body = self.block(&i.then_branch, scope);
        scope.names.pop();
        out.push_str(&body?);
        out.push_str("}\n");
        if let Some((_, else_branch)) = &i.else_branch {
            out.push_str("else ");
            out.push_str(&self.expr_stmt(else_branch, scope)?);
        }
        Ok(Some(out))
    }
}
