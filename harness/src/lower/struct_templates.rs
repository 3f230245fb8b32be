//! Methods of an impl generic over the type parameters of its struct (`impl<T> Stack<T>`), as
//! C++ function templates over a class template of the struct (`template <typename T> struct
//! Stack`): a call leaving `T` to inference (`Stack::new(ptr, ..)`) lets C++ deduce it from the
//! arguments, and a method from its receiver, as rustc does.

use super::{Context, Lowered};
use kernel_lint_analyzer::model::items::FunctionRef;
use kernel_lint_analyzer::ModulePath;
use syn::{GenericArgument, GenericParam, Type};

/// The impls of `items` and of their inline modules.
/// The type parameters of `generics` when it has only those and lifetimes.
fn type_params(generics: &syn::Generics) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for p in &generics.params {
        match p {
            GenericParam::Type(t) => names.push(t.ident.to_string()),
            GenericParam::Lifetime(_) => {}
            GenericParam::Const(_) => return None,
        }
    }
    (!names.is_empty()).then_some(names)
}

impl Context<'_> {
    /// `Stack<T>` and the impl's generics for a method of an inherent `impl<T> Stack<T>` whose
    /// self type's arguments are exactly its type parameters; `None` for any other method.
    pub(super) fn generic_impl_self(&self, function: &FunctionRef<'_>) -> Option<(Type, syn::Generics)> {
        let owner = self.owning_impl(function)?;
        let params = type_params(&owner.generics)?;
        let Type::Path(p) = &*owner.self_ty else { return None };
        let syn::PathArguments::AngleBracketed(args) = &p.path.segments.last()?.arguments else {
            return None;
        };
        let mut given = Vec::new();
        for a in &args.args {
            match a {
                GenericArgument::Lifetime(_) => {}
                GenericArgument::Type(Type::Path(t)) if t.qself.is_none() => {
                    given.push(t.path.get_ident()?.to_string())
                }
                _ => return None,
            }
        }
        let mut sorted = given.clone();
        sorted.sort();
        sorted.dedup();
        let mut wanted = params.clone();
        wanted.sort();
        if sorted != wanted || given.len() != params.len() {
            return None;
        }
        // A struct holding a whole parameter is the closure struct's class template.
        let target = self.layouts.resolve(&p.path);
        if let Some((_, def)) = target.as_ref().and_then(|t| self.layouts.index.struct_def(t)) {
            if super::closure_structs::deducible_params(def).is_some() {
                return None;
            }
        }
        Some(((*owner.self_ty).clone(), owner.generics.clone()))
    }

    /// The class template `Stack<T>` for a generic struct of `module` named with a parameter of
    /// the template being lowered, defined once; `None` when no argument is such a parameter.
    pub(super) fn class_template(
        &self,
        ty: &Type,
        module: &ModulePath,
        def: &syn::ItemStruct,
    ) -> Lowered<Option<String>> {
        let Type::Path(p) = ty else { return Ok(None) };
        let Some(syn::PathArguments::AngleBracketed(arguments)) = p.path.segments.last().map(|s| &s.arguments) else {
            return Ok(None);
        };
        let types: Vec<&Type> = arguments
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect();
        if !types.iter().any(|t| self.template_type(t).is_some()) {
            return Ok(None);
        }
        let Some(params) = type_params(&def.generics) else {
            return self.fail(
                ty,
                format!(
                    "generic struct `{}` over constants in a template is not lowered",
                    def.ident
                ),
            );
        };
        if types.len() != params.len() {
            return self.fail(
                ty,
                format!("generic struct `{}`: its arguments are not all types", def.ident),
            );
        }
        let key = ("struct template", module.clone(), def.ident.to_string());
        let name = self.require(ty, key, super::items::Area::Early, |name| {
            let mut inner = self
                .within(module)
                .ok_or_else(|| (self.span(ty), "no file".to_string()))?;
            inner.template_types = params.iter().map(|p| (p.clone(), p.clone())).collect();
            let mut plain = def.clone();
            plain.generics = syn::Generics::default();
            plain.ident = syn::Ident::new(name, def.ident.span());
            let typenames: Vec<String> = params.iter().map(|p| format!("typename {p}")).collect();
            Ok((
                String::new(),
                format!("template <{}> {}", typenames.join(", "), inner.lower_struct(&plain)?),
            ))
        })?;
        let mut c_args = Vec::new();
        for t in types {
            c_args.push(self.c_type(t)?);
        }
        Ok(Some(format!("{name}<{}>", c_args.join(", "))))
    }
}
