//! Constants that hold the address of a static (`&DATA`, `&DATA[7]`, `&raw const DATA`): each
//! becomes a `__device__` variable initialized with the address of the static's `__device__`
//! variable, which C++ accepts as a constant initializer once the statics are declared.

use super::{expression_names, ident, Context, Scope};
use quote::ToTokens;
use std::collections::HashSet;
use std::fmt::Write;
use syn::{Expr, Item};

impl Context<'_> {
    /// Defines the constants of `failed` that name a static, after the statics; returns those
    /// still not lowered.
    pub(super) fn consts_naming_statics(&self, items: &[&Item], failed: Vec<String>, code: &mut String) -> Vec<String> {
        let statics: HashSet<String> = items
            .iter()
            .filter_map(|i| match i {
                Item::Static(s) => Some(s.ident.to_string()),
                _ => None,
            })
            .collect();
        let mut pending: Vec<&syn::ItemConst> = items
            .iter()
            .filter_map(|i| match i {
                Item::Const(c) if failed.contains(&c.ident.to_string()) => Some(c),
                _ => None,
            })
            .filter(|c| expression_names(&c.expr).iter().any(|n| statics.contains(n)))
            .collect();
        let mut still: HashSet<String> = failed.iter().cloned().collect();
        loop {
            let before = pending.len();
            pending.retain(|c| {
                // Wait for the constants it names.
                if expression_names(&c.expr)
                    .iter()
                    .any(|n| still.contains(n) && c.ident != n)
                {
                    return true;
                }
                // A cast pointer (`&raw const T as *const U`) is a `reinterpret_cast`: not a constant
                // initializer, which a `__device__` variable needs.
                if let Some(value) = super::static_addresses::element_address(&c.expr, items) {
                    if let Ok(decl) = self.declarator(&c.ty, &ident(&c.ident.to_string())) {
                        let qualifier = if decl.starts_with("const ") { "" } else { "const " };
                        let _ = writeln!(code, "__device__ {qualifier}{decl} = {value};");
                        still.remove(&c.ident.to_string());
                        return false;
                    }
                }
                if c.expr.to_token_stream().to_string().contains(" as *") {
                    super::const_reasons::record(
                        &c.ident.to_string(),
                        "its value casts a static's address (`&raw const S as *const U`): a reinterpret_cast is no constant initializer of a `__device__` pointer",
                    );
                    return false;
                }
                let value = match &*c.expr {
                    Expr::Array(a) => a
                        .elems
                        .iter()
                        .map(|e| self.expr(e, &mut Scope::default()))
                        .collect::<Result<Vec<_>, _>>()
                        .map(|v| format!("{{{}}}", v.join(", "))),
                    other => self.expr(other, &mut Scope::default()),
                };
                let decl = self.declarator(&c.ty, &ident(&c.ident.to_string()));
                if let Err((_, why)) = value.as_ref().and(decl.as_ref()) {
                    super::const_reasons::record(&c.ident.to_string(), why.clone());
                }
                if let (Ok(value), Ok(decl)) = (value, decl) {
                    // A pointer's declarator already leads with the pointee's `const`.
                    let qualifier = if decl.starts_with("const ") { "" } else { "const " };
                    let _ = writeln!(code, "__device__ {qualifier}{decl} = {value};");
                    still.remove(&c.ident.to_string());
                }
                false
            });
            if pending.len() == before {
                break;
            }
        }
        failed.into_iter().filter(|f| still.contains(f)).collect()
    }
}

/// The item a constant's value is the address of: `TABLE` of `&TABLE`.
pub(super) fn referenced_name(e: &Expr) -> Option<String> {
    let Expr::Reference(r) = e else { return None };
    let Expr::Path(p) = &*r.expr else { return None };
    p.path.get_ident().map(|i| i.to_string())
}

impl Context<'_> {
    /// `const T: &[u32; 4] = &[31, 37, 41, 43];`: C++ takes no address of a temporary in a
    /// `__device__` initializer, so the array is its own `__device__` variable, `T` its address.
    pub(super) fn referenced_array_literal(&self, c: &syn::ItemConst) -> Option<super::Lowered<String>> {
        let Expr::Reference(r) = &*c.expr else { return None };
        let Expr::Array(a) = &*r.expr else { return None };
        let syn::Type::Reference(ty) = &*c.ty else { return None };
        Some(self.array_with_address(c, &ty.elem, a))
    }

    fn array_with_address(&self, c: &syn::ItemConst, elem: &syn::Type, a: &syn::ExprArray) -> super::Lowered<String> {
        let name = ident(&c.ident.to_string());
        let storage = format!("{name}_storage");
        let elems = a
            .elems
            .iter()
            .map(|e| self.expr(e, &mut Scope::default()))
            .collect::<super::Lowered<Vec<_>>>()?;
        let array = self.declarator(elem, &storage)?;
        let decl = self.declarator(&c.ty, &name)?;
        Ok(format!(
            "__device__ const {array} = {{{}}};\n{}",
            elems.join(", "),
            self.constant_definition(&c.ty, &decl, &format!("(&{storage})"))
        ))
    }
}
