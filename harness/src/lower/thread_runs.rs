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

    /// Records what `name`, bound from `value`, holds: a run, a walk or a run's element.
    pub(super) fn run_bound(&self, name: &str, value: &Expr, scope: &mut Scope) {
        let Expr::MethodCall(m) = value else { return };
        let Some(receiver) = name_of(&m.receiver, scope) else {
            return;
        };
        let views = &mut scope.oxide.runs;
        let method = m.method.to_string();
        let run = (method == "thread_run32" && views.widths.contains_key(&receiver))
            || (method == "next_run" && views.walks.contains(&receiver));
        if run {
            views.runs.insert(name.to_string());
            scope.references.remove(name);
        } else if method == "grid_stride_runs32" && views.widths.contains_key(&receiver) {
            views.walks.insert(name.to_string());
        } else if method == "at" && views.runs.contains(&receiver) {
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
