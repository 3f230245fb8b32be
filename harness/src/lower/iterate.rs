//! Loops over arrays and slices: `for x in arr`, `for v in s.iter()`, `.iter().enumerate()`,
//! `.iter().copied()`, and `.iter().sum()`: a counted loop reading the elements in order, as
//! the iterator does.

use super::stmt::ROLLED;
use super::{Context, Lowered, Scope};
use std::collections::HashMap;
use std::fmt::Write;
use syn::{Expr, Pat};

/// What an iterator chain over a named collection yields.
pub(super) struct Walk {
    /// The C name of the array or slice.
    pub(super) base: String,
    /// Its length in C.
    pub(super) len: String,
    /// `iter()`: references to the elements (pointers in C).
    pub(super) by_reference: bool,
    pub(super) enumerate: bool,
}

impl Context<'_> {
    /// The iterator chain `base.iter().enumerate()` and the like; `None` for other iterables.
    pub(super) fn walk(&self, iterated: &Expr, scope: &mut Scope) -> Lowered<Option<Walk>> {
        let mut e = iterated;
        let mut enumerate = false;
        let mut by_reference = false;
        let mut copied = false;
        while let Expr::MethodCall(m) = e {
            if !m.args.is_empty() {
                return Ok(None);
            }
            match m.method.to_string().as_str() {
                "enumerate" if !by_reference && !enumerate => enumerate = true,
                "copied" | "cloned" => copied = true,
                "iter" | "iter_mut" => by_reference = true,
                "into_iter" | "as_slice" | "as_mut_slice" => {}
                _ => return Ok(None),
            }
            e = &m.receiver;
        }
        let e = match e {
            Expr::Paren(p) => &*p.expr,
            other => other,
        };
        // `&a`, `&a[1..]`, `a[..n].iter()`: references to the elements, of a part of them.
        let (e, part) = super::sub_slices::parts(e, &mut by_reference);
        let Expr::Path(p) = e else { return Ok(None) };
        let Some(name) = p.path.get_ident().map(|i| i.to_string()) else {
            return Ok(None);
        };
        if !scope.is_bound(&name) && !self.consts.contains(&name) {
            return Ok(None);
        }
        let base = self.expr(e, scope)?;
        let c_name = scope.lookup(&name);
        let (base, len) = if scope.slices.contains(&c_name) {
            (base.clone(), format!("{base}_len"))
        } else if scope.references.contains(&c_name) {
            (format!("(*{base})"), format!("kl::len(*{base})"))
        } else {
            (base.clone(), format!("kl::len({base})"))
        };
        let (base, len) = match part {
            Some(range) => self.sub_slice_walk(range, &base, &len, scope)?,
            None => (base, len),
        };
        Ok(Some(Walk {
            base,
            len,
            by_reference: by_reference && !copied,
            enumerate,
        }))
    }

    /// `for x in [16, 8, 4, 2, 1]`: a loop over the elements of an array written in place, kept
    /// in a local C array of the first element's type; `None` for other iterables.
    pub(super) fn literal_array_loop(&self, f: &syn::ExprForLoop, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Array(array) = &*f.expr else {
            return Ok(None);
        };
        let Some(first) = array.elems.first() else {
            return self.fail(array, "a loop over an empty array");
        };
        let elements = array
            .elems
            .iter()
            .map(|e| self.expr(e, scope))
            .collect::<Lowered<Vec<String>>>()?;
        scope.shared_counter += 1;
        let k = format!("kl_i_{}", scope.shared_counter);
        let values = format!("kl_values_{}", scope.shared_counter);
        let first = self.expr(first, scope)?;
        scope.names.push(HashMap::new());
        let body = match &*f.pat {
            Pat::Ident(i) => {
                let name = scope.bind(&i.ident.to_string());
                self.block(&f.body, scope)
                    .map(|body| format!("{{\nauto {name} = {values}[{k}];\n{body}}}\n"))
            }
            Pat::Wild(_) => self.block(&f.body, scope),
            other => self.fail(other, "a loop pattern that is not a name"),
        };
        scope.names.pop();
        Ok(Some(format!(
            "{{\nconst decltype({first}) {values}[] = {{{}}};\n{ROLLED}for (unsigned long long {k} = 0; {k} < {}ull; ++{k}) {}}}\n",
            elements.join(", "),
            elements.len(),
            body?
        )))
    }

    /// `for pat in <walk>`; `None` when the loop is not over a named array or slice.
    pub(super) fn collection_loop(&self, f: &syn::ExprForLoop, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(walk) = self.walk(&f.expr, scope)? else {
            return Ok(None);
        };
        scope.shared_counter += 1;
        let k = format!("kl_i_{}", scope.shared_counter);
        let (index_pat, elem_pat) = match (&*f.pat, walk.enumerate) {
            (Pat::Tuple(t), true) if t.elems.len() == 2 => (Some(&t.elems[0]), &t.elems[1]),
            (_, true) => return self.fail(&f.pat, "`enumerate` into a pattern other than a pair"),
            (other, false) => (None, other),
        };
        scope.names.push(HashMap::new());
        let lowered = self.collection_body(f, &walk, &k, index_pat, elem_pat, scope);
        scope.names.pop();
        Ok(Some(format!(
            "{ROLLED}for (unsigned long long {k} = 0; {k} < (unsigned long long)({}); ++{k}) {}",
            walk.len, lowered?
        )))
    }

    fn collection_body(
        &self,
        f: &syn::ExprForLoop,
        walk: &Walk,
        k: &str,
        index_pat: Option<&Pat>,
        elem_pat: &Pat,
        scope: &mut Scope,
    ) -> Lowered<String> {
        let mut out = String::from("{\n");
        if let Some(index_pat) = index_pat {
            match index_pat {
                Pat::Ident(i) => {
                    let name = scope.bind(&i.ident.to_string());
                    let _ = writeln!(out, "auto {name} = {k};");
                }
                Pat::Wild(_) => {}
                other => return self.fail(other, "an `enumerate` index that is not a name"),
            }
        }
        let base = &walk.base;
        match (elem_pat, walk.by_reference) {
            (Pat::Ident(i), true) => {
                let name = scope.bind(&i.ident.to_string());
                scope.references.insert(name.clone());
                let _ = writeln!(out, "auto {name} = &{base}[{k}];");
            }
            (Pat::Ident(i), false) => {
                let name = scope.bind(&i.ident.to_string());
                let _ = writeln!(out, "auto {name} = {base}[{k}];");
            }
            // `for &x in a.iter()`: the value.
            (Pat::Reference(r), true) => match &*r.pat {
                Pat::Ident(i) => {
                    let name = scope.bind(&i.ident.to_string());
                    let _ = writeln!(out, "auto {name} = {base}[{k}];");
                }
                other => return self.fail(other, "a loop pattern that is not a name"),
            },
            (Pat::Wild(_), _) => {}
            (other, _) => return self.fail(other, "a loop pattern that is not a name"),
        }
        out.push_str(&self.block(&f.body, scope)?);
        out.push_str("}\n");
        Ok(out)
    }

    /// `a.iter().sum()` and `a.iter().copied().sum::<T>()`: the elements added in order.
    pub(super) fn iterator_method(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        if m.method != "sum" || !m.args.is_empty() {
            return Ok(None);
        }
        let Some(walk) = self.walk(&m.receiver, scope)? else {
            return Ok(None);
        };
        if walk.enumerate {
            return Ok(None);
        }
        let base = &walk.base;
        Ok(Some(format!(
            "[&]() {{ auto kl_sum = decltype(+{base}[0]){{}};\n{ROLLED}for (unsigned long long kl_k = 0; kl_k < (unsigned long long)({}); ++kl_k) kl_sum += {base}[kl_k]; return kl_sum; }}()",
            walk.len
        )))
    }
}
