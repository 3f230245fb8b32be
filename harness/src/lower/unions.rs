//! A union of the kernel's file (`union Bits { word: u32, bytes: [u8; 4] }`) passed to a
//! kernel by value: the file's C++ union, set by the host through its first field.

use super::{Context, Lowered, Param, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::{Item, Type};

impl Context<'_> {
    /// The kernel file's union a type names, with the fields it is written with.
    fn file_union(&self, ty: &Type) -> Option<syn::ItemUnion> {
        let Type::Path(p) = ty else { return None };
        if p.qself.is_some() || p.path.segments.len() != 1 {
            return None;
        }
        let name = last_segment(&p.path);
        let syntax = self.workspace.syntax.get(self.here).copied().flatten()?;
        let mut items = Vec::new();
        super::compiled::compiled_items(&syntax.items, &self.layouts, &mut items);
        items.iter().find_map(|i| match i {
            Item::Union(u) if u.ident == name.as_str() => Some(u.clone()),
            _ => None,
        })
    }

    /// A union passed by value: the host sets its first field, which C++'s value
    /// initialisation of a union also sets.
    pub(super) fn union_param(&self, name: &str, ty: &Type) -> Lowered<Option<Param>> {
        let Some(def) = self.file_union(ty) else {
            return Ok(None);
        };
        let c_type = self.c_type(ty)?;
        let Some(first) = def.fields.named.first() else {
            return self.fail(ty, format!("union `{}` without fields", def.ident));
        };
        let field = super::ident(&first.ident.as_ref().map(ToString::to_string).unwrap_or_default());
        let fields = match self.array_field_params(&field, &first.ty)? {
            Some(elements) => elements,
            None => vec![self.kernel_param(&field, &first.ty, &mut Scope::default())?],
        };
        if fields.iter().any(|p| !matches!(p, Param::Scalar { .. })) {
            return self.fail(ty, format!("union `{}`: its first field is not a scalar", def.ident));
        }
        Ok(Some(Param::Struct {
            name: name.to_string(),
            c_type,
            fields,
        }))
    }
}
