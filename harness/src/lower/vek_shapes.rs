//! vek's `Aabb<f32>` (re-exported by `cuda_std::vek`): a `#[repr(C)]` pair of `Vec3<f32>`
//! corners, `min` then `max`, as `kl::Aabb` of two `kl::Vec3`, the same 24 bytes.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::{GenericArgument, Type};

/// `kl::Aabb`: the corners in vek's field order.
#[macro_export]
#[doc(hidden)]
macro_rules! vek_shapes_prelude {
    () => {
        r#"namespace kl {
struct Aabb { Vec3 min; Vec3 max; };
}
"#
    };
}

impl Context<'_> {
    /// Whether `path` names vek's `Aabb` rather than a struct of the workspace.
    fn vek_aabb(&self, path: &syn::Path) -> bool {
        last_segment(path) == "Aabb" && self.layouts.struct_fields(path).is_none()
    }

    /// `Aabb<f32>`: `kl::Aabb`.
    pub(super) fn vek_type(&self, ty: &Type) -> Option<String> {
        let Type::Path(p) = ty else { return None };
        if !self.vek_aabb(&p.path) {
            return None;
        }
        let args = super::oxide::generic_args(&p.path);
        match args.as_slice() {
            [GenericArgument::Type(Type::Path(t))] if t.path.is_ident("f32") => Some("kl::Aabb".to_string()),
            _ => None,
        }
    }

    /// `Aabb { min, max }`, its corners written in the struct's order, as C++ evaluates a
    /// braced list: `kl::Aabb{min, max}`.
    pub(super) fn vek_literal(&self, s: &syn::ExprStruct, scope: &mut Scope) -> Lowered<Option<String>> {
        if !self.vek_aabb(&s.path) || s.rest.is_some() {
            return Ok(None);
        }
        let names: Vec<String> = s
            .fields
            .iter()
            .map(|f| match &f.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            })
            .collect();
        if names != ["min", "max"] {
            return self.fail(s, "an `Aabb` literal not written `min` then `max` is not lowered");
        }
        let mut values = Vec::new();
        for f in &s.fields {
            values.push(self.expr(&f.expr, scope)?);
        }
        Ok(Some(format!("kl::Aabb{{{}}}", values.join(", "))))
    }
}
