//! cuda-oxide (`cuda_device`) kernels: `DisjointSlice` parameters as a pointer and a length,
//! `ThreadIndex` values as a 64-bit index (all ones when the witness is invalid), shared
//! arrays with their alignment, warp intrinsics as the CUDA builtins.

use super::{Context, Lowered, Param, Scope};
use kernel_lint_analyzer::parse::last_segment;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use syn::{Expr, Type};

/// Per-function state of cuda-oxide lowering.
#[derive(Default)]
pub(super) struct OxideScope {
    /// C names holding a `ThreadIndex`.
    pub(super) indices: HashSet<String>,
    /// The index a `DisjointSlice` parameter's `get_mut_indexed()` mints, by C name.
    pub(super) minted: HashMap<String, String>,
    /// Names bound to `p.add(i)` and the like: pointers, written through with `write`.
    pointers: HashSet<String>,
    /// `DisjointSlice`s over `Runtime2DIndex`, by C name: each carries `{name}_row_width`.
    pub(super) row_widths: HashSet<String>,
    /// `DisjointSlice`s over `LinearTiles` or `RowMajorTiles`, by C name, with the space.
    pub(super) tiles: HashMap<String, String>,
    /// Names of atomic cells and slices of them: the value type (Rust) and the scope.
    pub(super) atomics: HashMap<String, (&'static str, u8)>,
    /// Names holding a cooperative group handle.
    pub(super) groups: HashSet<String>,
    /// `DisjointSlice`s whose elements are arrays, by C name: the arrays' length.
    pub(super) array_elements: HashMap<String, String>,
    /// References to one such array element (`Some(a) => a` of `get_mut`): its length.
    pub(super) arrays: HashMap<String, String>,
    /// Run views of `LinearTiles` slices.
    pub(super) runs: super::run_views::RunViews,
}

/// What cuda-oxide lowering knows of a file.
#[derive(Debug, Clone, Default)]
pub(super) struct OxideFile {
    /// Whether the file is written against `cuda_device`.
    pub(super) enabled: bool,
    /// `ConstantMemory` statics, by name: whether each holds an array.
    constants: HashMap<String, bool>,
    /// Operator traits the file implements (`Mul`, `AddAssign`): C++ has no such operators
    /// for the lowered structs.
    operators: HashSet<String>,
}

impl OxideFile {
    pub(super) fn new(syntax: &syn::File) -> OxideFile {
        fn collect(items: &[syn::Item], out: &mut HashMap<String, bool>, operators: &mut HashSet<String>) {
            for item in items {
                match item {
                    syn::Item::Impl(i) => {
                        if let Some((_, path, _)) = &i.trait_ {
                            let name = last_segment(path);
                            if operator_trait(&name) {
                                operators.insert(name.trim_end_matches("Assign").to_string());
                            }
                        }
                    }
                    syn::Item::Static(s) => {
                        if let Some(value) = constant_memory(&s.ty) {
                            out.insert(s.ident.to_string(), matches!(value, Type::Array(_)));
                        }
                    }
                    syn::Item::Mod(m) => {
                        if let Some((_, inner)) = &m.content {
                            collect(inner, out, operators);
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut constants = HashMap::new();
        let mut operators = HashSet::new();
        collect(&syntax.items, &mut constants, &mut operators);
        OxideFile {
            enabled: uses_oxide(syntax),
            constants,
            operators,
        }
    }
}

/// `Add`, `MulAssign` and the other overloadable binary operators.
fn operator_trait(name: &str) -> bool {
    matches!(
        name.trim_end_matches("Assign"),
        "Add" | "Sub" | "Mul" | "Div" | "Rem" | "BitAnd" | "BitOr" | "BitXor" | "Shl" | "Shr"
    )
}

/// The operator trait of a binary operator, without `Assign`.
pub(super) fn operator_of(op: &syn::BinOp) -> Option<&'static str> {
    use syn::BinOp::*;
    Some(match op {
        Add(_) | AddAssign(_) => "Add",
        Sub(_) | SubAssign(_) => "Sub",
        Mul(_) | MulAssign(_) => "Mul",
        Div(_) | DivAssign(_) => "Div",
        Rem(_) | RemAssign(_) => "Rem",
        BitAnd(_) | BitAndAssign(_) => "BitAnd",
        BitOr(_) | BitOrAssign(_) => "BitOr",
        BitXor(_) | BitXorAssign(_) => "BitXor",
        Shl(_) | ShlAssign(_) => "Shl",
        Shr(_) | ShrAssign(_) => "Shr",
        _ => return None,
    })
}

/// The value type of `ConstantMemory<T>`.
fn constant_memory(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    if last_segment(&p.path) != "ConstantMemory" {
        return None;
    }
    match generic_args(&p.path).first() {
        Some(syn::GenericArgument::Type(t)) => Some(t),
        _ => None,
    }
}

/// The qualifier of a static of cuda-oxide's memory types.
pub(super) fn static_qualifier(ty: &Type) -> Option<&'static str> {
    if is_shared_array(ty) || super::async_copy::is_barrier_static(ty) {
        Some("__shared__")
    } else {
        constant_memory(ty).map(|_| "__constant__")
    }
}

/// Whether a file is written against `cuda_device`, whose `thread::index_1d()` yields a
/// `ThreadIndex` (cuda_std's yields a `u32`).
pub(super) fn uses_oxide(syntax: &syn::File) -> bool {
    fn in_tree(tree: &syn::UseTree) -> bool {
        match tree {
            syn::UseTree::Path(p) => p.ident == "cuda_device" || in_tree(&p.tree),
            syn::UseTree::Name(n) => n.ident == "cuda_device",
            syn::UseTree::Rename(r) => r.ident == "cuda_device",
            syn::UseTree::Group(g) => g.items.iter().any(in_tree),
            syn::UseTree::Glob(_) => false,
        }
    }
    fn in_items(items: &[syn::Item]) -> bool {
        items.iter().any(|item| match item {
            syn::Item::Use(u) => in_tree(&u.tree),
            // A file `include!`d by the crate root whose imports it shares (`use super::*`):
            // the module attribute of cuda-oxide's host macro names the dialect on its own.
            syn::Item::Mod(m) => {
                m.attrs.iter().any(|a| a.path().is_ident("cuda_module"))
                    || m.content.as_ref().is_some_and(|(_, inner)| in_items(inner))
            }
            _ => false,
        })
    }
    in_items(&syntax.items)
}

/// The generic arguments of a path's last segment.
pub(super) fn generic_args(path: &syn::Path) -> Vec<&syn::GenericArgument> {
    match path.segments.last().map(|s| &s.arguments) {
        Some(syn::PathArguments::AngleBracketed(a)) => a.args.iter().collect(),
        _ => Vec::new(),
    }
}

/// `DisjointSlice<T>` or `DisjointSlice<T, Space>`: the element type and the index space.
fn disjoint_slice(ty: &Type) -> Option<(&Type, Option<&Type>)> {
    let Type::Path(p) = ty else { return None };
    if last_segment(&p.path) != "DisjointSlice" {
        return None;
    }
    let types: Vec<&Type> = generic_args(&p.path)
        .into_iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    Some((types.first()?, types.get(1).copied()))
}

/// Whether `ty` is a `DisjointSlice`: a mutable buffer.
pub(super) fn is_disjoint_slice(ty: &Type) -> bool {
    disjoint_slice(ty).is_some()
}

/// Whether `ty` is cuda-oxide's `SharedArray`, a static in shared memory.
pub(super) fn is_shared_array(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if last_segment(&p.path) == "SharedArray")
}

/// `__align__(16) float X[8]` as `("__align__(16) ", "float X[8]")`.
pub(super) fn split_alignment(decl: &str) -> (&str, &str) {
    match decl.strip_prefix("__align__(").and_then(|rest| rest.find(") ")) {
        Some(end) => decl.split_at("__align__(".len() + end + 2),
        None => ("", decl),
    }
}

/// The name a call's function path ends in, and the path.
fn callee(e: &Expr) -> Option<(String, &syn::Path)> {
    match e {
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => Some((last_segment(&p.path), &p.path)),
            _ => None,
        },
        Expr::Paren(p) => callee(&p.expr),
        _ => None,
    }
}

/// `DeviceAtomicU32`, `BlockAtomicF32`, `core::sync::atomic::AtomicU64`: the value type (Rust),
/// and the scope as `kl::oxide_atomic` numbers it (0 block, 1 device, 2 system).
fn atomic_type(name: &str) -> Option<(&'static str, u8)> {
    let (scope, value) = if let Some(v) = name.strip_prefix("DeviceAtomic") {
        (1, v)
    } else if let Some(v) = name.strip_prefix("BlockAtomic") {
        (0, v)
    } else if let Some(v) = name.strip_prefix("SystemAtomic") {
        (2, v)
    } else {
        (1, name.strip_prefix("Atomic")?)
    };
    let value = match value {
        "U32" => "u32",
        "I32" => "i32",
        "U64" => "u64",
        "I64" => "i64",
        "Usize" => "usize",
        "Isize" => "isize",
        "F16" => "f16",
        "F32" => "f32",
        "F64" => "f64",
        _ => return None,
    };
    Some((value, scope))
}

/// The atomic cell type `ty` names.
pub(super) fn atomic_of(ty: &Type) -> Option<(&'static str, u8)> {
    match ty {
        Type::Path(p) => atomic_type(&last_segment(&p.path)),
        _ => None,
    }
}

/// The atomic cell an expression makes: `&*(p as *const DeviceAtomicU32)` or
/// `DeviceAtomicU64::from_ptr(p)`.
fn atomic_cell(e: &Expr) -> Option<(&'static str, u8)> {
    match e {
        Expr::Cast(c) => match &*c.ty {
            Type::Ptr(p) => atomic_of(&p.elem),
            _ => None,
        },
        Expr::Reference(r) => atomic_cell(&r.expr),
        Expr::Unary(u) => atomic_cell(&u.expr),
        Expr::Paren(p) => atomic_cell(&p.expr),
        Expr::Unsafe(u) => match u.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => atomic_cell(inner),
            _ => None,
        },
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if last_segment(&p.path) == "from_ptr" => {
                atomic_type(&p.path.segments.iter().rev().nth(1)?.ident.to_string())
            }
            _ => None,
        },
        _ => None,
    }
}

/// The bytes of a cuda-oxide type the layouts do not know: an atomic is its value.
pub(super) fn size_of(ty: &Type) -> Option<u64> {
    let Type::Path(p) = ty else { return None };
    let (value, _) = atomic_type(&last_segment(&p.path))?;
    Some(match value {
        "f16" => 2,
        "u32" | "i32" | "f32" => 4,
        _ => 8,
    })
}

/// The CUDA C++ type of a `usize` index.
const INDEX: &str = "unsigned long long";

impl Context<'_> {
    /// A `DisjointSlice` parameter: the pointer and length the driver passes for a slice.
    pub(super) fn oxide_param(&self, name: &str, ty: &Type, scope: &mut Scope) -> Lowered<Option<Param>> {
        if let Type::Reference(r) = ty {
            if let Type::Slice(s) = &*r.elem {
                if let Some(atomic) = atomic_of(&s.elem) {
                    scope.oxide.atomics.insert(name.to_string(), atomic);
                }
            }
        }
        let Some((elem, space)) = disjoint_slice(ty) else {
            return Ok(None);
        };
        if let Type::Array(a) = elem {
            let length = self.expr(&a.len, scope)?;
            scope.oxide.array_elements.insert(name.to_string(), length);
        }
        let mut minted = "kl::oxide_index_1d()".to_string();
        if let Some(Type::Path(space)) = space {
            let space_name = last_segment(&space.path);
            // These spaces resolve an index against the slice alone; the others carry a row
            // width or tile geometry the twin does not model.
            let other = minted_by(&space_name, name);
            if let Some(minted) = &other {
                match minted {
                    Some(minted) => scope.oxide.minted.insert(name.to_string(), minted.clone()),
                    None => scope.oxide.tiles.insert(name.to_string(), space_name.clone()),
                };
                self.note_tile_width(name, space, scope)?;
                scope.slices.insert(name.to_string());
                scope.reserve_length(name);
                return Ok(Some(Param::Slice {
                    name: name.to_string(),
                    elem: self.c_type(elem)?,
                    elem_bytes: self.size_of(elem),
                }));
            }
            if !matches!(space_name.as_str(), "Index1D" | "Index2D" | "WarpIndex") {
                return self.fail(
                    ty,
                    format!("`DisjointSlice` over the index space `{space_name}` is not lowered"),
                );
            }
            minted = match space_name.as_str() {
                "Index2D" => match generic_args(&space.path).first() {
                    Some(width) => format!("kl::oxide_index_2d({})", self.generic_value(width)?),
                    None => return self.fail(ty, "`Index2D` without its row width"),
                },
                "WarpIndex" => "kl::oxide_warp_index()".to_string(),
                _ => minted,
            };
        }
        scope.oxide.minted.insert(name.to_string(), minted);
        scope.slices.insert(name.to_string());
        scope.reserve_length(name);
        Ok(Some(Param::Slice {
            name: name.to_string(),
            elem: self.c_type(elem)?,
            elem_bytes: self.size_of(elem),
        }))
    }

    /// `SharedArray<T, N[, ALIGN]>`: `T name[N]`, aligned when asked.
    pub(super) fn oxide_declarator(&self, ty: &Type, name: &str) -> Lowered<Option<String>> {
        let Type::Path(p) = ty else { return Ok(None) };
        let last = last_segment(&p.path);
        if last == "DynamicSharedArray" {
            return self.fail(
                ty,
                "`DynamicSharedArray` needs a dynamic shared memory size, which the launches do not pass",
            );
        }
        if let Some(value) = constant_memory(ty) {
            if matches!(value, Type::Array(a) if matches!(&*a.elem, Type::Array(_))) {
                return self.fail(ty, "`ConstantMemory` of a nested array is not lowered");
            }
            return self.declarator(value, name).map(Some);
        }
        if last != "SharedArray" || !self.oxide.enabled {
            return Ok(None);
        }
        let args = generic_args(&p.path);
        let (Some(syn::GenericArgument::Type(elem)), Some(len)) = (args.first(), args.get(1)) else {
            return self.fail(ty, "`SharedArray` without an element type and a length");
        };
        let len = self.generic_value(len)?;
        let align = match args.get(2) {
            Some(a) => match self.generic_value(a)?.as_str() {
                "0" => String::new(),
                align => format!("__align__({align}) "),
            },
            None => String::new(),
        };
        Ok(Some(format!(
            "{align}{}",
            self.declarator(elem, &format!("{name}[{len}]"))?
        )))
    }

    /// An atomic cell type as `kl::oxide_atomic<T, scope>`, a wrapper of its value.
    pub(super) fn oxide_type(&self, name: &str) -> Option<String> {
        let (value, scope) = atomic_type(name)?;
        Some(format!("kl::oxide_atomic<{}, {scope}>", Self::primitive(value)?))
    }

    /// `cell.fetch_add(v, AtomicOrdering::AcqRel)` and the other read-modify-writes, loads,
    /// stores and compare-exchanges of an atomic cell, at its ordering (see `atomics`).
    fn oxide_atomic(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let method = m.method.to_string();
        let operation = match method.as_str() {
            "fetch_add" | "fetch_sub" | "fetch_and" | "fetch_or" | "fetch_xor" | "fetch_min" | "fetch_max" | "swap"
            | "store"
                if m.args.len() == 2 =>
            {
                method.strip_prefix("fetch_").unwrap_or(&method).to_string()
            }
            "load" if m.args.len() == 1 => method.clone(),
            "compare_exchange" | "compare_exchange_weak" if m.args.len() == 4 => method.clone(),
            _ => return Ok(None),
        };
        // The success ordering of a compare-exchange: its fences cover the failure's.
        let order_at = if m.args.len() == 4 { 2 } else { m.args.len() - 1 };
        let Some((order_name, _)) = super::atomics::ordering_argument(&m.args[order_at]) else {
            return Ok(None);
        };
        let cell = match &*m.receiver {
            Expr::Path(p) => p.path.get_ident().map(|i| scope.lookup(&i.to_string())),
            Expr::Index(i) => match &*i.expr {
                Expr::Path(p) => p.path.get_ident().map(|i| scope.lookup(&i.to_string())),
                _ => None,
            },
            _ => None,
        };
        let Some(&(value, cell_scope)) = cell.as_ref().and_then(|c| scope.oxide.atomics.get(c)) else {
            return self.fail(m, format!("atomic `{method}` on a cell whose type is not known here"));
        };
        let receiver = self.expr(&m.receiver, scope)?;
        let operands = m
            .args
            .iter()
            .take(order_at)
            .map(|a| self.expr(a, scope))
            .collect::<Lowered<Vec<_>>>()?;
        self.atomic_operation(m, &operation, &order_name, value, cell_scope, &receiver, &operands)
            .map(Some)
    }

    /// A kernel generic over types or constants has no one instantiation to lower: the launch
    /// picks it.
    pub(super) fn generic_kernel(&self, f: &syn::ItemFn) -> Lowered<()> {
        if !self.oxide.enabled {
            return Ok(());
        }
        match f
            .sig
            .generics
            .params
            .iter()
            .find(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
        {
            Some(p) => self.fail(
                p,
                format!(
                    "generic kernel over `{}` is not lowered: {}",
                    self.text(p),
                    self.workspace.syntax[self.here].map_or_else(
                        || "its instantiation is the launch's".to_string(),
                        |syntax| super::launch_instances::why_not(syntax, &f.sig.ident.to_string())
                    )
                ),
            ),
            None => Ok(()),
        }
    }

    /// The operand of a cast to a pointer: a reference bound by `if let Some(r) = s.get_mut(i)`
    /// is a `kl::ref`, which C++ does not cast; its pointer is taken.
    pub(super) fn pointer_operand(&self, e: &Expr, scope: &mut Scope) -> Lowered<String> {
        let reference = matches!(e, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.references.contains(&scope.lookup(&i.to_string()))));
        let value = self.expr(e, scope)?;
        Ok(if reference && self.oxide.enabled {
            format!("kl::oxide_ptr({value})")
        } else {
            value
        })
    }

    /// A binary operator the file overloads for its own types: without the operand types it may
    /// be the overload, which the twin does not have.
    pub(super) fn overloaded_operator(&self, b: &syn::ExprBinary) -> Lowered<()> {
        match operator_of(&b.op) {
            Some(op)
                if self.oxide.enabled && self.oxide.operators.contains(op) && !self.operator_overloads(b, op)? =>
            {
                self.fail(
                    b,
                    format!(
                    "operator of `impl {op}` in this file: the operands may be its type, whose operator is not lowered"
                ),
                )
            }
            _ => Ok(()),
        }
    }

    /// `let s: &[f32] = &arr;`: only an array coerces so, its first element and its length.
    pub(super) fn oxide_array_slice(
        &self,
        rust_name: &str,
        ty: Option<&Type>,
        init: &Expr,
        scope: &mut Scope,
    ) -> Lowered<Option<String>> {
        let slice_type = matches!(ty, Some(Type::Reference(r)) if matches!(&*r.elem, Type::Slice(_)));
        let Expr::Reference(r) = init else { return Ok(None) };
        let Expr::Path(p) = &*r.expr else { return Ok(None) };
        if !self.oxide.enabled || !slice_type || p.path.get_ident().is_none() {
            return Ok(None);
        }
        let array = self.expr(&r.expr, scope)?;
        if scope.slices.contains(&array) {
            return Ok(None);
        }
        let name = scope.bind(rust_name);
        scope.slices.insert(name.clone());
        Ok(Some(format!(
            "auto {name} = &({array})[0];\nauto {name}_len = (unsigned long long)(sizeof({array}) / sizeof(({array})[0]));\n"
        )))
    }

    /// A constant generic argument (`256`, `TILE`, `{ N * 2 }`) as C++.
    pub(super) fn generic_value(&self, a: &syn::GenericArgument) -> Lowered<String> {
        let e = match a {
            syn::GenericArgument::Const(e) => e.clone(),
            syn::GenericArgument::Type(Type::Path(t)) if t.qself.is_none() => Expr::Path(syn::ExprPath {
                attrs: Vec::new(),
                qself: None,
                path: t.path.clone(),
            }),
            other => return self.fail(other, "generic argument is not a constant"),
        };
        let e = match e {
            Expr::Block(b) => match b.block.stmts.as_slice() {
                [syn::Stmt::Expr(inner, None)] => inner.clone(),
                _ => return self.fail(a, "generic argument is not a constant"),
            },
            other => other,
        };
        match self.layouts.const_value(&e) {
            Some(v) => Ok(v.to_string()),
            None if super::types::is_constant_expression(&e) => self.expr(&e, &mut Scope::default()),
            None => self.fail(a, "generic argument is not a constant"),
        }
    }

    /// `if a && let Some(x) = s.get_mut(i) { .. }` (a chain of conditions and `let`s) and
    /// `if let Some((slot, idx)) = s.get_mut_indexed() { .. }`: nested checks, each binding
    /// what the next reads.
    pub(super) fn oxide_if(&self, i: &syn::ExprIf, scope: &mut Scope) -> Lowered<Option<String>> {
        let mut conjuncts = Vec::new();
        conditions(&i.cond, &mut conjuncts);
        let chain = conjuncts.len() > 1 && conjuncts.iter().any(|c| matches!(c, Expr::Let(_)));
        let indexed = matches!(conjuncts[..], [Expr::Let(l)] if self.minting_slice(&l.expr, scope).is_some()
            || matches!(&*l.pat, syn::Pat::Tuple(_)));
        if !chain && !indexed {
            return Ok(None);
        }
        if chain && i.else_branch.is_some() {
            return self.fail(i, "a chain of `let` conditions with an `else` is not lowered");
        }
        scope.names.push(HashMap::new());
        let lowered = self.nested_if(&conjuncts, i, scope);
        scope.names.pop();
        lowered.map(Some)
    }

    fn nested_if(&self, conjuncts: &[&Expr], i: &syn::ExprIf, scope: &mut Scope) -> Lowered<String> {
        let mut out = String::new();
        for conjunct in conjuncts {
            match conjunct {
                Expr::Let(l) => out.push_str(&self.let_condition(l, scope)?),
                other => {
                    let _ = writeln!(out, "if ({}) {{", self.expr(other, scope)?);
                }
            }
        }
        out.push_str(&self.block(&i.then_branch, scope)?);
        out.push_str(&"}\n".repeat(conjuncts.len()));
        if let Some((_, else_branch)) = &i.else_branch {
            out.push_str("else ");
            out.push_str(&self.expr_stmt(else_branch, scope)?);
        }
        Ok(out)
    }

    /// The slice `s` of `s.get_mut_indexed()`, and the index it mints.
    fn minting_slice(&self, e: &Expr, scope: &Scope) -> Option<(String, String)> {
        let Expr::MethodCall(m) = e else { return None };
        if m.method != "get_mut_indexed" || !m.args.is_empty() {
            return None;
        }
        let Expr::Path(p) = &*m.receiver else { return None };
        let name = scope.lookup(&p.path.get_ident()?.to_string());
        let minted = scope.oxide.minted.get(&name)?.clone();
        Some((name, minted))
    }

    /// `if (check) {` and the bindings of one `let` of a condition.
    fn let_condition(&self, l: &syn::ExprLet, scope: &mut Scope) -> Lowered<String> {
        if let Some(tuple) = self.tuple_let_condition(l, scope)? {
            return Ok(tuple);
        }
        let syn::Pat::TupleStruct(t) = &*l.pat else {
            return self.fail(&l.pat, "only `Some(..)` is lowered in `if let`");
        };
        if !t.path.is_ident("Some") || t.elems.len() != 1 {
            return self.fail(&l.pat, "only `Some(..)` is lowered in `if let`");
        }
        let name_of = |p: &syn::Pat| match p {
            syn::Pat::Ident(b) if b.subpat.is_none() => Ok(Some(b.ident.to_string())),
            syn::Pat::Wild(_) => Ok(None),
            other => self.fail(other, "only names are bound in `if let`"),
        };
        if let Some((slice, index)) = self.minting_slice(&l.expr, scope) {
            let syn::Pat::Tuple(pair) = &t.elems[0] else {
                return self.fail(&t.elems[0], "`get_mut_indexed` yields a pair");
            };
            let [element, witness] = pair.elems.iter().collect::<Vec<_>>()[..] else {
                return self.fail(pair, "`get_mut_indexed` yields a pair");
            };
            let mut out = format!("if ((unsigned long long)({index}) < {slice}_len) {{\n");
            if let Some(element) = name_of(element)? {
                let name = scope.bind(&element);
                scope.references.insert(name.clone());
                let _ = writeln!(out, "auto {name} = kl::make_ref(&{slice}[{index}]);");
            }
            if let Some(witness) = name_of(witness)? {
                let name = scope.bind(&witness);
                scope.oxide.indices.insert(name.clone());
                let _ = writeln!(out, "auto {name} = {index};");
            }
            return Ok(out);
        }
        let (condition, element) = self.option_of_element(&l.expr, scope)?;
        let mut out = format!("if ({condition}) {{\n");
        if let Some(binding) = name_of(&t.elems[0])? {
            let name = scope.bind(&binding);
            scope.references.insert(name.clone());
            self.oxide_bound(&name, &l.expr, scope);
            let _ = writeln!(out, "auto {name} = {element};");
        }
        Ok(out)
    }

    /// `thread::index_1d()` and friends: thread indices, registers, warp intrinsics.
    pub(super) fn oxide_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        if !self.oxide.enabled {
            return Ok(None);
        }
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let name = last_segment(&p.path);
        let owner = p.path.segments.iter().rev().nth(1).map(|s| s.ident.to_string());
        if owner.as_deref() == Some("DynamicSharedArray") {
            return self.dynamic_shared_call(c, scope).map(Some);
        }
        if let Some(simd) = self.simd_call(c, scope)? {
            return Ok(Some(simd));
        }
        if let Some(group) = self.group_call(c, scope)? {
            return Ok(Some(group));
        }
        if let Some(intrinsic) = self.async_call(c, scope)? {
            return Ok(Some(intrinsic));
        }
        if let Some(index) = self.runtime_index_call(c, scope)? {
            return Ok(Some(index));
        }
        if let Some(matrix) = self.matrix_new(c, scope)? {
            return Ok(Some(matrix));
        }
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        if let Some(register) = special_register(&name) {
            if args.is_empty() {
                return Ok(Some(register));
            }
        }
        if let (Some(atomic), "from_ptr", [pointer]) = (
            owner.as_deref().and_then(|o| self.oxide_type(o)),
            name.as_str(),
            args.as_slice(),
        ) {
            return Ok(Some(format!("(({atomic}*)({pointer}))")));
        }
        Ok(Some(match (name.as_str(), args.as_slice()) {
            // One element: one typed load and one store. More may become a wide block copy.
            ("copy_nonoverlapping" | "copy", [src, dst, count]) if count == "1" => format!("(*({dst}) = *({src}))"),
            ("index_1d", []) => "kl::oxide_index_1d()".to_string(),
            ("index_2d", []) => {
                let width = match generic_args(&p.path).first() {
                    Some(syn::GenericArgument::Const(e)) => self.expr(e, scope)?,
                    Some(syn::GenericArgument::Type(Type::Path(t))) => self.expr(
                        &Expr::Path(syn::ExprPath {
                            attrs: Vec::new(),
                            qself: None,
                            path: t.path.clone(),
                        }),
                        scope,
                    )?,
                    _ => return self.fail(c, "`index_2d` without its row width"),
                };
                format!("kl::oxide_index_2d({width})")
            }
            ("warp_index", []) => "kl::oxide_warp_index()".to_string(),
            ("index_2d_row", []) => "((unsigned long long)blockIdx.y * blockDim.y + threadIdx.y)".to_string(),
            ("index_2d_col", []) => "((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x)".to_string(),
            ("lane_id", []) if owner.as_deref() == Some("warp") => "kl::lane()".to_string(),
            ("warp_id", []) if owner.as_deref() == Some("warp") => "(threadIdx.x / 32u)".to_string(),
            _ => match warp_intrinsic(&name, &args) {
                Some(text) if owner.as_deref() == Some("warp") => text,
                _ => return Ok(None),
            },
        }))
    }

    /// Methods of `ThreadIndex` values.
    pub(super) fn oxide_method(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        if !self.oxide.enabled {
            return Ok(None);
        }
        if let Some(run) = self.run_method(m, scope)? {
            return Ok(Some(run));
        }
        if let Some(simd) = self.simd_method(m, scope)? {
            return Ok(Some(simd));
        }
        if let Some(atomic) = self.oxide_atomic(m, scope)? {
            return Ok(Some(atomic));
        }
        if let Some(group) = self.group_method(m, scope)? {
            return Ok(Some(group));
        }
        // `ConstantMemory::get` copies the value out; `get_ref` refers to it.
        let constant = match &*m.receiver {
            Expr::Path(p) if m.args.is_empty() => p
                .path
                .get_ident()
                .and_then(|i| self.oxide.constants.get(&i.to_string())),
            _ => None,
        };
        if let Some(&array) = constant {
            let name = self.expr(&m.receiver, scope)?;
            match (m.method.to_string().as_str(), array) {
                ("get", _) => return Ok(Some(format!("kl::oxide_value({name})"))),
                ("get_ref", true) => return Ok(Some(name)),
                ("get_ref", false) => return Ok(Some(format!("kl::make_ref(&{name})"))),
                _ => {}
            }
        }
        let pointer = matches!(&*m.receiver, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.oxide.pointers.contains(&scope.lookup(&i.to_string()))));
        if pointer && m.args.len() == 1 && matches!(m.method.to_string().as_str(), "write" | "write_volatile") {
            let receiver = self.expr(&m.receiver, scope)?;
            return Ok(Some(format!("(*{receiver} = {})", self.expr(&m.args[0], scope)?)));
        }
        if m.args.is_empty() && matches!(m.method.to_string().as_str(), "cast_unsigned" | "cast_signed") {
            let receiver = self.expr(&m.receiver, scope)?;
            return Ok(Some(format!("kl::oxide_{}({receiver})", m.method)));
        }
        if let Some(width) = self.row_width_method(m, scope) {
            return Ok(Some(width));
        }
        if !self.is_thread_index(&m.receiver, scope) {
            return Ok(None);
        }
        let receiver = self.expr(&m.receiver, scope)?;
        let args: Vec<String> = m.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        Ok(Some(match (m.method.to_string().as_str(), args.as_slice()) {
            ("get", []) => receiver,
            ("is_valid", []) => format!("({receiver} != ~0ull)"),
            ("in_bounds", [len]) => format!("({receiver} < (unsigned long long)({len}))"),
            (other, _) => return self.fail(m, format!("`ThreadIndex` method `{other}` is not lowered")),
        }))
    }

    /// Whether `e` is a `ThreadIndex`: a name bound to one or a call that makes one.
    pub(super) fn is_thread_index(&self, e: &Expr, scope: &Scope) -> bool {
        match e {
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| scope.oxide.indices.contains(&scope.lookup(&i.to_string()))),
            Expr::Paren(p) => self.is_thread_index(&p.expr, scope),
            other => callee(other).is_some_and(|(name, _)| matches!(name.as_str(), "index_1d" | "index_1d_u32")),
        }
    }

    /// `thread::index_2d::<W>()` and `thread::warp_index()`, options of a `ThreadIndex`: the
    /// condition and the index.
    pub(super) fn oxide_option(&self, e: &Expr, scope: &mut Scope) -> Lowered<Option<(String, String)>> {
        if let Some(run) = self.run_option(e, scope)? {
            return Ok(Some(run));
        }
        self.tile_view(e, scope)?;
        if !self.oxide.enabled || !is_index_option(e) {
            return Ok(None);
        }
        let index = self.expr(e, scope)?;
        Ok(Some((format!("({index} != ~0ull)"), index)))
    }

    /// Records that the C name `name` was bound from `value`, when that is a `ThreadIndex`.
    pub(super) fn oxide_bound(&self, name: &str, value: &Expr, scope: &mut Scope) {
        self.group_bound(name, value, scope);
        self.run_bound(name, value, scope);
        if let Some(atomic) = atomic_cell(value).or_else(|| super::atomics::atomic_element(value, scope)) {
            scope.oxide.atomics.insert(name.to_string(), atomic);
        }
        // `unsafe { p.add(i) }` binds the pointer the block ends with.
        let value = match value {
            Expr::Unsafe(u) => match u.block.stmts.as_slice() {
                [syn::Stmt::Expr(last, None)] => last,
                _ => value,
            },
            _ => value,
        };
        let offset = matches!(value, Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "add" | "offset" | "wrapping_add" | "sub"));
        if self.oxide.enabled && offset {
            scope.oxide.pointers.insert(name.to_string());
        }
        let index = match value {
            Expr::Call(_) => is_index_option(value) || self.is_thread_index(value, scope),
            Expr::Path(_) => self.is_thread_index(value, scope),
            _ => false,
        };
        if self.oxide.enabled && index {
            scope.references.remove(name);
            scope.oxide.indices.insert(name.to_string());
        }
    }

    /// `let Some(x) = option else { return; };`: the check, the diverging block, then `x`.
    pub(super) fn oxide_let_else(&self, local: &syn::Local, scope: &mut Scope) -> Lowered<Option<String>> {
        if let Some(checked) = self.match_let(local, scope)? {
            return Ok(Some(checked));
        }
        let Some(init) = &local.init else { return Ok(None) };
        let Some((_, diverge)) = &init.diverge else {
            return Ok(None);
        };
        let syn::Pat::TupleStruct(t) = &local.pat else {
            return self.fail(&local.pat, "only `let Some(name) = .. else` is lowered");
        };
        let binding = match t.elems.iter().collect::<Vec<_>>()[..] {
            [syn::Pat::Ident(b)] if t.path.is_ident("Some") && b.subpat.is_none() => Some(b.ident.to_string()),
            [syn::Pat::Wild(_)] if t.path.is_ident("Some") => None,
            _ => return self.fail(&local.pat, "only `let Some(name) = .. else` is lowered"),
        };
        let (condition, element) = self.option_of_element(&init.expr, scope)?;
        let otherwise = self.expr_stmt(diverge, scope)?;
        let mut out = format!("if (!({condition})) {otherwise}");
        if let Some(binding) = binding {
            let name = scope.bind(&binding);
            scope.references.insert(name.clone());
            self.oxide_bound(&name, &init.expr, scope);
            let _ = writeln!(out, "auto {name} = {element};");
        }
        Ok(Some(out))
    }
}

/// The conditions of `a && b && let .. = c`, in order.
fn conditions<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            conditions(&b.left, out);
            conditions(&b.right, out);
        }
        other => out.push(other),
    }
}

/// `&raw const X`, `&raw mut X`, `addr_of!(X)` and `addr_of_mut!(X)`: the place's address.
pub(super) fn raw_address(e: &Expr) -> Option<Expr> {
    match e {
        Expr::RawAddr(r) => Some((*r.expr).clone()),
        Expr::Macro(m) if matches!(last_segment(&m.mac.path).as_str(), "addr_of" | "addr_of_mut") => {
            m.mac.parse_body::<Expr>().ok()
        }
        _ => None,
    }
}

/// Whether `e` makes an option of a `ThreadIndex`.
pub(super) fn is_index_option_call(e: &Expr) -> bool {
    is_index_option(e)
}

/// `thread::index_2d::<W>()` and `thread::warp_index()`.
fn is_index_option(e: &Expr) -> bool {
    callee(e).is_some_and(|(name, path)| match name.as_str() {
        "index_2d" => !generic_args(path).is_empty(),
        "warp_index" => true,
        _ => false,
    }) && matches!(e, Expr::Call(c) if c.args.is_empty())
        || is_runtime_index(e)
}

/// `thread::threadIdx_x()` and the other special registers.
fn special_register(name: &str) -> Option<String> {
    let (stem, axis) = name.rsplit_once('_')?;
    if !matches!(axis, "x" | "y" | "z") {
        return None;
    }
    matches!(stem, "threadIdx" | "blockIdx" | "blockDim" | "gridDim").then(|| format!("{stem}.{axis}"))
}

/// `warp::shuffle_xor_f32(v, 1)` and friends: the CUDA `__shfl*_sync` builtin, with the full
/// mask where the Rust function takes none.
pub(super) fn warp_intrinsic(name: &str, args: &[String]) -> Option<String> {
    let (name, synced) = match name.strip_suffix("_sync") {
        Some(stem) => (stem, true),
        None => (name, false),
    };
    let (mask, rest) = if synced {
        let (mask, rest) = args.split_first()?;
        (mask.clone(), rest)
    } else {
        ("0xffffffffu".to_string(), args)
    };
    let shuffle = |builtin: &str, ty: &str| -> Option<String> {
        let [value, lane] = rest else { return None };
        Some(format!("{builtin}({mask}, ({ty})({value}), {lane})"))
    };
    let (stem, ty) = match name.rsplit_once('_') {
        Some((stem, "f32")) => (stem, "float"),
        Some((stem, "f64")) => (stem, "double"),
        Some((stem, "u64")) => (stem, INDEX),
        _ => (name, "unsigned int"),
    };
    match (stem, rest) {
        ("shuffle", _) => shuffle("__shfl_sync", ty),
        ("shuffle_xor", _) => shuffle("__shfl_xor_sync", ty),
        ("shuffle_down", _) => shuffle("__shfl_down_sync", ty),
        ("shuffle_up", _) => shuffle("__shfl_up_sync", ty),
        ("ballot", [p]) => Some(format!("__ballot_sync({mask}, {p})")),
        ("all", [p]) => Some(format!("__all_sync({mask}, {p})")),
        ("any", [p]) => Some(format!("__any_sync({mask}, {p})")),
        ("popc", [p]) if !synced => Some(format!("((unsigned int)__popc(__ballot_sync({mask}, {p})))")),
        ("active_mask", []) if !synced => Some("__activemask()".to_string()),
        _ => None,
    }
}

/// C++ the cuda-oxide lowering relies on, appended to the prelude: half-precision headers and
/// the thread-index witnesses.
#[macro_export]
#[doc(hidden)]
macro_rules! oxide_prelude {
    () => {
        r#"#ifdef __CUDACC__
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#else
// Without nvcc (a syntax check) the half types and warp builtins stand in as declarations.
#ifndef __constant__
#define __constant__
#endif
#define KL_HALF_STANDIN(H) \
  struct H { \
    unsigned short x; \
    H() = default; \
    H(float); H(double); H(short); H(unsigned short); H(int); H(unsigned int); H(long long); H(unsigned long long); \
    operator float() const; \
  };
KL_HALF_STANDIN(__half)
KL_HALF_STANDIN(__nv_bfloat16)
#undef KL_HALF_STANDIN
template <typename T> T __shfl_sync(unsigned int, T, int, int = 32);
template <typename T> T __shfl_xor_sync(unsigned int, T, int, int = 32);
template <typename T> T __shfl_down_sync(unsigned int, T, unsigned int, int = 32);
template <typename T> T __shfl_up_sync(unsigned int, T, unsigned int, int = 32);
unsigned int __ballot_sync(unsigned int, int);
int __all_sync(unsigned int, int);
int __any_sync(unsigned int, int);
unsigned int __activemask();
int __popc(unsigned int);
#endif
namespace kl {
// cuda-oxide's atomic cells: the value, and the scope (0 block, 1 device, 2 system) that picks
// the builtin. Relaxed ordering only, as the builtins are.
template <typename T, int S> struct oxide_atomic { T v; };
template <typename T> struct oxide_cell;
template <typename T, int S> struct oxide_cell<oxide_atomic<T, S>*> { using type = T; static constexpr int scope = S; };
template <typename T, int S> struct oxide_cell<const oxide_atomic<T, S>*> { using type = T; static constexpr int scope = S; };
template <typename A> __device__ auto oxide_cell_ptr(A* a) { return const_cast<std::remove_const_t<A>*>(a); }
template <typename A> __device__ auto oxide_cell_ptr(A& a) { return const_cast<std::remove_const_t<A>*>(&a); }
template <typename A> __device__ auto oxide_cell_ptr(ref<A> a) { return const_cast<std::remove_const_t<A>*>(a.p); }
#ifdef __CUDACC__
#define KL_OXIDE_RMW(op, builtin) \
  template <typename A, typename U> __device__ auto oxide_atomic_##op(A&& a, U value) { \
    auto* cell = oxide_cell_ptr(a); \
    using C = oxide_cell<decltype(cell)>; \
    using T = typename C::type; \
    if constexpr (C::scope == 0) return builtin##_block(&cell->v, (T)value); \
    else if constexpr (C::scope == 2) return builtin##_system(&cell->v, (T)value); \
    else return builtin(&cell->v, (T)value); \
  }
#else
#define KL_OXIDE_RMW(op, builtin) \
  template <typename A, typename U> __device__ auto oxide_atomic_##op(A&& a, U value) { \
    auto* cell = oxide_cell_ptr(a); \
    using T = typename oxide_cell<decltype(cell)>::type; \
    T old = cell->v; (void)value; return old; \
  }
#endif
// Only the value types and scopes CUDA has builtins for are lowered to these.
KL_OXIDE_RMW(add, atomicAdd)
KL_OXIDE_RMW(sub, atomicSub)
KL_OXIDE_RMW(and, atomicAnd)
KL_OXIDE_RMW(or, atomicOr)
KL_OXIDE_RMW(xor, atomicXor)
KL_OXIDE_RMW(min, atomicMin)
KL_OXIDE_RMW(max, atomicMax)
KL_OXIDE_RMW(swap, atomicExch)
#undef KL_OXIDE_RMW
// A relaxed load or store is one access of the cell, as a volatile one is.
template <typename A> __device__ auto oxide_atomic_load(A&& a) {
  auto* cell = oxide_cell_ptr(a);
  return *static_cast<volatile decltype(cell->v)*>(&cell->v);
}
template <typename A, typename U> __device__ void oxide_atomic_store(A&& a, U value) {
  auto* cell = oxide_cell_ptr(a);
  using T = decltype(cell->v);
  *static_cast<volatile T*>(&cell->v) = (T)value;
}
// `cast_unsigned`, `cast_signed`: the same bits in the other signedness.
template <typename T> __device__ std::make_unsigned_t<T> oxide_cast_unsigned(T v) { return (std::make_unsigned_t<T>)v; }
template <typename T> __device__ std::make_signed_t<T> oxide_cast_signed(T v) { return (std::make_signed_t<T>)v; }
template <typename T> __device__ T* oxide_ptr(ref<T> r) { return r.p; }
template <typename T> __device__ T* oxide_ptr(T* p) { return p; }
// `ConstantMemory::get`: a copy of the value.
template <typename T> __device__ T oxide_value(const T& v) { return v; }
template <typename T, int N> __device__ array<T, N> oxide_value(const T (&v)[N]) {
  array<T, N> out;
  for (int i = 0; i < N; ++i) out.v[i] = v[i];
  return out;
}
// cuda-oxide's `ThreadIndex`: the index, or all ones where the launch shape makes it invalid.
__device__ inline unsigned long long oxide_index_1d() {
  if (blockDim.y != 1 || gridDim.y != 1 || blockDim.z != 1 || gridDim.z != 1) return ~0ull;
  return (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ inline unsigned long long oxide_index_2d(unsigned long long width) {
  if (blockDim.z != 1 || gridDim.z != 1) return ~0ull;
  unsigned long long row = (unsigned long long)blockIdx.y * blockDim.y + threadIdx.y;
  unsigned long long col = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= width) return ~0ull;
  return row * width + col;
}
__device__ inline unsigned long long oxide_warp_index() {
  if (blockDim.y != 1 || gridDim.y != 1 || blockDim.z != 1 || gridDim.z != 1) return ~0ull;
  if ((threadIdx.x & 31u) != 0) return ~0ull;
  return (unsigned long long)blockIdx.x * ((blockDim.x + 31u) / 32u) + threadIdx.x / 32u;
}
}
"#
    };
}

/// The C name of the row width a `Runtime2DIndex` slice carries.
pub(super) fn row_width_name(slice: &str) -> String {
    format!("{slice}_row_width")
}

/// Whether a slice over `space` is lowered as an index space, and how its witnesses are minted
/// (`None`: it mints none through `get_mut_indexed`).
pub(super) fn minted_by(space: &str, slice: &str) -> Option<Option<String>> {
    match space {
        "Runtime2DIndex" => Some(Some(format!("kl::oxide_index_2d({})", row_width_name(slice)))),
        "LinearTiles" | "RowMajorTiles" | "RuntimeRowMajorTiles" => Some(None),
        _ => None,
    }
}

/// `thread::index_2d_runtime(&s)`, an option of a `ThreadIndex`.
pub(super) fn is_runtime_index(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if c.args.len() == 1
        && matches!(&*c.func, Expr::Path(p) if last_segment(&p.path) == "index_2d_runtime"))
}
