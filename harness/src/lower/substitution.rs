//! Generic parameters replaced by their arguments in a token stream.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};

/// `tokens` with each parameter name replaced by its value; the value takes the name's span,
/// so that `#line` directives still name the generic kernel's lines.
pub(super) fn substitute(tokens: TokenStream, params: &[String], values: &[TokenStream]) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|t| -> Vec<TokenTree> {
            match t {
                TokenTree::Ident(i) => match params.iter().position(|p| i == p.as_str()) {
                    Some(k) => {
                        let value: TokenStream = values[k]
                            .clone()
                            .into_iter()
                            .map(|mut v| {
                                v.set_span(i.span());
                                v
                            })
                            .collect();
                        // One token stays one; a path or generic type is grouped, so that
                        // `T::zero()` still parses.
                        let trees: Vec<TokenTree> = value.clone().into_iter().collect();
                        if trees.len() == 1 {
                            trees
                        } else {
                            let mut g = Group::new(Delimiter::None, value);
                            g.set_span(i.span());
                            vec![TokenTree::Group(g)]
                        }
                    }
                    None => vec![TokenTree::Ident(i)],
                },
                TokenTree::Group(g) => {
                    let mut inner = Group::new(g.delimiter(), substitute(g.stream(), params, values));
                    inner.set_span(g.span());
                    vec![TokenTree::Group(inner)]
                }
                other => vec![other],
            }
        })
        .collect()
}

/// The names of a generic item's type and constant parameters, in order.
pub(super) fn generic_names(generics: &syn::Generics) -> Vec<String> {
    generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(t.ident.to_string()),
            syn::GenericParam::Const(c) => Some(c.ident.to_string()),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect()
}
