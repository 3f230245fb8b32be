//! Memory layout of the types kernels touch: size, alignment and field offsets.

use super::items::{ItemIndex, ModulePath, Target};
use syn::visit_mut::VisitMut;
use syn::{Expr, Fields, Type};

/// The name of a pointer's or reference's layout.
pub const POINTER: &str = "pointer";

/// Size, alignment and fields of a type.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// The type as written (`Particle`, `f32`, `[f32; 4]`).
    pub name: String,
    /// Bytes.
    pub size: u64,
    /// Bytes.
    pub align: u64,
    /// Named (or numbered) fields at their offsets; empty for primitives.
    pub fields: Vec<FieldLayout>,
    /// Whether the type is a primitive scalar.
    pub primitive: bool,
    /// What a pointer or reference points to, when it is a field's type that is known: a
    /// device pointer held in a struct is followed when the struct is read.
    pub pointee: Option<Box<Layout>>,
}

/// One field of a struct, tuple or array.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldLayout {
    /// Field name, or its index for tuples and arrays.
    pub name: String,
    /// Byte offset from the start of the value.
    pub offset: u64,
    /// The field's own layout.
    pub layout: Layout,
}

impl Layout {
    /// A scalar of `size` bytes, aligned to its size.
    pub(crate) fn primitive(name: &str, size: u64) -> Layout {
        Layout {
            name: name.to_string(),
            size,
            align: size,
            fields: Vec::new(),
            primitive: true,
            pointee: None,
        }
    }

    /// The field with this name.
    pub fn field(&self, name: &str) -> Option<&FieldLayout> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// Whether a copy of the whole value is one access: power-of-two size up to 16 bytes,
    /// aligned to its size (a `#[repr(C, align(16))]` four-float struct, `u32`, `f64`).
    pub fn is_single_access(&self) -> bool {
        self.primitive || (self.size.is_power_of_two() && self.size <= 16 && self.align >= self.size)
    }

    /// The primitive leaves of the value with their offsets, in field order: the accesses the
    /// compiler emits for a copy that is not one wide access.
    pub fn leaves(&self) -> Vec<(String, u64, u64)> {
        if self.fields.is_empty() {
            return vec![(String::new(), 0, self.size)];
        }
        let mut out = Vec::new();
        for field in &self.fields {
            for (path, offset, size) in field.layout.leaves() {
                let name = if path.is_empty() {
                    field.name.clone()
                } else {
                    format!("{}.{path}", field.name)
                };
                out.push((name, field.offset + offset, size));
            }
        }
        out
    }
}

/// Type layouts and constant values as seen from one module: paths resolve through the
/// module's items and imports.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    /// Every analyzed module's items.
    pub index: &'a ItemIndex,
    /// The module the code being read is written in.
    pub module: &'a ModulePath,
    /// While a generic type's fields are laid out: the module its type arguments were
    /// written in (a `CuSlice<'a, U8>` of one module, `CuSlice` defined in another).
    caller: Option<&'a ModulePath>,
}

const MAX_TYPE_DEPTH: usize = 16;
/// How deep in a type a pointer field's pointee is laid out (a struct of pointers, and a
/// struct of such structs).
const POINTEE_DEPTH: usize = 2;
/// The depths a first and a second pointee are laid out at: past any field depth that lays
/// out pointees itself, with room for the pointee's own fields (a generic argument adds a
/// level).
const FIRST_HOP: usize = MAX_TYPE_DEPTH - 8;
const SECOND_HOP: usize = MAX_TYPE_DEPTH - 4;
/// Deepest chain of constants defined by other constants that is evaluated.
const MAX_CONST_DEPTH: usize = 32;

impl<'a> Scope<'a> {
    /// The same index seen from another module.
    pub fn at(&self, module: &'a ModulePath) -> Scope<'a> {
        Scope::new(self.index, module)
    }

    /// The code of `module` in `index`.
    pub fn new(index: &'a ItemIndex, module: &'a ModulePath) -> Scope<'a> {
        Scope {
            index,
            module,
            caller: None,
        }
    }

    /// The definition of a generic type in `module`, instantiated with type arguments written
    /// here: an argument (marked by [`Substitute`]) is read here.
    fn generic_at(&self, module: &'a ModulePath) -> Scope<'a> {
        Scope {
            index: self.index,
            module,
            caller: Some(self.module),
        }
    }

    /// The value of associated constant `name` of the type named `ty`, in whichever module
    /// its `impl` block is (`Qwen::HIDDEN` for a generic `A::HIDDEN` taken at `Qwen`).
    pub fn associated_const(&self, ty: &str, name: &str) -> Option<i64> {
        let target = Target::Associated(self.module.clone(), ty.to_string(), name.to_string());
        let (module, expr) = self.index.const_expr(&target)?;
        self.at(module).const_at(expr, 1)
    }

    /// What a path written here names.
    pub fn resolve(&self, path: &syn::Path) -> Option<Target> {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.index.resolve(self.module, &segments)
    }

    /// The struct a type path names, with the module its fields are written in.
    pub fn struct_def(&self, path: &syn::Path) -> Option<(Scope<'a>, &'a syn::ItemStruct)> {
        let mut target = self.resolve(path)?;
        let mut scope = *self;
        for _ in 0..MAX_TYPE_DEPTH {
            if let Some((module, def)) = self.index.struct_def(&target) {
                return Some((scope.at(module), def));
            }
            let (module, alias) = self.index.alias(&target)?;
            let Type::Path(aliased) = &*alias.ty else {
                return None;
            };
            scope = scope.at(module);
            target = scope.resolve(&aliased.path)?;
        }
        None
    }

    /// The fields of a struct type, with their types and the scope to read those types in, in
    /// declaration order.
    pub fn struct_fields(&self, path: &syn::Path) -> Option<(Scope<'a>, Vec<(String, Type)>)> {
        let (scope, def) = self.struct_def(path)?;
        let fields = def
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                (
                    f.ident.as_ref().map_or_else(|| i.to_string(), |id| id.to_string()),
                    f.ty.clone(),
                )
            })
            .collect();
        Some((scope, fields))
    }

    /// The value of a constant a path names (`N`, `config::TILE`, `Grid::WIDTH`).
    pub fn const_named(&self, path: &syn::Path) -> Option<i64> {
        self.const_path(path, 0)
    }

    fn const_path(&self, path: &syn::Path, depth: usize) -> Option<i64> {
        let target = self.resolve(path)?;
        if let Some((module, expr)) = self.index.const_expr(&target) {
            return self.at(module).const_at(expr, depth + 1);
        }
        let (module, item) = self.index.static_item(&target)?;
        self.at(module).const_at(&item.expr, depth + 1)
    }

    /// Every name the value of constant `path` may depend on: the words of each path read on
    /// the way, as written and as resolved, through the constants its initializer names. A
    /// change that defines none of them leaves the value as it is.
    pub fn const_words(&self, path: &syn::Path, out: &mut std::collections::BTreeSet<String>) {
        self.path_words(path, 0, out);
    }

    fn path_words(&self, path: &syn::Path, depth: usize, out: &mut std::collections::BTreeSet<String>) {
        out.extend(path.segments.iter().map(|s| s.ident.to_string()));
        if depth > MAX_CONST_DEPTH {
            return;
        }
        let Some(target) = self.resolve(path) else {
            return;
        };
        match &target {
            Target::Module(module) => out.extend(module.iter().cloned()),
            Target::Item(module, name) => out.extend(module.iter().chain([name]).cloned()),
            Target::Associated(module, ty, name) => out.extend(module.iter().chain([ty, name]).cloned()),
            Target::External(rest) => {
                out.insert(rest.clone());
            }
        }
        let initializer = (self.index.const_expr(&target)).or_else(|| {
            self.index
                .static_item(&target)
                .map(|(module, item)| (module, &*item.expr))
        });
        if let Some((module, expr)) = initializer {
            let scope = self.at(module);
            let mut paths = PathsIn(Vec::new());
            syn::visit::Visit::visit_expr(&mut paths, expr);
            for path in paths.0 {
                scope.path_words(path, depth + 1, out);
            }
        }
    }

    /// Evaluates a constant integer expression of literals, constants and arithmetic.
    pub fn const_value(&self, expr: &Expr) -> Option<i64> {
        self.const_at(expr, 0)
    }

    fn const_at(&self, expr: &Expr, depth: usize) -> Option<i64> {
        if depth > MAX_CONST_DEPTH {
            return None;
        }
        match expr {
            Expr::Lit(lit) => match &lit.lit {
                syn::Lit::Int(i) => i.base10_parse::<i64>().ok(),
                _ => None,
            },
            Expr::Paren(p) => self.const_at(&p.expr, depth),
            Expr::Group(g) => self.const_at(&g.expr, depth),
            Expr::Cast(c) => self.const_at(&c.expr, depth),
            Expr::Path(p) => self.const_path(&p.path, depth).or_else(|| integer_constant(&p.path)),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => self.const_at(&u.expr, depth)?.checked_neg(),
            Expr::Binary(b) => {
                let (l, r) = (self.const_at(&b.left, depth)?, self.const_at(&b.right, depth)?);
                integer_binary(&b.op, l, r)
            }
            Expr::Block(b) => self.const_block(&b.block, depth),
            Expr::Unsafe(u) => self.const_block(&u.block, depth),
            Expr::If(i) => {
                let condition = self.const_condition(&i.cond, depth)?;
                match (condition, &i.else_branch) {
                    (true, _) => self.const_block(&i.then_branch, depth),
                    (false, Some((_, other))) => self.const_at(other, depth + 1),
                    (false, None) => None,
                }
            }
            // A component of a constant vector: `TILE.x` with `const TILE: UVec2 = uvec2(16, 8)`.
            Expr::Field(f) => {
                let syn::Member::Named(member) = &f.member else {
                    return None;
                };
                let at = ["x", "y", "z", "w"].iter().position(|c| member == c)?;
                self.const_vector(&f.base, depth + 1)?.get(at).copied()
            }
            // `N.div_ceil(2)`, `3usize.pow(5)`, `a.min(b)`: integer methods rustc evaluates.
            Expr::MethodCall(m) => {
                let receiver = self.const_at(&m.receiver, depth + 1)?;
                // `checked_*(..).unwrap()` evaluates to the value it checked.
                if matches!(m.method.to_string().as_str(), "unwrap" | "expect") {
                    return Some(receiver);
                }
                let args: Option<Vec<i64>> = m.args.iter().map(|a| self.const_at(a, depth + 1)).collect();
                integer_method(&m.method.to_string(), receiver, &args?)
            }
            // `size_of::<T>()`, `core::mem::align_of::<T>()`.
            Expr::Call(c) if c.args.is_empty() => {
                let Expr::Path(f) = &*c.func else { return None };
                let last = f.path.segments.last()?;
                let syn::PathArguments::AngleBracketed(generics) = &last.arguments else {
                    return None;
                };
                let Some(syn::GenericArgument::Type(ty)) = generics.args.first() else {
                    return None;
                };
                let layout = self.layout_at(ty, MAX_TYPE_DEPTH - 8)?;
                match last.ident.to_string().as_str() {
                    "size_of" => i64::try_from(layout.size).ok(),
                    "align_of" => i64::try_from(layout.align).ok(),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The components of a constant vector: glam's `uvec2(a, b)`, `UVec3::new(a, b, c)`,
    /// `IVec2::splat(v)`, or a constant that is one.
    pub fn const_vector(&self, expr: &Expr, depth: usize) -> Option<Vec<i64>> {
        if depth > MAX_CONST_DEPTH {
            return None;
        }
        match expr {
            Expr::Paren(p) => self.const_vector(&p.expr, depth),
            Expr::Path(p) => {
                let target = self.resolve(&p.path)?;
                let (module, expr) = self.index.const_expr(&target)?;
                self.at(module).const_vector(expr, depth + 1)
            }
            Expr::Call(c) => {
                let Expr::Path(f) = &*c.func else { return None };
                let lanes = vector_constructor(&f.path)?;
                let args: Option<Vec<i64>> = c.args.iter().map(|a| self.const_at(a, depth + 1)).collect();
                let args = args?;
                match args.as_slice() {
                    [v] if lanes > 1 => Some(vec![*v; lanes]),
                    _ if args.len() == lanes => Some(args),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A block of a constant initializer: its tail expression when it has no statements.
    fn const_block(&self, block: &syn::Block, depth: usize) -> Option<i64> {
        match block.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => self.const_at(e, depth + 1),
            _ => None,
        }
    }

    /// A comparison of constants, or a conjunction or disjunction of them.
    fn const_condition(&self, expr: &Expr, depth: usize) -> Option<bool> {
        use syn::BinOp::*;
        match expr {
            Expr::Paren(p) => self.const_condition(&p.expr, depth),
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Bool(b), ..
            }) => Some(b.value),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Not(_)) => Some(!self.const_condition(&u.expr, depth)?),
            Expr::Binary(b) if matches!(b.op, And(_) | Or(_)) => {
                let (l, r) = (
                    self.const_condition(&b.left, depth)?,
                    self.const_condition(&b.right, depth)?,
                );
                Some(if matches!(b.op, And(_)) { l && r } else { l || r })
            }
            Expr::Binary(b) => {
                let (l, r) = (self.const_at(&b.left, depth + 1)?, self.const_at(&b.right, depth + 1)?);
                match b.op {
                    Eq(_) => Some(l == r),
                    Ne(_) => Some(l != r),
                    Lt(_) => Some(l < r),
                    Le(_) => Some(l <= r),
                    Gt(_) => Some(l > r),
                    Ge(_) => Some(l >= r),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The layout of a type, when it is one kernel-lint knows.
    pub fn layout(&self, ty: &Type) -> Option<Layout> {
        self.layout_at(ty, 0)
    }

    fn layout_at(&self, ty: &Type, depth: usize) -> Option<Layout> {
        if depth > MAX_TYPE_DEPTH {
            return None;
        }
        match ty {
            Type::Paren(p) => self.layout_at(&p.elem, depth + 1),
            // A type argument substituted into a generic definition: read where it was written.
            Type::Group(g) => match self.caller {
                Some(caller) => self.at(caller).layout_at(&g.elem, depth + 1),
                None => self.layout_at(&g.elem, depth + 1),
            },
            Type::Ptr(_) | Type::Reference(_) => {
                let target = match ty {
                    Type::Ptr(p) => &*p.elem,
                    Type::Reference(r) => &*r.elem,
                    _ => unreachable!("a pointer or reference"),
                };
                let (fat, target) = match target {
                    Type::Slice(s) => (true, &*s.elem),
                    other => (false, other),
                };
                let mut layout = Layout::primitive(POINTER, if fat { 16 } else { 8 });
                // A field's pointee: what a struct of device pointers points to, and what the
                // pointer fields of that pointee point to (a table of records that each hold a
                // pointer), two hops in all.
                let hop = if (1..=POINTEE_DEPTH).contains(&depth) {
                    Some(FIRST_HOP)
                } else if (FIRST_HOP + 1..=FIRST_HOP + 1 + POINTEE_DEPTH).contains(&depth) {
                    Some(SECOND_HOP)
                } else {
                    None
                };
                if let Some(hop) = hop {
                    layout.pointee = self.layout_at(target, hop).map(Box::new);
                }
                Some(layout)
            }
            Type::Array(a) => {
                let elem = self.layout_at(&a.elem, depth + 1)?;
                let len = u64::try_from(self.const_value(&a.len)?).ok()?;
                let size = elem.size.checked_mul(len)?;
                // Only the first elements are listed: enough for field paths, bounded in size.
                let fields = (0..len.min(64))
                    .map(|i| FieldLayout {
                        name: i.to_string(),
                        offset: i * elem.size,
                        layout: elem.clone(),
                    })
                    .collect();
                Some(Layout {
                    name: format!("[{}; {len}]", elem.name),
                    size,
                    align: elem.align,
                    fields,
                    primitive: false,
                    pointee: None,
                })
            }
            Type::Tuple(t) => {
                let elems: Option<Vec<(String, Layout)>> = t
                    .elems
                    .iter()
                    .enumerate()
                    .map(|(i, e)| Some((i.to_string(), self.layout_at(e, depth + 1)?)))
                    .collect();
                let elems = elems?;
                if elems.len() > 1 && t.elems.iter().all(|e| self.niche_free(e, depth + 1)) {
                    return Some(rust_layout("tuple".to_string(), elems, None, true));
                }
                Some(c_layout("tuple".to_string(), elems, None, false))
            }
            Type::Path(p) => {
                let segment = p.path.segments.last()?;
                let name = segment.ident.to_string();
                let generic = || match &segment.arguments {
                    syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
                        syn::GenericArgument::Type(t) => Some(t),
                        _ => None,
                    }),
                    _ => None,
                };
                if let Some(target) = self.resolve(&p.path).filter(|t| !matches!(t, Target::External(_))) {
                    if let Some((module, alias)) = self.index.alias(&target) {
                        let aliased = instantiate(alias, &segment.arguments);
                        return self.generic_at(module).layout_at(&aliased, depth + 1);
                    }
                    if let Some((module, def)) = self.index.struct_def(&target) {
                        return self.generic_at(module).struct_layout(def, &segment.arguments, depth);
                    }
                    if let Some((module, def)) = self.index.enum_def(&target) {
                        return self.at(module).enum_layout(def, depth);
                    }
                }
                if let Some(layout) = primitive(&name) {
                    return Some(layout);
                }
                // cust's device address of a `T` buffer, `#[repr(transparent)]` over a pointer.
                if name == "DevicePointer" {
                    return Some(Layout::primitive(POINTER, 8));
                }
                if let Some(layout) = vector_type(&name, generic().and_then(|t| self.layout_at(t, depth + 1))) {
                    return Some(layout);
                }
                if matches!(
                    name.as_str(),
                    "MaybeUninit" | "UnsafeCell" | "Cell" | "ManuallyDrop" | "Wrapping"
                ) {
                    return self.layout_at(generic()?, depth + 1);
                }
                None
            }
            _ => None,
        }
    }

    /// An enum's layout where the language fixes it: a fieldless enum is its discriminant's
    /// integer (the `repr` one, C's `int` for `repr(C)`, else the smallest integer that holds
    /// every discriminant, as rustc picks it); an enum with data has a defined layout only under
    /// `repr(C)` or `repr(uN)`: a tag and a union of its variants' fields laid out as C structs.
    /// A generic enum, or one with data and no such `repr`, is rustc's choice: unknown.
    fn enum_layout(&self, def: &syn::ItemEnum, depth: usize) -> Option<Layout> {
        if def.generics.type_params().next().is_some() {
            return None;
        }
        let name = def.ident.to_string();
        let Repr { c, int, .. } = repr(&def.attrs);
        let fieldless = def.variants.iter().all(|v| matches!(v.fields, Fields::Unit));
        let tag = match (int, c) {
            (Some(int), _) => primitive(int)?,
            (None, true) => Layout::primitive("i32", 4),
            (None, false) if fieldless => {
                // Discriminants count on from the last one written, starting at 0.
                let mut next = 0i64;
                let (mut low, mut high) = (i64::MAX, i64::MIN);
                for v in &def.variants {
                    if let Some((_, e)) = &v.discriminant {
                        next = self.const_value(e)?;
                    }
                    low = low.min(next);
                    high = high.max(next);
                    next = next.checked_add(1)?;
                }
                let size = match def.variants.len() {
                    0 | 1 => 0,
                    _ if low >= 0 && high <= 0xff || low >= -0x80 && high <= 0x7f => 1,
                    _ if low >= 0 && high <= 0xffff || low >= -0x8000 && high <= 0x7fff => 2,
                    _ if low >= 0 && high <= 0xffff_ffff || low >= -0x8000_0000 && high <= 0x7fff_ffff => 4,
                    _ => 8,
                };
                // One variant and no data: no bytes, aligned to one.
                Layout {
                    align: size.max(1),
                    ..Layout::primitive(&name, size)
                }
            }
            (None, false) => return None,
        };
        if fieldless {
            return Some(Layout {
                name,
                primitive: true,
                ..tag
            });
        }
        let variants: Option<Vec<Vec<(String, Layout)>>> = def
            .variants
            .iter()
            .map(|v| {
                v.fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let field = f.ident.as_ref().map_or_else(|| i.to_string(), ToString::to_string);
                        Some((field, self.layout_at(&f.ty, depth + 1)?))
                    })
                    .collect()
            })
            .collect();
        let variants = variants?;
        let (size, align) = if c {
            // `repr(C)` (with a tag type or C's `int`): the tag, then a union of C structs.
            let union: Vec<Layout> = variants
                .into_iter()
                .map(|fields| c_layout(String::new(), fields, None, false))
                .collect();
            let union_align = union.iter().map(|l| l.align).max().unwrap_or(1).max(1);
            let union_size = union
                .iter()
                .map(|l| l.size)
                .max()
                .unwrap_or(0)
                .next_multiple_of(union_align);
            let align = union_align.max(tag.align);
            let start = tag.size.next_multiple_of(union_align);
            ((start + union_size).next_multiple_of(align), align)
        } else {
            // `repr(uN)`: a union of C structs that each begin with the tag.
            let each: Vec<Layout> = variants
                .into_iter()
                .map(|mut fields| {
                    fields.insert(0, ("tag".to_string(), tag.clone()));
                    c_layout(String::new(), fields, None, false)
                })
                .collect();
            let align = each.iter().map(|l| l.align).max().unwrap_or(1).max(1);
            let size = each.iter().map(|l| l.size).max().unwrap_or(0).next_multiple_of(align);
            (size, align)
        };
        Some(Layout {
            name,
            size,
            align,
            fields: Vec::new(),
            primitive: false,
            pointee: None,
        })
    }

    /// A struct's layout, its type parameters replaced by the `arguments` it is named with
    /// (`Buf<f32>` of `struct Buf<T> { ptr: *mut T }`).
    fn struct_layout(&self, def: &syn::ItemStruct, arguments: &syn::PathArguments, depth: usize) -> Option<Layout> {
        let Repr {
            align: align_attr,
            packed,
            c,
            transparent,
            int,
        } = repr(&def.attrs);
        let substitutions = substitutions(&def.generics, arguments);
        let field_layout = |ty: &Type| {
            if substitutions.is_empty() {
                return self.layout_at(ty, depth + 1);
            }
            let mut ty = ty.clone();
            Substitute(&substitutions).visit_type_mut(&mut ty);
            self.layout_at(&ty, depth + 1)
        };
        let fields: Option<Vec<(String, Layout)>> = match &def.fields {
            Fields::Named(named) => named
                .named
                .iter()
                .map(|f| Some((f.ident.as_ref()?.to_string(), field_layout(&f.ty)?)))
                .collect(),
            Fields::Unnamed(unnamed) => unnamed
                .unnamed
                .iter()
                .enumerate()
                .map(|(i, f)| Some((i.to_string(), field_layout(&f.ty)?)))
                .collect(),
            Fields::Unit => Some(Vec::new()),
        };
        let fields = fields?;
        let reordered = !(c || int.is_some() || transparent || packed)
            && fields.len() > 1
            && substitutions.is_empty()
            && def.fields.iter().all(|f| self.niche_free(&f.ty, depth + 1));
        if !reordered {
            return Some(c_layout(def.ident.to_string(), fields, align_attr, packed));
        }
        Some(rust_layout(def.ident.to_string(), fields, align_attr, false))
    }

    /// Whether no value of type `ty` leaves a bit pattern unused that rustc could put an
    /// enum's tag in (a niche): integers, floats, raw pointers, vectors of them, and arrays,
    /// tuples and non-generic structs of such. Anything else may have one.
    fn niche_free(&self, ty: &Type, depth: usize) -> bool {
        if depth > MAX_TYPE_DEPTH {
            return false;
        }
        match ty {
            Type::Ptr(_) => true,
            Type::Paren(p) => self.niche_free(&p.elem, depth + 1),
            Type::Group(g) => match self.caller {
                Some(caller) => self.at(caller).niche_free(&g.elem, depth + 1),
                None => self.niche_free(&g.elem, depth + 1),
            },
            Type::Array(a) => self.niche_free(&a.elem, depth + 1),
            Type::Tuple(t) => t.elems.iter().all(|e| self.niche_free(e, depth + 1)),
            Type::Path(p) => {
                let Some(last) = p.path.segments.last() else {
                    return false;
                };
                let name = last.ident.to_string();
                if let Some(target) = self.resolve(&p.path).filter(|t| !matches!(t, Target::External(_))) {
                    if let Some((module, def)) = self.index.struct_def(&target) {
                        let scope = self.at(module);
                        return def.generics.type_params().next().is_none()
                            && def.fields.iter().all(|f| scope.niche_free(&f.ty, depth + 1));
                    }
                    return false;
                }
                let scalar = primitive(&name).is_some() && !matches!(name.as_str(), "bool" | "char" | "AtomicBool");
                // glam's and vek's vectors hold floats or integers; `MaybeUninit` and
                // `UnsafeCell` hide what they hold.
                let vector = vector_type(&name, Some(Layout::primitive("f32", 4))).is_some()
                    && matches!(&last.arguments, syn::PathArguments::None);
                scalar || vector || matches!(name.as_str(), "MaybeUninit" | "UnsafeCell")
            }
            _ => false,
        }
    }
}

/// The aliased type of a generic alias with its parameters replaced by the arguments given:
/// `Vector<f32>` with `type Vector<N> = Vector3<N>;` is `Vector3<f32>`.
pub fn instantiate(alias: &syn::ItemType, arguments: &syn::PathArguments) -> Type {
    let substitutions = substitutions(&alias.generics, arguments);
    let mut ty = (*alias.ty).clone();
    if !substitutions.is_empty() {
        Substitute(&substitutions).visit_type_mut(&mut ty);
    }
    ty
}

/// Each type parameter of `generics` with the type `arguments` give it, in order (the
/// parameters past the arguments given are left out).
fn substitutions(generics: &syn::Generics, arguments: &syn::PathArguments) -> Vec<(String, Type)> {
    let given: Vec<&Type> = match arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                syn::GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    generics
        .type_params()
        .map(|p| p.ident.to_string())
        .zip(given)
        .map(|(name, ty)| (name, ty.clone()))
        .collect()
}

/// Replaces type parameters by name.
struct Substitute<'a>(&'a [(String, Type)]);

impl VisitMut for Substitute<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = ty {
            if let Some(ident) = p.path.get_ident() {
                if let Some((_, replacement)) = self.0.iter().find(|(name, _)| ident == name) {
                    // Marked as an argument, read in the scope it was written in; one already
                    // marked keeps its mark.
                    *ty = match replacement {
                        Type::Group(_) => replacement.clone(),
                        other => Type::Group(syn::TypeGroup {
                            group_token: Default::default(),
                            elem: Box::new(other.clone()),
                        }),
                    };
                    return;
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// An integer operator applied to two known values, as the compiler folds it; `None` on
/// overflow, division by zero or an operator that is not arithmetic.
pub fn integer_binary(op: &syn::BinOp, l: i64, r: i64) -> Option<i64> {
    use syn::BinOp::*;
    match op {
        Add(_) => l.checked_add(r),
        Sub(_) => l.checked_sub(r),
        Mul(_) => l.checked_mul(r),
        Div(_) => l.checked_div(r),
        Rem(_) => l.checked_rem(r),
        Shl(_) => u32::try_from(r).ok().and_then(|r| l.checked_shl(r)),
        Shr(_) => u32::try_from(r).ok().and_then(|r| l.checked_shr(r)),
        BitAnd(_) => Some(l & r),
        BitOr(_) => Some(l | r),
        BitXor(_) => Some(l ^ r),
        _ => None,
    }
}

/// An integer method rustc evaluates in a constant (`div_ceil`, `pow`, `min`, `next_power_of_two`
/// ..), on values that fit the 64-bit arithmetic the analysis does.
pub fn integer_method(name: &str, receiver: i64, args: &[i64]) -> Option<i64> {
    let exponent = |e: i64| u32::try_from(e).ok();
    match (name, args) {
        ("div_ceil", [d]) if *d > 0 && receiver >= 0 => Some(receiver.checked_add(d - 1)? / d),
        ("pow" | "wrapping_pow" | "checked_pow" | "saturating_pow", [e]) => receiver.checked_pow(exponent(*e)?),
        ("min", [o]) => Some(receiver.min(*o)),
        ("max", [o]) => Some(receiver.max(*o)),
        ("clamp", [lo, hi]) if lo <= hi => Some(receiver.clamp(*lo, *hi)),
        ("abs" | "unsigned_abs", []) => receiver.checked_abs(),
        ("rem_euclid", [d]) if *d != 0 => receiver.checked_rem_euclid(*d),
        ("div_euclid", [d]) if *d != 0 => receiver.checked_div_euclid(*d),
        ("next_power_of_two", []) if receiver >= 0 => u64::try_from(receiver)
            .ok()?
            .checked_next_power_of_two()
            .and_then(|v| i64::try_from(v).ok()),
        ("next_multiple_of", [m]) if *m > 0 && receiver >= 0 => Some(receiver.checked_add(m - 1)? / m * m),
        ("isqrt", []) if receiver >= 0 => Some(receiver.isqrt()),
        ("ilog2", []) if receiver > 0 => Some(i64::from(receiver.ilog2())),
        ("trailing_zeros", []) if receiver != 0 => Some(i64::from(receiver.trailing_zeros())),
        ("count_ones", []) if receiver >= 0 => Some(i64::from(receiver.count_ones())),
        (
            "wrapping_add" | "checked_add" | "saturating_add" | "wrapping_sub" | "checked_sub" | "saturating_sub"
            | "wrapping_mul" | "checked_mul" | "saturating_mul",
            [o],
        ) => match &name[name.find('_')? + 1..] {
            "add" => receiver.checked_add(*o),
            "sub" => receiver.checked_sub(*o),
            _ => receiver.checked_mul(*o),
        },
        _ => None,
    }
}

/// The bits of an integer type and whether it is signed.
pub fn int_width(ty: &str) -> Option<(u32, bool)> {
    Some(match ty {
        "u8" => (8, false),
        "u16" => (16, false),
        "u32" => (32, false),
        "u64" | "usize" => (64, false),
        "i8" => (8, true),
        "i16" => (16, true),
        "i32" => (32, true),
        "i64" | "isize" => (64, true),
        _ => return None,
    })
}

/// `u32::MAX`, `usize::BITS`, `i8::MIN`: an integer type's constants that fit 64-bit arithmetic.
fn integer_constant(path: &syn::Path) -> Option<i64> {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let [.., ty, name] = segments.as_slice() else {
        return None;
    };
    let (bits, signed) = int_width(ty)?;
    let value: i128 = match name.as_str() {
        "BITS" => i128::from(bits),
        "MIN" if signed => -(1i128 << (bits - 1)),
        "MIN" => 0,
        "MAX" if signed => (1i128 << (bits - 1)) - 1,
        "MAX" => (1i128 << bits) - 1,
        _ => return None,
    };
    i64::try_from(value).ok()
}

/// What `#[repr(..)]` says about a struct's or enum's layout.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Repr {
    /// `align(N)`.
    pub align: Option<u64>,
    /// `packed` or `packed(N)`.
    pub packed: bool,
    /// `C`.
    pub c: bool,
    /// `transparent`.
    pub transparent: bool,
    /// The integer type named (`u8`, `i32`): an enum's tag.
    pub int: Option<&'static str>,
}

/// The integer types a `repr` may name.
const REPR_INTEGERS: [&str; 12] = [
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
];

/// Reads the `#[repr(..)]` attributes of an item.
pub fn repr(attrs: &[syn::Attribute]) -> Repr {
    let mut out = Repr::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("align") {
                let content;
                syn::parenthesized!(content in meta.input);
                let lit: syn::LitInt = content.parse()?;
                out.align = lit.base10_parse::<u64>().ok();
            } else if meta.path.is_ident("packed") {
                out.packed = true;
                if meta.input.peek(syn::token::Paren) {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    let _: syn::LitInt = content.parse()?;
                }
            } else if meta.path.is_ident("C") {
                out.c = true;
            } else if meta.path.is_ident("transparent") {
                out.transparent = true;
            } else if let Some(int) = REPR_INTEGERS.iter().find(|i| meta.path.is_ident(i)) {
                out.int = Some(int);
            }
            Ok(())
        });
    }
    out
}

/// A `repr(Rust)` struct or tuple none of whose fields has a niche, as rustc lays it out:
/// zero-sized fields first, then by alignment group (the larger of a field's alignment and
/// size, as a power of two), largest first, ties in declaration order. A niche (a bit pattern
/// no value takes: `bool`, references, enums) also moves fields; those are left in declaration
/// order. Fields are listed in declaration order, each at its offset.
///
/// A tuple's last element may be unsized in general, so rustc leaves it last (`last_fixed`).
fn rust_layout(name: String, fields: Vec<(String, Layout)>, align_attr: Option<u64>, last_fixed: bool) -> Layout {
    let group = |l: &Layout| l.align.max(l.size).trailing_zeros();
    let mut order: Vec<usize> = (0..fields.len()).collect();
    let sorted = if last_fixed {
        fields.len().saturating_sub(1)
    } else {
        fields.len()
    };
    order[..sorted].sort_by_key(|&i| (fields[i].1.size != 0, std::cmp::Reverse(group(&fields[i].1))));
    let in_memory: Vec<(String, Layout)> = order.iter().map(|&i| fields[i].clone()).collect();
    let mut layout = c_layout(name, in_memory, align_attr, false);
    let mut by_declaration: Vec<(usize, FieldLayout)> = order.into_iter().zip(layout.fields).collect();
    by_declaration.sort_by_key(|(i, _)| *i);
    layout.fields = by_declaration.into_iter().map(|(_, f)| f).collect();
    layout
}

/// Lays out fields in declaration order with C padding rules.
fn c_layout(name: String, fields: Vec<(String, Layout)>, align_attr: Option<u64>, packed: bool) -> Layout {
    let mut offset = 0u64;
    let mut align = 1u64;
    let mut out = Vec::with_capacity(fields.len());
    for (field_name, layout) in fields {
        let field_align = if packed { 1 } else { layout.align.max(1) };
        offset = offset.next_multiple_of(field_align);
        align = align.max(field_align);
        out.push(FieldLayout {
            name: field_name,
            offset,
            layout: layout.clone(),
        });
        offset += layout.size;
    }
    if let Some(a) = align_attr.filter(|a| a.is_power_of_two()) {
        align = align.max(a);
    }
    Layout {
        name,
        size: offset.next_multiple_of(align),
        align,
        fields: out,
        primitive: false,
        pointee: None,
    }
}

fn primitive(name: &str) -> Option<Layout> {
    let size = match name {
        // core's atomics have the layout of the integer they hold.
        "u8" | "i8" | "bool" | "AtomicU8" | "AtomicI8" | "AtomicBool" => 1,
        "u16" | "i16" | "f16" | "bf16" | "AtomicU16" | "AtomicI16" => 2,
        "u32" | "i32" | "f32" | "char" | "AtomicU32" | "AtomicI32" => 4,
        "u64" | "i64" | "f64" | "usize" | "isize" | "AtomicU64" | "AtomicI64" | "AtomicUsize" | "AtomicIsize" => 8,
        "u128" | "i128" => 16,
        _ => return atomic(name),
    };
    Some(Layout::primitive(name, size))
}

/// A device crate's atomic cell (`DeviceAtomicF64`, `BlockAtomicU32`, `AtomicF32`): the
/// layout of the number its name ends with, as core's atomics have.
/// Whether a type of this name is an atomic cell (`AtomicU32`, `DeviceAtomicF64`).
pub fn is_atomic_cell(name: &str) -> bool {
    atomic(name).is_some()
}

fn atomic(name: &str) -> Option<Layout> {
    let (scope, number) = name.rsplit_once("Atomic")?;
    if !matches!(
        scope,
        "" | "Device" | "Block" | "System" | "Cluster" | "Warp" | "Gpu" | "Cta"
    ) {
        return None;
    }
    let size = match number {
        "U8" | "I8" | "Bool" => 1,
        "U16" | "I16" | "F16" | "Bf16" | "BF16" => 2,
        "U32" | "I32" | "F32" => 4,
        "U64" | "I64" | "F64" | "Usize" | "Isize" => 8,
        _ => return None,
    };
    Some(Layout::primitive(name, size))
}

/// glam's vector types as compiled for CUDA, and vek's generic `Vec2<T>`/`Vec3<T>`/`Vec4<T>`.
fn vector_type(name: &str, generic: Option<Layout>) -> Option<Layout> {
    let (scalar, lanes, align) = match name {
        "Vec2" | "UVec2" | "IVec2" if generic.is_none() => (4, 2, 8),
        "Vec3" | "UVec3" | "IVec3" if generic.is_none() => (4, 3, 4),
        "Vec4" | "UVec4" | "IVec4" | "Vec3A" | "Quat" if generic.is_none() => (4, 4, 16),
        "DVec2" => (8, 2, 16),
        "DVec3" => (8, 3, 8),
        "DVec4" => (8, 4, 16),
        "USizeVec2" | "U64Vec2" | "I64Vec2" => (8, 2, 16),
        "USizeVec3" | "U64Vec3" | "I64Vec3" => (8, 3, 8),
        "USizeVec4" | "U64Vec4" | "I64Vec4" => (8, 4, 16),
        "Vec2" | "Vec3" | "Vec4" | "Rgba" | "Rgb" => {
            let g = generic?;
            let lanes = match name {
                "Vec2" => 2,
                "Vec3" | "Rgb" => 3,
                _ => 4,
            };
            (g.size, lanes, g.align)
        }
        // nalgebra's fixed-size vectors, points and square matrices: arrays of the scalar.
        "Vector1" | "Vector2" | "Vector3" | "Vector4" | "Vector5" | "Vector6" | "Point1" | "Point2" | "Point3"
        | "Point4" | "Point5" | "Point6" | "Matrix2" | "Matrix3" | "Matrix4" => {
            let g = generic?;
            let digit = name.chars().last()?.to_digit(10)? as u64;
            let lanes = if name.starts_with("Matrix") {
                digit * digit
            } else {
                digit
            };
            (g.size, lanes, g.align)
        }
        _ => return None,
    };
    let names = ["x", "y", "z", "w"];
    let fields = (0..lanes)
        .map(|i| FieldLayout {
            name: names.get(i as usize).map_or_else(|| i.to_string(), |n| n.to_string()),
            offset: i * scalar,
            layout: Layout::primitive(if scalar == 8 { "f64" } else { "f32" }, scalar),
        })
        .collect();
    let size = (scalar * lanes).next_multiple_of(align);
    Some(Layout {
        name: name.to_string(),
        size,
        align,
        fields,
        primitive: false,
        pointee: None,
    })
}

/// The struct a field access belongs to.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, PartialEq)]
pub struct FieldOf {
    /// Struct type name.
    pub type_name: String,
    /// Field name (or index, for tuples and arrays).
    pub field: String,
    /// Size of one element, bytes.
    pub size: u64,
}

/// The paths an expression names.
struct PathsIn<'a>(Vec<&'a syn::Path>);

impl<'a> syn::visit::Visit<'a> for PathsIn<'a> {
    fn visit_path(&mut self, path: &'a syn::Path) {
        self.0.push(path);
        syn::visit::visit_path(self, path);
    }
}

/// How many components a call to `path` builds when it is a vector constructor: glam's
/// functions (`vec2`, `uvec3`, `ivec4`, `dvec2` ..) and its types' `new` and `splat`
/// (`UVec2::new`, `Vec3::splat`).
pub fn vector_constructor(path: &syn::Path) -> Option<usize> {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let lanes = |name: &str, prefixes: &[&str]| -> Option<usize> {
        prefixes.iter().find_map(|p| {
            let n = name.strip_prefix(p)?.parse::<usize>().ok()?;
            (2..=4).contains(&n).then_some(n)
        })
    };
    match segments.as_slice() {
        [.., ty, ctor] if ctor == "new" || ctor == "splat" => lanes(
            ty,
            &[
                "Vec", "UVec", "IVec", "DVec", "BVec", "U64Vec", "I64Vec", "U16Vec", "I16Vec",
            ],
        ),
        [.., function] => lanes(
            function,
            &[
                "vec", "uvec", "ivec", "dvec", "bvec", "u64vec", "i64vec", "u16vec", "i16vec",
            ],
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layouts(src: &str) -> ItemIndex {
        let mut index = ItemIndex::default();
        index.add_file(vec!["k".into()], 0, &syn::parse_file(src).unwrap());
        index
    }

    fn layout_of(index: &ItemIndex, ty: &str) -> Layout {
        let module = vec!["k".to_string()];
        let scope = Scope::new(index, &module);
        scope.layout(&syn::parse_str(ty).unwrap()).unwrap()
    }

    #[test]
    fn constants_computed_with_integer_methods_and_conditions_evaluate() {
        let index = layouts(
            "pub struct Rec { a: u32, b: [f32; 4] }
             pub const SRC_W: u32 = 4000;
             pub const DST_W: u32 = SRC_W.div_ceil(3);
             pub const CELLS: usize = 3usize.pow(5);
             pub const WIDE: usize = if CELLS > 200 { 2 * CELLS } else { CELLS };
             pub const BYTES: usize = core::mem::size_of::<Rec>() * 2;
             pub const TOP: u32 = u32::MAX - u16::MAX as u32;
             pub const BITS: u32 = usize::BITS.min(40);
             pub const SPARE: u32 = 7u32.checked_sub(2).unwrap();",
        );
        let module = vec!["k".to_string()];
        let scope = Scope::new(&index, &module);
        let value = |name: &str| scope.const_named(&syn::parse_str(name).unwrap());
        assert_eq!(value("DST_W"), Some(1334));
        assert_eq!(value("CELLS"), Some(243));
        assert_eq!(value("WIDE"), Some(486));
        assert_eq!(value("BYTES"), Some(40));
        assert_eq!(value("TOP"), Some(4_294_901_760));
        assert_eq!(value("BITS"), Some(40));
        assert_eq!(value("SPARE"), Some(5));
        // `i64::MIN` and `u64::MAX` do not fit the arithmetic: no value rather than a wrong one.
        assert_eq!(integer_constant(&syn::parse_str("i64::MIN").unwrap()), Some(i64::MIN));
        assert_eq!(integer_constant(&syn::parse_str("u64::MAX").unwrap()), None);
    }

    #[test]
    fn a_device_crate_s_atomic_cells_have_their_number_s_layout() {
        let index = layouts("");
        assert_eq!(layout_of(&index, "DeviceAtomicF64").size, 8);
        assert_eq!(layout_of(&index, "BlockAtomicU32").size, 4);
        assert_eq!(layout_of(&index, "AtomicF16").size, 2);
        let module = vec!["k".to_string()];
        let scope = Scope::new(&index, &module);
        assert_eq!(scope.layout(&syn::parse_str("MyAtomicThing").unwrap()), None);
    }

    #[test]
    fn a_generic_type_s_arguments_are_read_where_they_are_written() {
        // `Cell` is known in `app`, not in `lib` where `Slice<T>` is defined.
        let mut index = ItemIndex::default();
        let lib = "pub struct Slice<'a, T: Copy> { pub ptr: &'a [T] }
                   pub struct Pair<T> { pub a: T, pub b: T }";
        let app = "use crate::lib::{Pair, Slice};
                   pub struct Cell(pub u16);
                   pub struct Args<'a> { pub cells: Slice<'a, Cell>, pub pair: Pair<Cell> }";
        index.add_file(
            vec!["k".into()],
            0,
            &syn::parse_file("pub mod lib; pub mod app;").unwrap(),
        );
        index.add_file(vec!["k".into(), "lib".into()], 1, &syn::parse_file(lib).unwrap());
        index.add_file(vec!["k".into(), "app".into()], 2, &syn::parse_file(app).unwrap());
        let module = vec!["k".to_string(), "app".to_string()];
        let scope = Scope::new(&index, &module);
        let args = scope.layout(&syn::parse_str("Args").unwrap()).expect("laid out");
        let cells = &args.fields.iter().find(|f| f.name == "cells").expect("cells").layout;
        let pointee = cells.fields[0].layout.pointee.as_ref().expect("the slice's element");
        assert_eq!((pointee.name.as_str(), pointee.size), ("Cell", 2));
        let pair = &args.fields.iter().find(|f| f.name == "pair").expect("pair").layout;
        assert_eq!(pair.size, 4);
    }

    #[test]
    fn repr_rust_structs_without_niches_are_in_rustcs_order() {
        // Offsets as rustc 1.95 gives them (`offset_of!`) for the same structs.
        let l = layouts(
            "struct A { a: u8, b: f32, c: u8 }
             struct B { x: f32, d: f64, y: u16, arr: [f32; 4], z: u8 }
             struct C { p: *const f32, n: u32, m: u16, v: [u8; 3] }
             struct D { a: [u8; 4], b: u16, c: u32, d: [f32; 3], e: f64 }
             struct E { inner: A, k: u64, t: (u8, u32) }
             struct Flagged { a: u8, on: bool, b: f32 }
             #[repr(C)] struct Ordered { a: u8, b: f32, c: u8 }",
        );
        let offsets = |ty: &str, names: &[&str]| {
            let l = layout_of(&l, ty);
            let at: Vec<u64> = names.iter().map(|n| l.field(n).unwrap().offset).collect();
            (l.size, l.align, at)
        };
        assert_eq!(offsets("A", &["a", "b", "c"]), (8, 4, vec![4, 0, 5]));
        assert_eq!(
            offsets("B", &["x", "d", "y", "arr", "z"]),
            (32, 8, vec![24, 16, 28, 0, 30])
        );
        assert_eq!(offsets("C", &["p", "n", "m", "v"]), (24, 8, vec![0, 8, 12, 14]));
        assert_eq!(
            offsets("D", &["a", "b", "c", "d", "e"]),
            (32, 8, vec![8, 28, 12, 16, 0])
        );
        assert_eq!(offsets("E", &["inner", "k", "t"]), (24, 8, vec![0, 8, 16]));
        // A tuple keeps its last element last.
        assert_eq!(offsets("(u8, u32)", &["0", "1"]), (8, 4, vec![0, 4]));
        assert_eq!(offsets("(u8, u32, u8)", &["0", "1", "2"]), (8, 4, vec![4, 0, 5]));
        // A niche moves fields by rules not modelled: declaration order; `repr(C)` keeps it.
        assert_eq!(offsets("Flagged", &["a", "on", "b"]), (8, 4, vec![0, 1, 4]));
        assert_eq!(offsets("Ordered", &["a", "b", "c"]), (12, 4, vec![0, 4, 8]));
        // Fields stay listed in declaration order.
        let names: Vec<String> = layout_of(&l, "B").fields.iter().map(|f| f.name.clone()).collect();
        assert_eq!(names, ["x", "d", "y", "arr", "z"]);
    }

    #[test]
    fn enums_are_laid_out_where_the_language_fixes_it() {
        let l = layouts(
            "enum Mode { Off, On, Auto }
             enum Wide { Low = -1, High = 200 }
             enum Lone { Only }
             #[repr(u32)] enum Flag { A, B }
             #[repr(C)] enum CFlag { A, B }
             #[repr(C)] enum Shape { Dot, Ball { r: f32 }, Slab(f64, u8) }
             #[repr(u8)] enum Op { Nop, Add(u32), Mul(u16, u16) }
             enum Free { A(f32), B }
             #[repr(C)] struct Cell { mode: Mode, shape: Shape, weight: f32 }",
        );
        let size = |ty: &str| {
            let l = layout_of(&l, ty);
            (l.size, l.align)
        };
        // rustc's smallest integer for the discriminants: one byte, then two for -1..=200.
        assert_eq!(size("Mode"), (1, 1));
        assert_eq!(size("Wide"), (2, 2));
        assert_eq!(size("Lone"), (0, 1));
        assert_eq!(size("Flag"), (4, 4));
        assert_eq!(size("CFlag"), (4, 4));
        // A C `int` tag, then a union of {}, {f32} and {f64, u8}: 8 + 16.
        assert_eq!(size("Shape"), (24, 8));
        // A union of {u8}, {u8, u32} and {u8, u16, u16}: 8 bytes, aligned to 4.
        assert_eq!(size("Op"), (8, 4));
        // With data and no `repr`, the layout is rustc's choice.
        let module = vec!["k".to_string()];
        let scope = Scope::new(&l, &module);
        assert_eq!(scope.layout(&syn::parse_str("Free").unwrap()), None);
        let cell = layout_of(&l, "Cell");
        assert_eq!(
            (
                cell.field("shape").unwrap().offset,
                cell.field("weight").unwrap().offset
            ),
            (8, 32)
        );
        assert_eq!(cell.size, 40);
    }

    #[test]
    fn repr_c_padding_and_alignment() {
        let l = layouts(
            "#[repr(C)] struct P { x: f32, y: f32, z: f32, vx: f32, vy: f32, vz: f32 }
             #[repr(C, align(16))] struct F4 { x: f32, y: f32, z: f32, w: f32 }
             #[repr(C)] struct Mixed { a: u8, b: f64, c: u16 }
             #[repr(C)] struct Nested { p: (u8, u32), arr: [u16; 3], inner: F4 }",
        );
        let p = layout_of(&l, "P");
        assert_eq!((p.size, p.align, p.field("vx").unwrap().offset), (24, 4, 12));
        assert!(!p.is_single_access());
        let f4 = layout_of(&l, "F4");
        assert_eq!((f4.size, f4.align), (16, 16));
        assert!(f4.is_single_access());
        let m = layout_of(&l, "Mixed");
        assert_eq!(
            (m.size, m.field("b").unwrap().offset, m.field("c").unwrap().offset),
            (24, 8, 16)
        );
        let n = layout_of(&l, "Nested");
        assert_eq!(n.field("inner").unwrap().offset, 16);
        assert_eq!(n.size, 32);
        assert_eq!(n.leaves()[1], ("p.1".to_string(), 4, 4));
    }

    #[test]
    fn arrays_with_const_lengths_and_wrappers() {
        let l = layouts(
            "const LEN: usize = 1 << 20; const TWICE: usize = LEN * 2; struct A { x: [f32; LEN], y: [f32; TWICE] }",
        );
        // rustc puts the larger array first (`offset_of!`: y at 0, x at 8 MiB).
        let a = layout_of(&l, "A");
        assert_eq!(a.field("x").unwrap().offset, 8 << 20);
        assert_eq!(a.size, 12 << 20);
        assert_eq!(layout_of(&l, "MaybeUninit<[f32; 33]>").size, 132);
        assert_eq!(layout_of(&l, "[[f32; 33]; 32]").size, 33 * 32 * 4);
    }

    #[test]
    fn vector_types() {
        let l = layouts("");
        assert_eq!(layout_of(&l, "glam::Vec4").align, 16);
        assert_eq!(layout_of(&l, "Vec3").size, 12);
        assert_eq!(layout_of(&l, "vek::Vec3<f64>").size, 24);
        assert_eq!(layout_of(&l, "UVec2").size, 8);
    }
}
