//! cuda-oxide's read views of a matrix held in a flat slice (`MatrixView32`: `row`, `col`,
//! `zip_exact`, `get`, `for (x, y) in pair`) and the write tiles of a `DisjointSlice` over
//! `RuntimeRowMajorTiles<R, C>` (`tile_2d32_rt`), whose row width the host binds beside the
//! slice as for `Runtime2DIndex`. As in the library, a strip is checked once where it is made
//! and each element is read at its own address (`ptr + i` along a row, `ptr + i * stride` down
//! a column) only where `i < len`; a strip that is none has length 0, as `empty()` has.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use std::collections::HashMap;
use syn::Expr;

/// `kl::oxide_matrix`, `kl::oxide_strip`, `kl::oxide_zip` and the runtime-width tile; spliced
/// into the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! matrix_views_prelude {
    () => {
        r#"namespace kl {
// `MatrixView32`: a flat slice read as rows of `stride` elements.
template <typename T> struct oxide_matrix {
  const T* ptr;
  unsigned long long len;
  unsigned int stride;
};
template <typename T>
__device__ oxide_matrix<T> oxide_matrix_new(const T* ptr, unsigned long long len, unsigned int stride) {
  return {ptr, len, stride};
}
// `RowView32` (step 1) and `ColView32` (step = the row width): `len` elements `step` apart.
template <typename T> struct oxide_strip {
  const T* ptr;
  unsigned int step;
  unsigned int len;
  __device__ option<T> get(unsigned int i) const {
    if (i < len) return some(ptr[(unsigned long long)i * step]);
    return option<T>{false, T{}};
  }
};
// `checked_row_band_start`: the first `cols` elements of row `row`, none (length 0) otherwise.
template <typename T>
__device__ oxide_strip<T> oxide_matrix_row(const oxide_matrix<T>& m, unsigned int row, unsigned int cols) {
  if (cols == 0u || cols > m.stride) return {m.ptr, 1u, 0u};
  unsigned long long start = (unsigned long long)row * m.stride;
  if (start + (cols - 1u) >= m.len) return {m.ptr, 1u, 0u};
  return {m.ptr + start, 1u, cols};
}
// `checked_col_band_start`: the first `rows` elements of column `col`, none otherwise.
template <typename T>
__device__ oxide_strip<T> oxide_matrix_col(const oxide_matrix<T>& m, unsigned int col, unsigned int rows) {
  if (rows == 0u || col >= m.stride) return {m.ptr, m.stride, 0u};
  if ((unsigned long long)(rows - 1u) * m.stride + col >= m.len) return {m.ptr, m.stride, 0u};
  return {m.ptr + col, m.stride, rows};
}
// `ZipView32`: a row and a column of one length, walked by one counter.
template <typename T> struct oxide_zip {
  const T* row_ptr;
  const T* col_ptr;
  unsigned int col_stride;
  unsigned int len;
};
template <typename T> __device__ oxide_zip<T> oxide_zip_exact(const oxide_strip<T>& row, const oxide_strip<T>& col) {
  return {row.ptr, col.ptr, col.step, row.len};
}
// `tile_2d32_rt` over `RuntimeRowMajorTiles<R, C>` (`checked_runtime_tile_start`): the whole
// R x C tile at (row * R, col * C) under the slice's row width, none when it wraps a row or
// passes the end.
template <unsigned long long R, unsigned long long C, typename T>
__device__ oxide_run<T, R * C> oxide_runtime_tile(T* ptr, unsigned long long len, unsigned int width, oxide_coord32 at) {
  if (R == 0 || C == 0 || R > 0xffffffffull || C > 0xffffffffull || width == 0u) return {ptr, 0u};
  unsigned long long stride = width;
  unsigned long long start_row = (unsigned long long)at.r * R, start_col = (unsigned long long)at.c * C;
  unsigned long long last_row = start_row + (R - 1), last_col = start_col + (C - 1);
  if (last_col >= stride || last_row > (~0ull - last_col) / stride) return {ptr, 0u};
  if (last_row * stride + last_col >= len) return {ptr, 0u};
  return {ptr + (start_row * stride + start_col), (unsigned int)(R * C)};
}
}
"#
    };
}

/// The name `e` is (`x`, `&x`, `(x)`), looked up in the scope.
fn name_of(e: &Expr, scope: &Scope) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| scope.lookup(&i.to_string())),
        Expr::Paren(p) => name_of(&p.expr, scope),
        Expr::Reference(r) => name_of(&r.expr, scope),
        _ => None,
    }
}

/// `RowView32::empty()` or `ColView32::empty()`.
fn is_empty_strip(e: &Expr) -> bool {
    let Expr::Call(c) = e else { return false };
    let Expr::Path(p) = &*c.func else { return false };
    let owner = p.path.segments.iter().rev().nth(1).map(|s| s.ident.to_string());
    c.args.is_empty() && last_segment(&p.path) == "empty" && matches!(owner.as_deref(), Some("RowView32" | "ColView32"))
}

impl Context<'_> {
    /// Records the tile shape of a `DisjointSlice<T, RuntimeRowMajorTiles<R, C>>`.
    pub(super) fn note_runtime_grid(&self, name: &str, space: &syn::TypePath, scope: &mut Scope) -> Lowered<()> {
        if last_segment(&space.path) != "RuntimeRowMajorTiles" {
            return Ok(());
        }
        if let [rows, cols] = super::oxide::generic_args(&space.path).as_slice() {
            let shape = [self.generic_value(rows)?, self.generic_value(cols)?];
            scope.oxide.runs.matrices.runtime_grids.insert(name.to_string(), shape);
        }
        Ok(())
    }

    /// `MatrixView32::new(s, stride)` of a slice: its pointer, length and row width.
    pub(super) fn matrix_new(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let owner = p.path.segments.iter().rev().nth(1).map(|s| s.ident.to_string());
        if owner.as_deref() != Some("MatrixView32") || last_segment(&p.path) != "new" {
            return Ok(None);
        }
        let [slice, stride] = c.args.iter().collect::<Vec<_>>()[..] else {
            return self.fail(c, "`MatrixView32::new` of other than a slice and a width");
        };
        let Some(slice) = name_of(slice, scope).filter(|s| scope.slices.contains(s)) else {
            return self.fail(c, "`MatrixView32::new` of other than a slice by name");
        };
        let stride = self.expr(stride, scope)?;
        Ok(Some(format!(
            "kl::oxide_matrix_new({slice}, {slice}_len, (unsigned int)({stride}))"
        )))
    }

    /// Options of matrix views and runtime-width tiles: the check and the value. Building a
    /// view reads no memory, so the check may build it once more.
    pub(super) fn matrix_option(
        &self,
        m: &syn::ExprMethodCall,
        scope: &mut Scope,
    ) -> Lowered<Option<(String, String)>> {
        let Some(receiver) = name_of(&m.receiver, scope) else {
            return Ok(None);
        };
        let views = &scope.oxide.runs.matrices;
        match (m.method.to_string().as_str(), m.args.len()) {
            (method @ ("row" | "col"), 2) if views.matrices.contains(&receiver) => {
                let at = self.expr(&m.args[0], scope)?;
                let count = self.expr(&m.args[1], scope)?;
                let strip =
                    format!("kl::oxide_matrix_{method}({receiver}, (unsigned int)({at}), (unsigned int)({count}))");
                Ok(Some((format!("({strip}.len != 0u)"), strip)))
            }
            ("zip_exact", 1) if views.strips.contains(&receiver) => {
                let Some(col) = name_of(&m.args[0], scope).filter(|c| views.strips.contains(c)) else {
                    return self.fail(m, "`zip_exact` of other than a column view by name");
                };
                Ok(Some((
                    format!("({receiver}.len == {col}.len)"),
                    format!("kl::oxide_zip_exact({receiver}, {col})"),
                )))
            }
            ("tile_2d32_rt", 1) => {
                let Some([rows, cols]) = views.runtime_grids.get(&receiver).cloned() else {
                    return Ok(None);
                };
                let at = self.expr(&m.args[0], scope)?;
                let width = super::oxide::row_width_name(&receiver);
                let tile = format!("kl::oxide_runtime_tile<{rows}, {cols}>({receiver}, {receiver}_len, {width}, {at})");
                Ok(Some((format!("({tile}.count != 0u)"), tile)))
            }
            _ => Ok(None),
        }
    }

    /// Methods of matrix views that yield values: `get`, `len`, `stride`, and
    /// `m.row(..).unwrap_or(RowView32::empty())` (the strip itself: none is the empty strip).
    pub(super) fn matrix_method(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        if m.method == "unwrap_or" && m.args.len() == 1 && is_empty_strip(&m.args[0]) {
            if let Expr::MethodCall(inner) = &*m.receiver {
                if matches!(inner.method.to_string().as_str(), "row" | "col") {
                    if let Some((_, strip)) = self.matrix_option(inner, scope)? {
                        return Ok(Some(strip));
                    }
                }
            }
        }
        if let Expr::MethodCall(inner) = &*m.receiver {
            if inner.method == "row" || inner.method == "col" || inner.method == "zip_exact" {
                let known = name_of(&inner.receiver, scope).is_some_and(|r| {
                    let views = &scope.oxide.runs.matrices;
                    views.matrices.contains(&r) || views.strips.contains(&r)
                });
                if known {
                    return self.fail(
                        m,
                        format!("method `{}` of an optional matrix view is not lowered", m.method),
                    );
                }
            }
        }
        let Some(receiver) = name_of(&m.receiver, scope) else {
            return Ok(None);
        };
        // `n.get()` of a `Uniform<T>`: the launch-uniform value it wraps.
        if m.method == "get" && m.args.is_empty() && scope.types.get(&receiver).is_some_and(|t| t == "Uniform") {
            return Ok(Some(format!("{receiver}.value")));
        }
        let views = &scope.oxide.runs.matrices;
        let method = m.method.to_string();
        if views.coords.contains(&receiver) {
            return match (method.as_str(), m.args.len()) {
                ("row" | "col", 0) => Ok(Some(format!("{receiver}.{method}()"))),
                _ => self.fail(m, format!("method `{method}` of a thread coordinate is not lowered")),
            };
        }
        if views.strips.contains(&receiver) {
            return match (method.as_str(), m.args.len()) {
                ("get", 1) => {
                    let i = self.expr(&m.args[0], scope)?;
                    Ok(Some(format!("{receiver}.get((unsigned int)({i}))")))
                }
                ("len", 0) => Ok(Some(format!("{receiver}.len"))),
                ("is_empty", 0) => Ok(Some(format!("({receiver}.len == 0u)"))),
                ("stride", 0) => Ok(Some(format!("{receiver}.step"))),
                _ => self.fail(m, format!("method `{method}` of a row or column view is not lowered")),
            };
        }
        if views.matrices.contains(&receiver) {
            return match (method.as_str(), m.args.len()) {
                ("stride", 0) => Ok(Some(format!("{receiver}.stride"))),
                ("len", 0) => Ok(Some(format!("{receiver}.len"))),
                ("is_empty", 0) => Ok(Some(format!("({receiver}.len == 0ull)"))),
                _ => Ok(None),
            };
        }
        Ok(None)
    }

    /// Records what `name`, bound from `value`, holds: a matrix, a strip, a zip or a tile.
    pub(super) fn matrix_bound(&self, name: &str, value: &Expr, scope: &mut Scope) {
        if let Expr::Call(c) = value {
            let (owner, function) = match &*c.func {
                Expr::Path(p) => (
                    p.path.segments.iter().rev().nth(1).map(|s| s.ident.to_string()),
                    last_segment(&p.path),
                ),
                _ => (None, String::new()),
            };
            if function == "coord_2d_u32" {
                scope.references.remove(name);
                scope.oxide.runs.matrices.coords.insert(name.to_string());
            }
            if owner.as_deref() == Some("MatrixView32") {
                scope.references.remove(name);
                scope.oxide.runs.matrices.matrices.insert(name.to_string());
            }
            return;
        }
        let Expr::MethodCall(m) = value else { return };
        // `m.row(..).unwrap_or(RowView32::empty())`
        let m = match &*m.receiver {
            Expr::MethodCall(inner) if m.method == "unwrap_or" => inner,
            _ => m,
        };
        let Some(receiver) = name_of(&m.receiver, scope) else {
            return;
        };
        let method = m.method.to_string();
        let views = &mut scope.oxide.runs.matrices;
        if matches!(method.as_str(), "row" | "col") && views.matrices.contains(&receiver) {
            views.strips.insert(name.to_string());
        } else if method == "zip_exact" && views.strips.contains(&receiver) {
            views.zips.insert(name.to_string());
        } else if method == "tile_2d32_rt" && views.runtime_grids.contains_key(&receiver) {
            let stride = format!("(unsigned long long)({})", super::oxide::row_width_name(&receiver));
            scope.oxide.runs.runs.insert(name.to_string());
            scope.oxide.runs.strides.insert(name.to_string(), stride);
        } else {
            return;
        }
        scope.references.remove(name);
    }

    /// `for (x, y) in pair { .. }` over a `ZipView32`: one counter, the row element then the
    /// column element each turn, while the counter is below the length.
    pub(super) fn zip_loop(&self, f: &syn::ExprForLoop, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(zip) = name_of(&f.expr, scope).filter(|z| scope.oxide.runs.matrices.zips.contains(z)) else {
            return Ok(None);
        };
        let names = match &*f.pat {
            syn::Pat::Tuple(t) if t.elems.len() == 2 => t
                .elems
                .iter()
                .map(|p| match p {
                    syn::Pat::Ident(b) if b.subpat.is_none() && b.by_ref.is_none() => b.ident.to_string(),
                    _ => String::new(),
                })
                .collect::<Vec<_>>(),
            other => return self.fail(other, "a zipped row and column are taken as `(x, y)`"),
        };
        if names.iter().any(String::is_empty) {
            return self.fail(&f.pat, "a zipped row and column are taken as `(x, y)`");
        }
        scope.names.push(HashMap::new());
        let counter = scope.bind("kl_zip_i");
        let mut out = format!(
            "{}for (unsigned int {counter} = 0u; {counter} < {zip}.len; {counter}++) {{\n",
            super::stmt::ROLLED
        );
        // The row element, then the column element, as the iterator reads them.
        let sources = [
            format!("{zip}.row_ptr[{counter}]"),
            format!("{zip}.col_ptr[(unsigned long long){counter} * {zip}.col_stride]"),
        ];
        for (name, source) in names.iter().zip(&sources) {
            let name = scope.bind(name);
            out.push_str(&format!("auto {name} = {source};\n"));
        }
        let body = self.block(&f.body, scope);
        scope.names.pop();
        out.push_str(&body?);
        out.push_str("}\n");
        Ok(Some(out))
    }
}
