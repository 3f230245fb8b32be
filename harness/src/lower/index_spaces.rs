//! cuda-oxide `DisjointSlice`s over index spaces beyond the flat ones.
//!
//! `Runtime2DIndex` binds the slice's row width on the host (`SpaceLayout::Data = u32`): the
//! twin takes it as one more scalar after the slice, `{slice}_row_width`, which the driver fills
//! like any other integer parameter (grid.x * block.x unless the launch names it), so every
//! runtime-width slice of a launch shares one width. `index_2d_runtime(&s)` resolves the thread's
//! `(row, col)` against that width (`row * width + col`, no witness where `col >= width`), which
//! is where `get_mut` of any slice of the launch lands. `LinearTiles` and `RowMajorTiles` carry
//! their geometry in the type; their slices are plain slices, and the tile views are refused
//! where used.

use super::oxide::{generic_args, row_width_name};
use super::{Context, Lowered, Param, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::{Expr, Type};

/// The index space of a `DisjointSlice<T, Space>`, by its last segment.
pub(super) fn space_of(ty: &Type) -> Option<String> {
    let Type::Path(p) = ty else { return None };
    if last_segment(&p.path) != "DisjointSlice" {
        return None;
    }
    generic_args(&p.path)
        .into_iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(Type::Path(t)) => Some(last_segment(&t.path)),
            _ => None,
        })
        .nth(1)
}

impl Context<'_> {
    /// The scalar a kernel's slice parameter carries after its pointer and length: the row
    /// width of a `Runtime2DIndex` slice.
    pub(super) fn space_data_param(&self, name: &str, ty: &Type, scope: &mut Scope) -> Option<Param> {
        let runtime = matches!(space_of(ty).as_deref(), Some("Runtime2DIndex" | "RuntimeRowMajorTiles"));
        if !self.oxide.enabled || !runtime {
            return None;
        }
        let width = row_width_name(name);
        scope.declared.entry(width.clone()).or_insert(1);
        scope.oxide.row_widths.insert(name.to_string());
        Some(Param::Scalar {
            name: width,
            c_type: "unsigned int".to_string(),
            float: false,
        })
    }

    /// The C name of a `Runtime2DIndex` slice named by `e` (`s` or `&s`).
    fn runtime_slice(&self, e: &Expr, scope: &Scope) -> Option<String> {
        match e {
            Expr::Reference(r) => self.runtime_slice(&r.expr, scope),
            Expr::Paren(p) => self.runtime_slice(&p.expr, scope),
            Expr::Path(p) => {
                let name = scope.lookup(&p.path.get_ident()?.to_string());
                scope.oxide.row_widths.contains(&name).then_some(name)
            }
            _ => None,
        }
    }

    /// `thread::index_2d_runtime(&s)`: the thread's cell in `s`'s grid, or all ones.
    pub(super) fn runtime_index_call(&self, c: &syn::ExprCall, scope: &Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        // `thread::index_1d_u32(launch_context)`: the launch contract (one dimension, grid.x *
        // block.x within 32 bits) makes it a witness for every thread, so no option.
        if last_segment(&p.path) == "index_1d_u32" && c.args.len() == 1 {
            return Ok(Some(
                "((unsigned int)(blockIdx.x * blockDim.x + threadIdx.x))".to_string(),
            ));
        }
        // `thread::coord_2d_u32(launch_context)`: a contracted 2D launch's 32-bit (row, col).
        if last_segment(&p.path) == "coord_2d_u32" && c.args.len() == 1 {
            return Ok(Some("kl::oxide_coord_2d_u32()".to_string()));
        }
        if last_segment(&p.path) != "index_2d_runtime" || c.args.len() != 1 {
            return Ok(None);
        }
        match self.runtime_slice(&c.args[0], scope) {
            // Its tiles are reached only through `tile_2d32_rt`.
            Some(slice) if scope.oxide.runs.matrices.runtime_grids.contains_key(&slice) => {
                self.fail(c, "`index_2d_runtime` of a slice over `RuntimeRowMajorTiles`")
            }
            Some(slice) => Ok(Some(format!("kl::oxide_index_2d({})", row_width_name(&slice)))),
            None => self.fail(c, "`index_2d_runtime` of a slice whose row width is not known here"),
        }
    }

    /// `s.row_width()` of a `Runtime2DIndex` slice.
    pub(super) fn row_width_method(&self, m: &syn::ExprMethodCall, scope: &Scope) -> Option<String> {
        if m.method != "row_width" || !m.args.is_empty() {
            return None;
        }
        self.runtime_slice(&m.receiver, scope).map(|s| row_width_name(&s))
    }
}

/// Says, for each row width a launch passes with a `Runtime2DIndex` slice, its value and what
/// it stands for.
pub fn space_data_notes(params: &[Param], values: &std::collections::BTreeMap<String, i64>) -> Vec<String> {
    params
        .windows(2)
        .filter_map(|pair| match pair {
            [Param::Slice { name: slice, .. }, Param::Scalar { name, .. }] if *name == row_width_name(slice) => {
                let value = values.get(name).copied().unwrap_or(1);
                Some(format!(
                    "`{slice}` is a `DisjointSlice` over `Runtime2DIndex`: its host-bound row width is passed as `{name}` = {value} (grid.x * block.x unless scaled down), the same for every such slice of the launch"
                ))
            }
            _ => None,
        })
        .collect()
}

impl Context<'_> {
    /// `if let (Some(a), Some(b)) = (x, y)`: one check of every option, then the bindings.
    /// Each option is a `ThreadIndex` option (a call or a name bound to one) or `get(i)` of a
    /// slice; building them reads no memory, so checking all first keeps the accesses.
    pub(super) fn tuple_let_condition(&self, l: &syn::ExprLet, scope: &mut Scope) -> Lowered<Option<String>> {
        let syn::Pat::Tuple(pats) = &*l.pat else {
            return Ok(None);
        };
        let Expr::Tuple(values) = &*l.expr else {
            return self.fail(
                &l.expr,
                "`if let` of a tuple pattern over other than a tuple of options",
            );
        };
        if pats.elems.len() != values.elems.len() {
            return self.fail(&l.pat, "`if let` of a tuple pattern of another arity");
        }
        let mut checks = Vec::new();
        let mut bindings = Vec::new();
        for (pat, value) in pats.elems.iter().zip(&values.elems) {
            let binding = match pat {
                syn::Pat::TupleStruct(t) if t.path.is_ident("Some") && t.elems.len() == 1 => match &t.elems[0] {
                    syn::Pat::Ident(b) if b.subpat.is_none() => Some((b.ident.to_string(), false)),
                    // `Some(&s)`: the element's value, read once where the binding is made.
                    syn::Pat::Reference(r) if r.mutability.is_none() => match &*r.pat {
                        syn::Pat::Ident(b) if b.subpat.is_none() && b.by_ref.is_none() => {
                            Some((b.ident.to_string(), true))
                        }
                        other => return self.fail(other, "only names are bound in `if let`"),
                    },
                    syn::Pat::Wild(_) => None,
                    other => return self.fail(other, "only names are bound in `if let`"),
                },
                other => return self.fail(other, "only `Some(..)` is lowered in a tuple `if let`"),
            };
            let index_name = matches!(value, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.oxide.indices.contains(&scope.lookup(&i.to_string()))));
            let (check, element, index) = if index_name {
                let name = self.expr(value, scope)?;
                (format!("({name} != ~0ull)"), name, true)
            } else {
                let index = super::oxide::is_index_option_call(value);
                let (check, element) = self.option_of_element(value, scope)?;
                (check, element, index)
            };
            checks.push(format!("({check})"));
            bindings.push((binding, element, index, value));
        }
        let mut out = format!("if ({}) {{\n", checks.join(" && "));
        for (binding, element, index, value) in bindings {
            let Some((binding, by_value)) = binding else { continue };
            let name = scope.bind(&binding);
            if by_value && !index {
                out.push_str(&format!("auto {name} = (*{element});\n"));
                continue;
            }
            if index {
                scope.oxide.indices.insert(name.clone());
            } else {
                scope.references.insert(name.clone());
                self.oxide_bound(&name, value, scope);
            }
            out.push_str(&format!("auto {name} = {element};\n"));
        }
        Ok(Some(out))
    }
}

impl Context<'_> {
    /// `let a = match s.get_mut(i) { Some(a) => a, None => return };`: as
    /// `let Some(a) = s.get_mut(i) else { return };`, a check, the diverging arm, then `a`.
    pub(super) fn match_let(&self, local: &syn::Local, scope: &mut Scope) -> Lowered<Option<String>> {
        let (syn::Pat::Ident(binding), Some(init)) = (&local.pat, &local.init) else {
            return Ok(None);
        };
        if init.diverge.is_some() || binding.subpat.is_some() {
            return Ok(None);
        }
        let Expr::Match(m) = &*init.expr else { return Ok(None) };
        let [first, second] = m.arms.as_slice() else {
            return Ok(None);
        };
        let arm_is = |arm: &syn::Arm, some: bool| match &arm.pat {
            syn::Pat::TupleStruct(t) if some && t.path.is_ident("Some") && t.elems.len() == 1 => {
                match (&t.elems[0], &*arm.body) {
                    (syn::Pat::Ident(inner), Expr::Path(p)) => p.path.is_ident(&inner.ident),
                    _ => false,
                }
            }
            syn::Pat::Ident(i) if !some => i.ident == "None",
            syn::Pat::Path(p) if !some => p.path.is_ident("None"),
            _ => false,
        };
        let (none, ok) = if arm_is(first, true) && arm_is(second, false) {
            (second, true)
        } else if arm_is(second, true) && arm_is(first, false) {
            (first, true)
        } else {
            (first, false)
        };
        let diverges = matches!(&*none.body, Expr::Return(_) | Expr::Continue(_) | Expr::Break(_));
        if !ok || !diverges || m.arms.iter().any(|a| a.guard.is_some()) {
            return Ok(None);
        }
        let (condition, element) = self.option_of_element(&m.expr, scope)?;
        let otherwise = self.expr_stmt(&none.body, scope)?;
        let name = scope.bind(&binding.ident.to_string());
        scope.references.insert(name.clone());
        self.oxide_bound(&name, &m.expr, scope);
        self.array_bound(&name, &m.expr, scope);
        Ok(Some(format!(
            "if (!({condition})) {{ {otherwise} }}\nauto {name} = {element};\n"
        )))
    }
}

impl Context<'_> {
    /// Refuses a tile view (`s.tile_thread32(i)`, `s.thread_run32(i)`, ..) of a tile slice by
    /// name: its element walk is the library's and is not lowered.
    pub(super) fn tile_view(&self, e: &Expr, scope: &Scope) -> Lowered<()> {
        let Expr::MethodCall(m) = e else { return Ok(()) };
        let Expr::Path(p) = &*m.receiver else { return Ok(()) };
        let Some(ident) = p.path.get_ident() else { return Ok(()) };
        let Some(space) = scope.oxide.tiles.get(&scope.lookup(&ident.to_string())) else {
            return Ok(());
        };
        if matches!(m.method.to_string().as_str(), "get" | "get_mut") {
            return Ok(());
        }
        // Run and tile views whose geometry the slice's type gave are lowered in place.
        let name = scope.lookup(&ident.to_string());
        let runs = &scope.oxide.runs;
        let known = match m.method.to_string().as_str() {
            "thread_run32" | "tile_thread32" | "grid_stride_runs32" => runs.widths.contains_key(&name),
            "tile_2d32" => runs.grids.contains_key(&name),
            "tile_2d32_rt" => runs.matrices.runtime_grids.contains_key(&name),
            _ => false,
        };
        if known {
            return Ok(());
        }
        self.fail(
            m,
            format!(
                "the tile view `{ident}.{}(..)` of a `DisjointSlice` over `{space}` is not lowered",
                m.method
            ),
        )
    }
}

impl Context<'_> {
    /// Records that `name` refers to an array element of a `DisjointSlice` (`out.get_mut(i)`),
    /// so that its own `get(i)` / `get_mut(i)` check against the array's length.
    fn array_bound(&self, name: &str, value: &Expr, scope: &mut Scope) {
        let Expr::MethodCall(m) = value else { return };
        if !matches!(m.method.to_string().as_str(), "get" | "get_mut") {
            return;
        }
        let Expr::Path(p) = &*m.receiver else { return };
        let Some(ident) = p.path.get_ident() else { return };
        if let Some(length) = scope
            .oxide
            .array_elements
            .get(&scope.lookup(&ident.to_string()))
            .cloned()
        {
            scope.oxide.arrays.insert(name.to_string(), length);
        }
    }

    /// `a.get_mut(i)` of a reference to an array element: the bounds check against the
    /// array's length and a reference to the array's element.
    pub(super) fn option_of_array_element(
        &self,
        m: &syn::ExprMethodCall,
        scope: &mut Scope,
    ) -> Lowered<Option<(String, String)>> {
        if !(matches!(m.method.to_string().as_str(), "get" | "get_mut") && m.args.len() == 1) {
            return Ok(None);
        }
        let Expr::Path(p) = &*m.receiver else { return Ok(None) };
        let Some(ident) = p.path.get_ident() else {
            return Ok(None);
        };
        let Some(length) = scope.oxide.arrays.get(&scope.lookup(&ident.to_string())).cloned() else {
            return Ok(None);
        };
        let base = self.expr(&m.receiver, scope)?;
        let index = self.expr(&m.args[0], scope)?;
        Ok(Some((
            format!("(unsigned long long)({index}) < (unsigned long long)({length})"),
            format!("kl::make_ref(&(*{base})[{index}])"),
        )))
    }
}
