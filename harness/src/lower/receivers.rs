//! The Rust type of a local binding where the source states it (a declared type, a struct
//! built by name, a typed parameter), so that a method defined for several types is called on
//! the receiver's own.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::model::items::{FunctionRef, Target};
use kernel_lint_analyzer::model::layout;
use syn::{Expr, Type};

impl Context<'_> {
    /// Records the type of the C binding `name` from its declared type or its value.
    pub(super) fn note_type(&self, name: &str, ty: Option<&Type>, init: Option<&Expr>, scope: &mut Scope) {
        if matches!(ty, Some(Type::Ptr(_))) {
            scope.raw_pointers.insert(name.to_string());
        }
        let named = ty
            .and_then(type_name)
            .or_else(|| init.and_then(|e| self.value_type(e, scope)));
        if let Some(named) = named {
            scope.types.insert(name.to_string(), named);
        }
    }

    /// Whether an expression names a binding declared as a raw pointer.
    pub(super) fn names_raw_pointer(e: &Expr, scope: &Scope) -> bool {
        matches!(e, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.raw_pointers.contains(&scope.lookup(&i.to_string()))))
    }

    /// A receiver borrowed in place, `&mut *count` or `&pair`: the place and its lowering,
    /// which a method's C++ reference parameter binds to.
    pub(super) fn borrowed_receiver<'e>(
        &self,
        receiver: &'e Expr,
        scope: &mut Scope,
    ) -> Lowered<Option<(&'e Expr, String)>> {
        let mut e = receiver;
        while let Expr::Paren(p) = e {
            e = &p.expr;
        }
        let Expr::Reference(r) = e else { return Ok(None) };
        let mut place = &*r.expr;
        while let Expr::Paren(p) = place {
            place = &p.expr;
        }
        Ok(Some((place, self.expr(place, scope)?)))
    }

    /// Whether `e` is the `self` of a method taking it by reference (a C++ reference, bound
    /// with the receiver's type).
    pub(super) fn is_receiver_reference(e: &Expr, scope: &Scope) -> bool {
        let Expr::Path(p) = e else { return false };
        if !p.path.is_ident("self") {
            return false;
        }
        let c_name = scope.lookup("self");
        scope.types.contains_key(&c_name)
            && !scope.references.contains(&c_name)
            && !scope.raw_pointers.contains(&c_name)
    }

    /// The type a value is known to have, where the source states it.
    pub(super) fn value_type_of(&self, e: &Expr, scope: &Scope) -> Option<String> {
        self.value_type(e, scope)
    }

    /// The type a value is built as: `Pair(x)`, `Pair { .. }`, `Pair::new(..)`, `&pair`.
    fn value_type(&self, e: &Expr, scope: &Scope) -> Option<String> {
        if let Some(wrapped) = self.wrapped_value_type(e, scope) {
            return Some(wrapped);
        }
        match e {
            Expr::Paren(p) => self.value_type(&p.expr, scope),
            Expr::Reference(r) => self.value_type(&r.expr, scope),
            // `*counter` of a `*mut u32`: the pointee, as `type_name` reads pointers.
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.value_type(&u.expr, scope),
            Expr::Struct(s) => s.path.segments.last().map(|s| s.ident.to_string()),
            Expr::Path(p) => {
                let name = p.path.get_ident()?.to_string();
                scope.types.get(&scope.lookup(&name)).cloned()
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else { return None };
                if self.layouts.struct_fields(&p.path).is_some() {
                    return p.path.segments.last().map(|s| s.ident.to_string());
                }
                // `Type::new(..)`: a constructor of the type named before it.
                let segments: Vec<_> = p.path.segments.iter().collect();
                let [.., ty, f] = segments.as_slice() else { return None };
                if ty.ident == "CuSimd" && f.ident == "new" {
                    return Some("CuSimd".to_string());
                }
                let ty_path: syn::Path = ty.ident.clone().into();
                (f.ident == "new" && self.layouts.struct_fields(&ty_path).is_some()).then(|| ty.ident.to_string())
            }
            Expr::Field(f) => self.field_type(f, scope),
            // `r.xy_to_xyz()`: the return type of the method of the receiver's type.
            Expr::MethodCall(m) if self.pointee_or_payload(m, scope).is_some() => self.pointee_or_payload(m, scope),
            Expr::MethodCall(m) => {
                let Some(receiver) = self.value_type(&m.receiver, scope) else {
                    return super::printf::scalar_type(e);
                };
                let method = m.method.to_string();
                let found: Vec<String> = self
                    .layouts
                    .index
                    .methods_named(&method, self.layouts.module)
                    .filter(|f| f.self_type == Some(receiver.as_str()))
                    .filter_map(|f| match &f.sig.output {
                        syn::ReturnType::Type(_, ty) => match type_name(ty)? {
                            n if n == "Self" => Some(receiver.clone()),
                            n => Some(n),
                        },
                        syn::ReturnType::Default => None,
                    })
                    .collect();
                match found.as_slice() {
                    [one] => Some(one.clone()),
                    _ => super::printf::scalar_type(e),
                }
            }
            other => super::printf::scalar_type(other),
        }
    }

    /// `grid.table`: the declared type of the field, of the struct the base is.
    fn field_type(&self, f: &syn::ExprField, scope: &Scope) -> Option<String> {
        let base = self.value_type(&f.base, scope)?;
        let path: syn::Path = syn::Ident::new(&base, proc_macro2::Span::call_site()).into();
        let (owner, fields) = self
            .layouts
            .struct_fields(&path)
            .or_else(|| self.struct_fields_elsewhere(&base))?;
        let member = match &f.member {
            syn::Member::Named(name) => name.to_string(),
            syn::Member::Unnamed(index) => index.index.to_string(),
        };
        let (_, ty) = fields.iter().find(|(name, _)| *name == member)?;
        // `mass: Real`: the primitive a scalar alias stands for, which methods are defined on.
        primitive_alias(&owner, ty).or_else(|| type_name(ty))
    }

    /// The fields of a struct the current module does not import by name (`grid.get_node_mut(id)`
    /// returns a `GpuGridNode` of another module): the one struct of that name in the crates
    /// it sees.
    pub(super) fn struct_fields_elsewhere(&self, name: &str) -> Option<(layout::Scope<'_>, Vec<(String, Type)>)> {
        let index = self.layouts.index;
        let target = index.struct_named(name, self.layouts.module)?;
        let (module, _) = index.struct_def(&target)?;
        let path: syn::Path = syn::Ident::new(name, proc_macro2::Span::call_site()).into();
        self.layouts.at(module).struct_fields(&path)
    }

    /// Of several methods of one name, those of the receiver's type where it is known.
    pub(super) fn methods_of_receiver<'f>(
        &self,
        receiver: &Expr,
        candidates: Vec<FunctionRef<'f>>,
        scope: &Scope,
    ) -> Vec<FunctionRef<'f>> {
        if candidates.len() < 2 {
            return candidates;
        }
        // A slice's methods are the language's: no type of the workspace is a slice.
        let slice = matches!(receiver, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.slices.contains(&scope.lookup(&i.to_string()))));
        if slice {
            return Vec::new();
        }
        let Some(ty) = self.value_type(receiver, scope) else {
            return candidates;
        };
        let own: Vec<FunctionRef<'f>> = candidates
            .iter()
            .filter(|f| f.self_type == Some(ty.as_str()))
            .cloned()
            .collect();
        if own.is_empty() {
            candidates
        } else {
            own
        }
    }
}

/// `Pair`, `&Pair`, `&mut Pair`, `*const Pair`: the last segment of the type's path.
pub(super) fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Reference(r) => type_name(&r.elem),
        Type::Ptr(p) => type_name(&p.elem),
        Type::Paren(p) => type_name(&p.elem),
        Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "bool",
];

/// The primitive a type names through aliases (`type Real = f32;`), read in `owner`.
pub(super) fn primitive_alias(owner: &layout::Scope<'_>, ty: &Type) -> Option<String> {
    let mut ty = ty.clone();
    let mut module = owner.module.clone();
    for _ in 0..8 {
        let Type::Path(p) = &ty else { return None };
        let segments: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let [one] = segments.as_slice() {
            if PRIMITIVES.contains(&one.as_str()) {
                return Some(one.clone());
            }
        }
        let target = owner.index.resolve(&module, &segments)?;
        let (at, alias) = owner.index.alias(&target)?;
        if !matches!(target, Target::Item(..)) {
            return None;
        }
        module = at.clone();
        ty = (*alias.ty).clone();
    }
    None
}
