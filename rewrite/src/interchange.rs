//! Lane-strided loops: each lane walks a row of its own inside a loop over the columns, so the
//! lanes of a warp are a row apart at every iteration (`m[row * cols + col]` in
//! `for col in 0..cols`).
//!
//! Two answers, chosen by what the loop carries from one iteration to the next:
//! - nothing (each iteration reads and writes only the element of its `(row, col)`): the loops
//!   are interchanged, each thread takes a column and loops over the rows, with the user's own
//!   body and index expressions;
//! - one accumulator updated by an associative and commutative operator (`s += ...`,
//!   `s = s.min(...)`, `s = s.max(...)`): a warp takes the row, its 32 lanes walk the columns
//!   together and combine their partial results with warp shuffles; lane 0 runs what followed
//!   the loop.
//!
//! Anything else (another dependence between iterations, an early exit, a statement the
//! generator does not follow) is declined with the reason.

use crate::draft::{Declined, Draft};
use crate::edits::Splice;
use crate::syntax;
use crate::workspace::Workspace;
use kernel_lint_analyzer::{AccessReport, KernelReport, SourceFile};
use kernel_lint_lints::Applicability;
use quote::ToTokens;
use std::collections::BTreeSet;
use syn::visit::Visit;
use syn::{BinOp, Expr, Pat, Stmt};

/// The lanes of a warp.
const WARP: u32 = 32;

/// The rewrites of a lane-strided loop around `access`: none when the access is not inside a
/// loop (another rewrite answers those), else the one that fits the loop or why none does.
pub fn drafts(
    ws: &Workspace<'_>,
    path: &str,
    kernel: &KernelReport,
    access: &AccessReport,
) -> Vec<(&'static str, Result<Draft, Declined>)> {
    if access.loop_depth == 0 {
        return Vec::new();
    }
    match draft(ws, path, kernel, access) {
        Ok(None) => Vec::new(),
        Ok(Some((kind, draft))) => vec![(kind, Ok(draft))],
        Err(declined) => vec![("interchange", Err(declined))],
    }
}

/// How the loop is bounded: `row < rows` guards it (`if row < rows { .. }` or
/// `if row >= rows { return; }` before it).
struct Bound {
    /// The bound's text (`rows`).
    text: String,
    /// The bytes of the comparison in the guard (one operand of its `&&`, or of its `||` for
    /// an early return).
    at: std::ops::Range<usize>,
    /// `row <= bound` rather than `row < bound`.
    inclusive: bool,
}

/// Where the row loop sits in the kernel.
struct Shape<'a> {
    /// The statements of the block that holds the loop.
    block: &'a [Stmt],
    /// The loop's position in it.
    at: usize,
    /// The guard's condition.
    guard: &'a Expr,
    /// Whether the guard is an early return (`if row >= rows { return; }`).
    early_return: bool,
}

type Planned = Result<Option<(&'static str, Draft)>, Declined>;

fn draft(ws: &Workspace<'_>, path: &str, kernel: &KernelReport, access: &AccessReport) -> Planned {
    if let Some(call) = access.via.first() {
        return Err(Declined::new(format!(
            "the access is made in `{}`, {} the kernel calls: the rewrite changes loops written in the kernel only",
            call.callee,
            crate::callee_kind(&call.callee)
        )));
    }
    let text = ws
        .text(path)
        .ok_or_else(|| Declined::new(format!("the text of `{path}` was not read")))?;
    let file = SourceFile::new(path, text);
    let syntax = crate::parses::parse_text(text).map_err(|e| Declined::new(format!("`{path}` does not parse: {e}")))?;
    let function = syntax::kernel_fn(&syntax, &kernel.name)
        .ok_or_else(|| Declined::new(format!("the kernel `{}` was not found in `{path}`", kernel.name)))?;
    let at = access.span.start;
    let Some(innermost) = innermost_loop(&file, &function.block, at) else {
        return Ok(None);
    };
    let Enclosing::For(lp) = innermost else {
        let Enclosing::Other(kind) = innermost else {
            unreachable!()
        };
        return Err(Declined::new(format!(
            "the access is in a `{kind}` loop: the rewrite follows `for` loops over a range"
        )));
    };
    let col = match &*lp.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() => p.ident.to_string(),
        other => {
            return Err(Declined::new(format!(
                "the loop binds `{}`, not one name: the rewrite follows `for col in 0..cols`",
                snippet(&file, other)
            )))
        }
    };
    let (end, inclusive_end) = match strip(&lp.expr) {
        Expr::Range(r) if r.end.is_some() && r.start.as_deref().is_some_and(is_zero) => (
            r.end.as_deref().expect("checked"),
            matches!(r.limits, syn::RangeLimits::Closed(_)),
        ),
        other => {
            return Err(Declined::new(format!(
                "the loop iterates `{}`, not a range from 0: the rewrite follows `for {col} in 0..n`",
                snippet(&file, other)
            )))
        }
    };
    // The access's index: `row * len + col`, the loop index being the column.
    let index: Expr = syn::parse_str(&access.index).map_err(|_| {
        Declined::new(format!(
            "`{}[{}]` is indexed in more than one dimension: the rewrite answers one flat index `row * len + {col}`",
            access.array, access.index
        ))
    })?;
    let terms = sum_terms(&index);
    let col_terms = terms.iter().filter(|t| is_ident(t, &col)).count();
    if col_terms != 1 || terms.iter().filter(|t| !is_ident(t, &col)).any(|t| mentions(t, &col)) {
        return Err(Declined::new(format!(
            "the loop index `{col}` is not the column of `{}`: the rewrite answers `row * len + {col}` indexes",
            access.index
        )));
    }
    if let Some(name) = lane_names(end, function).first() {
        return Err(Declined::new(format!(
            "the loop bound `{}` names `{name}`, not a kernel parameter or constant: it may differ between lanes, and the rewrite needs one column count for every row",
            snippet(&file, end)
        )));
    }
    let top = &function.block.stmts;
    let top_lets = top_level_lets(top);
    let mut rows_found: Vec<String> = Vec::new();
    for term in terms.iter().filter(|t| !is_ident(t, &col)) {
        for factor in product_factors(term) {
            if let Some(name) = ident_of(factor) {
                if top_lets.iter().any(|(n, _)| *n == name) && !rows_found.contains(&name) {
                    rows_found.push(name);
                }
            }
        }
    }
    let row = match rows_found.as_slice() {
        [row] => row.clone(),
        [] => {
            return Err(Declined::new(format!(
                "no row index of the thread scales `{}`: the rewrite answers `row * len + {col}` with `row` set at the top of the kernel",
                access.index
            )))
        }
        _ => {
            return Err(Declined::new(format!(
                "`{}` scales several thread indexes ({}): the row is not one of them alone",
                access.index,
                rows_found.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", ")
            )))
        }
    };
    let row_at = top_lets
        .iter()
        .find(|(n, _)| *n == row)
        .map(|(_, i)| *i)
        .expect("found above");
    let Stmt::Local(row_let) = &top[row_at] else {
        unreachable!()
    };
    let thread_expr = &row_let.init.as_ref().expect("a top-level let with a value").expr;
    if !is_global_x_index(thread_expr, top, row_at) {
        return Err(Declined::new(format!(
            "`{row}` is set to `{}`, which the rewrite does not read as the thread's global x index (`thread::index_1d()`, `thread_idx_x() + block_idx_x() * block_dim_x()`): the threads' new work could not be laid out from it",
            snippet(&file, thread_expr)
        )));
    }
    if assigned_anywhere(&function.block, &row) {
        return Err(Declined::new(format!(
            "`{row}` is assigned after it is set: the rewrite needs the row fixed for the thread"
        )));
    }
    // The statement at the top of the kernel that holds the loop.
    let loop_start = file.span_of_node(lp).start;
    let holder = top
        .iter()
        .position(|s| contains(&file, s, loop_start))
        .ok_or_else(|| Declined::new("the loop is not found in the kernel's body"))?;
    if holder <= row_at {
        return Err(Declined::new(format!("the loop does not come after `{row}` is set")));
    }
    let shape = shape(&file, top, holder, lp, &row, row_at)?;
    let bound = row_bound(&file, shape.guard, &row, shape.early_return).ok_or_else(|| {
        Declined::new(format!(
            "the guard `{}` is not one bound on `{row}` (`{row} < rows`): the rewrite needs the rows the threads cover",
            snippet(&file, shape.guard)
        ))
    })?;
    // Work outside the row loop would run for a different set of threads after the rewrite.
    let guard_at = top
        .iter()
        .position(|s| contains(&file, s, file.span_of_node(shape.guard).start))
        .expect("the guard is a top-level statement");
    let loop_part = if shape.early_return {
        holder..top.len()
    } else {
        holder..holder + 1
    };
    for (i, stmt) in top.iter().enumerate() {
        if i == row_at || i == guard_at || loop_part.contains(&i) {
            continue;
        }
        if shape.early_return && i > guard_at && i < holder {
            continue; // Checked with the statements before the loop.
        }
        if !is_plain_let(stmt) || mentions(stmt, &row) {
            return Err(Declined::new(format!(
                "the kernel also runs `{}` outside the row loop, which the new launch would run for other threads",
                first_line(&file, stmt)
            )));
        }
    }
    let before: &[Stmt] = if shape.early_return {
        &top[guard_at + 1..holder]
    } else {
        &shape.block[..shape.at]
    };
    let tail: &[Stmt] = &shape.block[shape.at + 1..];
    let body = body_facts(&file, &lp.body);
    if let Some(exit) = body.exits.first() {
        return Err(Declined::new(format!(
            "the loop leaves early (`{exit}`): the iterations are not all run, so they cannot be split among threads"
        )));
    }
    if let Some(construct) = body.unfollowed.first() {
        return Err(Declined::new(format!(
            "`{construct}` in the loop is not followed by the rewrite"
        )));
    }
    let loop_ = Loop {
        file: &file,
        text,
        lp,
        col: &col,
        end,
        inclusive_end,
        row: &row,
        row_let: row_let_stmt(&file, top, row_at),
        row_local: row_let,
        thread_expr,
        bound,
        shape: &shape,
        before,
        tail,
        access,
        kernel,
        function,
        path,
    };
    if body.carried.is_empty() {
        return loop_.interchange(&body).map(|d| Some(("interchange", d)));
    }
    loop_.warp_reduction(&body).map(|d| Some(("warp-per-row", d)))
}

/// Everything the two forms need to know about the loop.
struct Loop<'a> {
    file: &'a SourceFile,
    text: &'a str,
    lp: &'a syn::ExprForLoop,
    col: &'a str,
    end: &'a Expr,
    inclusive_end: bool,
    row: &'a str,
    /// The byte range of the `let row = ...;` statement.
    row_let: std::ops::Range<usize>,
    /// The `let row = ...;` statement itself.
    row_local: &'a syn::Local,
    thread_expr: &'a Expr,
    bound: Bound,
    shape: &'a Shape<'a>,
    before: &'a [Stmt],
    tail: &'a [Stmt],
    access: &'a AccessReport,
    kernel: &'a KernelReport,
    function: &'a syn::ItemFn,
    path: &'a str,
}

impl Loop<'_> {
    fn range(&self, node: &impl ToTokens) -> std::ops::Range<usize> {
        let s = self.file.span_of_node(node);
        s.start..s.end
    }

    fn text_of(&self, node: &impl ToTokens) -> &str {
        &self.text[self.range(node)]
    }

    /// The access, unchanged: the proof measures it on its own, so each other access of the
    /// loop keeps its own before-and-after comparison.
    fn target(&self) -> Splice {
        let r = self.access.span.start..self.access.span.end;
        Splice {
            text: self.text[r.clone()].to_string(),
            range: r,
        }
    }

    /// What a launch parameter is configured to, for the thread counts the host must launch.
    fn configured(&self, bound: &str, threads: impl Fn(i64) -> i64) -> String {
        match self.kernel.launch.params.get(bound.trim()) {
            Some(value) => format!(" ({} for `{}` = {value})", threads(*value), bound.trim()),
            None => String::new(),
        }
    }

    /// Each iteration writes only the element of its `(row, col)` and reads a written array
    /// only there: no iteration reads what another writes.
    fn memory_is_per_element(&self, body: &BodyFacts) -> Result<(), Declined> {
        let (row, col) = (self.row, self.col);
        for (array, index) in &body.writes {
            let Some(index) = index else {
                return Err(Declined::new(format!(
                    "`{array}` is written in a form the rewrite does not follow: it moves element writes `a[i] = ..` and `*p.add(i) = ..` only"
                )));
            };
            if !row_major(index, row, col) {
                return Err(Declined::new(format!(
                    "`{array}[{index}]` is written at an element that is not `{row} * len + {col}`: iterations could share it"
                )));
            }
        }
        for (array, index) in &body.reads {
            let written: Vec<&String> = body
                .writes
                .iter()
                .filter(|(a, _)| a == array)
                .filter_map(|(_, i)| i.as_ref())
                .collect();
            if !written.is_empty() && !written.iter().any(|w| squash(w) == squash(index)) {
                return Err(Declined::new(format!(
                    "`{array}` is read at `{index}` and written at `{}` in the loop: an iteration reads what another writes",
                    written[0]
                )));
            }
        }
        if let Some(call) = body
            .calls
            .iter()
            .find(|c| self.writable_params().iter().any(|p| c.1.contains(p)))
        {
            return Err(Declined::new(format!(
                "`{}` in the loop is given an array it may write, which the rewrite does not follow",
                call.0
            )));
        }
        Ok(())
    }

    /// Each thread takes a column and loops over the rows.
    fn interchange(&self, body: &BodyFacts) -> Result<Draft, Declined> {
        let (row, col) = (self.row, self.col);
        self.memory_is_per_element(body)?;
        for stmt in self.before {
            if !is_plain_let(stmt) || mentions(stmt, row) || mentions(stmt, col) {
                return Err(Declined::new(format!(
                    "`{}` runs before the loop once per row: it would run once per column after the interchange",
                    first_line(self.file, stmt)
                )));
            }
        }
        if let Some(stmt) = self.tail.iter().find(|s| !is_plain_let(s) || mentions(*s, row)) {
            return Err(Declined::new(format!(
                "`{}` runs after the loop once per row: it would run once per column after the interchange",
                first_line(self.file, stmt)
            )));
        }
        let before_names: BTreeSet<String> = self.before.iter().flat_map(let_names).collect();
        if mentions(self.end, row) || before_names.iter().any(|n| mentions(self.end, n)) {
            return Err(Declined::new(format!(
                "the column count `{}` depends on the row: the threads could not be laid over the columns",
                self.text_of(self.end)
            )));
        }
        if self.function.block.stmts.iter().any(|s| let_names(s).contains(col)) {
            return Err(Declined::new(format!(
                "`{col}` is already a name of the kernel: the interchanged thread index would shadow it"
            )));
        }
        let (lt, ge) = if self.inclusive_end { ("<=", ">") } else { ("<", ">=") };
        let end = self.text_of(self.end);
        let pat = match &*self.lp.pat {
            Pat::Ident(p) => self.range(&p.ident),
            _ => unreachable!("checked to be one name"),
        };
        let row_pat = self.row_ident_range()?;
        let range = if self.bound.inclusive { "..=" } else { ".." };
        let guard = if self.shape.early_return {
            format!("{col} {ge} {end}")
        } else {
            format!("{col} {lt} {end}")
        };
        let mut splices = vec![
            Splice {
                range: row_pat,
                text: col.to_string(),
            },
            Splice {
                range: self.bound.at.clone(),
                text: guard,
            },
            Splice {
                range: pat,
                text: row.to_string(),
            },
            Splice {
                range: self.range(&*self.lp.expr),
                text: format!("0{range}{}", self.bound.text),
            },
            self.target(),
        ];
        splices.sort_by_key(|s| s.range.start);
        let target = splices
            .iter()
            .position(|s| s.range.start == self.access.span.start)
            .expect("the access splice");
        let count = if self.inclusive_end {
            format!("{end} + 1")
        } else {
            end.to_string()
        };
        let rows = if self.bound.inclusive {
            format!("{} + 1", self.bound.text)
        } else {
            self.bound.text.clone()
        };
        let inclusive = self.inclusive_end;
        Ok(Draft {
            title: format!(
                "interchange the loops: each thread takes a column `{col}` and loops over the rows `{row}`"
            ),
            applicability: Applicability::Unsafe,
            splices: splices.into_iter().map(|s| (self.path.to_string(), s)).collect(),
            target,
            follow_up: vec![format!(
                "the launch must now cover the columns, one thread per column: at least `{count}` threads in x{} instead of one per row (`{rows}`)",
                self.configured(end, |v| if inclusive { v + 1 } else { v })
            )],
        })
    }

    /// The 32 lanes of a warp walk the row's columns together and combine their partial
    /// results with warp shuffles.
    fn warp_reduction(&self, body: &BodyFacts) -> Result<Draft, Declined> {
        let mut names: Vec<&str> = Vec::new();
        for (name, _) in &body.carried {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        if names.len() > 1 {
            return Err(Declined::new(format!(
                "the loop carries several values from one iteration to the next ({}): the rewrite combines one reduction only",
                names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            )));
        }
        self.single_accumulator(body)
    }

    fn single_accumulator(&self, body: &BodyFacts) -> Result<Draft, Declined> {
        let (row, col) = (self.row, self.col);
        let acc = body.carried[0].0.clone();
        let mut op: Option<Reduction> = None;
        for (_, update) in &body.carried {
            let found = reduction(update, &acc).ok_or_else(|| {
                Declined::new(format!(
                    "`{acc}` is carried from one iteration to the next by `{}`, which is not a reduction the rewrite recognizes (`+=`, `min`, `max`): the iterations depend on each other",
                    snippet(self.file, update)
                ))
            })?;
            if op.is_some_and(|o| o != found) {
                return Err(Declined::new(format!(
                    "`{acc}` is updated by two different operators in the loop"
                )));
            }
            op = Some(found);
        }
        let op = op.expect("one update at least");
        self.memory_is_per_element(body)?;
        if body.acc_reads(&acc) {
            return Err(Declined::new(format!(
                "`{acc}` is read in the loop besides its update: the lanes' partial values would differ from it"
            )));
        }
        if !self.text.contains("cuda_std") {
            return Err(Declined::new(
                "the kernel is not written with cuda_std, the one dialect whose warp shuffle (`cuda_std::warp::warp_shuffle_xor`) the rewrite writes",
            ));
        }
        let block_x = self.kernel.launch.block[0];
        if !block_x.is_multiple_of(WARP) {
            return Err(Declined::new(format!(
                "the block is {block_x} threads wide in x, not a multiple of 32: a warp would not share one row"
            )));
        }
        // The accumulator's declaration, in the loop's block before it.
        let decl_at = self.shape.block[..self.shape.at]
            .iter()
            .position(|s| let_names(s).contains(&acc))
            .ok_or_else(|| {
                Declined::new(format!(
                    "`{acc}` is not declared in the block of the loop: the lanes' partial values could not be combined there"
                ))
            })?;
        let Stmt::Local(decl) = &self.shape.block[decl_at] else {
            unreachable!()
        };
        let init = decl
            .init
            .as_ref()
            .map(|i| &*i.expr)
            .ok_or_else(|| Declined::new(format!("`{acc}` has no initial value")))?;
        if let Some(stmt) = self.shape.block[decl_at + 1..self.shape.at]
            .iter()
            .find(|s| mentions(*s, &acc))
        {
            return Err(Declined::new(format!(
                "`{acc}` is used before the loop (`{}`)",
                first_line(self.file, stmt)
            )));
        }
        if op == Reduction::Add && !is_zero(init) {
            return Err(Declined::new(format!(
                "`{acc}` starts at `{}`, not 0: each of the 32 lanes would add it",
                self.text_of(init)
            )));
        }
        let ty = accumulator_type(decl, init, body, &acc, self.function).ok_or_else(|| {
            Declined::new(format!(
                "the type of `{acc}` is not written (`let mut {acc}: T` or a suffixed literal): the shuffle's type is not known"
            ))
        })?;
        if let AccType::Named(name) = &ty {
            if !SHUFFLED.contains(&name.as_str()) {
                return Err(Declined::new(format!(
                    "`{acc}` is a `{name}`, which `warp_shuffle_xor` does not move"
                )));
            }
        }
        for stmt in self.before {
            if !is_plain_let(stmt) {
                return Err(Declined::new(format!(
                    "`{}` before the loop would run on all 32 lanes of the row's warp",
                    first_line(self.file, stmt)
                )));
            }
        }
        let names = names_in(self.function);
        let index_name = free(&names, "thread_index");
        let lane = free(&names, "lane");
        let offset = free(&names, "offset");
        let indent = line_indent(self.text, self.row_let.start);
        let loop_range = self.range(self.lp);
        let loop_indent = line_indent(self.text, loop_range.start);
        let unit = indent_unit(self.text, self.lp, self.file).unwrap_or_else(|| "    ".to_string());
        let lane_start = match (
            int_type(self.thread_expr, self.function),
            int_type(self.end, self.function),
        ) {
            (Some(a), Some(b)) if a == b => lane.clone(),
            (_, Some(b)) => format!("{lane} as {b}"),
            _ => format!("{lane} as _"),
        };
        let thread = self.text_of(self.thread_expr);
        let mut splices = vec![Splice {
            range: self.row_let.clone(),
            text: format!(
                "let {index_name} = {thread};\n{indent}let {row} = {index_name} / {WARP};\n{indent}let {lane} = {index_name} % {WARP};"
            ),
        }];
        let range = if self.inclusive_end { "..=" } else { ".." };
        splices.push(Splice {
            range: self.range(&*self.lp.expr),
            text: format!("({lane_start}{range}{}).step_by({WARP})", self.text_of(self.end)),
        });
        splices.push(self.target());
        let shuffled = format!("cuda_std::warp::warp_shuffle_xor(u32::MAX, {acc}, {offset}, {WARP}).0");
        let combine = match op {
            Reduction::Add => format!("{acc} += {shuffled};"),
            Reduction::Min => format!("{acc} = {acc}.min({shuffled});"),
            Reduction::Max => format!("{acc} = {acc}.max({shuffled});"),
        };
        let mut after = format!(
            "\n{loop_indent}for {offset} in [16, 8, 4, 2, 1] {{\n{loop_indent}{unit}{combine}\n{loop_indent}}}"
        );
        let end = match self.tail.last() {
            Some(last) => {
                let tail_end = self.range(last).end;
                let moved = &self.text[loop_range.end..tail_end];
                after.push_str(&format!(
                    "\n{loop_indent}if {lane} == 0 {{{}\n{loop_indent}}}",
                    indent_lines(moved, &unit)
                ));
                tail_end
            }
            None => loop_range.end,
        };
        splices.push(Splice {
            range: loop_range.end..end,
            text: after,
        });
        let bound = &self.bound.text;
        let rows = if self.bound.inclusive {
            format!("({bound} + 1)")
        } else {
            bound.clone()
        };
        let inclusive = self.bound.inclusive;
        let mut follow_up = vec![format!(
            "the launch must now run one warp (32 threads) per row: at least `32 * {rows}` threads in x{} instead of `{rows}`, in blocks whose x size is a multiple of 32",
            self.configured(bound, |v| 32 * if inclusive { v + 1 } else { v })
        )];
        if ty.is_float() && op == Reduction::Add {
            follow_up.push(format!(
                "the floating-point sum is reassociated: `{acc}` adds the 32 lanes' partial sums in another order than the loop did, so the last bits may differ"
            ));
        }
        let what = match op {
            Reduction::Add => "sums",
            Reduction::Min => "minima",
            Reduction::Max => "maxima",
        };
        Ok(Draft {
            title: format!(
                "reduce each row with one warp: its 32 lanes walk `{row}`'s columns `{col}` together and combine their partial {what} with `warp_shuffle_xor`"
            ),
            applicability: Applicability::Unsafe,
            splices: splices.into_iter().map(|s| (self.path.to_string(), s)).collect(),
            target: 2,
            follow_up,
        })
    }

    /// The byte range of the row's name in `let row = ...`.
    fn row_ident_range(&self) -> Result<std::ops::Range<usize>, Declined> {
        let pat = match &self.row_local.pat {
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        match pat {
            Pat::Ident(p) => Ok(self.range(&p.ident)),
            _ => Err(Declined::new(format!("`{}` is not bound by a plain `let`", self.row))),
        }
    }

    /// The kernel's parameters that can be written through: raw pointers and `&mut`.
    fn writable_params(&self) -> Vec<String> {
        self.function
            .sig
            .inputs
            .iter()
            .filter_map(|input| {
                let syn::FnArg::Typed(arg) = input else { return None };
                let writable = match &*arg.ty {
                    syn::Type::Ptr(_) => true,
                    syn::Type::Reference(r) => r.mutability.is_some(),
                    _ => false,
                };
                writable.then(|| ident_of_pat(&arg.pat)).flatten()
            })
            .collect()
    }
}

/// The operator of a recognized reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reduction {
    Add,
    Min,
    Max,
}

/// `acc += e`, `acc = acc + e`, `acc = e + acc`, `acc = acc.min(e)`, `acc = acc.max(e)`, with
/// `e` free of `acc`.
fn reduction(update: &Expr, acc: &str) -> Option<Reduction> {
    match update {
        Expr::Binary(b) if matches!(b.op, BinOp::AddAssign(_)) => (!mentions(&*b.right, acc)).then_some(Reduction::Add),
        Expr::Assign(a) => match strip(&a.right) {
            Expr::Binary(b) if matches!(b.op, BinOp::Add(_)) => {
                let (l, r) = (strip(&b.left), strip(&b.right));
                let ok = (is_ident(l, acc) && !mentions(r, acc)) || (is_ident(r, acc) && !mentions(l, acc));
                ok.then_some(Reduction::Add)
            }
            Expr::MethodCall(m)
                if m.args.len() == 1 && is_ident(strip(&m.receiver), acc) && !mentions(&m.args[0], acc) =>
            {
                match m.method.to_string().as_str() {
                    "min" => Some(Reduction::Min),
                    "max" => Some(Reduction::Max),
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    }
}

/// The types `warp_shuffle_xor` moves.
const SHUFFLED: [&str; 14] = [
    "i8", "i16", "i32", "i64", "i128", "u8", "u16", "u32", "u64", "u128", "f32", "f64", "f16", "bf16",
];

/// What is known of the accumulator's type.
enum AccType {
    Named(String),
    /// An unsuffixed float literal: `f32` or `f64`, both shuffled.
    Float,
}

impl AccType {
    fn is_float(&self) -> bool {
        match self {
            AccType::Float => true,
            AccType::Named(n) => matches!(n.as_str(), "f32" | "f64" | "f16" | "bf16"),
        }
    }
}

/// The accumulator's type: written on the `let`, the literal's suffix, or, for an unsuffixed
/// integer, the element type of the one array it reduces.
fn accumulator_type(
    decl: &syn::Local,
    init: &Expr,
    body: &BodyFacts,
    acc: &str,
    function: &syn::ItemFn,
) -> Option<AccType> {
    if let Pat::Type(t) = &decl.pat {
        return Some(AccType::Named(tokens(&*t.ty).replace(' ', "")));
    }
    match strip(init) {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Float(f) if f.suffix().is_empty() => return Some(AccType::Float),
            syn::Lit::Float(f) => return Some(AccType::Named(f.suffix().to_string())),
            syn::Lit::Int(i) if !i.suffix().is_empty() => return Some(AccType::Named(i.suffix().to_string())),
            _ => {}
        },
        Expr::Cast(c) => return Some(AccType::Named(tokens(&*c.ty).replace(' ', ""))),
        _ => {}
    }
    // `acc += a[..]`: the element type of `a`.
    let (_, update) = body.carried.iter().find(|(n, _)| n == acc)?;
    let Expr::Binary(b) = update else { return None };
    let array = match strip(&b.right) {
        Expr::Index(i) => ident_of(&i.expr)?,
        _ => return None,
    };
    function.sig.inputs.iter().find_map(|input| {
        let syn::FnArg::Typed(arg) = input else { return None };
        if ident_of_pat(&arg.pat)? != array {
            return None;
        }
        let elem = match &*arg.ty {
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(s) => &*s.elem,
                _ => return None,
            },
            syn::Type::Ptr(p) => &*p.elem,
            _ => return None,
        };
        Some(AccType::Named(tokens(elem).replace(' ', "")))
    })
}

/// What a loop body does.
#[derive(Default)]
struct BodyFacts {
    /// Variables declared outside the body and assigned in it, with the assignment.
    carried: Vec<(String, Expr)>,
    /// Memory written: the array and the index (`None` for a form not followed).
    writes: Vec<(String, Option<String>)>,
    /// Memory read: the array and the index.
    reads: Vec<(String, String)>,
    /// Calls: the call's text and the names it is given.
    calls: Vec<(String, Vec<String>)>,
    /// `break`, `return` or `?` leaving the loop.
    exits: Vec<String>,
    /// Macros and closures.
    unfollowed: Vec<String>,
    /// Every mention of each name, by the byte offset of the mention.
    mentions: Vec<(String, usize)>,
    /// The byte ranges of the carried assignments' left-hand sides and whole expressions.
    updates: Vec<std::ops::Range<usize>>,
}

impl BodyFacts {
    /// Whether the accumulator is read outside its own updates.
    fn acc_reads(&self, acc: &str) -> bool {
        self.mentions
            .iter()
            .filter(|(n, _)| n == acc)
            .any(|(_, at)| !self.updates.iter().any(|u| u.contains(at)))
    }
}

fn body_facts(file: &SourceFile, body: &syn::Block) -> BodyFacts {
    struct Walk<'f> {
        file: &'f SourceFile,
        locals: BTreeSet<String>,
        facts: BodyFacts,
        /// Depth of loops nested in the body: `break` inside them stays inside.
        nested: usize,
        /// Left-hand sides being assigned, not read.
        lhs: Vec<std::ops::Range<usize>>,
    }
    impl Walk<'_> {
        fn range(&self, node: &impl ToTokens) -> std::ops::Range<usize> {
            let s = self.file.span_of_node(node);
            s.start..s.end
        }
        fn assigned(&mut self, target: &Expr, whole: &Expr) {
            match strip(target) {
                Expr::Path(p) if p.path.get_ident().is_some() => {
                    let name = p.path.get_ident().expect("checked").to_string();
                    if !self.locals.contains(&name) {
                        self.facts.updates.push(self.range(whole));
                        self.facts.carried.push((name, whole.clone()));
                    }
                }
                Expr::Index(i) => {
                    let array = ident_of(&i.expr).unwrap_or_else(|| snippet(self.file, &*i.expr));
                    self.lhs.push(self.range(i));
                    self.facts.writes.push((array, Some(snippet(self.file, &*i.index))));
                }
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => match pointer_offset(self.file, &u.expr) {
                    Some((array, index)) => {
                        self.lhs.push(self.range(u));
                        self.facts.writes.push((array, Some(index)));
                    }
                    None => self.facts.writes.push((snippet(self.file, &*u.expr), None)),
                },
                other => self.facts.writes.push((snippet(self.file, other), None)),
            }
        }
    }
    impl<'a> Visit<'a> for Walk<'_> {
        fn visit_local(&mut self, l: &'a syn::Local) {
            syn::visit::visit_local(self, l);
            collect_pat_names(&l.pat, &mut self.locals);
        }
        fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
            let whole = Expr::Assign(a.clone());
            self.assigned(&a.left, &whole);
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
            if syntax::is_compound_assign(&b.op) {
                let whole = Expr::Binary(b.clone());
                self.assigned(&b.left, &whole);
            }
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
            if r.mutability.is_some() {
                if let Some(name) = ident_of(&r.expr) {
                    if !self.locals.contains(&name) {
                        let whole = Expr::Reference(r.clone());
                        self.facts.carried.push((name, whole));
                    }
                }
            }
            syn::visit::visit_expr_reference(self, r);
        }
        fn visit_expr_index(&mut self, i: &'a syn::ExprIndex) {
            if !self.lhs.contains(&self.range(i)) {
                let array = ident_of(&i.expr).unwrap_or_else(|| snippet(self.file, &*i.expr));
                self.facts.reads.push((array, snippet(self.file, &*i.index)));
            }
            syn::visit::visit_expr_index(self, i);
        }
        fn visit_expr_unary(&mut self, u: &'a syn::ExprUnary) {
            if matches!(u.op, syn::UnOp::Deref(_)) && !self.lhs.contains(&self.range(u)) {
                if let Some((array, index)) = pointer_offset(self.file, &u.expr) {
                    self.facts.reads.push((array, index));
                }
            }
            syn::visit::visit_expr_unary(self, u);
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            let mut names = BTreeSet::new();
            for arg in &c.args {
                names.extend(idents(arg));
            }
            self.facts
                .calls
                .push((snippet(self.file, c), names.into_iter().collect()));
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            self.visit_expr(&f.expr);
            collect_pat_names(&f.pat, &mut self.locals);
            self.nested += 1;
            self.visit_block(&f.body);
            self.nested -= 1;
        }
        fn visit_expr_while(&mut self, w: &'a syn::ExprWhile) {
            self.nested += 1;
            syn::visit::visit_expr_while(self, w);
            self.nested -= 1;
        }
        fn visit_expr_loop(&mut self, l: &'a syn::ExprLoop) {
            self.nested += 1;
            syn::visit::visit_expr_loop(self, l);
            self.nested -= 1;
        }
        fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
            if self.nested == 0 || b.label.is_some() {
                self.facts.exits.push(snippet(self.file, b));
            }
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_return(&mut self, r: &'a syn::ExprReturn) {
            self.facts.exits.push(snippet(self.file, r));
        }
        fn visit_expr_try(&mut self, t: &'a syn::ExprTry) {
            self.facts.exits.push(snippet(self.file, t));
            syn::visit::visit_expr_try(self, t);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            self.facts.unfollowed.push(format!("{}!", snippet(self.file, &m.path)));
        }
        fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
            self.facts
                .unfollowed
                .push(format!("the closure `{}`", first_line(self.file, c)));
        }
        fn visit_ident(&mut self, i: &'a proc_macro2::Ident) {
            let at = self.file.span_of(i.span()).start;
            self.facts.mentions.push((i.to_string(), at));
        }
    }
    let mut walk = Walk {
        file,
        locals: BTreeSet::new(),
        facts: BodyFacts::default(),
        nested: 0,
        lhs: Vec::new(),
    };
    walk.visit_block(body);
    walk.facts
}

/// `p.add(i)` (also `offset`, `wrapping_add`): the pointer's name and the index.
fn pointer_offset(file: &SourceFile, expr: &Expr) -> Option<(String, String)> {
    let Expr::MethodCall(m) = strip(expr) else { return None };
    let method = m.method.to_string();
    if !matches!(method.as_str(), "add" | "offset" | "wrapping_add" | "wrapping_offset") || m.args.len() != 1 {
        return None;
    }
    Some((ident_of(&m.receiver)?, snippet(file, &m.args[0])))
}

/// A loop that encloses the access.
enum Enclosing<'a> {
    For(&'a syn::ExprForLoop),
    Other(&'static str),
}

/// The innermost loop of the kernel body around the byte offset `at`.
fn innermost_loop<'a>(file: &SourceFile, body: &'a syn::Block, at: usize) -> Option<Enclosing<'a>> {
    struct Find<'a, 'f> {
        file: &'f SourceFile,
        at: usize,
        found: Option<Enclosing<'a>>,
    }
    impl Find<'_, '_> {
        fn inside(&self, node: &impl ToTokens) -> bool {
            let s = self.file.span_of_node(node);
            s.start <= self.at && self.at < s.end
        }
    }
    impl<'a> Visit<'a> for Find<'a, '_> {
        fn visit_expr_for_loop(&mut self, f: &'a syn::ExprForLoop) {
            if self.inside(&f.body) {
                self.found = Some(Enclosing::For(f));
            }
            syn::visit::visit_expr_for_loop(self, f);
        }
        fn visit_expr_while(&mut self, w: &'a syn::ExprWhile) {
            if self.inside(&w.body) || self.inside(&*w.cond) {
                self.found = Some(Enclosing::Other("while"));
            }
            syn::visit::visit_expr_while(self, w);
        }
        fn visit_expr_loop(&mut self, l: &'a syn::ExprLoop) {
            if self.inside(&l.body) {
                self.found = Some(Enclosing::Other("loop"));
            }
            syn::visit::visit_expr_loop(self, l);
        }
    }
    let mut find = Find { file, at, found: None };
    find.visit_block(body);
    find.found
}

/// Where the loop sits: at the top of the kernel after an early-return guard on the row, or as
/// a statement of the block of one `if` on the row.
fn shape<'a>(
    file: &SourceFile,
    top: &'a [Stmt],
    holder: usize,
    lp: &syn::ExprForLoop,
    row: &str,
    row_at: usize,
) -> Result<Shape<'a>, Declined> {
    let is_loop = |s: &Stmt| match s {
        Stmt::Expr(Expr::ForLoop(f), _) => std::ptr::eq(f, lp),
        _ => false,
    };
    if is_loop(&top[holder]) {
        let guard = top[row_at + 1..holder]
            .iter()
            .find_map(|s| early_return_guard(s))
            .ok_or_else(|| {
                Declined::new(format!(
                    "no bound on `{row}` is checked before the loop (`if {row} < rows {{ .. }}` or `if {row} >= rows {{ return; }}`)"
                ))
            })?;
        return Ok(Shape {
            block: top,
            at: holder,
            guard,
            early_return: true,
        });
    }
    if let Stmt::Expr(Expr::If(i), _) = &top[holder] {
        if i.else_branch.is_none() {
            if let Some(at) = i.then_branch.stmts.iter().position(is_loop) {
                return Ok(Shape {
                    block: &i.then_branch.stmts,
                    at,
                    guard: &i.cond,
                    early_return: false,
                });
            }
        }
    }
    Err(Declined::new(format!(
        "the loop is nested in `{}`, which the rewrite does not follow: it rewrites a row loop under one `if` on the row or after an early return",
        first_line(file, &top[holder])
    )))
}

/// `if cond { return; }`: the condition.
fn early_return_guard(stmt: &Stmt) -> Option<&Expr> {
    let Stmt::Expr(Expr::If(i), _) = stmt else { return None };
    if i.else_branch.is_some() {
        return None;
    }
    match i.then_branch.stmts.as_slice() {
        [Stmt::Expr(Expr::Return(r), _)] if r.expr.is_none() => Some(&i.cond),
        _ => None,
    }
}

/// The rows the guard lets through: `row < b` (`b > row`), `row <= b`, alone or as one operand
/// of `&&` whose others do not name the row; for an early return, its negation `row >= b`
/// (`b <= row`), `row > b`, alone or as one operand of `||`.
fn row_bound(file: &SourceFile, guard: &Expr, row: &str, early_return: bool) -> Option<Bound> {
    let parts = operands(guard, early_return);
    let mut found = None;
    for part in &parts {
        if let Some(bound) = comparison(file, part, row, early_return) {
            if found.is_some() {
                return None;
            }
            found = Some(bound);
        } else if mentions(*part, row) {
            return None;
        }
    }
    found
}

/// The operands of a chain of `&&` (of `||` for an early return).
fn operands(expr: &Expr, early_return: bool) -> Vec<&Expr> {
    match strip(expr) {
        Expr::Binary(b)
            if (!early_return && matches!(b.op, BinOp::And(_))) || (early_return && matches!(b.op, BinOp::Or(_))) =>
        {
            let mut parts = operands(&b.left, early_return);
            parts.extend(operands(&b.right, early_return));
            parts
        }
        _ => vec![expr],
    }
}

fn comparison(file: &SourceFile, part: &Expr, row: &str, early_return: bool) -> Option<Bound> {
    let Expr::Binary(b) = strip(part) else { return None };
    let (l, r) = (strip(&b.left), strip(&b.right));
    let at = file.span_of_node(part);
    let bound = |e: &Expr, inclusive| {
        (!mentions(e, row)).then(|| Bound {
            text: snippet(file, e),
            at: at.start..at.end,
            inclusive,
        })
    };
    match (&b.op, early_return) {
        (BinOp::Lt(_), false) if is_ident(l, row) => bound(&b.right, false),
        (BinOp::Le(_), false) if is_ident(l, row) => bound(&b.right, true),
        (BinOp::Gt(_), false) if is_ident(r, row) => bound(&b.left, false),
        (BinOp::Ge(_), false) if is_ident(r, row) => bound(&b.left, true),
        (BinOp::Ge(_), true) if is_ident(l, row) => bound(&b.right, false),
        (BinOp::Gt(_), true) if is_ident(l, row) => bound(&b.right, true),
        (BinOp::Le(_), true) if is_ident(r, row) => bound(&b.left, false),
        (BinOp::Lt(_), true) if is_ident(r, row) => bound(&b.left, true),
        _ => None,
    }
}

/// `let name = value;` statements of the kernel's top level: the name and the position.
fn top_level_lets(top: &[Stmt]) -> Vec<(String, usize)> {
    top.iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let Stmt::Local(l) = s else { return None };
            l.init.as_ref().filter(|init| init.diverge.is_none())?;
            let pat = match &l.pat {
                Pat::Type(t) => &*t.pat,
                other => other,
            };
            let Pat::Ident(p) = pat else { return None };
            (p.mutability.is_none() && p.by_ref.is_none()).then(|| (p.ident.to_string(), i))
        })
        .collect()
}

/// The byte range of the `let row = ...;` statement.
fn row_let_stmt(file: &SourceFile, top: &[Stmt], at: usize) -> std::ops::Range<usize> {
    let s = file.span_of_node(&top[at]);
    s.start..s.end
}

/// A `let` whose value touches no memory (no index, dereference or call).
fn is_plain_let(stmt: &Stmt) -> bool {
    struct Touches(bool);
    impl<'a> Visit<'a> for Touches {
        fn visit_expr_index(&mut self, _: &'a syn::ExprIndex) {
            self.0 = true;
        }
        fn visit_expr_unary(&mut self, u: &'a syn::ExprUnary) {
            if matches!(u.op, syn::UnOp::Deref(_)) {
                self.0 = true;
            }
            syn::visit::visit_expr_unary(self, u);
        }
        fn visit_macro(&mut self, _: &'a syn::Macro) {
            self.0 = true;
        }
        fn visit_expr_assign(&mut self, _: &'a syn::ExprAssign) {
            self.0 = true;
        }
    }
    let Stmt::Local(l) = stmt else { return false };
    let mut touches = Touches(false);
    touches.visit_local(l);
    !touches.0
}

fn let_names(stmt: &Stmt) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    if let Stmt::Local(l) = stmt {
        collect_pat_names(&l.pat, &mut names);
    }
    names
}

fn collect_pat_names(pat: &Pat, names: &mut BTreeSet<String>) {
    struct Names<'n>(&'n mut BTreeSet<String>);
    impl<'a> Visit<'a> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    Names(names).visit_pat(pat);
}

/// Whether `name` is assigned (`name = ..`, `name += ..`) anywhere in the block.
fn assigned_anywhere(block: &syn::Block, name: &str) -> bool {
    struct Find<'n>(&'n str, bool);
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
            self.1 |= is_ident(strip(&a.left), self.0);
            syn::visit::visit_expr_assign(self, a);
        }
        fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
            self.1 |= syntax::is_compound_assign(&b.op) && is_ident(strip(&b.left), self.0);
            syn::visit::visit_expr_binary(self, b);
        }
    }
    let mut find = Find(name, false);
    find.visit_block(block);
    find.1
}

/// Whether a statement's bytes hold `offset`.
fn contains(file: &SourceFile, stmt: &Stmt, offset: usize) -> bool {
    let s = file.span_of_node(stmt);
    s.start <= offset && offset < s.end
}

/// Parentheses, casts and groups taken off.
fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        Expr::Cast(c) => strip(&c.expr),
        other => other,
    }
}

/// The terms of a sum.
fn sum_terms(expr: &Expr) -> Vec<&Expr> {
    match strip(expr) {
        Expr::Binary(b) if matches!(b.op, BinOp::Add(_)) => {
            let mut terms = sum_terms(&b.left);
            terms.extend(sum_terms(&b.right));
            terms
        }
        other => vec![other],
    }
}

/// The factors of a product (a term that is no product has none).
fn product_factors(expr: &Expr) -> Vec<&Expr> {
    match strip(expr) {
        Expr::Binary(b) if matches!(b.op, BinOp::Mul(_)) => {
            let mut factors = product_factors(&b.left);
            if factors.is_empty() {
                factors.push(strip(&b.left));
            }
            let right = product_factors(&b.right);
            if right.is_empty() {
                factors.push(strip(&b.right));
            } else {
                factors.extend(right);
            }
            factors
        }
        _ => Vec::new(),
    }
}

fn ident_of(expr: &Expr) -> Option<String> {
    match strip(expr) {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

fn ident_of_pat(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(p) => Some(p.ident.to_string()),
        _ => None,
    }
}

fn is_ident(expr: &Expr, name: &str) -> bool {
    ident_of(expr).is_some_and(|n| n == name)
}

fn is_zero(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_digits() == "0",
            syn::Lit::Float(f) => f.base10_digits().parse::<f64>().is_ok_and(|v| v == 0.0),
            _ => false,
        },
        _ => false,
    }
}

/// Every identifier in a node.
fn idents(node: &impl ToTokens) -> BTreeSet<String> {
    fn walk(stream: proc_macro2::TokenStream, out: &mut BTreeSet<String>) {
        for t in stream {
            match t {
                proc_macro2::TokenTree::Ident(i) => {
                    out.insert(i.to_string());
                }
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(node.to_token_stream(), &mut out);
    out
}

fn mentions(node: &impl ToTokens, name: &str) -> bool {
    idents(node).contains(name)
}

/// Whether an index, as written, is `row * len + col` (terms in any order): `col` alone once,
/// `row` a factor of another term.
fn row_major(index: &str, row: &str, col: &str) -> bool {
    let Ok(expr) = syn::parse_str::<Expr>(index) else {
        return false;
    };
    let terms = sum_terms(&expr);
    let others: Vec<&&Expr> = terms.iter().filter(|t| !is_ident(t, col)).collect();
    terms.len() - others.len() == 1
        && !others.iter().any(|t| mentions(**t, col))
        && others
            .iter()
            .any(|t| product_factors(t).iter().any(|f| is_ident(f, row)))
}

fn tokens(node: &impl ToTokens) -> String {
    node.to_token_stream().to_string()
}

/// The source text of a node (its first line when it spans several).
fn snippet(file: &SourceFile, node: &impl ToTokens) -> String {
    let text = file.snippet(file.span_of_node(node));
    match text.split_once('\n') {
        Some((first, _)) => format!("{} ..", first.trim_end()),
        None => text.to_string(),
    }
}

/// Index text without any spaces, to compare two indexes.
fn squash(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn first_line(file: &SourceFile, node: &impl ToTokens) -> String {
    let s = file.span_of_node(node);
    file.snippet(s).lines().next().unwrap_or("").trim().to_string()
}

/// Every identifier of the function, to choose new names that are free.
fn names_in(function: &syn::ItemFn) -> BTreeSet<String> {
    idents(function)
}

fn free(names: &BTreeSet<String>, base: &str) -> String {
    if !names.contains(base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}{n}"))
        .find(|n| !names.contains(n))
        .expect("some suffix is free")
}

/// The whitespace that starts the line of `offset`.
fn line_indent(text: &str, offset: usize) -> String {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    text[start..].chars().take_while(|c| *c == ' ' || *c == '\t').collect()
}

/// One level of indentation, as the loop body indents its statements.
fn indent_unit(text: &str, lp: &syn::ExprForLoop, file: &SourceFile) -> Option<String> {
    let first = lp.body.stmts.first()?;
    let outer = line_indent(text, file.span_of_node(lp).start);
    let inner = line_indent(text, file.span_of_node(first).start);
    inner.strip_prefix(&outer).filter(|u| !u.is_empty()).map(str::to_string)
}

/// `text` with every line after a line break indented one level more.
fn indent_lines(text: &str, unit: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut lines = text.split('\n');
    if let Some(first) = lines.next() {
        out.push_str(first);
    }
    for line in lines {
        out.push('\n');
        if !line.trim().is_empty() {
            out.push_str(unit);
        }
        out.push_str(line);
    }
    out
}

/// The integer type of an expression, where it is written: a cast, a suffix, a parameter, or
/// a cuda_std thread index (`u32`).
fn int_type(expr: &Expr, function: &syn::ItemFn) -> Option<String> {
    match expr {
        Expr::Cast(c) => Some(tokens(&*c.ty).replace(' ', "")),
        Expr::Paren(p) => int_type(&p.expr, function),
        Expr::Group(g) => int_type(&g.expr, function),
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) if !i.suffix().is_empty() => Some(i.suffix().to_string()),
            _ => None,
        },
        Expr::Path(p) => {
            let name = p.path.get_ident()?.to_string();
            function.sig.inputs.iter().find_map(|input| {
                let syn::FnArg::Typed(arg) = input else { return None };
                (ident_of_pat(&arg.pat)? == name).then(|| tokens(&*arg.ty).replace(' ', ""))
            })
        }
        Expr::Call(c) => {
            let Expr::Path(p) = &*c.func else { return None };
            let last = p.path.segments.last()?.ident.to_string();
            THREAD_INDEXES.contains(&last.as_str()).then(|| "u32".to_string())
        }
        Expr::Binary(b) if !matches!(b.op, BinOp::Shl(_) | BinOp::Shr(_)) => {
            int_type(&b.left, function).or_else(|| int_type(&b.right, function))
        }
        _ => None,
    }
}

/// cuda_std's thread index functions, all `u32`.
const THREAD_INDEXES: [&str; 14] = [
    "thread_idx_x",
    "thread_idx_y",
    "thread_idx_z",
    "block_idx_x",
    "block_idx_y",
    "block_idx_z",
    "block_dim_x",
    "block_dim_y",
    "block_dim_z",
    "grid_dim_x",
    "grid_dim_y",
    "grid_dim_z",
    "index_1d",
    "index",
];

/// The names in an expression that are neither kernel parameters nor constants
/// (`SCREAMING_CASE`): values a lane computes, which may differ between lanes.
fn lane_names(expr: &Expr, function: &syn::ItemFn) -> Vec<String> {
    struct Names<'f> {
        function: &'f syn::ItemFn,
        found: Vec<String>,
    }
    impl<'a> Visit<'a> for Names<'_> {
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            let constant = last
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            let param = p.path.get_ident().is_some_and(|i| {
                self.function.sig.inputs.iter().any(|input| match input {
                    syn::FnArg::Typed(arg) => ident_of_pat(&arg.pat).is_some_and(|n| *i == n),
                    syn::FnArg::Receiver(_) => false,
                })
            });
            if !constant && !param {
                self.found.push(
                    p.path
                        .segments
                        .iter()
                        .map(|s| s.ident.to_string())
                        .collect::<Vec<_>>()
                        .join("::"),
                );
            }
        }
    }
    let mut names = Names {
        function,
        found: Vec::new(),
    };
    names.visit_expr(expr);
    names.found
}

/// Whether `expr` is the thread's global x index: `index_1d()`, or `thread_idx_x()` plus
/// `block_idx_x() * block_dim_x()` in any order (casts and parentheses aside), or a name set to
/// one of those earlier at the top of the kernel.
fn is_global_x_index(expr: &Expr, top: &[Stmt], before: usize) -> bool {
    let call = |e: &Expr, name: &str| match strip(e) {
        Expr::Call(c) if c.args.is_empty() => match &*c.func {
            Expr::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == name),
            _ => false,
        },
        _ => false,
    };
    if call(expr, "index_1d") {
        return true;
    }
    if let Some(name) = ident_of(expr) {
        let Some(at) = top[..before].iter().rposition(|s| let_names(s).contains(&name)) else {
            return false;
        };
        let Stmt::Local(l) = &top[at] else { return false };
        return l
            .init
            .as_ref()
            .is_some_and(|init| is_global_x_index(&init.expr, top, at));
    }
    let terms = sum_terms(expr);
    let [a, b] = terms.as_slice() else { return false };
    let block_offset = |e: &Expr| {
        let factors = product_factors(e);
        factors.len() == 2
            && ((call(factors[0], "block_idx_x") && call(factors[1], "block_dim_x"))
                || (call(factors[0], "block_dim_x") && call(factors[1], "block_idx_x")))
    };
    (call(a, "thread_idx_x") && block_offset(b)) || (call(b, "thread_idx_x") && block_offset(a))
}
