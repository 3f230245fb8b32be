//! `value: impl FnMut() -> Id` and `updater: impl ParticleUpdater` parameters: anonymous type
//! parameters, named so that the function lowers as the template a generic one does, each
//! call instantiating it with the argument's type (a closure's lambda, a struct).

use syn::{FnArg, GenericParam, Type};

/// `f` with each `impl Trait` parameter (or reference to one) turned into a named type
/// parameter bounded by the same traits; `None` when it has none.
pub(super) fn named(f: &syn::ItemFn) -> Option<syn::ItemFn> {
    let mut f = f.clone();
    let mut added = 0;
    for input in f.sig.inputs.iter_mut() {
        let FnArg::Typed(t) = input else { continue };
        let slot: &mut Type = match &mut *t.ty {
            Type::Reference(r) => &mut r.elem,
            other => other,
        };
        let Type::ImplTrait(imp) = slot else { continue };
        let name = syn::Ident::new(&format!("KlImpl{added}"), proc_macro2::Span::call_site());
        added += 1;
        let param = syn::TypeParam {
            attrs: Vec::new(),
            ident: name.clone(),
            colon_token: Some(Default::default()),
            bounds: imp.bounds.clone(),
            eq_token: None,
            default: None,
        };
        f.sig.generics.params.push(GenericParam::Type(param));
        *slot = Type::Path(syn::TypePath {
            qself: None,
            path: name.into(),
        });
    }
    (added > 0).then_some(f)
}
