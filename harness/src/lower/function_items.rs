//! Functions of the file passed as values (`apply_once(add_const::<9>, raw)`,
//! `apply_value(identity::<u32>, raw)`): the helper's device function, so that a generic
//! callee's `F` is deduced as its pointer. A generic helper with literal arguments names its
//! copy for them, otherwise its template instance; a helper that is not lowered makes the
//! value fail with its reason rather than name an undefined function.

use super::{Context, Lowered, Scope};
use syn::{GenericArgument, PathArguments};

impl Context<'_> {
    /// `name` or `name::<args>` naming a helper of the file, as a device function value.
    pub(super) fn function_value(&self, p: &syn::ExprPath, scope: &Scope) -> Lowered<Option<String>> {
        if p.qself.is_some() || p.path.segments.len() != 1 {
            return Ok(None);
        }
        let last = &p.path.segments[0];
        let name = last.ident.to_string();
        if scope.is_bound(&name) || !self.helpers.contains(&name) {
            return Ok(None);
        }
        if let Some(copy) = super::generics::instance_call(&p.path).and_then(|call| self.instances.get(&call)) {
            return Ok(Some(copy.clone()));
        }
        if let Some(reason) = self.helpers_failed.get(&name) {
            return self.fail(
                p,
                format!("function `{name}` passed as a value is not lowered: {reason}"),
            );
        }
        let PathArguments::AngleBracketed(args) = &last.arguments else {
            return Ok(None);
        };
        let mut types = Vec::new();
        for a in &args.args {
            match a {
                GenericArgument::Type(t) => types.push(self.c_type(t)?),
                _ => {
                    return self.fail(
                        p,
                        format!("function `{}` passed as a value is not lowered", self.text(p)),
                    )
                }
            }
        }
        Ok(Some(format!("{name}<{}>", types.join(", "))))
    }
}
