//! A struct of the kernel's file generic over the type of a closure it holds
//! (`struct Holder<F> { f: F }`): a C++ class template whose constructor lets C++ deduce the
//! lambda's type at the literal (`Holder{[&](..) {..}}`), since a lambda's type has no name.
//! A braced list evaluates its values in order, as Rust evaluates the literal's fields.

use super::{Context, Lowered, Scope};
use std::fmt::Write as _;
use syn::{GenericParam, Item, Stmt, Type};

/// The struct `name` of `items`, looking into modules and function bodies.
pub(super) fn find_struct(items: &[Item], name: &str) -> Option<syn::ItemStruct> {
    fn in_stmts(stmts: &[Stmt], name: &str) -> Option<syn::ItemStruct> {
        stmts.iter().find_map(|s| match s {
            Stmt::Item(i) => find_struct(std::slice::from_ref(i), name),
            _ => None,
        })
    }
    items.iter().find_map(|item| match item {
        Item::Struct(s) if s.ident == name => Some(s.clone()),
        Item::Mod(m) => m.content.as_ref().and_then(|(_, inner)| find_struct(inner, name)),
        Item::Fn(f) => in_stmts(&f.block.stmts, name),
        _ => None,
    })
}

/// The type parameters of `def`, when each is the whole type of one of its fields (so that
/// C++ deduces every one from the constructor's arguments).
pub(super) fn deducible_params(def: &syn::ItemStruct) -> Option<Vec<String>> {
    let params: Vec<String> = def
        .generics
        .params
        .iter()
        .filter_map(|g| match g {
            GenericParam::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect();
    let only_types = def.generics.params.iter().all(|g| !matches!(g, GenericParam::Const(_)));
    if params.is_empty() || !only_types {
        return None;
    }
    let deduced = params.iter().all(|p| {
        def.fields
            .iter()
            .any(|f| matches!(&f.ty, Type::Path(tp) if tp.path.is_ident(p)))
    });
    deduced.then_some(params)
}

impl Context<'_> {
    /// `Holder{v, ..}` for a literal of a struct of the kernel's file generic over a closure
    /// type, defining the class template once; `None` for other structs.
    pub(super) fn closure_struct_literal(&self, s: &syn::ExprStruct, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(last) = s.path.segments.last() else {
            return Ok(None);
        };
        if !matches!(last.arguments, syn::PathArguments::None) || s.rest.is_some() {
            return Ok(None);
        }
        let Ok(syntax) = syn::parse_file(&self.file.text) else {
            return Ok(None);
        };
        let Some(def) = find_struct(&syntax.items, &last.ident.to_string()) else {
            return Ok(None);
        };
        let Some(params) = deducible_params(&def) else {
            return Ok(None);
        };
        let syn::Fields::Named(named) = &def.fields else {
            return Ok(None);
        };
        let key = ("closure struct", self.layouts.module.clone(), def.ident.to_string());
        let name = self.require(s, key, super::items::Area::Early, |name| {
            Ok((String::new(), self.closure_struct_template(&def, name, &params)?))
        })?;
        let mut values = Vec::new();
        for field in &named.named {
            let wanted = field.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
            let given = s
                .fields
                .iter()
                .find(|f| matches!(&f.member, syn::Member::Named(n) if *n == wanted))
                .ok_or_else(|| (self.span(s), format!("field `{wanted}` is not given")))?;
            values.push(self.expr(&given.expr, scope)?);
        }
        if values.len() != s.fields.len() {
            return self.fail(s, "a field given is not one of the struct's");
        }
        Ok(Some(format!("{name}{{{}}}", values.join(", "))))
    }

    /// `template <typename F> struct Holder { F f; __device__ Holder(F f) : f(f) {} };`
    pub(super) fn closure_struct_template(
        &self,
        def: &syn::ItemStruct,
        name: &str,
        params: &[String],
    ) -> Lowered<String> {
        let mut fields = String::new();
        let mut arguments = Vec::new();
        let mut inits = Vec::new();
        for field in &def.fields {
            let Some(ident) = &field.ident else {
                return self.fail(def, "a tuple struct generic over a closure is not lowered");
            };
            let field_name = super::ident(&ident.to_string());
            let c_type = match &field.ty {
                Type::Path(tp) if params.iter().any(|p| tp.path.is_ident(p)) => {
                    tp.path.get_ident().map(|i| i.to_string()).unwrap_or_default()
                }
                Type::Path(tp) if super::types::is_marker(&field.ty) => {
                    return self.fail(
                        tp,
                        "a `PhantomData` field of a struct generic over a closure is not lowered",
                    )
                }
                other => self.c_type(other)?,
            };
            let _ = writeln!(fields, "  {c_type} {field_name};");
            arguments.push(format!("{c_type} {field_name}_"));
            inits.push(format!("{field_name}({field_name}_)"));
        }
        let template: Vec<String> = params.iter().map(|p| format!("typename {p}")).collect();
        Ok(format!(
            "template <{}> struct {name} {{\n{fields}  __device__ {name}({}) : {} {{}}\n}};\n",
            template.join(", "),
            arguments.join(", "),
            inits.join(", ")
        ))
    }
}
