//! `for b in grid.blocks_around(p) { .. }`: a loop over an array a call returns by value. The
//! array is built once, into a local, and its elements are read in order, as `IntoIterator` of
//! an array yields them.

use super::{Context, Lowered, Scope};
use syn::{Expr, Type};

impl Context<'_> {
    /// The loop over the array a call returns; `None` when the loop is over anything else.
    pub(super) fn returned_array_loop(&self, f: &syn::ExprForLoop, scope: &mut Scope) -> Lowered<Option<String>> {
        if !self.returns_array(&f.expr, scope) {
            return Ok(None);
        }
        let value = self.expr(&f.expr, scope)?;
        scope.shared_counter += 1;
        let rust = format!("kl_returned_{}", scope.shared_counter);
        scope.names.push(std::collections::HashMap::new());
        let c_name = scope.bind(&rust);
        let mut over = f.clone();
        *over.expr = syn::parse_str::<Expr>(&rust).expect("an identifier");
        let looped = self.collection_loop(&over, scope);
        scope.names.pop();
        let Some(looped) = looped? else {
            return self.fail(&f.expr, "a loop over a returned array is not lowered");
        };
        Ok(Some(format!("{{\nauto {c_name} = {value};\n{looped}\n}}")))
    }

    /// Whether `e` calls a function or method of the workspace declared to return an array.
    fn returns_array(&self, e: &Expr, scope: &Scope) -> bool {
        let output =
            |sig: &syn::Signature| matches!(&sig.output, syn::ReturnType::Type(_, t) if matches!(&**t, Type::Array(_)));
        match e {
            Expr::Paren(p) => self.returns_array(&p.expr, scope),
            Expr::MethodCall(m) => {
                let Some(receiver) = self.value_type_of(&m.receiver, scope) else {
                    return false;
                };
                let found: Vec<bool> = self
                    .layouts
                    .index
                    .methods_named(&m.method.to_string(), self.layouts.module)
                    .filter(|f| f.self_type == Some(receiver.as_str()))
                    .map(|f| output(f.sig))
                    .collect();
                matches!(found.as_slice(), [true])
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return false };
                let Some(target) = self.layouts.resolve(&p.path) else {
                    return false;
                };
                self.layouts.index.function(&target).is_some_and(|f| output(f.sig))
            }
            _ => false,
        }
    }
}
