//! Associated functions of types generic over constants (`Swizzle::<5, 0, 5>::apply(i)`):
//! the impl's body names its constants `B`, `M`, `S`, so the function is copied once per set
//! of constants it is called with, each copy with the constants written in.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{GenericArgument, Item, PathArguments, Type};

/// The constants of the owner type in `path` (`Swizzle::<5, 0, 5>::apply`), each with the name
/// the impl of `self_type` in `items` that defines `function` gives it; `None` when an argument
/// is not a literal or no such impl is found.
pub(super) fn impl_constants(
    items: &[Item],
    path: &syn::Path,
    self_type: &str,
    function: &str,
) -> Option<Vec<(String, String)>> {
    let n = path.segments.len();
    let owner = path
        .segments
        .iter()
        .take(n.saturating_sub(1))
        .find(|s| s.ident == self_type)?;
    let values = super::generics::literal_arguments(&owner.arguments)?;
    let names = impl_parameters(items, self_type, function)?;
    (names.len() == values.len()).then(|| names.into_iter().zip(values).collect())
}

/// The names `impl<const B: usize, ..> Swizzle<B, M, S>` passes to the type, in order.
fn impl_parameters(items: &[Item], self_type: &str, function: &str) -> Option<Vec<String>> {
    items.iter().find_map(|item| match item {
        Item::Mod(m) => impl_parameters(&m.content.as_ref()?.1, self_type, function),
        Item::Impl(i) if i.trait_.is_none() => {
            let Type::Path(p) = &*i.self_ty else { return None };
            let last = p.path.segments.last()?;
            if last.ident != self_type
                || !i
                    .items
                    .iter()
                    .any(|m| matches!(m, syn::ImplItem::Fn(f) if f.sig.ident == function))
            {
                return None;
            }
            let PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            args.args
                .iter()
                .map(|a| match a {
                    GenericArgument::Type(Type::Path(t)) => t.path.get_ident().map(|i| i.to_string()),
                    GenericArgument::Const(syn::Expr::Path(e)) => e.path.get_ident().map(|i| i.to_string()),
                    _ => None,
                })
                .collect()
        }
        _ => None,
    })
}

/// `item` with each constant written in.
pub(super) fn write_in(item: &syn::ItemFn, constants: &[(String, String)]) -> Option<syn::ItemFn> {
    let names: Vec<String> = constants.iter().map(|(n, _)| n.clone()).collect();
    let values: Vec<TokenStream> = constants.iter().map(|(_, v)| v.parse().ok()).collect::<Option<_>>()?;
    syn::parse2(super::substitution::substitute(item.to_token_stream(), &names, &values)).ok()
}
