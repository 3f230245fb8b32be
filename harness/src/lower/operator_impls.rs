//! Operators the kernel's file implements for its own types (`impl Add for Complex32`): each
//! becomes a C++ operator overload that calls the lowered trait method, so `z * z + c` keeps
//! Rust's meaning for those types and stays the built-in operator for numbers.

use super::items::Area;
use super::{Context, Lowered, Scope};
use quote::ToTokens;
use std::cell::Cell;
use syn::{FnArg, ImplItem, Item, Type};

thread_local! {
    /// Set while an operator's method is lowered: its own operators of numbers, and any use
    /// of the operator being defined, which C++ finds through the prototype.
    static DEFINING: Cell<bool> = const { Cell::new(false) };
}

/// The C++ operator of an operator trait.
fn symbol(op: &str) -> Option<&'static str> {
    Some(match op {
        "Add" => "+",
        "Sub" => "-",
        "Mul" => "*",
        "Div" => "/",
        "Rem" => "%",
        "BitAnd" => "&",
        "BitOr" => "|",
        "BitXor" => "^",
        "Shl" => "<<",
        "Shr" => ">>",
        _ => return None,
    })
}

/// The `impl Op for Type` items of a file, with inline modules.
fn impls_of<'a>(items: &'a [Item], op: &str, out: &mut Vec<&'a syn::ItemImpl>) {
    for item in items {
        match item {
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    impls_of(inner, op, out);
                }
            }
            Item::Impl(i)
                if i.trait_
                    .as_ref()
                    .and_then(|(_, p, _)| p.segments.last())
                    .is_some_and(|s| s.ident == op) =>
            {
                out.push(i);
            }
            _ => {}
        }
    }
}

impl Context<'_> {
    /// Defines a C++ operator for every `impl Op for Type` of the kernel's file; false when
    /// one is not of the form C++ overloads here (a reference or generic type, another
    /// right-hand type, a compound assignment).
    pub(super) fn operator_overloads(&self, b: &syn::ExprBinary, op: &str) -> Lowered<bool> {
        let compound = b.op.to_token_stream().to_string().ends_with('=');
        let (Some(sym), false) = (symbol(op), compound) else {
            return Ok(false);
        };
        if DEFINING.with(Cell::get) {
            return Ok(true);
        }
        let Some(syntax) = self.workspace.syntax[self.home] else {
            return Ok(false);
        };
        let mut impls = Vec::new();
        impls_of(&syntax.items, op, &mut impls);
        if impls.is_empty() {
            return Ok(false);
        }
        for imp in impls {
            // `impl Op for &T` takes two references (`rhs: Self`): an operand that is a value
            // makes it another type's operator; `&a + &b` is `reference_operator`'s.
            if matches!(&*imp.self_ty, Type::Reference(_))
                && rhs_is_self(imp)
                && (value_operand(&b.left) || value_operand(&b.right))
            {
                continue;
            }
            let Type::Path(ty) = &*imp.self_ty else {
                return Ok(false);
            };
            let Some(ty) = ty.path.get_ident().map(|i| i.to_string()) else {
                return Ok(false);
            };
            let same_rhs = imp
                .trait_
                .as_ref()
                .and_then(|(_, p, _)| p.segments.last())
                .is_some_and(|s| s.arguments.is_none());
            let methods: Vec<&syn::ImplItemFn> = imp
                .items
                .iter()
                .filter_map(|i| match i {
                    ImplItem::Fn(f) => Some(f),
                    _ => None,
                })
                .collect();
            let [method] = methods.as_slice() else { return Ok(false) };
            // `type Output = Self`: the overload returns the type it is defined for.
            let output_is_self = imp.items.iter().any(|i| {
                matches!(i, ImplItem::Type(t) if t.ident == "Output"
                    && matches!(&t.ty, Type::Path(p) if p.path.is_ident(&ty) || p.path.is_ident("Self")))
            });
            if !output_is_self {
                return Ok(false);
            }
            let by_value = matches!(method.sig.inputs.first(), Some(FnArg::Receiver(r)) if r.reference.is_none());
            if !imp.generics.params.is_empty() || !same_rhs || !by_value || method.sig.inputs.len() != 2 {
                return Ok(false);
            }
            let module = self.layouts.module.clone();
            let area = self.area(&module, "method").unwrap_or(Area::Early);
            let key = ("operator", module, format!("{ty}::operator{sym}"));
            let call: syn::ExprMethodCall = syn::parse_str(&format!("lhs.{}(rhs)", method.sig.ident))
                .map_err(|e| (self.span(b), format!("operator call: {e}")))?;
            let overload = self.require(b, key, area, |_| {
                DEFINING.with(|d| d.set(true));
                let body = self.item_method(&call, "lhs", &["rhs".to_string()], &mut Scope::default());
                DEFINING.with(|d| d.set(false));
                let body = body?;
                let signature = format!("__device__ inline {ty} operator{sym}({ty} lhs, {ty} rhs)");
                Ok((format!("{signature};\n"), format!("{signature} {{ return {body}; }}\n")))
            });
            if overload.is_err() {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// An operand that is a value, never a reference: a field or element read, a literal, an
/// arithmetic result.
fn value_operand(e: &syn::Expr) -> bool {
    use syn::Expr;
    match e {
        Expr::Paren(p) => value_operand(&p.expr),
        Expr::Field(_) | Expr::Index(_) | Expr::Lit(_) | Expr::Binary(_) | Expr::Cast(_) => true,
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) || value_operand(&u.expr),
        _ => false,
    }
}

/// `impl Op for &T` of the kernel's file with `type Output = T`: `T` and the one method.
fn reference_impl<'a>(items: &'a [Item], op: &str) -> Option<(String, &'a syn::ItemImpl, &'a syn::ImplItemFn)> {
    let mut impls = Vec::new();
    impls_of(items, op, &mut impls);
    impls.into_iter().find_map(|imp| {
        let Type::Reference(r) = &*imp.self_ty else { return None };
        let Type::Path(p) = &*r.elem else { return None };
        let ty = p.path.get_ident()?.to_string();
        let mut methods = imp.items.iter().filter_map(|i| match i {
            ImplItem::Fn(f) => Some(f),
            _ => None,
        });
        let method = methods.next()?;
        Some((ty, imp, method)).filter(|_| methods.next().is_none() && r.mutability.is_none())
    })
}

impl Context<'_> {
    /// Whether `&a op &b` has both operands borrowed, the shape of an `impl Op for &T`.
    pub(super) fn borrowed_operands(&self, b: &syn::ExprBinary) -> bool {
        let borrowed = |e: &syn::Expr| matches!(e, syn::Expr::Reference(r) if r.mutability.is_none());
        let has_impl =
            |op| self.workspace.syntax[self.home].is_some_and(|syntax| reference_impl(&syntax.items, op).is_some());
        self.oxide.enabled
            && borrowed(&b.left)
            && borrowed(&b.right)
            && super::oxide::operator_of(&b.op).is_some_and(has_impl)
    }

    /// `&a * &b` with `impl Mul for &Foo`: a direct call of the lowered method, which takes
    /// its receiver by C++ reference and its right operand by pointer, as Rust borrows them;
    /// C++ overloads no operator of two pointers.
    pub(super) fn reference_operator(&self, b: &syn::ExprBinary, scope: &mut Scope) -> Lowered<String> {
        let op = super::oxide::operator_of(&b.op);
        let compound = b.op.to_token_stream().to_string().ends_with('=');
        let found = match (op, self.workspace.syntax[self.home], compound) {
            (Some(op), Some(syntax), false) => reference_impl(&syntax.items, op).map(|f| (op, f)),
            _ => None,
        };
        let Some((op, (ty, imp, method))) = found else {
            return self.fail(b, "operator of two borrowed operands: no `impl Op for &T` in this file");
        };
        let output_is_ty = imp.items.iter().any(|i| {
            matches!(i, ImplItem::Type(t) if t.ident == "Output" && matches!(&t.ty, Type::Path(p) if p.path.is_ident(&ty)))
        });
        let by_value = matches!(method.sig.inputs.first(), Some(FnArg::Receiver(r)) if r.reference.is_none());
        let rhs_is_self = imp
            .trait_
            .as_ref()
            .and_then(|(_, p, _)| p.segments.last())
            .is_some_and(|s| s.arguments.is_none());
        // In the body `Self` is `&T`: the method is lowered only where it does not name it.
        let names_self = method.block.to_token_stream().to_string().contains("Self");
        let rhs_pattern = match method.sig.inputs.iter().nth(1) {
            Some(FnArg::Typed(t)) => Some(t.pat.to_token_stream().to_string()),
            _ => None,
        };
        let (true, true, true, false, Some(rhs), 2) = (
            output_is_ty,
            by_value,
            rhs_is_self,
            names_self,
            rhs_pattern,
            method.sig.inputs.len(),
        ) else {
            return self.fail(
                b,
                format!("`impl {op} for &{ty}` whose method is not `fn(self, rhs: Self) -> {ty}` without `Self` in its body"),
            );
        };
        let block = &method.block;
        let item: syn::ItemFn = syn::parse_str(&format!(
            "fn {}(&self, {rhs}: &{ty}) -> {ty} {}",
            method.sig.ident,
            block.to_token_stream()
        ))
        .map_err(|e| (self.span(b), format!("operator method: {e}")))?;
        let module = self.layouts.module.clone();
        let area = self.area(&module, "method").unwrap_or(Area::Early);
        let key = ("method", module, format!("{ty}::ref_{}", method.sig.ident));
        let name = self.require(b, key, area, |name| {
            let mut item = item.clone();
            item.sig.ident = syn::Ident::new(name, item.sig.ident.span());
            DEFINING.with(|d| d.set(true));
            let lowered = self.lower_function(&item, Some(&ty));
            DEFINING.with(|d| d.set(false));
            let (prototype, code) = lowered?;
            Ok((format!("{prototype};\n"), code))
        })?;
        let (syn::Expr::Reference(left), syn::Expr::Reference(right)) = (&*b.left, &*b.right) else {
            return self.fail(b, "operator of two borrowed operands");
        };
        let receiver = self.expr(&left.expr, scope)?;
        let operand = self.expr(&right.expr, scope)?;
        Ok(format!("{name}({receiver}, &{operand})"))
    }
}

/// Whether an operator impl takes its own type on the right (`impl Mul for &T`, `Mul<Self>`,
/// `Mul<&T>`), rather than another (`impl Mul<f32> for &T`).
fn rhs_is_self(imp: &syn::ItemImpl) -> bool {
    let Some((_, path, _)) = &imp.trait_ else { return false };
    match path.segments.last().map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(args)) => args.args.iter().all(|a| match a {
            syn::GenericArgument::Type(t) => {
                matches!(t, Type::Path(p) if p.path.is_ident("Self"))
                    || t.to_token_stream().to_string() == imp.self_ty.to_token_stream().to_string()
            }
            _ => true,
        }),
        _ => true,
    }
}
