//! Methods of an impl of a struct generic over the closure it holds (`impl<F> Holder<F>`): a
//! C++ function template over the closure's type, taking the class template's instance as
//! its receiver, so C++ deduces the lambda's type at the call as it did at the literal.

use super::closure_structs::{deducible_params, find_struct};
use super::{Context, Lowered};

impl Context<'_> {
    /// `template <typename F> __device__ .. Holder_call(const Holder<F>& self, ..)` for a method
    /// of a struct generic over a closure type; `None` for a method of any other type.
    pub(super) fn closure_struct_method(
        &self,
        item: &syn::ItemFn,
        self_type: Option<&str>,
    ) -> Option<Lowered<(String, String)>> {
        let owner = self_type?;
        if owner.contains('<') {
            return None;
        }
        let syntax = syn::parse_file(&self.file.text).ok()?;
        let def = find_struct(&syntax.items, owner)?;
        let params = deducible_params(&def)?;
        if item
            .sig
            .generics
            .params
            .iter()
            .any(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
        {
            return Some(self.fail(
                &item.sig,
                "a generic method of a struct generic over a closure is not lowered",
            ));
        }
        let key = ("closure struct", self.layouts.module.clone(), def.ident.to_string());
        let name = match self.require(&item.sig, key, super::items::Area::Early, |name| {
            Ok((String::new(), self.closure_struct_template(&def, name, &params)?))
        }) {
            Ok(name) => name,
            Err(e) => return Some(Err(e)),
        };
        // The receiver names the instance over the method's own type parameters.
        let mut cx = self.clone();
        for p in &params {
            cx.template_types.insert(p.clone(), p.clone());
        }
        cx.template_types
            .insert(owner.to_string(), format!("{name}<{}>", params.join(", ")));
        let typenames: Vec<String> = params.iter().map(|p| format!("typename {p}")).collect();
        let header = format!("template <{}> ", typenames.join(", "));
        Some(
            cx.lower_function(item, Some(owner))
                .map(|(prototype, body)| (format!("{header}{prototype}"), format!("{header}{body}"))),
        )
    }
}
