//! cuda-oxide's run views of a `DisjointSlice` over `LinearTiles<N>`: `thread_run32(i)` (tile
//! `i`, whole or clipped at the slice's end) and `grid_stride_runs32(i)` (tiles `i`, `i + period`,
//! .. with period gridDim.x * blockDim.x). As in the library, a run starts at `tile * N` and
//! holds `min(N, len - start)` elements; there is none at or past the end. `run.at(k)` is the
//! element `start + k` where `k < len`, read and written in place, so every access keeps the
//! address, width and lanes of the Rust source.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use std::collections::HashMap;
use std::fmt::Write;
use syn::Expr;

/// `kl::oxide_run` and its constructors; spliced into the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! thread_runs_prelude {
    () => {
        r#"namespace kl {
// `ThreadRunMut32`: `count` elements from `ptr`, fewer than N when clipped; none is count 0.
template <typename T, unsigned long long N> struct oxide_run {
  T* ptr;
  unsigned int count;
  __device__ unsigned int len() const { return count; }
  __device__ bool is_clipped() const { return count != N; }
};
// `checked_run_bounds`: the run of tile `tile`, none where it starts at or past the end.
template <unsigned long long N, typename T>
__device__ oxide_run<T, N> oxide_thread_run(T* ptr, unsigned long long len, unsigned long long tile) {
  if (N == 0 || N > 0xffffffffull || (tile != 0 && tile > ~0ull / N)) return {ptr, 0u};
  unsigned long long start = tile * N;
  if (start >= len || start > 0xffffffffull) return {ptr, 0u};
  unsigned long long available = len - start;
  return {ptr + start, (unsigned int)(available < N ? available : N)};
}
// `GridStrideRuns32`: the runs of tiles `next_tile`, `next_tile + period`, ...
template <typename T, unsigned long long N> struct oxide_run_walk {
  T* ptr;
  unsigned long long len, next_tile, period;
  __device__ oxide_run<T, N> next_run() {
    if (period == 0) return {ptr, 0u};
    oxide_run<T, N> run = oxide_thread_run<N>(ptr, len, next_tile);
    if (run.count == 0 || next_tile > ~0ull - period) return {ptr, 0u};
    next_tile += period;
    return run;
  }
};
// `tile_thread32`: the whole tile `thread` (`checked_linear_tile_start`), none when any of its
// N elements lies past the end or its last offset passes u32.
template <unsigned long long N, typename T>
__device__ oxide_run<T, N> oxide_whole_tile(T* ptr, unsigned long long len, unsigned int thread) {
  if (N == 0 || N > 0xffffffffull) return {ptr, 0u};
  unsigned int width = (unsigned int)N, last_offset = width - 1u;
  if (thread > (0xffffffffu - last_offset) / width) return {ptr, 0u};
  unsigned int start = thread * width;
  if ((unsigned long long)(start + last_offset) >= len) return {ptr, 0u};
  return {ptr + start, width};
}
// `ThreadCoord2D32` of a contracted 2D launch: 32-bit row (y) and column (x).
struct oxide_coord32 {
  unsigned int r, c;
  __device__ unsigned int row() const { return r; }
  __device__ unsigned int col() const { return c; }
};
__device__ inline oxide_coord32 oxide_coord_2d_u32() {
  return {blockIdx.y * blockDim.y + threadIdx.y, blockIdx.x * blockDim.x + threadIdx.x};
}
// `tile_2d32` over `RowMajorTiles<R, C, S>` (`checked_row_major_tile_start`): the whole R x C
// tile at (row * R, col * C), none when it wraps a row, overflows u32 or passes the end.
__device__ inline unsigned long long oxide_linear_2d(unsigned int row, unsigned int stride, unsigned int col) {
  if (stride == 0u || row > (0xffffffffu - col) / stride) return ~0ull;
  return (unsigned long long)(row * stride + col);
}
template <unsigned long long R, unsigned long long C, unsigned long long S, typename T>
__device__ oxide_run<T, R * C> oxide_row_major_tile(T* ptr, unsigned long long len, oxide_coord32 at) {
  if (R == 0 || C == 0 || S == 0 || R > 0xffffffffull || C > 0xffffffffull || S > 0xffffffffull || S < C)
    return {ptr, 0u};
  unsigned int rows = (unsigned int)R, cols = (unsigned int)C, stride = (unsigned int)S;
  if (at.r > (0xffffffffu - (rows - 1u)) / rows || at.c > (0xffffffffu - (cols - 1u)) / cols) return {ptr, 0u};
  unsigned int start_row = at.r * rows, start_col = at.c * cols;
  unsigned int last_row = start_row + (rows - 1u), last_col = start_col + (cols - 1u);
  if (last_col >= stride) return {ptr, 0u};
  unsigned long long start = oxide_linear_2d(start_row, stride, start_col);
  unsigned long long last = oxide_linear_2d(last_row, stride, last_col);
  if (start == ~0ull || last == ~0ull || last >= len) return {ptr, 0u};
  return {ptr + start, (unsigned int)(R * C)};
}
template <unsigned long long N, typename T>
__device__ oxide_run_walk<T, N> oxide_grid_stride_runs(T* ptr, unsigned long long len, unsigned long long tile) {
  return {ptr, len, tile, (unsigned long long)gridDim.x * blockDim.x};
}
}
"#
    };
}

/// The name `e` is (`x`), looked up in the scope.
fn name_of(e: &Expr, scope: &Scope) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| scope.lookup(&i.to_string())),
        Expr::Paren(p) => name_of(&p.expr, scope),
        _ => None,
    }
}

impl Context<'_> {
    /// Records the tile width of a `DisjointSlice<T, LinearTiles<N>>` parameter.
    pub(super) fn note_tile_width(&self, name: &str, space: &syn::TypePath, scope: &mut Scope) -> Lowered<()> {
        self.note_runtime_grid(name, space, scope)?;
        if last_segment(&space.path) == "RowMajorTiles" {
            let args = super::oxide::generic_args(&space.path);
            if let [rows, cols, stride] = args.as_slice() {
                let grid = [
                    self.generic_value(rows)?,
                    self.generic_value(cols)?,
                    self.generic_value(stride)?,
                ];
                scope.oxide.runs.grids.insert(name.to_string(), grid);
            }
            return Ok(());
        }
        if last_segment(&space.path) != "LinearTiles" {
            return Ok(());
        }
        if let Some(width) = super::oxide::generic_args(&space.path).first() {
            let width = self.generic_value(width)?;
            scope.oxide.runs.widths.insert(name.to_string(), width);
        }
        Ok(())
    }

    /// `s.thread_run32(i)` and `run.at(k)`, options: the check and the value.
    pub(super) fn run_option(&self, e: &Expr, scope: &mut Scope) -> Lowered<Option<(String, String)>> {
        let Expr::MethodCall(m) = e else { return Ok(None) };
        if let Some(view) = self.matrix_option(m, scope)? {
            return Ok(Some(view));
        }
        let Some(receiver) = name_of(&m.receiver, scope) else {
            return Ok(None);
        };
        match (m.method.to_string().as_str(), m.args.len()) {
            ("thread_run32", 1) => {
                let Some(width) = scope.oxide.runs.widths.get(&receiver).cloned() else {
                    return Ok(None);
                };
                let tile = self.expr(&m.args[0], scope)?;
                // Building a run reads no memory, so the check may build it once more.
                let run =
                    format!("kl::oxide_thread_run<{width}>({receiver}, {receiver}_len, (unsigned long long)({tile}))");
                Ok(Some((format!("({run}.count != 0u)"), run)))
            }
            // `element_thread32(i)` of a flat slice: the element `i` where `i < len`.
            ("element_thread32", 1)
                if scope.slices.contains(&receiver)
                    && !scope.oxide.runs.widths.contains_key(&receiver)
                    && !scope.oxide.row_widths.contains(&receiver) =>
            {
                let i = self.expr(&m.args[0], scope)?;
                Ok(Some((
                    format!("(unsigned long long)({i}) < {receiver}_len"),
                    format!("kl::make_ref({receiver} + ({i}))"),
                )))
            }
            ("tile_thread32", 1) => {
                let Some(width) = scope.oxide.runs.widths.get(&receiver).cloned() else {
                    return Ok(None);
                };
                let thread = self.expr(&m.args[0], scope)?;
                let tile =
                    format!("kl::oxide_whole_tile<{width}>({receiver}, {receiver}_len, (unsigned int)({thread}))");
                Ok(Some((format!("({tile}.count != 0u)"), tile)))
            }
            ("tile_2d32", 1) => {
                let Some([rows, cols, stride]) = scope.oxide.runs.grids.get(&receiver).cloned() else {
                    return Ok(None);
                };
                let at = self.expr(&m.args[0], scope)?;
                let tile =
                    format!("kl::oxide_row_major_tile<{rows}, {cols}, {stride}>({receiver}, {receiver}_len, {at})");
                Ok(Some((format!("({tile}.count != 0u)"), tile)))
            }
            ("at", 1) if scope.oxide.runs.runs.contains(&receiver) => {
                let k = self.expr(&m.args[0], scope)?;
                Ok(Some((
                    format!("(unsigned long long)({k}) < {receiver}.count"),
                    format!("kl::make_ref({receiver}.ptr + ({k}))"),
                )))
            }
            _ => Ok(None),
        }
    }

    /// Methods of runs, walks and run elements, and `s.grid_stride_runs32(i)`.
    pub(super) fn run_method(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        if let Some(view) = self.matrix_method(m, scope)? {
            return Ok(Some(view));
        }
        // `tile.at_const::<I>().read()` / `.write(v)`: element I of a whole tile, in place.
        if let Expr::MethodCall(inner) = &*m.receiver {
            if let Some(element) = self.tile_element(inner, scope)? {
                return match (m.method.to_string().as_str(), m.args.len()) {
                    ("read", 0) => Ok(Some(format!("(*{element})"))),
                    ("write", 1) => Ok(Some(format!("(*{element} = {})", self.expr(&m.args[0], scope)?))),
                    _ => Ok(None),
                };
            }
        }
        if let Some(element) = self.tile_element(m, scope)? {
            return Ok(Some(element));
        }
        let Some(receiver) = name_of(&m.receiver, scope) else {
            return Ok(None);
        };
        let views = &scope.oxide.runs;
        let method = m.method.to_string();
        if views.runs.contains(&receiver) {
            return match (method.as_str(), m.args.len()) {
                ("len" | "is_clipped", 0) => Ok(Some(format!("{receiver}.{method}()"))),
                ("is_empty", 0) => Ok(Some("false".to_string())),
                _ => self.fail(m, format!("method `{method}` of a thread run is not lowered")),
            };
        }
        if views.elements.contains(&receiver) {
            return match (method.as_str(), m.args.len()) {
                ("read", 0) => Ok(Some(format!("(*{receiver})"))),
                ("write", 1) => Ok(Some(format!("(*{receiver} = {})", self.expr(&m.args[0], scope)?))),
                ("get" | "get_mut", 0) => Ok(Some(receiver)),
                _ => Ok(None),
            };
        }
        if views.walks.contains(&receiver) {
            return match (method.as_str(), m.args.len()) {
                ("period", 0) => Ok(Some(format!("{receiver}.period"))),
                _ => self.fail(
                    m,
                    format!("method `{method}` of a grid-stride walk is taken only by `while let`"),
                ),
            };
        }
        if method != "grid_stride_runs32" || m.args.len() != 1 {
            return Ok(None);
        }
        let Some(width) = views.widths.get(&receiver).cloned() else {
            return Ok(None);
        };
        let tile = self.expr(&m.args[0], scope)?;
        Ok(Some(format!(
            "kl::oxide_grid_stride_runs<{width}>({receiver}, {receiver}_len, (unsigned long long)({tile}))"
        )))
    }

    /// `tile.at_const::<I>()` of a whole tile (`StaticViewMut32`): its element I.
    fn tile_element(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        if m.method != "at_const" || !m.args.is_empty() {
            return Ok(None);
        }
        let Some(tile) = name_of(&m.receiver, scope).filter(|t| scope.oxide.runs.runs.contains(t)) else {
            return Ok(None);
        };
        let stride = scope.oxide.runs.strides.get(&tile).cloned();
        let wanted = if stride.is_some() { 2 } else { 1 };
        let Some(turbofish) = m.turbofish.as_ref().filter(|t| t.args.len() == wanted) else {
            return self.fail(m, "`at_const` of a tile without its constant indices is not lowered");
        };
        let indices = turbofish
            .args
            .iter()
            .map(|a| self.generic_value(a))
            .collect::<Lowered<Vec<_>>>()?;
        // A 2D tile's element (row, col) lies `row` strides below its first.
        let offset = match (&stride, indices.as_slice()) {
            (Some(stride), [row, col]) => format!("({row}) * ({stride}) + ({col})"),
            (_, [index]) => format!("({index})"),
            _ => return self.fail(m, "`at_const` index is not lowered"),
        };
        Ok(Some(format!("kl::make_ref({tile}.ptr + {offset})")))
    }

    /// Records what `name`, bound from `value`, holds: a run, a walk or a run's element.
    pub(super) fn run_bound(&self, name: &str, value: &Expr, scope: &mut Scope) {
        self.matrix_bound(name, value, scope);
        let Expr::MethodCall(m) = value else { return };
        let Some(receiver) = name_of(&m.receiver, scope) else {
            return;
        };
        let flat = scope.slices.contains(&receiver);
        let views = &mut scope.oxide.runs;
        let method = m.method.to_string();
        let run = (matches!(method.as_str(), "thread_run32" | "tile_thread32") && views.widths.contains_key(&receiver))
            || (method == "next_run" && views.walks.contains(&receiver));
        if method == "tile_2d32" {
            if let Some([_, _, stride]) = views.grids.get(&receiver).cloned() {
                views.runs.insert(name.to_string());
                views.strides.insert(name.to_string(), stride);
                scope.references.remove(name);
            }
        } else if run {
            views.runs.insert(name.to_string());
            scope.references.remove(name);
        } else if method == "grid_stride_runs32" && views.widths.contains_key(&receiver) {
            views.walks.insert(name.to_string());
        } else if (method == "at" && views.runs.contains(&receiver)) || (method == "element_thread32" && flat) {
            views.elements.insert(name.to_string());
        }
    }

    /// `while let Some(run) = walk.next_run() { .. }`: each turn takes the next run once and
    /// stops at none.
    pub(super) fn run_walk(&self, w: &syn::ExprWhile, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Let(l) = &*w.cond else { return Ok(None) };
        let Expr::MethodCall(m) = &*l.expr else { return Ok(None) };
        let Some(walk) = name_of(&m.receiver, scope) else {
            return Ok(None);
        };
        if m.method != "next_run" || !scope.oxide.runs.walks.contains(&walk) {
            return Ok(None);
        }
        let binding = match &*l.pat {
            syn::Pat::TupleStruct(t) if t.path.is_ident("Some") && t.elems.len() == 1 => match &t.elems[0] {
                syn::Pat::Ident(b) if b.subpat.is_none() => b.ident.to_string(),
                other => return self.fail(other, "only `Some(name)` is lowered in `while let`"),
            },
            other => return self.fail(other, "only `Some(name)` is lowered in `while let`"),
        };
        scope.names.push(HashMap::new());
        let name = scope.bind(&binding);
        scope.oxide.runs.runs.insert(name.clone());
        let body = self.block(&w.body, scope);
        scope.names.pop();
        let mut out = format!("{}while (true) {{\n", super::stmt::ROLLED);
        let _ = writeln!(out, "auto {name} = {walk}.next_run();\nif ({name}.count == 0u) break;");
        out.push_str(&body?);
        out.push_str("}\n");
        Ok(Some(out))
    }

    /// `let x = match s.thread_run32(i) { None => return, Some(run) => value };`: the check, the
    /// diverging arm, the run, then `x` from the arm's value.
    pub(super) fn run_match_let(&self, local: &syn::Local, scope: &mut Scope) -> Lowered<Option<String>> {
        let (syn::Pat::Ident(binding), Some(init)) = (&local.pat, &local.init) else {
            return Ok(None);
        };
        if init.diverge.is_some() || binding.subpat.is_some() {
            return Ok(None);
        }
        let Expr::Match(m) = &*init.expr else { return Ok(None) };
        let Expr::MethodCall(call) = &*m.expr else {
            return Ok(None);
        };
        let tiled = name_of(&call.receiver, scope).is_some_and(|r| scope.oxide.runs.widths.contains_key(&r));
        if call.method != "thread_run32" || !tiled || m.arms.len() != 2 || m.arms.iter().any(|a| a.guard.is_some()) {
            return Ok(None);
        }
        let mut some = None;
        let mut none = None;
        for arm in &m.arms {
            match &arm.pat {
                syn::Pat::TupleStruct(t) if t.path.is_ident("Some") && t.elems.len() == 1 => match &t.elems[0] {
                    syn::Pat::Ident(b) if b.subpat.is_none() => some = Some((b.ident.to_string(), &arm.body)),
                    _ => return Ok(None),
                },
                syn::Pat::Ident(i) if i.ident == "None" => none = Some(&arm.body),
                syn::Pat::Path(p) if p.path.is_ident("None") => none = Some(&arm.body),
                _ => return Ok(None),
            }
        }
        let (Some((run, value)), Some(otherwise)) = (some, none) else {
            return Ok(None);
        };
        if !matches!(&**otherwise, Expr::Return(_) | Expr::Continue(_) | Expr::Break(_)) {
            return Ok(None);
        }
        let Some((condition, element)) = self.run_option(&m.expr, scope)? else {
            return Ok(None);
        };
        let otherwise = self.expr_stmt(otherwise, scope)?;
        let run = scope.bind(&run);
        scope.oxide.runs.runs.insert(run.clone());
        let mut out = format!("if (!({condition})) {{ {otherwise} }}\nauto {run} = {element};\n");
        let rebound = syn::Local {
            attrs: Vec::new(),
            let_token: Default::default(),
            pat: local.pat.clone(),
            init: Some(syn::LocalInit {
                eq_token: Default::default(),
                expr: value.clone(),
                diverge: None,
            }),
            semi_token: Default::default(),
        };
        out.push_str(&self.local(&rebound, scope)?);
        Ok(Some(out))
    }
}
