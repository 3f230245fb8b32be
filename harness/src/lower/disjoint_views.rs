//! cuda-oxide `DisjointSlice`s that travel beyond a kernel's parameters: taken by a helper
//! (by value or by reference), rebound by `let`, or rebuilt from a raw pointer and a length.
//! Each stays a pointer and a length, so the helper's accesses keep their addresses.

use super::{Context, Lowered, Param, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::{Expr, Type};

/// `x`, `&x` or `&mut x` where `x` names a slice of the scope: the slice's name.
pub(super) fn slice_argument(arg: &Expr, scope: &Scope) -> Option<String> {
    match arg {
        Expr::Path(p) => {
            let name = p.path.get_ident().map(|i| scope.lookup(&i.to_string()))?;
            scope.slices.contains(&name).then_some(name)
        }
        Expr::Reference(r) => match &*r.expr {
            Expr::Path(p) => {
                let name = p.path.get_ident().map(|i| scope.lookup(&i.to_string()))?;
                (scope.slices.contains(&name) && scope.oxide.minted.contains_key(&name)).then_some(name)
            }
            _ => None,
        },
        _ => None,
    }
}

/// The C arguments a slice named `slice` passes to a helper: its pointer, its length and,
/// over `Runtime2DIndex`, its row width.
pub(super) fn slice_call_arguments(slice: &str, scope: &Scope) -> String {
    if scope.oxide.row_widths.contains(slice) {
        format!("{slice}, {slice}_len, {}", super::oxide::row_width_name(slice))
    } else {
        format!("{slice}, {slice}_len")
    }
}

/// `unsafe { e }` as `e`.
fn without_unsafe(e: &Expr) -> &Expr {
    match e {
        Expr::Unsafe(u) => match u.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => without_unsafe(inner),
            _ => e,
        },
        Expr::Paren(p) => without_unsafe(&p.expr),
        _ => e,
    }
}

impl Context<'_> {
    /// A helper's `DisjointSlice<T>` parameter, by value or by reference: a pointer and a
    /// length, as a kernel's. Spaces whose witnesses need launch data (a runtime row width,
    /// tile geometry) are left to the caller's refusal.
    pub(super) fn disjoint_helper_param(&self, name: &str, ty: &Type, scope: &mut Scope) -> Lowered<Option<String>> {
        if !self.oxide.enabled {
            return Ok(None);
        }
        let inner = match ty {
            Type::Reference(r) => &*r.elem,
            other => other,
        };
        // `&DeviceAtomicU64`: a cell the helper's atomics act on, at its value type and scope.
        if let Some(atomic) = super::oxide::atomic_of(inner) {
            scope.oxide.atomics.insert(name.to_string(), atomic);
            return Ok(None);
        }
        // A `ThreadIndex` witness is its 64-bit index, as the caller holds it.
        if matches!(inner, Type::Path(p) if last_segment(&p.path) == "ThreadIndex") {
            scope.oxide.indices.insert(name.to_string());
            return Ok(Some(format!("unsigned long long {name}")));
        }
        if let Type::Slice(_) = inner {
            // A slice of atomic cells: its cells' value type and scope, as for a kernel's.
            self.oxide_param(name, ty, scope)?;
            return Ok(None);
        }
        if !super::oxide::is_disjoint_slice(inner) {
            return Ok(None);
        }
        let Type::Path(p) = inner else { return Ok(None) };
        let space = super::oxide::generic_args(&p.path)
            .into_iter()
            .filter(|a| !matches!(a, syn::GenericArgument::Lifetime(_)))
            .nth(1)
            .and_then(|a| match a {
                syn::GenericArgument::Type(Type::Path(s)) => Some(last_segment(&s.path)),
                _ => None,
            });
        if space.as_deref() == Some("Runtime2DIndex") {
            // The host-bound row width travels with the slice, as it does into a kernel.
            let Some(Param::Slice { elem, .. }) = self.oxide_param(name, inner, scope)? else {
                return Ok(None);
            };
            let width = self.space_data_param(name, inner, scope).map(|w| w.name().to_string());
            return Ok(width.map(|w| format!("{elem}* {name}, unsigned long long {name}_len, unsigned int {w}")));
        }
        if space.is_some_and(|s| super::oxide::minted_by(&s, name).is_some()) {
            return Ok(None);
        }
        match self.oxide_param(name, inner, scope)? {
            Some(Param::Slice { elem, .. }) => Ok(Some(format!("{elem}* {name}, unsigned long long {name}_len"))),
            _ => Ok(None),
        }
    }

    /// `let mut out = out;` of a `DisjointSlice`, or `DisjointSlice::from_raw_parts(ptr, len)`:
    /// a pointer and its length under the new name, minting indices as the source did.
    pub(super) fn disjoint_local(&self, rust_name: &str, init: &Expr, scope: &mut Scope) -> Lowered<Option<String>> {
        if !self.oxide.enabled {
            return Ok(None);
        }
        let init = without_unsafe(init);
        let mut row_width = None;
        let (pointer, length, minted) = match init {
            Expr::Path(p) => {
                let Some(source) = p.path.get_ident().map(|i| scope.lookup(&i.to_string())) else {
                    return Ok(None);
                };
                let Some(minted) = scope.oxide.minted.get(&source).cloned() else {
                    return Ok(None);
                };
                if !scope.slices.contains(&source) {
                    return Ok(None);
                }
                (source.clone(), format!("{source}_len"), minted)
            }
            Expr::Call(c) => {
                let Expr::Path(f) = &*c.func else { return Ok(None) };
                let owner = f.path.segments.iter().rev().nth(1).map(|s| s.ident.to_string());
                let with_space = match (owner.as_deref(), last_segment(&f.path).as_str()) {
                    (Some("DisjointSlice"), "from_raw_parts") => false,
                    (Some("DisjointSlice"), "from_raw_parts_with_space") => true,
                    _ => return Ok(None),
                };
                let (Some(pointer), Some(length)) = (c.args.first(), c.args.get(1)) else {
                    return Ok(None);
                };
                if c.args.len() != 2 + usize::from(with_space) {
                    return Ok(None);
                }
                let pointer = self.expr(pointer, scope)?;
                let length = format!("(unsigned long long)({})", self.expr(length, scope)?);
                if with_space {
                    // The only `u32` space data the twin knows is a `Runtime2DIndex` row width;
                    // `RuntimeRowMajorTiles` views of such a slice are refused where used.
                    row_width = Some(self.expr(&c.args[2], scope)?);
                }
                (pointer, length, "kl::oxide_index_1d()".to_string())
            }
            _ => return Ok(None),
        };
        let name = scope.bind(rust_name);
        scope.slices.insert(name.clone());
        scope.reserve_length(&name);
        let mut out = format!("auto {name} = {pointer};\nauto {name}_len = {length};\n");
        match row_width {
            Some(width) => {
                let width_name = super::oxide::row_width_name(&name);
                scope.declared.entry(width_name.clone()).or_insert(1);
                scope.oxide.row_widths.insert(name.clone());
                scope
                    .oxide
                    .minted
                    .insert(name.clone(), format!("kl::oxide_index_2d({width_name})"));
                out.push_str(&format!("unsigned int {width_name} = (unsigned int)({width});\n"));
            }
            None => {
                scope.oxide.minted.insert(name.clone(), minted);
            }
        }
        Ok(Some(out))
    }
}
