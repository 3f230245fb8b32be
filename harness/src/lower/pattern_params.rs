//! Parameters bound by tuple patterns, `fn nested_sum((a, (b, c)): (u32, (u32, u32)))`: the
//! helper takes the tuple as one parameter and binds each name from its field at the top of
//! its body, `let b = (kl_param_0.1).0;`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Pat};

/// The helpers among `helpers` with a tuple-pattern parameter, rewritten; the others are not
/// returned.
pub(super) fn destructured(helpers: &[&syn::ItemFn]) -> Vec<syn::ItemFn> {
    helpers.iter().filter_map(|f| rewrite(f)).collect()
}

fn rewrite(f: &syn::ItemFn) -> Option<syn::ItemFn> {
    let mut out = f.clone();
    let mut lets: Vec<syn::Stmt> = Vec::new();
    for (i, input) in out.sig.inputs.iter_mut().enumerate() {
        let FnArg::Typed(typed) = input else { continue };
        if !matches!(&*typed.pat, Pat::Tuple(_)) {
            continue;
        }
        let whole = format_ident!("kl_param_{}", i, span = typed.pat.span());
        let mut leaves = Vec::new();
        leaves_of(&typed.pat, quote_spanned!(typed.pat.span()=> #whole), &mut leaves)?;
        for (name, mutable, place) in leaves {
            let m = mutable.then(|| quote_spanned!(name.span()=> mut));
            lets.push(syn::parse2(quote_spanned!(name.span()=> let #m #name = #place;)).ok()?);
        }
        *typed.pat = Pat::Ident(syn::PatIdent {
            attrs: Vec::new(),
            by_ref: None,
            mutability: None,
            ident: whole,
            subpat: None,
        });
    }
    if lets.is_empty() {
        return None;
    }
    lets.extend(out.block.stmts);
    out.block.stmts = lets;
    Some(out)
}

/// Each name a pattern binds, whether `mut`, and the field of `place` it is.
fn leaves_of(pat: &Pat, place: TokenStream, out: &mut Vec<(syn::Ident, bool, TokenStream)>) -> Option<()> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            out.push((p.ident.clone(), p.mutability.is_some(), place));
        }
        Pat::Wild(_) => {}
        Pat::Paren(p) => leaves_of(&p.pat, place, out)?,
        Pat::Tuple(t) => {
            for (i, elem) in t.elems.iter().enumerate() {
                let index = syn::Index::from(i);
                leaves_of(elem, quote_spanned!(elem.span()=> (#place).#index), out)?;
            }
        }
        _ => return None,
    }
    Some(())
}
