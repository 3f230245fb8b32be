//! `let x = opt?;` in a function returning `Option`: a `None` returns `None` at once, a
//! `Some` binds its value, as the `?` operator does.

use super::{Context, Lowered, Scope};
use syn::{Expr, Pat};

impl Context<'_> {
    /// `let name = <method returning Option>?;`; `None` for other statements.
    pub(super) fn option_try_let(&self, local: &syn::Local, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(init) = &local.init else { return Ok(None) };
        let Expr::Try(t) = &*init.expr else { return Ok(None) };
        if init.diverge.is_some() {
            return Ok(None);
        }
        let (pat, ty) = match &local.pat {
            Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            other => (other, None),
        };
        let Pat::Ident(binding) = pat else { return Ok(None) };
        if binding.by_ref.is_some() || binding.subpat.is_some() {
            return Ok(None);
        }
        // Only an operand the source shows to be an `Option` (a `Result` has no C++ form here).
        let Expr::MethodCall(m) = &*t.expr else {
            return self.fail(
                t,
                format!("`{}`: `?` of a value not known to be an `Option`", self.text(t)),
            );
        };
        let Some((payload, reference)) = self.option_payload(m, scope) else {
            return self.fail(
                t,
                format!("`{}`: `?` of a value not known to be an `Option`", self.text(t)),
            );
        };
        let value = self.expr(&t.expr, scope)?;
        scope.shared_counter += 1;
        let checked = format!("kl_try_{}", scope.shared_counter);
        let name = scope.bind(&binding.ident.to_string());
        if reference {
            scope.references.insert(name.clone());
        }
        scope.types.insert(name.clone(), payload);
        let decl = match ty {
            Some(ty) if !reference => self.declarator(ty, &name)?,
            _ => format!("auto {name}"),
        };
        Ok(Some(format!(
            "auto {checked} = {value};\nif (!{checked}.some) return kl::none{{}};\n{decl} = {checked}.value;\n"
        )))
    }
}
