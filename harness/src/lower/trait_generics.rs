//! Trait functions generic over types or constants (`CP::coefficients::<LumaCR, ChromaCR, N>()`,
//! `LumaCR::min()` under `Bitdepth<N>: Sample`): one copy per argument list. Arguments the call
//! leaves out are inferred as rustc does from the caller's where clauses: a bound
//! `Bitdepth<N>: Sample` of the callee is met by the caller's own `Bitdepth<8>: Sample`, so `N`
//! is `8`.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::cell::RefCell;
use syn::{GenericArgument, GenericParam, PathArguments, Type, TypeParamBound, WherePredicate};

thread_local! {
    /// The where clauses of the functions being lowered, innermost last.
    static BOUNDS: RefCell<Vec<Vec<Bound>>> = const { RefCell::new(Vec::new()) };
}

/// `Head<args..>: Trait`, as text.
#[derive(Clone)]
struct Bound {
    head: String,
    args: Vec<String>,
    trait_name: String,
}

fn bounds(where_clause: Option<&syn::WhereClause>) -> Vec<Bound> {
    let mut out = Vec::new();
    for predicate in where_clause.into_iter().flat_map(|w| &w.predicates) {
        let WherePredicate::Type(t) = predicate else { continue };
        let Type::Path(ty) = &t.bounded_ty else { continue };
        let Some(last) = ty.path.segments.last() else { continue };
        let args = match &last.arguments {
            PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .map(|g| match g {
                    GenericArgument::Const(e) => e.to_token_stream().to_string(),
                    other => other.to_token_stream().to_string(),
                })
                .collect(),
            _ => Vec::new(),
        };
        for b in &t.bounds {
            if let TypeParamBound::Trait(tr) = b {
                if let Some(name) = tr.path.segments.last() {
                    out.push(Bound {
                        head: last.ident.to_string(),
                        args: args.clone(),
                        trait_name: name.ident.to_string(),
                    });
                }
            }
        }
    }
    out
}

/// The where clause of the function being lowered holds while its body is: dropped with it.
pub(super) struct InScope;

impl Drop for InScope {
    fn drop(&mut self) {
        BOUNDS.with(|b| b.borrow_mut().pop());
    }
}

pub(super) fn enter(f: &syn::ItemFn) -> InScope {
    let found = bounds(f.sig.generics.where_clause.as_ref());
    BOUNDS.with(|b| b.borrow_mut().push(found));
    InScope
}

/// The value the caller's bounds give the callee's parameter `param`.
fn inferred(callee: &[Bound], param: &str) -> Option<String> {
    let caller = BOUNDS.with(|b| b.borrow().last().cloned().unwrap_or_default());
    let mut found: Option<String> = None;
    for bound in callee {
        let Some(at) = bound.args.iter().position(|a| a == param) else {
            continue;
        };
        let candidates: Vec<&Bound> = caller
            .iter()
            .filter(|c| c.head == bound.head && c.trait_name == bound.trait_name && c.args.len() == bound.args.len())
            .collect();
        // Two bounds that could meet it leave it ambiguous, as for rustc.
        let [only] = candidates.as_slice() else { return None };
        let value = only.args[at].clone();
        if found.as_ref().is_some_and(|f| *f != value) {
            return None;
        }
        found = Some(value);
    }
    found
}

/// `sig` and `block` with the generic parameters replaced by `explicit` (the call's turbofish)
/// or by what the caller's bounds give, with the argument list; the where clause stays, with
/// the arguments in it, as the bounds the copy's own calls are met by.
pub(super) fn instance(
    sig: &syn::Signature,
    block: &syn::Block,
    explicit: &[String],
) -> Result<(syn::Signature, syn::Block, Vec<String>), String> {
    let params: Vec<(String, bool)> = sig
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            GenericParam::Type(t) => Some((t.ident.to_string(), false)),
            GenericParam::Const(c) => Some((c.ident.to_string(), true)),
            GenericParam::Lifetime(_) => None,
        })
        .collect();
    if params.is_empty() {
        return Ok((sig.clone(), block.clone(), Vec::new()));
    }
    let callee = bounds(sig.generics.where_clause.as_ref());
    let arguments: Vec<String> = if explicit.is_empty() {
        params
            .iter()
            .map(|(name, is_const)| {
                if !is_const {
                    return Err(format!("type parameter `{name}` is left to inference"));
                }
                inferred(&callee, name).ok_or_else(|| {
                    format!("constant `{name}` is given neither at the call nor by a bound of the caller")
                })
            })
            .collect::<Result<_, _>>()?
    } else if explicit.len() == params.len() {
        explicit.to_vec()
    } else {
        return Err(format!(
            "{} generic arguments for {} parameters",
            explicit.len(),
            params.len()
        ));
    };
    // Bounds written inline (`LumaCR: ColorRange`) move to the where clause, to be kept.
    let mut plain = sig.clone();
    let where_clause = plain.generics.where_clause.take().map_or_else(TokenStream::new, |w| {
        let p = w.predicates;
        quote::quote!(#p)
    });
    plain.generics = syn::Generics::default();
    let function = syn::ItemFn {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        sig: plain,
        block: Box::new(block.clone()),
    };
    let mut tokens: Vec<proc_macro2::TokenTree> = function.to_token_stream().into_iter().collect();
    // `fn name(..) -> R { .. }`: the where clause goes before the body.
    if let Some(body) = tokens.pop() {
        if !where_clause.is_empty() {
            tokens.extend(quote::quote!(where #where_clause));
        }
        tokens.push(body);
    }
    let names: Vec<String> = params.iter().map(|(n, _)| n.clone()).collect();
    let values: Vec<TokenStream> = arguments
        .iter()
        .map(|a| a.parse().map_err(|_| format!("argument `{a}`")))
        .collect::<Result<_, _>>()?;
    let tokens = super::substitution::substitute(tokens.into_iter().collect(), &names, &values);
    let item: syn::ItemFn = syn::parse2(tokens).map_err(|e| format!("its copy does not parse: {e}"))?;
    Ok((item.sig, *item.block, arguments))
}

/// Tuples of five to eight fields, as trait functions return them
/// (`coefficients() -> (f32, f32, f32, f32, f32)`).
#[macro_export]
#[doc(hidden)]
macro_rules! wide_tuple_prelude {
    () => {
        r#"namespace kl {
template <typename A, typename B, typename C, typename D, typename E> struct tuple5 {
  A _0; B _1; C _2; D _3; E _4;
};
template <typename A, typename B, typename C, typename D, typename E, typename F> struct tuple6 {
  A _0; B _1; C _2; D _3; E _4; F _5;
};
template <typename A, typename B, typename C, typename D, typename E, typename F, typename G> struct tuple7 {
  A _0; B _1; C _2; D _3; E _4; F _5; G _6;
};
template <typename A, typename B, typename C, typename D, typename E, typename F, typename G, typename H>
struct tuple8 {
  A _0; B _1; C _2; D _3; E _4; F _5; G _6; H _7;
};
template <typename A, typename B, typename C, typename D, typename E>
__host__ __device__ constexpr tuple5<A, B, C, D, E> make_tuple(A a, B b, C c, D d, E e) { return {a, b, c, d, e}; }
template <typename A, typename B, typename C, typename D, typename E, typename F>
__host__ __device__ constexpr tuple6<A, B, C, D, E, F> make_tuple(A a, B b, C c, D d, E e, F f) {
  return {a, b, c, d, e, f};
}
template <typename A, typename B, typename C, typename D, typename E, typename F, typename G>
__host__ __device__ constexpr tuple7<A, B, C, D, E, F, G> make_tuple(A a, B b, C c, D d, E e, F f, G g) {
  return {a, b, c, d, e, f, g};
}
template <typename A, typename B, typename C, typename D, typename E, typename F, typename G, typename H>
__host__ __device__ constexpr tuple8<A, B, C, D, E, F, G, H> make_tuple(A a, B b, C c, D d, E e, F f, G g, H h) {
  return {a, b, c, d, e, f, g, h};
}
}
"#
    };
}
