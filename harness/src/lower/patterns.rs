//! `let` patterns beyond a name: `_`, tuple structs, structs, arrays, nested tuples and `ref`
//! bindings. The value is bound once to a C++ reference (`auto&&`, which also holds a
//! temporary), and each name then reads only its own part of it, as Rust's destructuring
//! reads only the places it binds.

use super::{ident, Context, Lowered, Scope};
use std::fmt::Write;
use syn::{Expr, Pat};

impl Context<'_> {
    /// A `let` whose pattern is not a plain name; `None` for the patterns lowered elsewhere.
    pub(super) fn pattern_local(&self, pat: &Pat, init: Option<&Expr>, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(init) = init else { return Ok(None) };
        match pat {
            // `let _ = value;`: the value is computed, and dropped.
            Pat::Wild(_) => Ok(Some(format!("(void)({});\n", self.expr(init, scope)?))),
            Pat::Ident(b) if b.by_ref.is_none() && b.subpat.is_none() => Ok(None),
            Pat::Tuple(t)
                if t.elems
                    .iter()
                    .all(|e| matches!(e, Pat::Ident(b) if b.by_ref.is_none()) || matches!(e, Pat::Wild(_))) =>
            {
                Ok(None)
            }
            Pat::Ident(_)
            | Pat::Tuple(_)
            | Pat::TupleStruct(_)
            | Pat::Struct(_)
            | Pat::Slice(_)
            | Pat::Reference(_) => {
                // The value first: it may read the names the pattern rebinds.
                let value = self.expr(init, scope)?;
                scope.shared_counter += 1;
                let whole = format!("kl_let_{}", scope.shared_counter);
                let mut out = format!("auto&& {whole} = {value};\n");
                self.bind_pattern(pat, &whole, &mut out, scope)?;
                Ok(Some(out))
            }
            _ => Ok(None),
        }
    }

    /// Binds the names of `pat` to the parts of the C++ place `place`.
    fn bind_pattern(&self, pat: &Pat, place: &str, out: &mut String, scope: &mut Scope) -> Lowered<()> {
        match pat {
            Pat::Wild(_) | Pat::Rest(_) => Ok(()),
            Pat::Paren(p) => self.bind_pattern(&p.pat, place, out, scope),
            Pat::Type(t) => self.bind_pattern(&t.pat, place, out, scope),
            Pat::Ident(b) => {
                if let Some((_, sub)) = &b.subpat {
                    self.bind_pattern(sub, place, out, scope)?;
                }
                let name = scope.bind(&b.ident.to_string());
                if b.by_ref.is_some() {
                    // `ref x`: a reference to the part, read through as the other references are.
                    scope.references.insert(name.clone());
                    let _ = writeln!(out, "auto {name} = &({place});");
                } else {
                    let _ = writeln!(out, "auto {name} = {place};");
                }
                Ok(())
            }
            // `&x` of a reference: the value it refers to.
            Pat::Reference(r) => self.bind_pattern(&r.pat, &format!("(*{place})"), out, scope),
            Pat::Tuple(t) => {
                for (i, elem) in t.elems.iter().enumerate() {
                    if matches!(elem, Pat::Rest(_)) {
                        return self.fail(elem, "`..` in a tuple pattern is not lowered");
                    }
                    self.bind_pattern(elem, &format!("{place}._{i}"), out, scope)?;
                }
                Ok(())
            }
            Pat::TupleStruct(t) => {
                if self.is_variant_path(&t.path) {
                    return self.fail(t, "an enum variant in a `let` pattern is not lowered");
                }
                for (i, elem) in t.elems.iter().enumerate() {
                    if matches!(elem, Pat::Rest(_)) {
                        break;
                    }
                    self.bind_pattern(elem, &format!("{place}._{i}"), out, scope)?;
                }
                Ok(())
            }
            Pat::Struct(s) => {
                for field in &s.fields {
                    let member = match &field.member {
                        syn::Member::Named(n) => ident(&n.to_string()),
                        syn::Member::Unnamed(i) => format!("_{}", i.index),
                    };
                    self.bind_pattern(&field.pat, &format!("{place}.{member}"), out, scope)?;
                }
                Ok(())
            }
            Pat::Slice(s) => {
                let rest = s.elems.iter().position(|e| matches!(e, Pat::Rest(_)));
                if let Some(rest) = rest {
                    if rest + 1 != s.elems.len() {
                        return self.fail(s, "elements after `..` in an array pattern are not lowered");
                    }
                }
                for (i, elem) in s.elems.iter().enumerate().take(rest.unwrap_or(s.elems.len())) {
                    self.bind_pattern(elem, &format!("{place}[{i}]"), out, scope)?;
                }
                Ok(())
            }
            other => self.fail(other, "this `let` pattern is not lowered"),
        }
    }

    /// Whether a tuple-struct pattern's path names an enum variant rather than a struct.
    fn is_variant_path(&self, path: &syn::Path) -> bool {
        let last = path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        matches!(last.as_str(), "Some" | "None" | "Ok" | "Err") || self.layouts.struct_fields(path).is_none()
    }
}

/// A function whose whole body is `let _ = (args..); unreachable!(..)`: a compiler intrinsic
/// whose meaning the code generator supplies, not a helper to lower.
pub(super) fn is_intrinsic_stub(f: &syn::ItemFn) -> bool {
    let stmts = &f.block.stmts;
    let Some((last, before)) = stmts.split_last() else {
        return false;
    };
    let ends_unreachable = match last {
        syn::Stmt::Macro(m) => m.mac.path.segments.last().is_some_and(|s| s.ident == "unreachable"),
        syn::Stmt::Expr(e, _) => super::expr::is_unreachable(e),
        _ => false,
    };
    ends_unreachable
        && before
            .iter()
            .all(|s| matches!(s, syn::Stmt::Local(l) if matches!(l.pat, Pat::Wild(_))))
}
