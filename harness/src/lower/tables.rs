//! Constant tables and aggregates: a constant array named by another constant is defined
//! with the same elements, and a constant that is not a scalar lives on the device
//! (`__device__ constexpr`), since device code may not read a host `constexpr` aggregate.

use super::{Context, Lowered, Scope};
use syn::{Expr, Type};

impl Context<'_> {
    /// `const T16: [f32; N] = super::TABLE16;`: the elements of the table it names.
    pub(super) fn aliased_table(&self, c: &syn::ItemConst, items: &[&syn::Item]) -> Lowered<String> {
        let Expr::Path(p) = &*c.expr else {
            return self.fail(&c.expr, "a constant array built by an expression is not lowered");
        };
        let name = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        // A table of the same file (maybe in another inline module), else of the workspace.
        let local = items.iter().find_map(|i| match i {
            syn::Item::Const(other) if other.ident == name => Some(&*other.expr),
            _ => None,
        });
        let (cx, elems) = match local {
            Some(Expr::Array(a)) => (None, a),
            Some(built @ Expr::Block(_)) => return self.evaluated_table(p, built, self),
            _ => {
                let target = self
                    .layouts
                    .resolve(&p.path)
                    .ok_or_else(|| (self.span(p), format!("`{}` is not a known constant", self.text(p))))?;
                if let Some((module, built @ Expr::Block(_))) = self.layouts.index.const_expr(&target) {
                    let cx = self.within(module);
                    return self.evaluated_table(p, built, cx.as_ref().unwrap_or(self));
                }
                let Some((module, Expr::Array(a))) = self.layouts.index.const_expr(&target) else {
                    return self.fail(p, format!("`{}` is not a constant array literal", self.text(p)));
                };
                (self.within(module), a)
            }
        };
        let cx = cx.as_ref().unwrap_or(self);
        let elems = elems
            .elems
            .iter()
            .map(|e| cx.expr(e, &mut Scope::default()))
            .collect::<Lowered<Vec<_>>>()?;
        Ok(format!("{{{}}}", elems.join(", ")))
    }

    /// The definition of a constant that is not an array literal.
    pub(super) fn constant_definition(&self, ty: &Type, decl: &str, value: &str) -> String {
        let scalar = match ty {
            Type::Path(p) => p
                .path
                .segments
                .last()
                .is_some_and(|s| Self::primitive(&s.ident.to_string()).is_some()),
            _ => false,
        };
        if scalar {
            format!("[[maybe_unused]] constexpr {decl} = {value};\n")
        } else {
            format!("__device__ constexpr {decl} = {value};\n")
        }
    }
}
