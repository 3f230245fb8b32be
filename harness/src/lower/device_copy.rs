//! What kernel parameters of `DeviceCopy` crates are made of: scalar type aliases chosen by
//! features (`Real`), and cust's `DevicePointer<T>` (re-exported by parry), a device address
//! that is a `T*` in C.

use super::{Context, Lowered, Param, Scope};
use kernel_lint_analyzer::model::items::Target;
use kernel_lint_analyzer::model::layout::instantiate;
use syn::Type;

/// The pointer types that hold one device address of their type argument.
const DEVICE_POINTERS: [&str; 1] = ["DevicePointer"];

impl<'a> Context<'a> {
    /// A parameter (or a field of one) whose type is an alias of the crate: the aliased type,
    /// lowered where the alias is written.
    pub(super) fn alias_param(&self, name: &str, ty: &Type, scope: &mut Scope) -> Lowered<Option<Param>> {
        let Type::Path(p) = ty else { return Ok(None) };
        let Some(target) = self.layouts.resolve(&p.path) else {
            return Ok(None);
        };
        let Some((module, alias)) = self.layouts.index.alias(&target) else {
            return Ok(None);
        };
        let arguments = p.path.segments.last().map(|s| s.arguments.clone()).unwrap_or_default();
        let aliased = instantiate(alias, &arguments);
        let Some(inner) = self.within(module) else {
            return Ok(None);
        };
        inner.kernel_param(name, &aliased, scope).map(Some)
    }

    /// A `DevicePointer<T>` parameter field: a pointer to a buffer of `T`.
    pub(super) fn device_pointer_param(&self, name: &str, ty: &Type) -> Lowered<Option<Param>> {
        let Some(elem) = self.device_pointee(ty) else {
            return Ok(None);
        };
        Ok(Some(Param::Pointer {
            name: name.to_string(),
            elem: self.c_type(elem)?,
            elem_bytes: self.size_of(elem),
        }))
    }

    /// `DevicePointer<T>` as the C type `T*`.
    pub(super) fn device_pointer_type(&self, ty: &Type) -> Lowered<Option<String>> {
        match self.device_pointee(ty) {
            Some(elem) => Ok(Some(format!("{}*", self.c_type(elem)?))),
            None => Ok(None),
        }
    }

    /// `T` of `DevicePointer<T>`, unless the workspace defines a type of that name itself.
    fn device_pointee<'t>(&self, ty: &'t Type) -> Option<&'t Type> {
        let Type::Path(p) = ty else { return None };
        let defined = self
            .layouts
            .resolve(&p.path)
            .is_some_and(|t| !matches!(t, Target::External(_)));
        if defined {
            return None;
        }
        pointee(ty)
    }
}

/// `T` of `DevicePointer<T>`.
fn pointee(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if !DEVICE_POINTERS.contains(&last.ident.to_string().as_str()) {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}
