//! Helpers that return a slice constant of a static: `fn pair() -> &'static [f32] { PAIR }`
//! with `const PAIR: &[f32] = &TABLE[2];`. A slice is a pointer and a length in C, which no
//! C function returns, so `let s = pair();` binds the static's element address and the
//! constant's length where the kernel calls it: the same addresses in the same static.

use super::{Context, Lowered, Scope};
use syn::{Expr, Item, Stmt};

/// The item of `items` (or of a module written inline in them) that `pick` selects.
fn find_item<'a, T>(items: &'a [Item], pick: &dyn Fn(&'a Item) -> Option<T>) -> Option<T> {
    items.iter().find_map(|i| match i {
        Item::Mod(m) => find_item(&m.content.as_ref()?.1, pick),
        other => pick(other),
    })
}

/// The expression a block or a parenthesized expression yields.
fn value_of(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => value_of(&p.expr),
        Expr::Block(b) => match b.block.stmts.last() {
            Some(Stmt::Expr(tail, None)) => value_of(tail),
            _ => e,
        },
        _ => e,
    }
}

impl Context<'_> {
    /// `let s = helper();` where `helper` returns a slice constant of a static.
    pub(super) fn static_slice_local(
        &self,
        rust_name: &str,
        init: &Expr,
        scope: &mut Scope,
    ) -> Lowered<Option<String>> {
        let Expr::Call(c) = init else { return Ok(None) };
        let Expr::Path(f) = &*c.func else { return Ok(None) };
        let (Some(name), true) = (f.path.get_ident(), c.args.is_empty()) else {
            return Ok(None);
        };
        let Some(syntax) = self.workspace.syntax[self.here] else {
            return Ok(None);
        };
        let helper = find_item(&syntax.items, &|i| match i {
            Item::Fn(h) if h.sig.ident == *name && h.sig.inputs.is_empty() => Some(h),
            _ => None,
        });
        let Some(helper) = helper else { return Ok(None) };
        let returns_slice = matches!(&helper.sig.output, syn::ReturnType::Type(_, t)
            if matches!(&**t, syn::Type::Reference(r) if r.mutability.is_none() && matches!(&*r.elem, syn::Type::Slice(_))));
        let [Stmt::Expr(Expr::Path(constant), None)] = helper.block.stmts.as_slice() else {
            return Ok(None);
        };
        let (true, Some(constant)) = (returns_slice, constant.path.get_ident()) else {
            return Ok(None);
        };
        let Some(value) = find_item(&syntax.items, &|i| match i {
            Item::Const(k) if k.ident == *constant => Some(&*k.expr),
            _ => None,
        }) else {
            return Ok(None);
        };
        let Some((place, length)) = self.slice_of_static(value, &syntax.items)? else {
            return self.fail(
                c,
                format!("slice constant `{constant}` is not the address of a static's array"),
            );
        };
        let name = scope.bind(rust_name);
        scope.slices.insert(name.clone());
        Ok(Some(format!(
            "auto {name} = kl::slice_ptr({place});\nauto {name}_len = {length};\n"
        )))
    }

    /// `&S`, `&S[i]`, or `{ let s: &[T] = &S; s.split_at(k).0 }`: the array of the static
    /// `S` it starts at and the slice's length.
    fn slice_of_static(&self, value: &Expr, items: &[Item]) -> Lowered<Option<(String, String)>> {
        if let Expr::Block(b) = value {
            // `let s: &[T] = &S; s.split_at(k).0`: the first k elements.
            if let [Stmt::Local(l), Stmt::Expr(Expr::Field(head), None)] = b.block.stmts.as_slice() {
                let (Some(init), syn::Pat::Type(bound)) = (&l.init, &l.pat) else {
                    return Ok(None);
                };
                let syn::Pat::Ident(binding) = &*bound.pat else {
                    return Ok(None);
                };
                let Expr::MethodCall(split) = &*head.base else {
                    return Ok(None);
                };
                let first = matches!(&head.member, syn::Member::Unnamed(i) if i.index == 0);
                let splits_binding = matches!(&*split.receiver, Expr::Path(p) if p.path.is_ident(&binding.ident));
                if !first || !splits_binding || split.method != "split_at" || split.args.len() != 1 {
                    return Ok(None);
                }
                let Some(k) = self.layouts.const_value(&split.args[0]) else {
                    return Ok(None);
                };
                return Ok(self
                    .slice_of_static(&init.expr, items)?
                    .map(|(place, _)| (place, format!("{k}ull"))));
            }
            return Ok(None);
        }
        let Expr::Reference(r) = value_of(value) else {
            return Ok(None);
        };
        let place = value_of(&r.expr);
        let root = match place {
            Expr::Index(i) => &*i.expr,
            other => other,
        };
        let Expr::Path(p) = root else { return Ok(None) };
        let Some(static_name) = p.path.get_ident() else {
            return Ok(None);
        };
        let is_static = find_item(items, &|i| match i {
            Item::Static(s) if s.ident == *static_name => Some(()),
            _ => None,
        })
        .is_some();
        if !is_static {
            return Ok(None);
        }
        let place = self.expr(place, &mut Scope::default())?;
        Ok(Some((place.clone(), format!("kl::slice_len({place})"))))
    }
}
