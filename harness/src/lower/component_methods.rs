//! A trait method of a nalgebra vector written as the scalar's method on every component
//! (`impl<T: AtomicAdd> AtomicAdd for Vector<T> { .. self.zip_apply(&rhs, |a, b|
//! a.global_red_add(b)) }`): one call of the scalar's method per element, in storage order,
//! so each element keeps its own access at its own address.

use super::items::Area;
use super::receivers::primitive_alias;
use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::model::items::FunctionRef;
use syn::{Expr, Pat, Stmt, Type};

impl Context<'_> {
    /// `kl::zip_apply(v, rhs, f32_global_red_add)` for a method whose body is
    /// `self.zip_apply(&rhs, |a, b| a.method(b))`, called on a field whose declared type is a
    /// vector of a scalar with that method. `None` for any other method.
    pub(super) fn component_method(
        &self,
        m: &syn::ExprMethodCall,
        function: &FunctionRef<'_>,
        receiver: &str,
        args: &[String],
        scope: &Scope,
    ) -> Lowered<Option<String>> {
        let Some(scalar_method) = zipped_method(function) else {
            return Ok(None);
        };
        let [rhs] = args else { return Ok(None) };
        let Expr::Field(field) = strip(&m.receiver) else {
            return Ok(None);
        };
        let Some((owner, declared)) = self.declared_field_type(field, scope) else {
            return Ok(None);
        };
        // `Vector<Real>`: the scalar is the type's first argument.
        let Type::Path(p) = &declared else { return Ok(None) };
        let Some(syn::PathArguments::AngleBracketed(a)) = p.path.segments.last().map(|s| &s.arguments) else {
            return Ok(None);
        };
        let Some(syn::GenericArgument::Type(scalar)) = a.args.first() else {
            return Ok(None);
        };
        let Some(scalar) = primitive_alias(&owner, scalar) else {
            return Ok(None);
        };
        let found: Vec<FunctionRef<'_>> = self
            .layouts
            .index
            .methods_named(&scalar_method, self.layouts.module)
            .filter(|f| f.self_type == Some(scalar.as_str()) && f.sig.receiver().is_some())
            .collect();
        let [element] = found.as_slice() else {
            return self.fail(
                m,
                format!(
                    "`{scalar}::{scalar_method}` of each component of `{}` is not found",
                    self.text(&m.receiver)
                ),
            );
        };
        let area = self.area(element.module, "method").unwrap_or(Area::Early);
        let name = self.function_item(m, element, area)?;
        Ok(Some(format!("kl::zip_apply({receiver}, {rhs}, {name})")))
    }

    /// `node.momentum`: the declared type of the field, with the scope of its struct's module.
    fn declared_field_type(
        &self,
        f: &syn::ExprField,
        scope: &Scope,
    ) -> Option<(kernel_lint_analyzer::model::layout::Scope<'_>, Type)> {
        let base = self.value_type_of(&f.base, scope)?;
        let path: syn::Path = syn::Ident::new(&base, proc_macro2::Span::call_site()).into();
        let (owner, fields) = self
            .layouts
            .struct_fields(&path)
            .or_else(|| self.struct_fields_elsewhere(&base))?;
        let syn::Member::Named(member) = &f.member else {
            return None;
        };
        let (_, ty) = fields.into_iter().find(|(name, _)| member == name)?;
        Some((owner, ty))
    }
}

fn strip(mut e: &Expr) -> &Expr {
    while let Expr::Paren(p) = e {
        e = &p.expr;
    }
    e
}

/// `method` of a body `self.zip_apply(&rhs, |a, b| a.method(b))`, where `rhs` is the method's
/// only argument.
fn zipped_method(function: &FunctionRef<'_>) -> Option<String> {
    let params: Vec<&syn::FnArg> = function.sig.inputs.iter().collect();
    let [syn::FnArg::Receiver(_), syn::FnArg::Typed(rhs)] = params.as_slice() else {
        return None;
    };
    let Pat::Ident(rhs) = &*rhs.pat else { return None };
    let [Stmt::Expr(body, _)] = function.block.stmts.as_slice() else {
        return None;
    };
    let Expr::MethodCall(zip) = body else { return None };
    if zip.method != "zip_apply" || !matches!(&*zip.receiver, Expr::Path(p) if p.path.is_ident("self")) {
        return None;
    }
    let [Expr::Reference(other), Expr::Closure(c)] = zip.args.iter().collect::<Vec<_>>().as_slice() else {
        return None;
    };
    if !matches!(&*other.expr, Expr::Path(p) if p.path.is_ident(&rhs.ident)) {
        return None;
    }
    let [Pat::Ident(a), Pat::Ident(b)] = c.inputs.iter().collect::<Vec<_>>().as_slice() else {
        return None;
    };
    let Expr::MethodCall(call) = strip(&c.body) else {
        return None;
    };
    let [Expr::Path(arg)] = call.args.iter().collect::<Vec<_>>().as_slice() else {
        return None;
    };
    let on_a = matches!(&*call.receiver, Expr::Path(p) if p.path.is_ident(&a.ident));
    (on_a && arg.path.is_ident(&b.ident)).then(|| call.method.to_string())
}

/// nalgebra's `zip_apply`: `f(&mut a[i], b[i])` for every element in storage order, `b` a copy
/// as the Rust argument is.
#[macro_export]
#[doc(hidden)]
macro_rules! component_methods_prelude {
    () => {
        r#"namespace kl {
template <typename M, typename F> __device__ inline void zip_apply(M& a, M b, F f) {
  for (int i = 0; i < (int)(sizeof(M) / sizeof(a[0])); ++i) f(a[i], b[i]);
}
}
"#
    };
}
