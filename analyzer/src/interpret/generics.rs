//! Generic parameters taken at the types they stand for. A helper called with a turbofish
//! (`project::<A, TOKENS>(..)`) gets its type parameters bound to the caller's types and its
//! const parameters to the caller's values; a kernel generic over a trait that exactly one type
//! of the analyzed code implements (as the Rust semantics find its impls) can only be launched
//! at that type. `A::HIDDEN` and `A::f(..)` then read the constant and follow the function of
//! that type's `impl`.

use super::{Interpreter, Value};
use crate::parse::last_segment;
use std::collections::{BTreeMap, BTreeSet};
use syn::{GenericArgument, GenericParam, Generics, TypeParamBound, WherePredicate};

impl<'a> Interpreter<'a> {
    /// Binds each type parameter of the kernel whose trait bounds exactly one type of the
    /// analyzed code meets (as the Rust semantics resolve the traits and find their impls),
    /// noting the choice.
    pub(crate) fn instantiate_kernel(&mut self, generics: &Generics) {
        let Some(semantics) = self.sources.semantics else {
            return;
        };
        for param in &generics.params {
            let GenericParam::Type(ty) = param else { continue };
            let name = ty.ident.to_string();
            let mut bounds: Vec<&syn::Path> = ty.bounds.iter().filter_map(trait_path).collect();
            for predicate in generics.where_clause.iter().flat_map(|w| &w.predicates) {
                let WherePredicate::Type(p) = predicate else { continue };
                let syn::Type::Path(bounded) = &p.bounded_ty else {
                    continue;
                };
                if bounded.path.is_ident(&name) {
                    bounds.extend(p.bounds.iter().filter_map(trait_path));
                }
            }
            // Traits with no implementation among the loaded crates (a library's `Float`)
            // narrow nothing down; a blanket impl or a path that is no trait leaves `A` open.
            let mut candidates: Option<BTreeSet<String>> = None;
            let mut narrowing = Vec::new();
            for bound in bounds {
                let span = self.span(bound);
                let Some(implementors) = semantics.get().implementors(self.file_id, span) else {
                    candidates = Some(BTreeSet::new());
                    break;
                };
                if implementors.is_empty() {
                    continue;
                }
                narrowing.push(format!("`{}`", last_segment(bound)));
                let implementors: BTreeSet<String> = implementors.into_iter().collect();
                candidates = Some(match candidates {
                    Some(c) => c.intersection(&implementors).cloned().collect(),
                    None => implementors,
                });
            }
            let Some(candidates) = candidates else { continue };
            if let [only] = Vec::from_iter(candidates).as_slice() {
                self.body.instantiated.push(format!(
                    "`{name}` taken as `{only}`: the one type of the analyzed code that implements {}",
                    narrowing.join(" and ")
                ));
                self.generics.insert(name, only.clone());
            }
        }
    }

    /// The bindings a call's turbofish gives the callee's generic parameters, in the caller's
    /// terms: types by name, const values as integers.
    pub(crate) fn generic_arguments(
        &mut self,
        params: &Generics,
        turbofish: Option<&syn::AngleBracketedGenericArguments>,
    ) -> (BTreeMap<String, String>, Vec<(String, Value)>) {
        let (mut types, mut consts) = (BTreeMap::new(), Vec::new());
        let Some(turbofish) = turbofish else {
            return (types, consts);
        };
        let params = params.params.iter().filter(|p| !matches!(p, GenericParam::Lifetime(_)));
        let given = turbofish
            .args
            .iter()
            .filter(|a| !matches!(a, GenericArgument::Lifetime(_)));
        for (param, arg) in params.zip(given) {
            match (param, arg) {
                (GenericParam::Type(t), GenericArgument::Type(syn::Type::Path(p))) if p.qself.is_none() => {
                    let written = last_segment(&p.path);
                    let ty = match p.path.get_ident() {
                        Some(_) => self.generics.get(&written).cloned().unwrap_or(written),
                        None => written,
                    };
                    types.insert(t.ident.to_string(), ty);
                }
                (GenericParam::Const(c), GenericArgument::Const(e)) => {
                    let value = self.value(e);
                    consts.push((c.ident.to_string(), value));
                }
                // `f::<N>()`: a const argument that is a bare name parses as a type.
                (GenericParam::Const(c), GenericArgument::Type(syn::Type::Path(p))) if p.qself.is_none() => {
                    let path = syn::ExprPath {
                        attrs: Vec::new(),
                        qself: None,
                        path: p.path.clone(),
                    };
                    let value = self.path_value(&path);
                    consts.push((c.ident.to_string(), value));
                }
                _ => {}
            }
        }
        (types, consts)
    }

    /// `A::NAME` for a type parameter `A` bound to a type: that type's associated constant.
    pub(crate) fn generic_const(&self, path: &syn::Path) -> Option<i64> {
        let [param, name] = path.segments.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let ty = self.generics.get(&param.ident.to_string())?;
        self.scope().associated_const(ty, &name.ident.to_string())
    }

    /// `A::f` for a type parameter `A` bound to a type: the type that `A` stands for.
    pub(crate) fn generic_owner(&self, path: &syn::Path) -> Option<String> {
        let [param, _] = path.segments.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        self.generics.get(&param.ident.to_string()).cloned()
    }
}

/// The path of the trait a bound names (`tuisko::Arch` of `A: tuisko::Arch`), if it is a trait.
fn trait_path(bound: &TypeParamBound) -> Option<&syn::Path> {
    match bound {
        TypeParamBound::Trait(t) => Some(&t.path),
        _ => None,
    }
}
