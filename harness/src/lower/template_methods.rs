//! Methods of a generic impl (`impl<T> Stack<T>`) written as function templates over the
//! impl's parameters; kept apart from the struct templates, which need the item registry.

use syn::Type;

/// `item` as a method generic over its impl's parameters: each bare `Self` is the instance
/// `Stack::<T>`, and the impl's parameters lead the method's own.
pub(super) fn as_template_method(item: &mut syn::ItemFn, self_ty: &Type, generics: &syn::Generics) {
    super::impl_instances::write_self(item, self_ty);
    let own = std::mem::take(&mut item.sig.generics.params);
    item.sig.generics.params = generics.params.iter().cloned().chain(own).collect();
    if let Some(outer) = &generics.where_clause {
        let clause = item.sig.generics.make_where_clause();
        clause.predicates.extend(outer.predicates.iter().cloned());
    }
}

/// Whether the type's tokens name `param`.
pub(super) fn names_param(self_type: &str, param: &str) -> bool {
    let tokens: proc_macro2::TokenStream = self_type.parse().unwrap_or_default();
    fn walk(tokens: proc_macro2::TokenStream, param: &str) -> bool {
        tokens.into_iter().any(|t| match t {
            proc_macro2::TokenTree::Ident(i) => i == param,
            proc_macro2::TokenTree::Group(g) => walk(g.stream(), param),
            _ => false,
        })
    }
    walk(tokens, param)
}
