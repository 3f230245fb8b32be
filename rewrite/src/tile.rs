//! Transposed accesses made coalesced: a shared-memory tile, or the thread indices swapped.
//!
//! A 2D kernel whose `x` and `y` are `block_idx * block_dim + thread_idx` and which copies
//! each element from one matrix to another, one side row-major in `x` and the other
//! transposed, is rewritten to move a 32x32 tile per block: the coalesced side is read (or
//! written) a row per warp, the tile (padded to 33 columns against bank conflicts) is
//! crossed in shared memory, and the transposed side is written (or read) a row per warp
//! too. The user's own index, guard and value expressions are kept; each phase rebinds `x`
//! and `y`. A kernel without such a counterpart (`out[x * h + y] = f(y)`) can instead take
//! `x` from the y threads and `y` from the x threads, when the launch is reshaped to match.
//!
//! An access inside a loop is left to the loop interchange: no draft is made for it here.

use crate::draft::{Declined, Draft};
use crate::edits::Splice;
use crate::workspace::Workspace;
use kernel_lint_analyzer::{AccessClass, AccessReport, KernelReport, MemorySpace, Op, SourceFile};
use kernel_lint_lints::Applicability;
use std::ops::Range;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Pat, Stmt};

/// The side of the tile, in elements: one warp's width.
const TILE: u32 = 32;

/// The rewrites of a transposed access, best first: the tile, then the index swap. Empty for
/// an access inside a loop, which the loop interchange answers.
pub fn drafts(
    ws: &Workspace<'_>,
    path: &str,
    kernel: &KernelReport,
    access: &AccessReport,
) -> Vec<(&'static str, Result<Draft, Declined>)> {
    if access.loop_depth > 0 {
        return Vec::new();
    }
    match Kernel::read(ws, path, kernel, access) {
        Err(reason) => vec![("tile", Err(reason))],
        Ok(k) => vec![("tile", k.tile()), ("swap", k.swap())],
    }
}

/// Which thread-geometry value a call reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Geometry {
    BlockIdx,
    BlockDim,
    ThreadIdx,
}

/// A call such as `thread::block_idx_x()` or `_block_idx_x()`.
#[derive(Debug, Clone)]
struct GeometryCall {
    /// The whole call.
    range: Range<usize>,
    /// The function's name in the call (its last path segment).
    name: Range<usize>,
}

/// `let x = block_idx_x() * block_dim_x() + thread_idx_x();` (casts and parentheses allowed).
#[derive(Debug, Clone)]
struct IndexDef {
    name: String,
    /// The statement.
    stmt: Range<usize>,
    block_idx: GeometryCall,
    block_dim: GeometryCall,
    thread_idx: GeometryCall,
}

/// How the kernel's guard is written.
enum Guard {
    /// `if cond { return; }` before the rest of the body.
    EarlyReturn,
    /// `if cond { body }` as the body's last statement.
    Wrapping,
}

/// How the file declares shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SharedStyle {
    /// `#[address_space(shared)] static mut TILE: [[MaybeUninit<T>; 33]; 32]`.
    Static,
    /// `let tile = shared_array![T; 32 * 33];`
    Macro,
}

/// A kernel read far enough for both rewrites: its text, its `x` and `y` definitions.
struct Kernel<'a> {
    path: &'a str,
    file: SourceFile,
    syntax: std::rc::Rc<syn::File>,
    function: syn::ItemFn,
    report: &'a KernelReport,
    access: &'a AccessReport,
    x: IndexDef,
    y: IndexDef,
}

impl<'a> Kernel<'a> {
    fn read(
        ws: &Workspace<'_>,
        path: &'a str,
        report: &'a KernelReport,
        access: &'a AccessReport,
    ) -> Result<Self, Declined> {
        if let Some(call) = access.via.first() {
            return Err(Declined::new(format!(
                "the access is made in `{}`, {} the kernel calls: the rewrite changes accesses written in the kernel only",
                call.callee,
                crate::callee_kind(&call.callee)
            )));
        }
        let text = ws
            .text(path)
            .ok_or_else(|| Declined::new(format!("the text of `{path}` was not read")))?;
        let file = SourceFile::new(path, text);
        let syntax =
            crate::parses::parse_text(text).map_err(|e| Declined::new(format!("`{path}` does not parse: {e}")))?;
        let function = crate::syntax::kernel_fn(&syntax, &report.name)
            .ok_or_else(|| Declined::new(format!("the kernel `{}` was not found in `{path}`", report.name)))?
            .clone();
        let mut x = None;
        let mut y = None;
        for stmt in &function.block.stmts {
            if let Some((axis, def)) = index_def(&file, stmt) {
                match axis {
                    'x' if x.is_none() => x = Some(def),
                    'y' if y.is_none() => y = Some(def),
                    _ => {}
                }
            }
        }
        let calls = geometry_calls(&file, &function.block);
        let uses_axis = |axis: char| {
            calls
                .iter()
                .any(|c| text[c.name.clone()].ends_with(&format!("_{axis}")))
        };
        let form = |axis: char| {
            Declined::new(format!(
                "the kernel's {axis} index is not written as `block_idx_{axis}() * block_dim_{axis}() + thread_idx_{axis}()`, the form the rewrite re-derives for each phase"
            ))
        };
        let (x, y) = match (x, y) {
            (Some(x), Some(y)) => (x, y),
            _ if is_cuda_oxide(text) => {
                return Err(Declined::new(
                    "the kernel is written for cuda-oxide, whose thread indices (`index_2d`) and shared memory (`SharedArray`) the rewrite does not write",
                ))
            }
            (None, _) if uses_axis('x') => return Err(form('x')),
            (_, None) if uses_axis('y') || mentions_call(&function, "index_2d") => return Err(form('y')),
            (Some(x), None) => {
                return Err(Declined::new(format!(
                    "the kernel is one-dimensional (`{}` is its only thread index): the tile and the index swap need an x and a y index",
                    x.name
                )))
            }
            _ if mentions_call(&function, "index_1d") => {
                return Err(Declined::new(
                    "the kernel is one-dimensional (`index_1d()`): the tile and the index swap need an x and a y index",
                ))
            }
            _ => return Err(form('x')),
        };
        // Every other use of the thread geometry would keep its old meaning in a phase.
        if let Some(stray) = calls
            .iter()
            .find(|c| !contains(&x.stmt, &c.range) && !contains(&y.stmt, &c.range))
        {
            return Err(Declined::new(format!(
                "`{}` is used outside the definitions of `{}` and `{}`: the rewrite cannot tell what it should become",
                &text[stray.range.clone()],
                x.name,
                y.name
            )));
        }
        Ok(Kernel {
            path,
            file,
            syntax,
            function,
            report,
            access,
            x,
            y,
        })
    }

    fn text(&self, range: &Range<usize>) -> &str {
        &self.file.text[range.clone()]
    }

    fn range(&self, node: &impl quote::ToTokens) -> Range<usize> {
        let s = self.file.span_of_node(node);
        s.start..s.end
    }

    /// The block the launch analyzed uses, checked for a 32-wide tile.
    fn block(&self) -> Result<(u32, u32), Declined> {
        let [bx, by, bz] = self.report.launch.block;
        if bx != TILE {
            return Err(Declined::new(format!(
                "the tile needs blocks 32 threads wide, and this launch's block is ({bx}, {by}, {bz})"
            )));
        }
        if bz != 1 || by == 0 || !TILE.is_multiple_of(by) {
            return Err(Declined::new(format!(
                "the tile's 32 rows are shared among the block's rows, so the block's height must divide 32, and this launch's block is ({bx}, {by}, {bz})"
            )));
        }
        Ok((bx, by))
    }

    /// The tiled kernel body.
    fn tile(&self) -> Result<Draft, Declined> {
        let style = self.shared_style()?;
        // A static inside a function cannot name the function's type parameters.
        if let Some(param) = self.function.sig.generics.type_params().next() {
            return Err(Declined::new(format!(
                "the kernel is generic over `{}`, and a shared-memory tile (a static) cannot use its type parameters",
                param.ident
            )));
        }
        let body = self.body()?;
        let (_, rows) = self.block()?;
        let load = body.load.as_ref().ok_or_else(|| {
            Declined::new(format!(
                "the value stored in `{}` is not read from another array, so there is nothing to stage in a tile",
                body.store.access.array
            ))
        })?;
        let flagged_store = self.access.op == Op::Store;
        let (flagged, other) = if flagged_store {
            (&body.store, load)
        } else {
            (load, &body.store)
        };
        if flagged.access.span != self.access.span {
            return Err(Declined::new(format!(
                "the transposed access is neither the read nor the write of the copy into `{}`",
                body.store.access.array
            )));
        }
        let class = other.access.prediction.as_ref().map(|p| p.class);
        if class != Some(AccessClass::Coalesced) {
            return Err(Declined::new(format!(
                "`{}`, the other side of the copy, is {} rather than coalesced: the tile needs one side that already moves a row per warp",
                other.access.array,
                class.map_or("not predicted", |c| c.as_str())
            )));
        }
        let element = self.element_type(&load.access.array)?;
        let tile = free_name(
            &self.function,
            if style == SharedStyle::Static { "TILE" } else { "tile" },
        );
        let j = free_name(&self.function, "j");
        let indent = self.indent();
        let tid_x = self.text(&self.x.thread_idx.range).to_string();
        let cell = |coalesced: bool| {
            let (row, column) = if coalesced {
                (format!("{j} as usize"), format!("{tid_x} as usize"))
            } else {
                (format!("{tid_x} as usize"), format!("{j} as usize"))
            };
            match style {
                SharedStyle::Static => format!("{tile}[{row}][{column}]"),
                SharedStyle::Macro => format!("*{tile}.add({row} * {} + {column})", TILE + 1),
            }
        };
        // The load phase walks rows of the coalesced side: the read when the store is flagged.
        let load_coalesced = flagged_store;
        let write_cell = cell(load_coalesced);
        let read_cell = cell(!load_coalesced);
        let load_text = self.text(&load.expr).to_string();
        let write = match style {
            SharedStyle::Static => format!("{write_cell}.write({load_text});"),
            SharedStyle::Macro => format!("{write_cell} = {load_text};"),
        };
        let read = match style {
            SharedStyle::Static => format!("{read_cell}.assume_init()"),
            // A deref in place of a deref keeps its precedence; in place of an index or a
            // call it is parenthesized unless it is the whole value.
            SharedStyle::Macro if load.deref || load.whole => read_cell,
            SharedStyle::Macro => format!("({read_cell})"),
        };
        let value: Vec<String> = body
            .value
            .iter()
            .map(|stmt| self.substitute(stmt, &[(load.expr.clone(), read.clone())]))
            .collect();
        let mut out = String::new();
        match style {
            SharedStyle::Static => {
                let address_space = if crate::syntax::declares(&self.syntax, "address_space") {
                    "address_space"
                } else {
                    "cuda_std::address_space"
                };
                let uninit = if crate::syntax::declares(&self.syntax, "MaybeUninit") {
                    "MaybeUninit"
                } else {
                    "core::mem::MaybeUninit"
                };
                out += &format!("#[{address_space}(shared)]\n");
                out += &format!(
                    "{indent}static mut {tile}: [[{uninit}<{element}>; {pad}]; {TILE}] = [[{uninit}::uninit(); {pad}]; {TILE}];\n",
                    pad = TILE + 1
                );
            }
            SharedStyle::Macro => {
                out += &format!("let {tile} = shared_array![{element}; {TILE} * {}];\n", TILE + 1);
            }
        }
        out += &format!(
            "{indent}// One {TILE}x{TILE} tile per block, padded to {} columns against bank conflicts.\n",
            TILE + 1
        );
        out += &self.phase(&j, load_coalesced, &body.guard, &[write], &indent);
        let sync = match self.call_prefix(&self.x.thread_idx) {
            Some(prefix) => format!("{prefix}sync_threads()"),
            None => "cuda_std::thread::sync_threads()".to_string(),
        };
        out += &format!("{indent}{sync};\n");
        out += &self.phase(&j, !load_coalesced, &body.guard, &value, &indent);
        let out = out.trim_end().to_string();
        let (width, height) = self.extents();
        Ok(Draft {
            title: format!(
                "transpose through a {TILE}x{} shared-memory tile: `{}` and `{}` both a row per warp",
                TILE + 1,
                load.access.array,
                body.store.access.array
            ),
            applicability: Applicability::Unsafe,
            splices: vec![(
                self.path.to_string(),
                Splice {
                    range: body.region.clone(),
                    text: out,
                },
            )],
            target: 0,
            follow_up: vec![format!(
                "each block now covers a {TILE}x{TILE} tile: launch the grid as ({}, {}, 1) with the block kept at ({TILE}, {rows}, 1)",
                div_ceil(&width, TILE),
                div_ceil(&height, TILE)
            )],
        })
    }

    /// One phase: a loop over the tile's rows, `x` and `y` rebound, the guard, the statements.
    fn phase(&self, j: &str, coalesced: bool, guard: &(Guard, Range<usize>), stmts: &[String], indent: &str) -> String {
        let tid_x = self.text(&self.x.thread_idx.range).to_string();
        let tid_y = self.text(&self.y.thread_idx.range);
        let dim_y = self.text(&self.y.block_dim.range);
        let inner = format!("{indent}    ");
        let mut out = format!("{indent}for {j} in ({tid_y}..{TILE}).step_by({dim_y} as usize) {{\n");
        // Coalesced: lanes walk x (the tile's columns), rows follow `j`; transposed: lanes
        // walk y and `j` picks x.
        let (x_tid, y_tid) = if coalesced {
            (tid_x.clone(), j.to_string())
        } else {
            (j.to_string(), tid_x.clone())
        };
        let mut defs = [(&self.x, x_tid), (&self.y, y_tid)];
        defs.sort_by_key(|(d, _)| d.stmt.start);
        for (def, tid) in defs {
            let text = self.substitute(
                &def.stmt,
                &[
                    (def.block_dim.range.clone(), TILE.to_string()),
                    (def.thread_idx.range.clone(), tid),
                ],
            );
            out += &format!("{inner}{}\n", reindent(&text, 4));
        }
        let cond = self.text(&guard.1);
        match guard.0 {
            Guard::EarlyReturn => {
                out += &format!("{inner}if {} {{\n{inner}    continue;\n{inner}}}\n", reindent(cond, 4));
                for s in stmts {
                    out += &format!("{inner}{}\n", reindent(s, 4));
                }
            }
            Guard::Wrapping => {
                out += &format!("{inner}if {} {{\n", reindent(cond, 4));
                for s in stmts {
                    out += &format!("{inner}    {}\n", reindent(s, 8));
                }
                out += &format!("{inner}}}\n");
            }
        }
        out += &format!("{indent}}}\n");
        out
    }

    /// The indices swapped: `x` from the y threads and `y` from the x threads.
    fn swap(&self) -> Result<Draft, Declined> {
        let mut splices = Vec::new();
        for (def, to) in [(&self.x, 'y'), (&self.y, 'x')] {
            for call in [&def.block_idx, &def.block_dim, &def.thread_idx] {
                let name = self.text(&call.name);
                // A call not spelled with its axis last (found through an alias, say) is left alone.
                let Some(stem) = name.strip_suffix(['x', 'y', 'z']) else {
                    return Err(Declined::new(format!("`{name}` does not name its axis last")));
                };
                let renamed = format!("{stem}{to}");
                splices.push(Splice {
                    range: call.name.clone(),
                    text: renamed,
                });
            }
        }
        // The access itself is unchanged: it is named so that the proof measures it there.
        let at = self.access.span.start..self.access.span.end;
        splices.push(Splice {
            range: at.clone(),
            text: self.text(&at).to_string(),
        });
        let target = splices.len() - 1;
        let [bx, by, _] = self.report.launch.block;
        let (width, height) = self.extents();
        Ok(Draft {
            title: format!(
                "swap the thread indices: `{}` from the y threads, `{}` from the x threads",
                self.x.name, self.y.name
            ),
            applicability: Applicability::Unsafe,
            splices: splices.into_iter().map(|s| (self.path.to_string(), s)).collect(),
            target,
            follow_up: vec![format!(
                "`{}` now runs over the grid's y dimension and `{}` over its x dimension: keep the block ({bx}, {by}, 1) and launch the grid as ({}, {}, 1)",
                self.x.name,
                self.y.name,
                div_ceil(&height, bx),
                div_ceil(&width, by)
            )],
        })
    }

    /// The bounds the kernel's guard (its first `if`) puts on `x` and `y`, as written
    /// (`width`, `height`).
    fn extents(&self) -> (String, String) {
        let cond = self.function.block.stmts.iter().find_map(|s| match s {
            Stmt::Expr(Expr::If(i), _) if i.else_branch.is_none() => Some(&*i.cond),
            _ => None,
        });
        let bound = |name: &str| {
            cond.and_then(|c| bound(c, name))
                .map(|e| self.text(&self.range(e)).to_string())
                .unwrap_or_else(|| format!("the extent of `{name}`"))
        };
        (bound(&self.x.name), bound(&self.y.name))
    }

    /// The statements after the index definitions, read as guard, value and store.
    fn body(&self) -> Result<Body<'a>, Declined> {
        let stmts = &self.function.block.stmts;
        let defs = [self.x.stmt.clone(), self.y.stmt.clone()];
        let mut rest = stmts.iter().filter(|s| !defs.contains(&self.range(*s)));
        let first = stmts
            .first()
            .ok_or_else(|| Declined::new("the kernel's body is empty"))?;
        let last = stmts.last().expect("not empty");
        let guard_stmt = rest
            .next()
            .ok_or_else(|| Declined::new("the kernel's body has no statement after its indices"))?;
        let Stmt::Expr(Expr::If(guard), _) = guard_stmt else {
            return Err(self.not_followed(guard_stmt, "where a bounds guard on the indices should be"));
        };
        // The definitions must come first: anything between them would move into each phase.
        if stmts.iter().position(|s| std::ptr::eq(s, guard_stmt)) != Some(2) {
            return Err(Declined::new(format!(
                "the body does not start with the definitions of `{}` and `{}` and a bounds guard",
                self.x.name, self.y.name
            )));
        }
        if guard.else_branch.is_some() {
            return Err(Declined::new(
                "the bounds guard has an `else` branch, which the tile rewrite does not follow",
            ));
        }
        let early_return =
            matches!(guard.then_branch.stmts.as_slice(), [Stmt::Expr(Expr::Return(r), _)] if r.expr.is_none());
        let (kind, inner): (Guard, Vec<&Stmt>) = if early_return {
            (Guard::EarlyReturn, rest.collect())
        } else if std::ptr::eq(guard_stmt, last) {
            (Guard::Wrapping, guard.then_branch.stmts.iter().collect())
        } else {
            return Err(Declined::new(
                "the bounds guard neither returns early nor wraps the rest of the body",
            ));
        };
        let (value_let, assign) = match inner.as_slice() {
            [Stmt::Expr(Expr::Assign(a), Some(_))] => (None, a),
            [l @ Stmt::Local(local), Stmt::Expr(Expr::Assign(a), Some(_))] => {
                if local.init.as_ref().is_none_or(|i| i.diverge.is_some()) || !is_plain_binding(&local.pat) {
                    return Err(self.not_followed(l, "before the store"));
                }
                (Some(*l), a)
            }
            [] => return Err(Declined::new("the guarded body is empty")),
            [.., s] if !matches!(s, Stmt::Expr(Expr::Assign(_), Some(_))) => {
                return Err(self.not_followed(s, "where the store should be"))
            }
            [s, ..] => return Err(self.not_followed(s, "besides the copy from one array to the other")),
        };
        let place = self.range(&assign.left);
        let store = self.global(Op::Store, &place).into_iter().next().ok_or_else(|| {
            Declined::new(format!(
                "the store `{}` is not a global access the analysis measured",
                self.text(&place)
            ))
        })?;
        // Where the value is computed: the `let` initializer, else the right-hand side.
        let value_expr: &Expr = match value_let {
            Some(Stmt::Local(l)) => &l.init.as_ref().expect("checked").expr,
            _ => &assign.right,
        };
        let value_range = self.range(value_expr);
        let loads = self.global(Op::Load, &value_range);
        let load = match loads.as_slice() {
            [] => None,
            [one] => {
                let (expr, deref) = match load_expr(&self.file, value_expr, &one.span) {
                    Read::At(expr, deref) => (expr, deref),
                    Read::Conditional => {
                        return Err(Declined::new(format!(
                            "`{}` is read only on a condition inside the value, so the tile cannot read it ahead",
                            one.array
                        )))
                    }
                    Read::Unknown => {
                        return Err(Declined::new(format!(
                            "the read of `{}` is not an index or a dereference the rewrite can replace",
                            one.array
                        )))
                    }
                };
                Some(Side {
                    whole: expr == value_range,
                    expr,
                    deref,
                    access: one,
                })
            }
            many => {
                return Err(Declined::new(format!(
                    "the value stored is computed from {} reads ({}): the tile stages one",
                    many.len(),
                    many.iter()
                        .map(|a| format!("`{}`", a.array))
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        };
        let mut value = Vec::new();
        if let Some(l) = value_let {
            value.push(self.range(l));
        }
        value.push(self.range(inner.last().expect("two or one statements")));
        let region_end = line_end(&self.file.text, self.range(last).end);
        Ok(Body {
            region: self.range(first).start..region_end,
            guard: (kind, self.range(&guard.cond)),
            value,
            store: Side {
                whole: false,
                expr: place,
                deref: false,
                access: store,
            },
            load,
        })
    }

    /// The kernel's global accesses of one kind inside a range.
    fn global(&self, op: Op, range: &Range<usize>) -> Vec<&'a AccessReport> {
        self.report
            .accesses
            .iter()
            .filter(|a| {
                a.op == op
                    && a.space == MemorySpace::Global
                    && a.file.is_none()
                    && a.via.is_empty()
                    && contains(range, &(a.span.start..a.span.end))
            })
            .collect()
    }

    fn not_followed(&self, stmt: &Stmt, place: &str) -> Declined {
        let text = self.text(&self.range(stmt));
        let line = text.lines().next().unwrap_or("").trim();
        Declined::new(format!(
            "the tile rewrite does not follow `{line}`, a statement {place}"
        ))
    }

    /// The text of a range with some of its sub-ranges replaced.
    fn substitute(&self, range: &Range<usize>, replacements: &[(Range<usize>, String)]) -> String {
        let mut inside: Vec<&(Range<usize>, String)> =
            replacements.iter().filter(|(r, _)| contains(range, r)).collect();
        inside.sort_by_key(|(r, _)| r.start);
        let mut out = String::new();
        let mut at = range.start;
        for (r, text) in inside {
            out += &self.file.text[at..r.start];
            out += text;
            at = r.end;
        }
        out += &self.file.text[at..range.end];
        out
    }

    /// The path before a call's name (`thread::`), or `None` when it has none.
    fn call_prefix(&self, call: &GeometryCall) -> Option<String> {
        let prefix = &self.file.text[call.range.start..call.name.start];
        (!prefix.is_empty()).then(|| prefix.to_string())
    }

    /// The indentation of the body's first statement.
    fn indent(&self) -> String {
        let start = self.x.stmt.start.min(self.y.stmt.start);
        let line_start = self.file.text[..start].rfind('\n').map_or(0, |i| i + 1);
        self.file.text[line_start..start]
            .chars()
            .take_while(|c| c.is_whitespace())
            .collect()
    }

    /// How the kernel's file declares shared memory, or why it cannot be written.
    fn shared_style(&self) -> Result<SharedStyle, Declined> {
        let text = &self.file.text;
        if !text.contains("cuda_std") {
            let dialect = if is_cuda_oxide(text) {
                "cuda-oxide"
            } else if text.contains("\"ptx-kernel\"") {
                "`extern \"ptx-kernel\"` with core::arch::nvptx"
            } else {
                "a dialect other than cuda_std"
            };
            return Err(Declined::new(format!(
                "the kernel is written for {dialect}: the tile is written in cuda_std's shared memory only (`#[address_space(shared)]` statics or `shared_array!`)"
            )));
        }
        // A file that imports or calls `shared_array!` and declares no shared static keeps to
        // the macro.
        let uses_static = text.contains("address_space(shared)");
        Ok(
            if !uses_static && crate::syntax::declares(&self.syntax, "shared_array") {
                SharedStyle::Macro
            } else {
                SharedStyle::Static
            },
        )
    }

    /// The element type of the array a parameter points to or slices.
    fn element_type(&self, array: &str) -> Result<String, Declined> {
        let param = self
            .report
            .params
            .iter()
            .find(|p| p.name == array)
            .ok_or_else(|| Declined::new(format!("`{array}` is not a parameter of the kernel")))?;
        let ty: syn::Type =
            syn::parse_str(&param.ty).map_err(|_| Declined::new(format!("the type of `{array}` is not read")))?;
        let element = match &ty {
            syn::Type::Ptr(p) => &*p.elem,
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(s) => &*s.elem,
                _ => {
                    return Err(Declined::new(format!(
                        "`{array}` is neither a slice nor a raw pointer: the tile's element type is not known"
                    )))
                }
            },
            _ => {
                return Err(Declined::new(format!(
                    "`{array}` is neither a slice nor a raw pointer: the tile's element type is not known"
                )))
            }
        };
        Ok(quote::quote!(#element).to_string().replace(' ', ""))
    }
}

/// One side of the copy.
struct Side<'a> {
    /// The load expression, or the store's place.
    expr: Range<usize>,
    /// Whether the load is a dereference (`*p.add(i)`).
    deref: bool,
    /// Whether the load is the whole value.
    whole: bool,
    access: &'a AccessReport,
}

/// The guarded copy.
struct Body<'a> {
    /// What the tiled body replaces: from the first statement to the end of the last line.
    region: Range<usize>,
    guard: (Guard, Range<usize>),
    /// The statements computing and storing the value (`let v = ..;`, the store).
    value: Vec<Range<usize>>,
    store: Side<'a>,
    load: Option<Side<'a>>,
}

/// Whether a file is written for cuda-oxide (its device crate, its output slices).
fn is_cuda_oxide(text: &str) -> bool {
    text.contains("cuda_device") || text.contains("DisjointSlice")
}

fn contains(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

fn is_plain_binding(pat: &Pat) -> bool {
    match pat {
        Pat::Ident(i) => i.mutability.is_none() && i.by_ref.is_none() && i.subpat.is_none(),
        Pat::Type(t) => is_plain_binding(&t.pat),
        _ => false,
    }
}

fn binding_name(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(i) if i.mutability.is_none() && i.by_ref.is_none() && i.subpat.is_none() => {
            Some(i.ident.to_string())
        }
        Pat::Type(t) => binding_name(&t.pat),
        _ => None,
    }
}

/// Casts, parentheses and invisible groups removed.
fn strip(mut expr: &Expr) -> &Expr {
    loop {
        expr = match expr {
            Expr::Paren(p) => &p.expr,
            Expr::Cast(c) => &c.expr,
            Expr::Group(g) => &g.expr,
            _ => return expr,
        };
    }
}

/// A call of `block_idx_x()`, `thread::thread_idx_y()`, `_block_dim_x()`...: what it reads and
/// its axis.
fn geometry(expr: &Expr) -> Option<(Geometry, char, &syn::ExprCall)> {
    let Expr::Call(call) = expr else { return None };
    let Expr::Path(path) = &*call.func else { return None };
    if !call.args.is_empty() {
        return None;
    }
    let name = path.path.segments.last()?.ident.to_string();
    let name = name.trim_start_matches('_');
    let (base, axis) = name.rsplit_once('_')?;
    let axis = match axis {
        "x" => 'x',
        "y" => 'y',
        "z" => 'z',
        _ => return None,
    };
    let kind = match base {
        "block_idx" => Geometry::BlockIdx,
        "block_dim" => Geometry::BlockDim,
        "thread_idx" => Geometry::ThreadIdx,
        _ => return None,
    };
    Some((kind, axis, call))
}

fn geometry_call(file: &SourceFile, call: &syn::ExprCall) -> GeometryCall {
    let whole = file.span_of_node(call);
    let Expr::Path(path) = &*call.func else {
        unreachable!("checked by geometry")
    };
    let name = file.span_of(path.path.segments.last().expect("a segment").ident.span());
    GeometryCall {
        range: whole.start..whole.end,
        name: name.start..name.end,
    }
}

type Call<'e> = (Geometry, char, &'e syn::ExprCall);

/// `block_idx * block_dim` (either order) and `thread_idx` of one axis.
fn product_and_thread<'e>(p: &'e Expr, t: &'e Expr) -> Option<(Call<'e>, Call<'e>, Call<'e>)> {
    let Expr::Binary(product) = strip(p) else { return None };
    if !matches!(product.op, syn::BinOp::Mul(_)) {
        return None;
    }
    let a = geometry(strip(&product.left))?;
    let b = geometry(strip(&product.right))?;
    let t = geometry(strip(t))?;
    let (idx, dim) = match (a.0, b.0) {
        (Geometry::BlockIdx, Geometry::BlockDim) => (a, b),
        (Geometry::BlockDim, Geometry::BlockIdx) => (b, a),
        _ => return None,
    };
    (t.0 == Geometry::ThreadIdx && idx.1 == dim.1 && dim.1 == t.1).then_some((idx, dim, t))
}

/// `let x = block_idx_x() * block_dim_x() + thread_idx_x();`: its axis and parts.
fn index_def(file: &SourceFile, stmt: &Stmt) -> Option<(char, IndexDef)> {
    let Stmt::Local(local) = stmt else { return None };
    let name = binding_name(&local.pat)?;
    let init = local.init.as_ref()?;
    if init.diverge.is_some() {
        return None;
    }
    let Expr::Binary(sum) = strip(&init.expr) else {
        return None;
    };
    if !matches!(sum.op, syn::BinOp::Add(_)) {
        return None;
    }
    let (idx, dim, tid) =
        product_and_thread(&sum.left, &sum.right).or_else(|| product_and_thread(&sum.right, &sum.left))?;
    if idx.1 == 'z' {
        return None;
    }
    let s = file.span_of_node(stmt);
    Some((
        idx.1,
        IndexDef {
            name,
            stmt: s.start..s.end,
            block_idx: geometry_call(file, idx.2),
            block_dim: geometry_call(file, dim.2),
            thread_idx: geometry_call(file, tid.2),
        },
    ))
}

/// Every thread-geometry call in a block.
fn geometry_calls(file: &SourceFile, block: &syn::Block) -> Vec<GeometryCall> {
    struct Walk<'f> {
        file: &'f SourceFile,
        found: Vec<GeometryCall>,
    }
    impl<'a> Visit<'a> for Walk<'_> {
        fn visit_expr_call(&mut self, call: &'a syn::ExprCall) {
            if let Expr::Path(path) = &*call.func {
                let name = path
                    .path
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default();
                let name = name.trim_start_matches('_');
                let geometric = ["block_idx_", "block_dim_", "thread_idx_", "grid_dim_", "index_"]
                    .iter()
                    .any(|p| name.starts_with(p));
                if geometric {
                    let s = self.file.span_of_node(call);
                    let n = self.file.span_of(call.func.span());
                    self.found.push(GeometryCall {
                        range: s.start..s.end,
                        name: n.start..n.end,
                    });
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
    }
    let mut walk = Walk {
        file,
        found: Vec::new(),
    };
    walk.visit_block(block);
    walk.found
}

fn mentions_call(function: &syn::ItemFn, name: &str) -> bool {
    struct Find<'n> {
        name: &'n str,
        found: bool,
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_expr_call(&mut self, call: &'a syn::ExprCall) {
            if let Expr::Path(p) = &*call.func {
                if p.path.segments.last().is_some_and(|s| s.ident == self.name) {
                    self.found = true;
                }
            }
            syn::visit::visit_expr_call(self, call);
        }
    }
    let mut find = Find { name, found: false };
    find.visit_item_fn(function);
    find.found
}

/// A name not used in the kernel: `base`, else `base2`, `base3`...
fn free_name(function: &syn::ItemFn, base: &str) -> String {
    let used = |name: &str| {
        struct Find<'n> {
            name: &'n str,
            found: bool,
        }
        impl<'a> Visit<'a> for Find<'_> {
            fn visit_ident(&mut self, i: &'a proc_macro2::Ident) {
                if i == self.name {
                    self.found = true;
                }
            }
        }
        let mut find = Find { name, found: false };
        find.visit_item_fn(function);
        find.found
    };
    if !used(base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}{n}"))
        .find(|n| !used(n))
        .expect("some suffix is free")
}

/// How a read sits in the value that holds it.
enum Read {
    /// The innermost dereference or index around the access, and whether it is a dereference.
    At(Range<usize>, bool),
    /// The read is made only on some condition (a branch, a closure, `&&` or `||`).
    Conditional,
    /// No dereference or index holds the access.
    Unknown,
}

/// The load expression that holds an access's span inside a value: the innermost
/// dereference or index around it.
fn load_expr(file: &SourceFile, value: &Expr, span: &kernel_lint_analyzer::Span) -> Read {
    struct Find<'f> {
        file: &'f SourceFile,
        at: Range<usize>,
        found: Option<(Range<usize>, bool)>,
        conditional: bool,
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            let s = self.file.span_of_node(e);
            let r = s.start..s.end;
            if !contains(&r, &self.at) {
                return;
            }
            match e {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.found = Some((r, true)),
                Expr::Index(_) => self.found = Some((r, false)),
                Expr::If(_)
                | Expr::Match(_)
                | Expr::Closure(_)
                | Expr::Block(_)
                | Expr::Loop(_)
                | Expr::While(_)
                | Expr::ForLoop(_)
                | Expr::Async(_)
                | Expr::TryBlock(_) => self.conditional = true,
                Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => self.conditional = true,
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut find = Find {
        file,
        at: span.start..span.end,
        found: None,
        conditional: false,
    };
    find.visit_expr(value);
    // Visited outside in, so the last one found is the innermost.
    match (find.conditional, find.found) {
        (true, _) => Read::Conditional,
        (false, Some((range, deref))) => Read::At(range, deref),
        (false, None) => Read::Unknown,
    }
}

/// The bound a condition puts on `name`: `B` of `name < B` or `name >= B` (also mirrored),
/// through `&&` and `||`.
fn bound<'e>(expr: &'e Expr, name: &str) -> Option<&'e Expr> {
    let Expr::Binary(b) = strip(expr) else { return None };
    let is = |e: &Expr| matches!(strip(e), Expr::Path(p) if p.path.is_ident(name));
    match b.op {
        syn::BinOp::And(_) | syn::BinOp::Or(_) => bound(&b.left, name).or_else(|| bound(&b.right, name)),
        syn::BinOp::Lt(_) | syn::BinOp::Ge(_) if is(&b.left) => Some(&b.right),
        syn::BinOp::Gt(_) | syn::BinOp::Le(_) if is(&b.right) => Some(&b.left),
        _ => None,
    }
}

/// `n.div_ceil(32)`, parenthesized when `n` is more than a name.
fn div_ceil(n: &str, by: u32) -> String {
    if n.starts_with("the extent") {
        return format!("{n} / {by}, rounded up");
    }
    if n.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
        format!("{n}.div_ceil({by})")
    } else {
        format!("({n}).div_ceil({by})")
    }
}

/// Continuation lines of a statement moved right by `extra` spaces.
fn reindent(text: &str, extra: usize) -> String {
    let pad = " ".repeat(extra);
    let mut lines = text.lines();
    let mut out = lines.next().unwrap_or("").to_string();
    for line in lines {
        out.push('\n');
        if !line.trim().is_empty() {
            out.push_str(&pad);
        }
        out.push_str(line);
    }
    out
}

/// The offset of the end of the line `at` is on (before its newline).
fn line_end(text: &str, at: usize) -> usize {
    text[at..].find('\n').map_or(text.len(), |i| at + i)
}
