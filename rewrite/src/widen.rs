//! A lane's run of consecutive elements loaded as one wide, aligned element.
//!
//! When each lane reads `k` consecutive elements from a multiple of `k` (`src[4 * i + 0]` ..
//! `src[4 * i + 3]`), the `k` strided requests become one request of a
//! `#[repr(C, align(k * size))]` type: `*(src as *const Float4).add(i)` for a pointer (the
//! signature stays), `src[i]` with `src: &[Float4]` for a slice. A run of 3 (interleaved
//! RGB) has no aligned 3-wide type: it is offered as one array per channel (planar) and as
//! a pixel padded to 4. Any run the rewrite cannot prove (its start not a multiple of its
//! length, loads under different guards, a write between them) leaves it undone, with the
//! reason.

use crate::draft::{Declined, Draft};
use crate::edits::Splice;
use crate::syntax::{self, Style};
use crate::workspace::Workspace;
use kernel_lint_analyzer::{AccessReport, KernelReport, SourceFile};
use kernel_lint_lints::Applicability;
use quote::{format_ident, quote, ToTokens};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;
use syn::visit::Visit;
use syn::{BinOp, Expr, FnArg, Pat, Type};

/// The proof-cache kinds of the drafts: one per form, and one for a declined finding (so that
/// a finding outside the rewritten runs does not share their proof).
const WIDE: &str = "widen";
const PLANAR: &str = "widen-planar";
const PADDED: &str = "widen-padded";
const WIDE_STORE: &str = "widen-store";
const NONE: &str = "widen-declined";

/// The rewrites of a strided finding's run: one wide load for runs of 2 or 4; for runs of 3,
/// one array per channel, then a padded 4-wide pixel.
pub fn drafts(
    ws: &Workspace<'_>,
    path: &str,
    kernel: &KernelReport,
    access: &AccessReport,
) -> Vec<(&'static str, Result<Draft, Declined>)> {
    let Some(text) = ws.text(path) else {
        return vec![(NONE, Err(Declined::new(format!("the text of `{path}` was not read"))))];
    };
    let syntax = match crate::parses::parse_text(text) {
        Ok(s) => s,
        Err(e) => return vec![(NONE, Err(Declined::new(format!("`{path}` does not parse: {e}"))))],
    };
    let file = SourceFile::new(path, text);
    let found = match Found::new(&file, &syntax, kernel, access) {
        Ok(found) => found,
        Err(Declined(reason)) if reason.is_empty() => return Vec::new(),
        Err(declined) => return vec![(NONE, Err(declined))],
    };
    if found.uses[found.target].kind == Kind::Store {
        let stores = if found.length == 3 {
            Err(Declined::new(format!(
                "the access writes a run of 3 elements of `{}`: the rewrite widens runs of 2 or 4 stores only",
                found.array
            )))
        } else {
            found.wide_stores()
        };
        vec![(WIDE_STORE, stores)]
    } else if found.length == 3 {
        vec![(PLANAR, found.planar()), (PADDED, found.padded())]
    } else {
        vec![(WIDE, found.wide())]
    }
}

/// Whether an element access reads, writes, or is used otherwise (`+=`, a reference).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Load,
    Store,
    Other,
}

/// One element access of the array in the kernel.
#[derive(Debug, Clone)]
struct Use {
    /// The whole access expression.
    range: Range<usize>,
    kind: Kind,
    /// The start of the run, as tokens (the grouping key) and as the expression.
    base_key: String,
    base: Expr,
    /// The constant added to the start.
    offset: i64,
    /// The pointer method (`add`, `offset`), for the pointer style.
    method: Option<String>,
    /// The block and the statement of it the access is in.
    block: usize,
    statement: usize,
    /// Whether the access is under a condition inside its statement (a match arm, `&&`).
    conditional: bool,
    /// `r` of `let r = image[idx] as u32;`.
    binding: Option<String>,
}

/// A run: the loads of one start in one block, at offsets `0..length`.
#[derive(Debug, Clone)]
struct Run {
    loads: Vec<Use>,
    /// The start divided by the run's length: the index of the wide element.
    quotient: String,
    method: Option<String>,
    /// Where the wide load goes (the start of the first statement with a load of the run),
    /// and what follows it there (a line break and indentation, or a space).
    insert_at: usize,
    separator: String,
}

/// What the analysis of the kernel found about the finding's array.
struct Found<'f> {
    file: &'f SourceFile,
    syntax: &'f syn::File,
    function: &'f syn::ItemFn,
    array: String,
    style: Style,
    /// The parameter, `image: &[u8]`.
    param: Range<usize>,
    element: String,
    size: u64,
    uses: Vec<Use>,
    /// Mentions of the array other than element accesses, as their statement's first line.
    other: Vec<String>,
    /// The finding's use.
    target: usize,
    /// The finding's run length.
    length: usize,
    /// The field names from the finding's run's bindings, by offset.
    names: Option<Vec<String>>,
    walk: Facts,
}

/// Facts about the kernel body the proofs need.
#[derive(Default)]
struct Facts {
    /// `let name = init;` bindings that are the only binding of their name in the kernel.
    lets: HashMap<String, Expr>,
    /// How many times each name is bound (parameters, `let`, patterns).
    bound: HashMap<String, usize>,
    /// Names bound `mut`.
    mutable: BTreeSet<String>,
    /// The statements of each block: their ranges.
    statements: Vec<Vec<Range<usize>>>,
}

impl<'f> Found<'f> {
    fn new(
        file: &'f SourceFile,
        syntax: &'f syn::File,
        kernel: &KernelReport,
        access: &AccessReport,
    ) -> Result<Self, Declined> {
        if let Some(call) = access.via.first() {
            return Err(Declined::new(format!(
                "the access is made in `{}`, {} the kernel calls: the rewrite changes accesses written in the kernel only",
                call.callee,
                crate::callee_kind(&call.callee)
            )));
        }
        let function = syntax::kernel_fn(syntax, &kernel.name)
            .ok_or_else(|| Declined::new(format!("the kernel `{}` was not found in `{}`", kernel.name, file.path)))?;
        let array = access.array.clone();
        let (param, style, element) = parameter(file, function, &array)?;
        let size = primitive_size(&element).ok_or_else(|| {
            Declined::new(format!(
                "`{array}` is an array of `{element}`: the rewrite widens runs of primitive number types written as such (`f32`, `u8`, ...)"
            ))
        })?;
        let (uses, other, walk) = walk(file, function, &array, style);
        if walk.bound.get(&array).is_some_and(|&n| n > 1) {
            return Err(Declined::new(format!(
                "`{array}` is bound again in the kernel (a pointer derived from the parameter takes its name): the rewrite follows accesses written on the parameter only"
            )));
        }
        let target = uses
            .iter()
            .position(|u| u.range.start <= access.span.start && access.span.start < u.range.end)
            .ok_or_else(|| {
                let written = file.text.get(access.span.start..access.span.end).unwrap_or(&access.array);
                let mentions = syn::parse_str::<Expr>(written).is_ok_and(|e| names_in(&e).contains(&array));
                Declined::new(if mentions {
                    format!("`{written}` is not written as `{array}[i]` or `*{array}.add(i)`: the rewrite follows those forms only")
                } else {
                    format!("`{written}` accesses `{array}` through another pointer: the rewrite follows accesses written on `{array}` itself only")
                })
            })?;
        let mine = &uses[target];
        match mine.kind {
            Kind::Load => {}
            Kind::Store => {}
            Kind::Other => {
                return Err(Declined::new(format!(
                    "`{}` is both read and written or kept as a reference: the rewrite widens plain loads only",
                    snippet(file, &mine.range)
                )))
            }
        }
        let run = run_of(&uses, target);
        let offsets: BTreeSet<i64> = run.iter().map(|&i| uses[i].offset).collect();
        let length = offsets.len();
        let base_text = snippet_of(file, &mine.base);
        let what = if mine.kind == Kind::Store { "stores" } else { "loads" };
        if length == 1 {
            let elsewhere = uses
                .iter()
                .any(|u| u.base_key == mine.base_key && u.block != mine.block && u.kind == mine.kind);
            if !elsewhere {
                // One element per lane is not this rewrite's shape: no draft, and no reason that
                // would hide another rewrite's.
                return Err(Declined(String::new()));
            }
            return Err(Declined::new(format!(
                "the {what} of `{array}` from `{base_text}` are in different blocks: one access in place of them would change the guards they are under"
            )));
        }
        if offsets.first() != Some(&0) || *offsets.last().expect("not empty") != length as i64 - 1 {
            return Err(Declined::new(format!(
                "the {what} of `{array}` from `{base_text}` are at offsets {}: a run starts at offset 0 and has no gap",
                offsets.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
            )));
        }
        if !(2..=4).contains(&length) {
            return Err(Declined::new(format!(
                "a lane accesses a run of {length} elements of `{array}`: only runs of 2, 3 or 4 are widened"
            )));
        }
        let bytes = length as u64 * size;
        if length != 3 && bytes != 8 && bytes != 16 {
            return Err(Declined::new(format!(
                "a run of {length} `{element}` is {bytes} bytes: an aligned wide load is 8 or 16 bytes"
            )));
        }
        let names = bindings(&uses, &run, length);
        Ok(Found {
            file,
            syntax,
            function,
            array,
            style,
            param,
            element,
            size,
            uses,
            other,
            target,
            length,
            names,
            walk,
        })
    }

    /// The runs of loads of the array, each proven or with why not; the finding's first.
    fn runs(&self, length: usize) -> Vec<Result<Run, Declined>> {
        let mut groups: BTreeMap<(usize, String), Vec<usize>> = BTreeMap::new();
        for (i, u) in self.uses.iter().enumerate() {
            if u.kind == Kind::Load {
                groups.entry((u.block, u.base_key.clone())).or_default().push(i);
            }
        }
        let mut order: Vec<Vec<usize>> = groups.into_values().collect();
        order.sort_by_key(|g| !g.contains(&self.target));
        order.into_iter().map(|g| self.run(&g, length)).collect()
    }

    /// One group of loads as a run of `length`, proven: complete, from a multiple of its
    /// length, unconditional within one block, with nothing between its loads that changes
    /// what they read.
    fn run(&self, group: &[usize], length: usize) -> Result<Run, Declined> {
        let loads: Vec<Use> = group.iter().map(|&i| self.uses[i].clone()).collect();
        let first = &loads[0];
        let array = &self.array;
        let base_text = snippet_of(self.file, &first.base);
        let offsets: BTreeSet<i64> = loads.iter().map(|u| u.offset).collect();
        if offsets != (0..length as i64).collect() {
            return Err(Declined::new(format!(
                "the loads of `{array}` from `{base_text}` are at offsets {}, not a run of {length} from offset 0",
                offsets.iter().map(i64::to_string).collect::<Vec<_>>().join(", ")
            )));
        }
        if let Some(c) = loads.iter().find(|u| u.conditional) {
            return Err(Declined::new(format!(
                "`{}` is read under a condition of its own: one load in place of the run would read it unconditionally",
                snippet(self.file, &c.range)
            )));
        }
        let quotient = self.quotient(&first.base, length)?;
        let block = first.block;
        let from = loads.iter().map(|u| u.statement).min().expect("not empty");
        let to = loads.iter().map(|u| u.statement).max().expect("not empty");
        let statements = &self.walk.statements[block];
        let span = statements[from].start..statements[to].end;
        self.nothing_between(&first.base, span.clone())?;
        let insert_at = statements[from].start;
        let line_start = self.file.text[..insert_at].rfind('\n').map_or(0, |i| i + 1);
        let indent = &self.file.text[line_start..insert_at];
        let separator = if indent.chars().all(char::is_whitespace) {
            format!("\n{indent}")
        } else {
            " ".to_string()
        };
        Ok(Run {
            method: first.method.clone(),
            loads,
            quotient,
            insert_at,
            separator,
        })
    }

    /// The start divided by `length`, as text, when the index expression shows it to be a
    /// multiple of `length`.
    fn quotient(&self, base: &Expr, length: usize) -> Result<String, Declined> {
        divide(base, length as i64, &self.walk, self.file, 0)
            .map(|q| q.text)
            .ok_or_else(|| {
                let defined = match base {
                    Expr::Path(p) => p
                        .path
                        .get_ident()
                        .and_then(|i| self.walk.lets.get(&i.to_string()).map(|init| (i.to_string(), init)))
                        .map(|(name, init)| format!(" (`let {name} = {}`)", snippet_of(self.file, init)))
                        .unwrap_or_default(),
                    _ => String::new(),
                };
                Declined::new(format!(
                    "the run of `{}` starts at `{}`{defined}, which the index expression does not show to be a multiple of {length}: an aligned wide load needs one",
                    self.array,
                    snippet_of(self.file, base),
                ))
            })
    }

    /// Nothing in the statements `span` of the run changes what its loads read: the start's
    /// names are not bound or assigned again, and (for a raw pointer, which may alias) no
    /// memory is written and no function is called.
    fn nothing_between(&self, base: &Expr, span: Range<usize>) -> Result<(), Declined> {
        let names = names_in(base);
        let stmts = statements_in(&self.function.block, self.file, &span);
        let pointer = matches!(self.style, Style::Pointer { .. });
        for stmt in stmts {
            let mut check = Between {
                names: &names,
                file: self.file,
                found: None,
                pointer,
            };
            check.visit_stmt(stmt);
            if let Some(reason) = check.found {
                return Err(Declined::new(reason));
            }
        }
        Ok(())
    }

    /// Every use of the array is a load of a proven run of `length`, and the array is not
    /// otherwise mentioned: what changing its type or layout requires.
    fn all_runs(&self, length: usize) -> Result<Vec<Run>, Declined> {
        self.no_other_use("its layout changes")?;
        if let Some(store) = self.uses.iter().find(|u| u.kind != Kind::Load) {
            return Err(Declined::new(format!(
                "`{}` also writes `{}` or keeps a reference to it: the rewrite changes its layout for loads only",
                snippet(self.file, &store.range),
                self.array
            )));
        }
        self.runs(length).into_iter().collect()
    }

    fn no_other_use(&self, why: &str) -> Result<(), Declined> {
        if let Some(other) = self.other.first() {
            return Err(Declined::new(format!(
                "`{}` is also used in `{other}`, which the rewrite does not follow: {why}",
                self.array
            )));
        }
        Ok(())
    }

    /// Runs of 2 or 4: one wide load per run.
    fn wide(&self) -> Result<Draft, Declined> {
        let length = self.length;
        let bytes = length as u64 * self.size;
        let runs = match self.style {
            Style::Slice { .. } => self.all_runs(length)?,
            // The pointer keeps its type: runs the proof does not cover stay as they are.
            Style::Pointer { .. } => {
                let mut runs = self.runs(length).into_iter();
                let mine = runs.next().expect("the finding's run")?;
                std::iter::once(mine).chain(runs.filter_map(Result::ok)).collect()
            }
        };
        let fields = self.fields(length);
        let (ty, new_type) = self.vector_type(length, &fields, bytes);
        let var = self.variable(length);
        let mut splices = Vec::new();
        if let Some(item) = &new_type {
            let at = types_start(self.file, self.syntax, self.function);
            splices.push(Splice {
                range: at..at,
                text: format!("{item}\n\n"),
            });
        }
        let element = &self.element;
        let array = &self.array;
        let (title, follow_up) = match self.style {
            Style::Slice { mutable } => {
                let reference = if mutable { "&mut " } else { "&" };
                splices.push(Splice {
                    range: self.param.clone(),
                    text: format!("{array}: {reference}[{}]", ty.name),
                });
                (
                    format!(
                        "pass `{array}` as `{reference}[{}]` and load each run of {length} `{element}` as one {bytes}-byte element",
                        ty.name
                    ),
                    format!(
                        "the host must pass `{array}`'s buffer as a `{reference}[{}]` of 1/{length} its length: the buffer must be {bytes}-byte aligned and hold a multiple of {length} `{element}`",
                        ty.name
                    ),
                )
            }
            Style::Pointer { .. } => (
                format!(
                    "load each run of {length} `{element}` of `{array}` as one {bytes}-byte `{}`",
                    ty.name
                ),
                format!(
                    "the buffer `{array}` points to must be {bytes}-byte aligned (a device allocation is; an offset into one must be a multiple of {length} elements)"
                ),
            ),
        };
        let target = self.load_splices(&runs, &var, &ty, &mut splices);
        Ok(Draft {
            title,
            applicability: Applicability::Unsafe,
            splices: splices.into_iter().map(|s| (self.file.path.clone(), s)).collect(),
            target,
            follow_up: vec![follow_up],
        })
    }

    /// Runs of 2 or 4 stores, written as consecutive statements `a[i + c] = v;`: one store of
    /// the wide type built from the values, in place of the statements.
    fn wide_stores(&self) -> Result<Draft, Declined> {
        let length = self.length;
        let bytes = length as u64 * self.size;
        let array = &self.array;
        let pointer = matches!(self.style, Style::Pointer { .. });
        let mine = &self.uses[self.target];
        let run: Vec<&Use> = run_of(&self.uses, self.target)
            .into_iter()
            .map(|i| &self.uses[i])
            .collect();
        if pointer {
            self.no_other_use("its layout changes").or(Ok::<(), Declined>(()))?;
        } else {
            self.no_other_use("its layout changes")?;
            if let Some(u) = self.uses.iter().find(|u| u.kind != Kind::Store) {
                return Err(Declined::new(format!(
                    "`{}` also reads `{array}` or keeps a reference to it: the rewrite re-types an array that is only written",
                    snippet(self.file, &u.range)
                )));
            }
            if self.uses.len() != run.len() {
                return Err(Declined::new(format!(
                    "`{array}` is written outside the run: re-typing it would change those stores"
                )));
            }
        }
        let quotient = self.quotient(&mine.base, length)?;
        // The statements of the run, in order, each `a[i + c] = value;`.
        let statements = statements_in(&self.function.block, self.file, &{
            let block = &self.walk.statements[mine.block];
            let from = run.iter().map(|u| u.statement).min().expect("not empty");
            let to = run.iter().map(|u| u.statement).max().expect("not empty");
            if to - from + 1 != run.len() {
                return Err(Declined::new(format!(
                    "the stores of the run to `{array}` are not consecutive statements: the rewrite joins only those"
                )));
            }
            block[from].start..block[to].end
        });
        let mut values: Vec<Option<&Expr>> = vec![None; length];
        for stmt in &statements {
            let syn::Stmt::Expr(Expr::Assign(assign), Some(_)) = stmt else {
                return Err(Declined::new(format!(
                    "`{}` is not a statement `{array}[i] = value;`: the rewrite joins only those",
                    first_line(self.file, stmt)
                )));
            };
            let range = {
                let s = self.file.span_of_node(&assign.left);
                s.start..s.end
            };
            let Some(u) = run.iter().find(|u| u.range == range) else {
                return Err(Declined::new(format!(
                    "`{}` is not a store of the run: the rewrite joins only the run's stores",
                    first_line(self.file, stmt)
                )));
            };
            let names = names_in(&assign.right);
            if names.contains(array) {
                return Err(Declined::new(format!(
                    "`{}` reads `{array}` while the run writes it: one store after the values would change what it reads",
                    first_line(self.file, stmt)
                )));
            }
            if pointer {
                if let Some(reason) = reads_memory(&assign.right) {
                    return Err(Declined::new(format!(
                        "`{}` {reason} while the run writes through a raw pointer, which may overlap: one store after the values could change what it reads",
                        first_line(self.file, stmt)
                    )));
                }
            }
            values[u.offset as usize] = Some(&assign.right);
        }
        let text = &self.file.text;
        let first = statements
            .first()
            .map(|s| self.file.span_of_node(*s))
            .expect("not empty");
        let last = statements
            .last()
            .map(|s| self.file.span_of_node(*s))
            .expect("not empty");
        let replaced = &text[first.start..last.end];
        if replaced.contains("//") || replaced.contains("/*") {
            return Err(Declined::new(
                "comments between the stores of the run would be lost: the rewrite leaves it to be joined by hand",
            ));
        }
        let fields = self.fields(length);
        let (ty, new_type) = self.vector_type(length, &fields, bytes);
        let line_start = text[..first.start].rfind('\n').map_or(0, |i| i + 1);
        let indent = &text[line_start..first.start];
        let indent = if indent.chars().all(char::is_whitespace) {
            indent
        } else {
            ""
        };
        let members: Vec<String> = ty
            .fields
            .iter()
            .zip(&values)
            .map(|(f, v)| {
                format!(
                    "{indent}    {f}: {},",
                    snippet_of(self.file, v.expect("every offset stored"))
                )
            })
            .collect();
        let target_text = match (&mine.method, self.style) {
            (Some(method), Style::Pointer { .. }) => format!("*({array} as *mut {}).{method}({quotient})", ty.name),
            _ => format!("{array}[{quotient}]"),
        };
        let mut splices = Vec::new();
        if let Some(item) = &new_type {
            let at = types_start(self.file, self.syntax, self.function);
            splices.push(Splice {
                range: at..at,
                text: format!("{item}\n\n"),
            });
        }
        let element = &self.element;
        let (title, follow_up) = match self.style {
            Style::Slice { .. } => {
                splices.push(Splice {
                    range: self.param.clone(),
                    text: format!("{array}: &mut [{}]", ty.name),
                });
                (
                    format!(
                        "pass `{array}` as `&mut [{}]` and store each run of {length} `{element}` as one {bytes}-byte element",
                        ty.name
                    ),
                    format!(
                        "the host must pass `{array}`'s buffer as a `&mut [{}]` of 1/{length} its length: the buffer must be {bytes}-byte aligned and hold a multiple of {length} `{element}`",
                        ty.name
                    ),
                )
            }
            Style::Pointer { .. } => (
                format!(
                    "store each run of {length} `{element}` of `{array}` as one {bytes}-byte `{}`",
                    ty.name
                ),
                format!(
                    "the buffer `{array}` points to must be {bytes}-byte aligned (a device allocation is; an offset into one must be a multiple of {length} elements)"
                ),
            ),
        };
        let one_line = format!(
            "{target_text} = {} {{ {} }};",
            ty.name,
            ty.fields
                .iter()
                .zip(&values)
                .map(|(f, v)| format!("{f}: {}", snippet_of(self.file, v.expect("every offset stored"))))
                .collect::<Vec<_>>()
                .join(", ")
        );
        // Laid out as rustfmt would: on one line when it fits.
        let text = if indent.len() + one_line.len() <= 100 && !one_line.contains('\n') {
            one_line
        } else {
            format!("{target_text} = {} {{\n{}\n{indent}}};", ty.name, members.join("\n"))
        };
        let target = splices.len();
        splices.push(Splice {
            range: first.start..last.end,
            text,
        });
        Ok(Draft {
            title,
            applicability: Applicability::Unsafe,
            splices: splices.into_iter().map(|s| (self.file.path.clone(), s)).collect(),
            target,
            follow_up: vec![follow_up],
        })
    }

    /// Runs of 3: one array per channel, each load in place.
    fn planar(&self) -> Result<Draft, Declined> {
        self.no_other_use("the array is split into one per channel")?;
        let names = self.names.clone().unwrap_or_else(|| default_fields(3));
        let array = &self.array;
        let element = &self.element;
        let channels: Vec<String> = names.iter().map(|n| format!("{array}_{n}")).collect();
        let ty = match self.style {
            Style::Slice { mutable: false } => format!("&[{element}]"),
            Style::Slice { mutable: true } => format!("&mut [{element}]"),
            Style::Pointer { mutable: false } => format!("*const {element}"),
            Style::Pointer { mutable: true } => format!("*mut {element}"),
        };
        let mut splices = vec![Splice {
            range: self.param.clone(),
            text: channels
                .iter()
                .map(|c| format!("{c}: {ty}"))
                .collect::<Vec<_>>()
                .join(", "),
        }];
        // Each access is rewritten in place: it keeps its own guards.
        for u in &self.uses {
            if u.kind == Kind::Other {
                return Err(Declined::new(format!(
                    "`{}` is both read and written or kept as a reference: the rewrite splits plain loads and stores only",
                    snippet(self.file, &u.range)
                )));
            }
            if !(0..3).contains(&u.offset) {
                return Err(Declined::new(format!(
                    "`{}` reads beyond the run of 3 from `{}`: it belongs to no channel",
                    snippet(self.file, &u.range),
                    snippet_of(self.file, &u.base)
                )));
            }
            let quotient = self.quotient(&u.base, 3)?;
            let channel = format!("{array}_{}", names[u.offset as usize]);
            let text = match (self.style, &u.method) {
                (Style::Pointer { .. }, Some(method)) => format!("*{channel}.{method}({quotient})"),
                _ => format!("{channel}[{quotient}]"),
            };
            splices.push(Splice {
                range: u.range.clone(),
                text,
            });
        }
        let target = splices
            .iter()
            .position(|s| s.range == self.uses[self.target].range)
            .expect("the finding's load is rewritten");
        let quoted: Vec<String> = channels.iter().map(|c| format!("`{c}`")).collect();
        let per = match self.style {
            Style::Slice { .. } => "slice",
            Style::Pointer { .. } => "pointer",
        };
        let split: Vec<String> = channels
            .iter()
            .enumerate()
            .map(|(c, name)| {
                let plus = if c == 0 { String::new() } else { format!(" + {c}") };
                format!("`{name}[p] = {array}[3 * p{plus}]`")
            })
            .collect();
        Ok(Draft {
            title: format!("pass `{array}` as one {per} per channel ({})", quoted.join(", ")),
            applicability: Applicability::Unsafe,
            splices: splices.into_iter().map(|s| (self.file.path.clone(), s)).collect(),
            target,
            follow_up: vec![format!(
                "the host must split `{array}` into {} ({}) and pass them in place of `{array}`",
                quoted.join(", "),
                split.join(", ")
            )],
        })
    }

    /// Runs of 3: each pixel padded to 4 elements, loaded as one.
    fn padded(&self) -> Result<Draft, Declined> {
        let bytes = 4 * self.size;
        if bytes > 16 {
            return Err(Declined::new(format!(
                "a pixel of 4 `{}` is {bytes} bytes: an aligned wide load is at most 16",
                self.element
            )));
        }
        let runs = self.all_runs(3)?;
        let mut fields = self.fields(3);
        let pad = match fields.join("").as_str() {
            "rgb" => "a",
            "xyz" => "w",
            _ => "pad",
        };
        fields.push(pad.to_string());
        let (ty, new_type) = self.vector_type(4, &fields, bytes);
        let var = match self.names {
            Some(_) => self.variable(3),
            None => free_name(self.syntax, "pixel"),
        };
        let mut splices = Vec::new();
        if let Some(item) = &new_type {
            let at = types_start(self.file, self.syntax, self.function);
            splices.push(Splice {
                range: at..at,
                text: format!("{item}\n\n"),
            });
        }
        let array = &self.array;
        let element = &self.element;
        let passed = match self.style {
            Style::Slice { mutable } => {
                let reference = if mutable { "&mut " } else { "&" };
                splices.push(Splice {
                    range: self.param.clone(),
                    text: format!("{array}: {reference}[{}]", ty.name),
                });
                format!("pass it as a `{reference}[{}]`", ty.name)
            }
            Style::Pointer { .. } => format!("pass its pointer as `{array}`"),
        };
        let target = self.load_splices(&runs, &var, &ty, &mut splices);
        let repack: Vec<String> = ty
            .fields
            .iter()
            .enumerate()
            .map(|(c, f)| match c {
                0 => format!("{f}: {array}[3 * p]"),
                1 | 2 => format!("{f}: {array}[3 * p + {c}]"),
                _ => format!("{f}: 0"),
            })
            .collect();
        Ok(Draft {
            title: format!(
                "pad each pixel of `{array}` to 4 `{element}` (`{}`) and load it as one {bytes}-byte element",
                ty.name
            ),
            applicability: Applicability::Unsafe,
            splices: splices.into_iter().map(|s| (self.file.path.clone(), s)).collect(),
            target,
            follow_up: vec![format!(
                "the host must repack `{array}` as {bytes}-byte pixels, `{} {{ {} }}` for pixel `p`, in a {bytes}-byte aligned buffer and {passed}",
                ty.name,
                repack.join(", ")
            )],
        })
    }

    /// The splices of the runs' loads: each run's wide load before its first statement, each
    /// load a field of it. The index of the finding's run's wide load.
    fn load_splices(&self, runs: &[Run], var: &str, ty: &Vector, splices: &mut Vec<Splice>) -> usize {
        let array = &self.array;
        let mut target = 0;
        for (n, run) in runs.iter().enumerate() {
            // A second run of the kernel gets its own name.
            let name = if n == 0 {
                var.to_string()
            } else {
                free_name(self.syntax, &format!("{var}_{n}"))
            };
            let load = match (&run.method, self.style) {
                (Some(method), Style::Pointer { .. }) => {
                    format!("*({array} as *const {}).{method}({})", ty.name, run.quotient)
                }
                _ => format!("{array}[{}]", run.quotient),
            };
            if n == 0 {
                target = splices.len();
            }
            splices.push(Splice {
                range: run.insert_at..run.insert_at,
                text: format!("let {name} = {load};{}", run.separator),
            });
            for u in &run.loads {
                splices.push(Splice {
                    range: u.range.clone(),
                    text: format!("{name}.{}", ty.fields[u.offset as usize]),
                });
            }
        }
        target
    }

    /// Field names: the finding's run's bindings, else `x, y, z, w`.
    fn fields(&self, length: usize) -> Vec<String> {
        self.names.clone().unwrap_or_else(|| default_fields(length))
    }

    /// The variable that holds a wide element: the bindings joined (`rgb`, `re_im`), else
    /// the array's name and the run length (`src4`).
    fn variable(&self, length: usize) -> String {
        let base = match &self.names {
            Some(names) if names.iter().all(|n| n.chars().count() == 1) => names.concat(),
            Some(names) => names.join("_"),
            None => format!("{}{length}", self.array),
        };
        free_name(self.syntax, &base)
    }

    /// The vector type to load: one of the file's, if one has the size, alignment and
    /// element, else a new one (its item text).
    fn vector_type(&self, lanes: usize, fields: &[String], bytes: u64) -> (Vector, Option<String>) {
        if let Some(found) = existing_vector(self.syntax, &self.element, lanes, bytes) {
            return (found, None);
        }
        let capitalized = |f: &str| {
            let mut c = f.chars();
            c.next().map_or(String::new(), |h| h.to_uppercase().chain(c).collect())
        };
        let base = if self.names.is_some() {
            // `r, g, b, a` make `Rgba`; `re, im` make `ReIm`.
            if fields.iter().all(|f| f.chars().count() == 1) {
                capitalized(&fields.concat())
            } else {
                fields.iter().map(|f| capitalized(f)).collect::<String>()
            }
        } else {
            format!("{}{lanes}", cuda_name(&self.element))
        };
        let name = free_name(self.syntax, &base);
        let ident = format_ident!("{}", name);
        let ty: Type = syn::parse_str(&self.element).expect("a primitive type");
        let members = fields.iter().map(|f| {
            let f = format_ident!("{}", f);
            quote!(pub #f: #ty)
        });
        let align = proc_macro2::Literal::u64_unsuffixed(bytes);
        let doc = if lanes == self.length {
            format!(
                " {} `{}` a lane accesses together, as one aligned {bytes}-byte element.",
                count_word(lanes),
                self.element
            )
        } else {
            format!(
                " A pixel of {} `{}` padded to {}, loaded as one aligned {bytes}-byte element.",
                count_word(self.length).to_lowercase(),
                self.element,
                count_word(lanes).to_lowercase()
            )
        };
        let item: syn::Item = syn::parse_quote! {
            #[doc = #doc]
            #[repr(C, align(#align))]
            #[derive(Clone, Copy)]
            pub struct #ident { #(#members,)* }
        };
        (
            Vector {
                name,
                fields: fields.to_vec(),
            },
            Some(syntax::format_item(item)),
        )
    }
}

/// Where a new vector type goes: above the file's first item after its `use` lines, so that
/// the rewrites of two kernels that need the same type insert it once (equal edits merge).
fn types_start(file: &SourceFile, syntax: &syn::File, function: &syn::ItemFn) -> usize {
    let first = syntax
        .items
        .iter()
        .find(|item| !matches!(item, syn::Item::Use(_) | syn::Item::ExternCrate(_)));
    let Some(item) = first else {
        return syntax::item_start(&file.text, file, function);
    };
    let text = &file.text;
    let mut start = file.span_of_node(item).start;
    start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    while let Some(prev_end) = start.checked_sub(1) {
        let prev_start = text[..prev_end].rfind('\n').map_or(0, |i| i + 1);
        if text[prev_start..prev_end].trim_start().starts_with("//") {
            start = prev_start;
        } else {
            break;
        }
    }
    start
}

/// A vector type: its name and fields in order.
struct Vector {
    name: String,
    fields: Vec<String>,
}

fn count_word(n: usize) -> &'static str {
    match n {
        2 => "Two",
        3 => "Three",
        _ => "Four",
    }
}

fn default_fields(length: usize) -> Vec<String> {
    ["x", "y", "z", "w"][..length].iter().map(|s| s.to_string()).collect()
}

/// The CUDA name of a vector of `element` (`float`, `uchar`), capitalized.
fn cuda_name(element: &str) -> &'static str {
    match element {
        "u8" => "Uchar",
        "i8" => "Char",
        "u16" => "Ushort",
        "i16" => "Short",
        "u32" => "Uint",
        "i32" => "Int",
        "f32" => "Float",
        "u64" => "Ulong",
        "i64" => "Long",
        _ => "Double",
    }
}

fn primitive_size(element: &str) -> Option<u64> {
    Some(match element {
        "u8" | "i8" => 1,
        "u16" | "i16" => 2,
        "u32" | "i32" | "f32" => 4,
        "u64" | "i64" | "f64" => 8,
        _ => return None,
    })
}

/// A struct of the file with `#[repr(C, align(bytes))]`, `lanes` named fields of `element`
/// and a `Copy` derive: a vector the kernel can load as it is.
fn existing_vector(file: &syn::File, element: &str, lanes: usize, bytes: u64) -> Option<Vector> {
    struct Find<'e> {
        element: &'e str,
        lanes: usize,
        bytes: u64,
        found: Option<Vector>,
    }
    impl<'a> Visit<'a> for Find<'_> {
        fn visit_item_struct(&mut self, s: &'a syn::ItemStruct) {
            if self.found.is_some() || !s.generics.params.is_empty() {
                return;
            }
            let (mut c, mut align, mut copy) = (false, None, false);
            for attr in &s.attrs {
                if attr.path().is_ident("repr") {
                    let _ = attr.parse_nested_meta(|meta| {
                        if meta.path.is_ident("C") {
                            c = true;
                        } else if meta.path.is_ident("align") {
                            let content;
                            syn::parenthesized!(content in meta.input);
                            let lit: syn::LitInt = content.parse()?;
                            align = lit.base10_parse::<u64>().ok();
                        }
                        Ok(())
                    });
                } else if attr.path().is_ident("derive") {
                    let _ = attr.parse_nested_meta(|meta| {
                        copy |= meta.path.is_ident("Copy");
                        Ok(())
                    });
                }
            }
            let syn::Fields::Named(named) = &s.fields else { return };
            let fields: Vec<String> = named
                .named
                .iter()
                .filter(|f| syntax::type_name(&f.ty).as_deref() == Some(self.element))
                .filter_map(|f| f.ident.as_ref().map(|i| i.to_string()))
                .collect();
            if c && copy && align == Some(self.bytes) && named.named.len() == self.lanes && fields.len() == self.lanes {
                self.found = Some(Vector {
                    name: s.ident.to_string(),
                    fields,
                });
            }
        }
    }
    let mut find = Find {
        element,
        lanes,
        bytes,
        found: None,
    };
    find.visit_file(file);
    find.found
}

/// A name not declared in the file: `base`, else `base2`, `base3`...
fn free_name(file: &syn::File, base: &str) -> String {
    if !syntax::declares(file, base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}{n}"))
        .find(|name| !syntax::declares(file, name))
        .expect("some suffix is free")
}

/// The uses of the finding's run: the loads from the same start in the same block.
fn run_of(uses: &[Use], target: usize) -> Vec<usize> {
    let mine = &uses[target];
    uses.iter()
        .enumerate()
        .filter(|(_, u)| u.kind == mine.kind && u.block == mine.block && u.base_key == mine.base_key)
        .map(|(i, _)| i)
        .collect()
}

/// The names the loads of a run are bound to, by offset (`let r = image[idx] as u32;`), when
/// every offset has one, and all differ.
fn bindings(uses: &[Use], run: &[usize], length: usize) -> Option<Vec<String>> {
    let mut names: Vec<Option<String>> = vec![None; length];
    for &i in run {
        let u = &uses[i];
        let slot = names.get_mut(u.offset as usize)?;
        if slot.is_none() {
            *slot = Some(u.binding.clone()?);
        }
    }
    let names: Vec<String> = names.into_iter().collect::<Option<_>>()?;
    let distinct: BTreeSet<&String> = names.iter().collect();
    let ok = distinct.len() == names.len()
        && names.iter().all(|n| {
            n.starts_with(|c: char| c.is_ascii_lowercase()) && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    ok.then_some(names)
}

/// The kernel parameter named `array`: its range, how it is taken and its element type.
fn parameter(
    file: &SourceFile,
    function: &syn::ItemFn,
    array: &str,
) -> Result<(Range<usize>, Style, String), Declined> {
    let found = syntax::array_parameter(&function.sig, array)
        .ok_or_else(|| Declined::new(format!("`{array}` is not a parameter of the kernel")))?;
    let (arg, style, element) = found?;
    let element = syntax::type_name(element).unwrap_or_else(|| quote_text(element));
    let span = file.span_of_node(arg);
    Ok((span.start..span.end, style, element))
}

/// An index split into its start and a constant offset: `idx + 2` is (`idx`, 2).
fn split_offset(index: &Expr) -> (&Expr, i64) {
    if let Expr::Binary(b) = index {
        if let (BinOp::Add(_), Some(c)) = (&b.op, int_literal(&b.right)) {
            return (&b.left, c);
        }
    }
    (index, 0)
}

fn int_literal(expr: &Expr) -> Option<i64> {
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i), ..
        }) => i.base10_parse().ok(),
        Expr::Paren(p) => int_literal(&p.expr),
        _ => None,
    }
}

/// An expression divided by a constant, as text, with whether it needs parentheses as an
/// operand (`tid` does not, `y * w + x` does).
struct Quotient {
    text: String,
    atomic: bool,
}

impl Quotient {
    fn operand(&self) -> String {
        if self.atomic {
            self.text.clone()
        } else {
            format!("({})", self.text)
        }
    }
}

/// `expr / k` written without the division, when the expression shows `expr` to be a
/// multiple of `k`: `(y * w + x) * 3` over 3 is `(y * w + x)`; `idx`, bound once by
/// `let idx = tid * 4`, over 4 is `idx / 4`.
fn divide(expr: &Expr, k: i64, facts: &Facts, file: &SourceFile, depth: usize) -> Option<Quotient> {
    if depth > 8 {
        return None;
    }
    let text = |e: &Expr| snippet_of(file, e);
    match expr {
        Expr::Lit(_) => {
            let v = int_literal(expr)?;
            (v % k == 0).then(|| Quotient {
                text: (v / k).to_string(),
                atomic: true,
            })
        }
        Expr::Paren(p) => {
            let inner = divide(&p.expr, k, facts, file, depth + 1)?;
            Some(Quotient {
                text: inner.operand(),
                atomic: true,
            })
        }
        Expr::Group(g) => divide(&g.expr, k, facts, file, depth + 1),
        Expr::Cast(c) => {
            // Only integer casts keep the value (a multiple stays one when widened).
            // Only casts to a type of 32 bits or more keep a multiple of 3 one.
            syntax::type_name(&c.ty)
                .filter(|t| ["usize", "isize", "u64", "i64", "u32", "i32"].contains(&t.as_str()))?;
            let inner = divide(&c.expr, k, facts, file, depth + 1)?;
            Some(Quotient {
                text: format!("{} as {}", inner.operand(), quote_text(&c.ty)),
                atomic: false,
            })
        }
        Expr::Binary(b) => match b.op {
            BinOp::Mul(_) => {
                for (factor, other) in [(&b.right, &b.left), (&b.left, &b.right)] {
                    if let Some(m) = int_literal(factor) {
                        if m % k == 0 {
                            let atomic = operand_atomic(other);
                            return Some(if m == k {
                                Quotient {
                                    text: text(other),
                                    atomic,
                                }
                            } else {
                                let o =
                                    if atomic || matches!(&**other, Expr::Binary(x) if matches!(x.op, BinOp::Mul(_))) {
                                        text(other)
                                    } else {
                                        format!("({})", text(other))
                                    };
                                Quotient {
                                    text: format!("{o} * {}", m / k),
                                    atomic: false,
                                }
                            });
                        }
                    }
                }
                for (multiple, other) in [(&b.left, &b.right), (&b.right, &b.left)] {
                    if let Some(q) = divide(multiple, k, facts, file, depth + 1) {
                        let o = if operand_atomic(other) {
                            text(other)
                        } else {
                            format!("({})", text(other))
                        };
                        return Some(Quotient {
                            text: format!("{} * {o}", q.operand()),
                            atomic: false,
                        });
                    }
                }
                None
            }
            BinOp::Add(_) | BinOp::Sub(_) => {
                let l = divide(&b.left, k, facts, file, depth + 1)?;
                let r = divide(&b.right, k, facts, file, depth + 1)?;
                let op = if matches!(b.op, BinOp::Add(_)) { "+" } else { "-" };
                Some(Quotient {
                    text: format!("{} {op} {}", l.text, r.operand()),
                    atomic: false,
                })
            }
            BinOp::Shl(_) => {
                let s = int_literal(&b.right)?;
                let factor = 1i64.checked_shl(u32::try_from(s).ok()?)?;
                if factor % k != 0 {
                    return None;
                }
                let left = if operand_atomic(&b.left) {
                    text(&b.left)
                } else {
                    format!("({})", text(&b.left))
                };
                let shift = (factor / k).trailing_zeros();
                Some(if shift == 0 {
                    Quotient {
                        text: text(&b.left),
                        atomic: operand_atomic(&b.left),
                    }
                } else {
                    Quotient {
                        text: format!("{left} << {shift}"),
                        atomic: false,
                    }
                })
            }
            _ => None,
        },
        Expr::Path(p) => {
            let name = p.path.get_ident()?.to_string();
            if facts.bound.get(&name) != Some(&1) || facts.mutable.contains(&name) {
                return None;
            }
            let init = facts.lets.get(&name)?;
            divide(init, k, facts, file, depth + 1)?;
            Some(Quotient {
                text: format!("{name} / {k}"),
                atomic: false,
            })
        }
        _ => None,
    }
}

/// Whether an expression needs no parentheses as an operand of `*` or `as`.
fn operand_atomic(expr: &Expr) -> bool {
    matches!(
        expr,
        Expr::Path(_)
            | Expr::Lit(_)
            | Expr::Paren(_)
            | Expr::MethodCall(_)
            | Expr::Call(_)
            | Expr::Field(_)
            | Expr::Index(_)
            | Expr::Macro(_)
    )
}

/// What in an expression reads memory or may (an index, a dereference, a call), if anything.
fn reads_memory(expr: &Expr) -> Option<String> {
    struct Reads(Option<String>);
    impl<'a> Visit<'a> for Reads {
        fn visit_expr(&mut self, e: &'a Expr) {
            if self.0.is_some() {
                return;
            }
            self.0 = match e {
                Expr::Index(_)
                | Expr::Unary(syn::ExprUnary {
                    op: syn::UnOp::Deref(_),
                    ..
                }) => Some("reads memory".into()),
                Expr::Call(_) | Expr::Macro(_) => Some("calls a function".into()),
                Expr::MethodCall(m) if !PURE_METHODS.contains(&m.method.to_string().as_str()) => {
                    Some("calls a function".into())
                }
                _ => None,
            };
            syn::visit::visit_expr(self, e);
        }
    }
    let mut reads = Reads(None);
    reads.visit_expr(expr);
    reads.0
}

/// The identifiers an expression reads.
fn names_in(expr: &Expr) -> BTreeSet<String> {
    struct Names(BTreeSet<String>);
    impl<'a> Visit<'a> for Names {
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if let Some(i) = p.path.get_ident() {
                self.0.insert(i.to_string());
            }
        }
    }
    let mut names = Names(BTreeSet::new());
    names.visit_expr(expr);
    names.0
}

/// The statements of a body that lie inside a byte range, wherever nested.
fn statements_in<'a>(body: &'a syn::Block, file: &SourceFile, range: &Range<usize>) -> Vec<&'a syn::Stmt> {
    struct Find<'a, 'r> {
        file: &'r SourceFile,
        range: &'r Range<usize>,
        found: Vec<&'a syn::Stmt>,
    }
    impl<'a> Visit<'a> for Find<'a, '_> {
        fn visit_stmt(&mut self, s: &'a syn::Stmt) {
            let span = self.file.span_of_node(s);
            if self.range.start <= span.start && span.end <= self.range.end {
                self.found.push(s);
            } else {
                syn::visit::visit_stmt(self, s);
            }
        }
    }
    let mut find = Find {
        file,
        range,
        found: Vec::new(),
    };
    find.visit_block(body);
    find.found
}

/// Methods that compute a value and touch no memory.
const PURE_METHODS: &[&str] = &[
    "add",
    "offset",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "wrapping_offset",
    "min",
    "max",
    "abs",
    "sqrt",
    "clamp",
    "mul_add",
    "powi",
    "powf",
    "pow",
    "exp",
    "ln",
    "sin",
    "cos",
    "floor",
    "ceil",
    "round",
    "to_bits",
    "saturating_add",
    "saturating_sub",
    "recip",
    "rsqrt",
];

/// What, between the loads of a run, changes what they read.
struct Between<'n> {
    names: &'n BTreeSet<String>,
    file: &'n SourceFile,
    pointer: bool,
    found: Option<String>,
}

impl Between<'_> {
    fn note(&mut self, reason: String) {
        if self.found.is_none() {
            self.found = Some(reason);
        }
    }
    fn assigned(&mut self, left: &Expr, whole: &dyn ToTokens) {
        match left {
            Expr::Path(p) => {
                if let Some(i) = p.path.get_ident() {
                    if self.names.contains(&i.to_string()) {
                        self.note(format!(
                            "`{i}` changes between the loads of the run (`{}`): one load before it would read another element",
                            first_line(self.file, whole)
                        ));
                    }
                }
            }
            _ if self.pointer => self.note(format!(
                "`{}` writes memory between the loads of the run: through raw pointers, which may overlap, one load before it could read a value it changes",
                first_line(self.file, whole)
            )),
            _ => {}
        }
    }
}

impl<'a> Visit<'a> for Between<'_> {
    fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
        self.assigned(&a.left, a);
        syn::visit::visit_expr_assign(self, a);
    }
    fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
        if syntax::is_compound_assign(&b.op) {
            self.assigned(&b.left, b);
        }
        syn::visit::visit_expr_binary(self, b);
    }
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        if self.names.contains(&p.ident.to_string()) {
            self.note(format!(
                "`{}` is bound again between the loads of the run: one load before it would read another element",
                p.ident
            ));
        }
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        if self.pointer {
            self.note(format!(
                "`{}` is called between the loads of the run: the rewrite does not move a load through a raw pointer across a call",
                first_line(self.file, &c.func)
            ));
        }
        syn::visit::visit_expr_call(self, c);
    }
    fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
        if self.pointer && !PURE_METHODS.contains(&m.method.to_string().as_str()) {
            self.note(format!(
                "`{}` is called between the loads of the run: the rewrite does not move a load through a raw pointer across a call",
                m.method
            ));
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        if self.pointer {
            self.note(format!(
                "`{}!` is invoked between the loads of the run: the rewrite does not move a load through a raw pointer across it",
                quote_text(&m.path)
            ));
        }
    }
}

/// The uses of the array in the kernel body, its other mentions, and the facts the proofs
/// need.
fn walk(file: &SourceFile, function: &syn::ItemFn, array: &str, style: Style) -> (Vec<Use>, Vec<String>, Facts) {
    struct Walk<'f> {
        file: &'f SourceFile,
        array: &'f str,
        style: Style,
        uses: Vec<Use>,
        other: Vec<String>,
        facts: Facts,
        /// (block, statement) being walked, innermost last.
        at: Vec<(usize, usize, Range<usize>)>,
        conditional: usize,
        /// `let name = <access> [as T]`: the access's range and the name.
        bound_loads: Vec<(Range<usize>, String)>,
    }
    impl Walk<'_> {
        fn range(&self, node: &dyn ToTokens) -> Range<usize> {
            let s = self.file.span_of_node(&node.to_token_stream());
            s.start..s.end
        }
        fn is_array(&self, expr: &Expr) -> bool {
            matches!(expr, Expr::Path(p) if p.path.is_ident(self.array))
        }
        /// `a[i]` or `*a.add(i)`: the index and the pointer method.
        fn element<'e>(&self, expr: &'e Expr) -> Option<(&'e Expr, Option<String>)> {
            match (self.style, expr) {
                (Style::Slice { .. }, Expr::Index(i)) if self.is_array(&i.expr) => Some((&i.index, None)),
                (Style::Pointer { .. }, Expr::Unary(u)) if matches!(u.op, syn::UnOp::Deref(_)) => {
                    let Expr::MethodCall(m) = &*u.expr else { return None };
                    let method = m.method.to_string();
                    (matches!(method.as_str(), "add" | "offset" | "wrapping_add" | "wrapping_offset")
                        && self.is_array(&m.receiver)
                        && m.args.len() == 1)
                        .then(|| (&m.args[0], Some(method)))
                }
                _ => None,
            }
        }
        /// Records an element access (and walks its index); false when `expr` is not one.
        fn record(&mut self, expr: &Expr, kind: Kind) -> bool {
            let Some((index, method)) = self.element(expr) else {
                return false;
            };
            let (base, offset) = split_offset(index);
            let (block, statement, _) = self.at.last().cloned().unwrap_or((0, 0, 0..0));
            self.uses.push(Use {
                range: self.range(expr),
                kind,
                base_key: base.to_token_stream().to_string(),
                base: base.clone(),
                offset,
                method,
                block,
                statement,
                conditional: self.conditional > 0,
                binding: None,
            });
            self.visit_expr(index);
            true
        }
        fn conditionally(&mut self, f: impl FnOnce(&mut Self)) {
            self.conditional += 1;
            f(self);
            self.conditional -= 1;
        }
    }
    impl<'a> Visit<'a> for Walk<'_> {
        fn visit_block(&mut self, b: &'a syn::Block) {
            let block = self.facts.statements.len();
            self.facts
                .statements
                .push(b.stmts.iter().map(|s| self.range(s)).collect());
            let saved = std::mem::take(&mut self.conditional);
            for (i, s) in b.stmts.iter().enumerate() {
                let range = self.range(s);
                self.at.push((block, i, range));
                self.visit_stmt(s);
                self.at.pop();
            }
            self.conditional = saved;
        }
        fn visit_local(&mut self, l: &'a syn::Local) {
            if let (Pat::Ident(p), Some(init)) = (&l.pat, &l.init) {
                if p.subpat.is_none() && init.diverge.is_none() {
                    let name = p.ident.to_string();
                    self.facts.lets.insert(name.clone(), (*init.expr).clone());
                    let mut root = &*init.expr;
                    while let Expr::Cast(c) = root {
                        root = &c.expr;
                    }
                    if self.element(root).is_some() {
                        let range = self.range(root);
                        self.bound_loads.push((range, name));
                    }
                }
            }
            syn::visit::visit_local(self, l);
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            *self.facts.bound.entry(p.ident.to_string()).or_default() += 1;
            if p.mutability.is_some() {
                self.facts.mutable.insert(p.ident.to_string());
            }
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            if !self.record(e, Kind::Load) {
                syn::visit::visit_expr(self, e);
            }
        }
        fn visit_expr_assign(&mut self, a: &'a syn::ExprAssign) {
            if !self.record(&a.left, Kind::Store) {
                self.visit_expr(&a.left);
            }
            self.visit_expr(&a.right);
        }
        fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
            let compound = matches!(
                b.op,
                BinOp::AddAssign(_)
                    | BinOp::SubAssign(_)
                    | BinOp::MulAssign(_)
                    | BinOp::DivAssign(_)
                    | BinOp::RemAssign(_)
                    | BinOp::BitXorAssign(_)
                    | BinOp::BitAndAssign(_)
                    | BinOp::BitOrAssign(_)
                    | BinOp::ShlAssign(_)
                    | BinOp::ShrAssign(_)
            );
            if compound && self.record(&b.left, Kind::Other) {
                self.visit_expr(&b.right);
                return;
            }
            self.visit_expr(&b.left);
            if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) {
                self.conditionally(|w| w.visit_expr(&b.right));
            } else {
                self.visit_expr(&b.right);
            }
        }
        fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
            if !self.record(&r.expr, Kind::Other) {
                self.visit_expr(&r.expr);
            }
        }
        fn visit_expr_match(&mut self, m: &'a syn::ExprMatch) {
            self.visit_expr(&m.expr);
            self.conditionally(|w| {
                for arm in &m.arms {
                    w.visit_arm(arm);
                }
            });
        }
        fn visit_expr_if(&mut self, i: &'a syn::ExprIf) {
            self.visit_expr(&i.cond);
            self.conditionally(|w| {
                w.visit_block(&i.then_branch);
                if let Some((_, e)) = &i.else_branch {
                    w.visit_expr(e);
                }
            });
        }
        fn visit_expr_while(&mut self, w: &'a syn::ExprWhile) {
            self.conditionally(|v| syn::visit::visit_expr_while(v, w));
        }
        fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
            self.conditionally(|v| syn::visit::visit_expr_closure(v, c));
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if p.path.is_ident(self.array) {
                let at = self.at.last().map(|(.., r)| r.clone()).unwrap_or_else(|| self.range(p));
                let line = self.file.text.get(at).unwrap_or("").lines().next().unwrap_or("").trim();
                self.other.push(line.to_string());
            }
        }
    }
    let mut walk = Walk {
        file,
        array,
        style,
        uses: Vec::new(),
        other: Vec::new(),
        facts: Facts::default(),
        at: Vec::new(),
        conditional: 0,
        bound_loads: Vec::new(),
    };
    for input in &function.sig.inputs {
        if let FnArg::Typed(arg) = input {
            walk.visit_pat(&arg.pat);
        }
    }
    walk.visit_block(&function.block);
    for u in &mut walk.uses {
        u.binding = walk
            .bound_loads
            .iter()
            .find(|(r, _)| *r == u.range)
            .map(|(_, n)| n.clone());
    }
    // A name bound more than once (shadowed, or a parameter too) proves nothing.
    let bound = walk.facts.bound.clone();
    walk.facts.lets.retain(|name, _| bound.get(name) == Some(&1));
    (walk.uses, walk.other, walk.facts)
}

fn quote_text(node: &dyn ToTokens) -> String {
    let tokens = node.to_token_stream();
    match syn::parse2::<Expr>(tokens.clone()) {
        Ok(expr) => prettyplease_expr(&expr),
        Err(_) => tokens.to_string(),
    }
}

/// An expression as rustfmt would write it.
fn prettyplease_expr(expr: &Expr) -> String {
    let item: syn::Item = syn::parse_quote!(const _: () = #expr;);
    let text = syntax::format_item(item);
    text.trim_start_matches("const _: () = ")
        .trim_end_matches(';')
        .to_string()
}

/// A node's source text.
fn snippet_of(file: &SourceFile, node: &dyn ToTokens) -> String {
    let s = file.span_of_node(&node.to_token_stream());
    file.snippet(s).to_string()
}

fn snippet(file: &SourceFile, range: &Range<usize>) -> String {
    file.text.get(range.clone()).unwrap_or("").to_string()
}

fn first_line(file: &SourceFile, node: &dyn ToTokens) -> String {
    snippet_of(file, node).lines().next().unwrap_or("").trim().to_string()
}
