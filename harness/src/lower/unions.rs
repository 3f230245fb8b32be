//! Unions of the kernel's file (`union Bits { word: u32, bytes: [u8; 4] }`): a C++ union
//! with the same members, so every field is a view of the same bytes at offset zero as in
//! Rust. Defined once, with the file's structs, under the union's own name.

use super::{Context, Lowered, Param, Scope};
use kernel_lint_analyzer::parse::last_segment;
use std::fmt::Write;
use syn::{Item, Type};

impl Context<'_> {
    /// The kernel file's union a path names.
    fn file_union(&self, path: &syn::Path) -> Option<syn::ItemUnion> {
        if path.segments.len() != 1
            && !path
                .segments
                .first()
                .is_some_and(|s| s.ident == "self" || s.ident == "super")
        {
            return None;
        }
        let name = last_segment(path);
        if !self.structs.contains(&name) {
            return None;
        }
        let syntax = self.workspace.syntax.get(self.here).copied().flatten()?;
        let mut items = Vec::new();
        super::compiled::compiled_items(&syntax.items, &self.layouts, &mut items);
        items.iter().find_map(|i| match i {
            Item::Union(u) if u.ident == name.as_str() => Some(u.clone()),
            _ => None,
        })
    }

    /// `union Bits { unsigned int word; kl::array<unsigned char, 4> bytes; };`
    pub(super) fn lower_union(&self, u: &syn::ItemUnion) -> Lowered<String> {
        if u.generics
            .params
            .iter()
            .any(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
        {
            return self.fail(u, format!("generic union `{}` is not lowered", u.ident));
        }
        let repr = super::repr(&u.attrs);
        if repr.packed {
            return self.fail(u, "packed unions are not lowered");
        }
        let align = repr.align.map(|a| format!("__align__({a}) ")).unwrap_or_default();
        let mut out = format!("union {align}{} {{\n", u.ident);
        for field in &u.fields.named {
            // A zero-sized view (`()`, `PhantomData`) has no C++ member of that size.
            if super::types::is_marker(&field.ty) || matches!(&field.ty, Type::Tuple(t) if t.elems.is_empty()) {
                return self.fail(field, format!("zero-sized field of union `{}` is not lowered", u.ident));
            }
            // rustc orders a tuple's fields as it likes: the C++ pair would move the bytes.
            if matches!(&field.ty, Type::Tuple(_)) {
                return self.fail(field, format!("tuple field of union `{}` is not lowered", u.ident));
            }
            let name = super::ident(&field.ident.as_ref().map(ToString::to_string).unwrap_or_default());
            let _ = writeln!(out, "  {};", self.declarator(&field.ty, &name)?);
        }
        out.push_str("};\n");
        Ok(out)
    }

    /// `Bits { bytes: [..] }`: a zeroed union with that one member set, as Rust's literal
    /// writes only the bytes of the field it names.
    pub(super) fn union_literal(&self, s: &syn::ExprStruct, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(def) = self.file_union(&s.path) else {
            return Ok(None);
        };
        let [field] = s.fields.iter().collect::<Vec<_>>()[..] else {
            return self.fail(s, format!("union `{}` literal must name one field", def.ident));
        };
        let syn::Member::Named(member) = &field.member else {
            return self.fail(s, "union literal with a positional field");
        };
        let Some(declared) = def.fields.named.iter().find(|f| f.ident.as_ref() == Some(member)) else {
            return self.fail(s, format!("`{member}` is not a field of union `{}`", def.ident));
        };
        let c_type = def.ident.to_string();
        let member = super::ident(&member.to_string());
        let value = self.field_value(&field.expr, &c_type, &member, scope)?;
        let elem = self.c_type(&declared.ty)?;
        Ok(Some(format!(
            "([&]() {{ {c_type} u{{}}; u.{member} = static_cast<{elem}>({value}); return u; }}())"
        )))
    }

    /// A union passed by value: the host sets its first field, which C++'s value
    /// initialisation of a union also sets.
    pub(super) fn union_param(&self, name: &str, ty: &Type) -> Lowered<Option<Param>> {
        let Type::Path(p) = ty else { return Ok(None) };
        let Some(def) = self.file_union(&p.path) else {
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
