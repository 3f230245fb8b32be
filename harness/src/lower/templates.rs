//! Helpers generic over types, lowered as C++ function templates: `fn apply<F: FnOnce(u32) ->
//! u32>(f: F, x: u32)` becomes `template<typename F> .. apply(F f, unsigned int x)`, so that a
//! call leaving the arguments to inference (`apply(triple, v)`) lets nvcc infer them from the
//! argument types as rustc does; a closure argument is a lambda, a function item a function.

use super::{Context, Lowered};
use quote::ToTokens;
use std::collections::{HashMap, HashSet};
use syn::{FnArg, GenericParam, Type};

/// The type parameters of `f` when it is generic over types only (lifetimes aside).
pub(super) fn type_params(f: &syn::ItemFn) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for p in &f.sig.generics.params {
        match p {
            GenericParam::Type(t) => names.push(t.ident.to_string()),
            GenericParam::Lifetime(_) => {}
            GenericParam::Const(_) => return None,
        }
    }
    (!names.is_empty()).then_some(names)
}

/// Whether `name` is an identifier of the tokens.
fn mentions(tokens: proc_macro2::TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions(g.stream(), name),
        _ => false,
    })
}

impl Context<'_> {
    /// `f` as a function template, when it is generic over types only.
    pub(super) fn template_helper(
        &self,
        f: &syn::ItemFn,
        self_type: Option<&str>,
    ) -> Option<Lowered<(String, String)>> {
        let names = type_params(f)?;
        // A parameter no argument names (a return type `R`) cannot be inferred by C++: the
        // function's return type is deduced from its body instead.
        let inferable: HashSet<&String> = names
            .iter()
            .filter(|n| {
                f.sig
                    .inputs
                    .iter()
                    .any(|i| matches!(i, FnArg::Typed(t) if mentions(t.ty.to_token_stream(), n)))
                    // A method's receiver names its impl's parameters (`&self` of `Stack<T>`).
                    || (f.sig.receiver().is_some()
                        && self_type.is_some_and(|s| super::template_methods::names_param(s, n)))
            })
            .collect();
        let mut cx = self.clone();
        cx.template_types = names
            .iter()
            .map(|n| {
                let c = if inferable.contains(n) {
                    n.clone()
                } else {
                    "auto".to_string()
                };
                (n.clone(), c)
            })
            .collect::<HashMap<_, _>>();
        let typenames: Vec<String> = names
            .iter()
            .filter(|n| inferable.contains(n))
            .map(|n| format!("typename {n}"))
            .collect();
        let header = if typenames.is_empty() {
            String::new()
        } else {
            format!("template <{}> ", typenames.join(", "))
        };
        // `g: &G` is `G* g`: `const G*` would not match a pointer to a function, whose type
        // takes no `const`.
        let mut f = f.clone();
        for input in f.sig.inputs.iter_mut() {
            if let FnArg::Typed(t) = input {
                if let Type::Reference(r) = &mut *t.ty {
                    if matches!(&*r.elem, Type::Path(p) if p.path.get_ident().is_some_and(|i| names.iter().any(|n| i == n)))
                    {
                        r.mutability = Some(Default::default());
                    }
                }
            }
        }
        Some(
            cx.lower_function(&f, self_type)
                .map(|(prototype, body)| (format!("{header}{prototype}"), format!("{header}{body}"))),
        )
    }

    /// The C++ name of a type parameter of the template being lowered.
    pub(super) fn template_type(&self, ty: &Type) -> Option<String> {
        let Type::Path(p) = ty else { return None };
        let name = p.path.get_ident()?.to_string();
        self.template_types.get(&name).cloned()
    }
}
