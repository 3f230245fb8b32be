//! Misaligned runs (KL003): when the block's warps share the sectors they straddle the offset
//! is cheap to accept; rows whose length in bytes is not a multiple of 32 can be padded (a
//! change of the host's layout, so only shown); an offset the kernel computes with cannot be
//! aligned by rewriting the kernel, and the finding says so instead of offering code.

use crate::draft::{Declined, Draft};
use crate::edits::Splice;
use crate::syntax;
use crate::workspace::Workspace;
use kernel_lint_analyzer::{AccessClass, AccessReport, KernelReport, Op, Prediction, SourceFile};
use kernel_lint_lints::Applicability;
use std::collections::HashMap;
use std::ops::Range;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{BinOp, Expr};

/// Bytes per sector, the unit rows and offsets must be a multiple of.
const SECTOR_BYTES: u64 = 32;

/// The most extra DRAM traffic, as a fraction of what the block's bytes need, at which a
/// misaligned run is called cheap to accept: one sector in eight.
pub const CHEAP_OVERHEAD: f64 = 0.125;

/// The answers to a misaligned access, best first: the padded rows (a draft, proven by
/// re-analysis), or a note on why no code is offered.
pub fn drafts(
    ws: &Workspace<'_>,
    path: &str,
    kernel: &KernelReport,
    access: &AccessReport,
) -> Vec<(&'static str, Result<Draft, Declined>)> {
    let Some(p) = access
        .prediction
        .as_ref()
        .filter(|p| p.class == AccessClass::Misaligned)
    else {
        return Vec::new();
    };
    if let Some(note) = cheap_to_accept(p) {
        return vec![("align", Err(Declined::new(note)))];
    }
    match Shape::read(ws, path, kernel, access) {
        Ok(shape) => shape.answers(ws, path, kernel, access, p),
        Err(reason) => vec![("align", Err(reason))],
    }
}

/// The judgement that a misaligned run costs little DRAM traffic: the block's warps share the
/// sectors each one straddles (the block's overhead is at most half of each request's), so
/// the block moves at most [`CHEAP_OVERHEAD`] more than its bytes need.
pub fn cheap_to_accept(p: &Prediction) -> Option<String> {
    let (moved, ideal) = (p.block_dram_bytes()?, p.block_ideal_dram_bytes()?);
    let (sectors, ideal_sectors) = (p.sectors_per_request?, p.ideal_sectors_per_request?);
    if ideal == 0 || ideal_sectors <= 0.0 {
        return None;
    }
    let block_overhead = moved.saturating_sub(ideal) as f64 / ideal as f64;
    let request_overhead = (sectors - ideal_sectors) / ideal_sectors;
    if block_overhead > CHEAP_OVERHEAD + 1e-9 || block_overhead > request_overhead / 2.0 + 1e-9 {
        return None;
    }
    let extra = (block_overhead * 1000.0).round() / 10.0;
    Some(format!(
        "the block's warps share the straddled sectors: it moves {moved} bytes where {ideal} would do (+{}%); accepting the offset is cheap",
        one_decimal(extra)
    ))
}

fn one_decimal(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.1}")
    }
}

/// One factor of a term of the index: an integer literal (with where it is written, and
/// whether inside the index itself), or anything else by its text.
#[derive(Debug, Clone)]
enum Factor {
    Literal {
        value: i64,
        at: Range<usize>,
        in_index: bool,
    },
    Other {
        text: String,
        in_index: bool,
    },
}

/// One term of the index as a sum: a sign and its factors.
#[derive(Debug, Clone)]
struct Term {
    negative: bool,
    factors: Vec<Factor>,
}

impl Term {
    fn literals(&self) -> impl Iterator<Item = (i64, &Range<usize>, bool)> {
        self.factors.iter().filter_map(|f| match f {
            Factor::Literal { value, at, in_index } => Some((*value, at, *in_index)),
            Factor::Other { .. } => None,
        })
    }

    fn others(&self) -> Vec<&str> {
        self.factors
            .iter()
            .filter_map(|f| match f {
                Factor::Other { text, .. } => Some(text.as_str()),
                Factor::Literal { .. } => None,
            })
            .collect()
    }
}

/// The index of a misaligned access, read as a sum of terms (local `let` bindings followed).
struct Shape {
    terms: Vec<Term>,
    file: SourceFile,
}

/// Terms an expansion may grow to before it stops: beyond it the index is not a simple sum.
const MAX_TERMS: usize = 32;

impl Shape {
    fn read(ws: &Workspace<'_>, path: &str, kernel: &KernelReport, access: &AccessReport) -> Result<Shape, Declined> {
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
        let tree =
            crate::parses::parse_text(text).map_err(|e| Declined::new(format!("`{path}` does not parse: {e}")))?;
        let function = syntax::kernel_fn(&tree, &kernel.name)
            .ok_or_else(|| Declined::new(format!("the kernel `{}` was not found in `{path}`", kernel.name)))?;
        let index = find_expr(&file, &function.block, access.index_span.start, access.index_span.end)
            .ok_or_else(|| Declined::new(format!("the index `{}` was not found in the kernel", access.index)))?;
        let lets = single_lets(&function.block);
        let mut expansion = Expansion {
            file: &file,
            lets: &lets,
            depth: 0,
        };
        let terms = expansion.terms(index, true).ok_or_else(|| {
            Declined::new(format!(
                "the index `{}` is not a sum the rewrite can read",
                access.index
            ))
        })?;
        Ok(Shape {
            terms,
            file: file.clone(),
        })
    }

    /// The pitch draft where the rows' length is the cause, then the note on an offset.
    fn answers(
        &self,
        ws: &Workspace<'_>,
        path: &str,
        kernel: &KernelReport,
        access: &AccessReport,
        p: &Prediction,
    ) -> Vec<(&'static str, Result<Draft, Declined>)> {
        let elem = access.elem_bytes.max(1);
        let mut out = Vec::new();
        if let Some(row) = self.row_length(elem, kernel) {
            out.push(("pad-rows", self.pad_rows(ws, path, kernel, access, row)));
        }
        if let Some(reason) = self.offset_note(access, p, elem) {
            out.push(("align", Err(Declined::new(reason))));
        }
        let [width, height, _] = kernel.launch.block;
        let row_bytes = u64::from(width) * elem;
        if out.is_empty() && height > 1 && width > 0 && row_bytes < SECTOR_BYTES && 32 % width == 0 {
            // A warp of a block narrower than a sector's worth of elements holds several rows.
            out.push((
                "align",
                Err(Declined::new(format!(
                    "each warp holds {} rows of the block, {row_bytes} bytes each, and each row starts a sector of its own: no rewrite of the index aligns them (a block {} threads wide would fill a sector per row)",
                    32 / width,
                    SECTOR_BYTES / elem.min(SECTOR_BYTES)
                ))),
            ));
        }
        if out.is_empty() {
            out.push((
                "align",
                Err(Declined::new(format!(
                    "the rewrite recognizes rows of a constant length and offsets added to the index, not what misaligns `{}`",
                    access.index
                ))),
            ));
        }
        out
    }

    /// A term `row * P` whose row length `P` in bytes is not a multiple of 32, beside a term of
    /// no literal (the column): `P` a literal, or a parameter whose value the launch gives.
    fn row_length(&self, elem: u64, kernel: &KernelReport) -> Option<Row> {
        let unaligned = |value: i64| {
            value >= 2
                && (value as u64)
                    .checked_mul(elem)
                    .is_some_and(|bytes| !bytes.is_multiple_of(SECTOR_BYTES))
        };
        let column = |row: &Term| {
            self.terms.iter().any(|t| {
                !std::ptr::eq(t, row) && !t.negative && t.literals().next().is_none() && !t.others().is_empty()
            })
        };
        self.terms.iter().filter(|t| !t.negative && column(t)).find_map(|t| {
            let literals: Vec<_> = t.literals().collect();
            match literals.as_slice() {
                // `row * P` alone: in `bx * bdx * 4` the row length is `bdx * 4`, not 4; and
                // in `2 * bdx` the other factor is an extent, not a row index.
                [(value, at, in_index)]
                    if t.factors.len() == 2 && unaligned(*value) && t.others().iter().all(|f| !extent(f, kernel)) =>
                {
                    Some(Row {
                        pitch: Pitch::Literal {
                            value: *value,
                            at: (*at).clone(),
                        },
                        in_index: *in_index,
                    })
                }
                [] if t.factors.len() == 2 => t.factors.iter().find_map(|f| {
                    let Factor::Other { text, in_index } = f else {
                        return None;
                    };
                    let value = *kernel.launch.params.get(text)?;
                    let declared = kernel.params.iter().any(|p| &p.name == text);
                    let row_index = t.others().into_iter().find(|o| o != text)?;
                    (declared && unaligned(value) && !extent(row_index, kernel)).then(|| Row {
                        pitch: Pitch::Param {
                            name: text.clone(),
                            value,
                        },
                        in_index: *in_index,
                    })
                }),
                _ => None,
            }
        })
    }

    /// Why an offset added to the index is not rewritten: a constant term, or the alignment
    /// condition the analysis found.
    fn offset_note(&self, access: &AccessReport, p: &Prediction, elem: u64) -> Option<String> {
        let constant: i64 = self
            .terms
            .iter()
            .filter(|t| t.others().is_empty())
            .map(|t| {
                let v = t.literals().map(|l| l.0).product::<i64>();
                if t.negative {
                    -v
                } else {
                    v
                }
            })
            .sum();
        let array = &access.array;
        let verb = match access.op {
            Op::Load => "reading",
            Op::Store => "writing",
        };
        if constant != 0 && !(constant.unsigned_abs() * elem).is_multiple_of(SECTOR_BYTES) {
            return Some(format!(
                "the offset {constant} is part of what the kernel computes: no rewrite of the kernel aligns the run without {verb} other elements (the host can, by placing `{array}` so that `{array}[{constant}]` starts a 32-byte sector)"
            ));
        }
        // The condition the headline assumes false: a row-length case (`w % 32 == 0`) is an
        // assumption the headline already makes, not what misaligns the run.
        let condition = p.assumptions.iter().find_map(|a| {
            let negated = a
                .strip_prefix("assumes ")?
                .strip_suffix(" (the start is not sector-aligned)")?;
            Some(negated.replace(" != 0", " == 0").replace(" || ", " && "))
        })?;
        let condition = condition.as_str();
        let names: Vec<&str> = condition.split(" && ").filter_map(|c| c.split(" % ").next()).collect();
        Some(format!(
            "the offset {} is part of what the kernel computes: no rewrite of the kernel aligns the run without {verb} other elements (the host can keep {condition}, or place `{array}` so that the element at the offset starts a 32-byte sector)",
            names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" and ")
        ))
    }

    /// Every index of the array with the row length padded to a multiple of 32 bytes: a
    /// literal becomes the padded literal, a parameter gives way to a pitch parameter of the
    /// array's own. The host must lay its rows out the same way, so it is shown, not applied.
    fn pad_rows(
        &self,
        ws: &Workspace<'_>,
        path: &str,
        kernel: &KernelReport,
        access: &AccessReport,
        row: Row,
    ) -> Result<Draft, Declined> {
        let array = &access.array;
        let (written, value) = match &row.pitch {
            Pitch::Literal { value, at } => (self.file.text.get(at.clone()).unwrap_or("").to_string(), *value),
            Pitch::Param { name, value } => (format!("`{name}`"), *value),
        };
        if !row.in_index {
            return Err(Declined::new(format!(
                "the row length {written} is written outside the index `{}` (in a `let`): the rewrite pads row lengths written in the index",
                access.index
            )));
        }
        let elem = access.elem_bytes.max(1);
        let step = (SECTOR_BYTES / gcd(elem, SECTOR_BYTES)) as i64;
        let padded = (value + step - 1) / step * step;
        let text = ws
            .text(path)
            .ok_or_else(|| Declined::new(format!("the text of `{path}` was not read")))?;
        let tree =
            crate::parses::parse_text(text).map_err(|e| Declined::new(format!("`{path}` does not parse: {e}")))?;
        let function = syntax::kernel_fn(&tree, &kernel.name)
            .ok_or_else(|| Declined::new(format!("the kernel `{}` was not found in `{path}`", kernel.name)))?;
        let same: Vec<&AccessReport> = kernel.accesses.iter().filter(|a| &a.array == array).collect();
        if let Some(helper) = same.iter().find(|a| a.file.is_some() || !a.via.is_empty()) {
            return Err(Declined::new(format!(
                "`{array}` is also accessed in `{}`, {} the kernel calls: its rows would be padded there too",
                helper.via.first().map_or(array.as_str(), |c| c.callee.as_str()),
                crate::callee_kind(helper.via.first().map_or("", |c| c.callee.as_str()))
            )));
        }
        let mut splices = Vec::new();
        let (operand, replacement) = match &row.pitch {
            Pitch::Literal { .. } => {
                let suffix = written.trim_start_matches(|c: char| c.is_ascii_digit() || c == '_');
                (Operand::Literal(value), format!("{padded}{suffix}"))
            }
            Pitch::Param { name, .. } => {
                let pitch = free_name(&tree, &format!("{array}_pitch"));
                let arg = function
                    .sig
                    .inputs
                    .iter()
                    .find_map(|input| match input {
                        syn::FnArg::Typed(t) if matches!(&*t.pat, syn::Pat::Ident(i) if i.ident == name) => Some(t),
                        _ => None,
                    })
                    .ok_or_else(|| Declined::new(format!("`{name}` is not a parameter of the kernel")))?;
                let at = self.file.span_of_node(arg);
                let ty = self.file.snippet(self.file.span_of_node(&*arg.ty)).to_string();
                splices.push(Splice {
                    range: at.end..at.end,
                    text: format!(", {pitch}: {ty}"),
                });
                (Operand::Name(name.clone()), pitch)
            }
        };
        let products = row_products(&self.file, &function.block, &operand);
        let rows_of = match &row.pitch {
            Pitch::Literal { .. } => format!("rows of {value} elements"),
            Pitch::Param { name, .. } => format!("rows of `{name}` elements"),
        };
        let mut target = None;
        for a in &same {
            let inside: Vec<&Range<usize>> = products
                .iter()
                .filter(|r| a.index_span.start <= r.start && r.end <= a.index_span.end)
                .collect();
            if inside.is_empty() {
                return Err(Declined::new(format!(
                    "`{array}` is also indexed as `{}`, which does not walk {rows_of}: padded rows would move its elements",
                    self.file.snippet(a.span)
                )));
            }
            let mut new = String::new();
            let mut from = a.span.start;
            for r in inside {
                new.push_str(&self.file.text[from..r.start]);
                new.push_str(&replacement);
                from = r.end;
            }
            new.push_str(&self.file.text[from..a.span.end]);
            if a.span == access.span {
                target = Some(splices.len());
            }
            splices.push(Splice {
                range: a.span.start..a.span.end,
                text: new,
            });
        }
        let spans: Vec<Range<usize>> = same.iter().map(|a| a.span.start..a.span.end).collect();
        if let Some(other) = mentions(&self.file, &function.block, array)
            .into_iter()
            .find(|m| !spans.iter().any(|s| s.start <= m.start && m.end <= s.end))
        {
            return Err(Declined::new(format!(
                "`{array}` is also used in `{}`, which the rewrite does not follow: padded rows change what it sees",
                line_of(&self.file, other.start)
            )));
        }
        let target = target.ok_or_else(|| Declined::new("the access is not among the ones the rewrite changes"))?;
        let (row_bytes, padded_bytes) = (value as u64 * elem, padded as u64 * elem);
        let (title, follow_up) = match &row.pitch {
            Pitch::Literal { .. } => (
                format!(
                    "pad the rows of `{array}` to {padded} elements ({padded_bytes} bytes, a multiple of 32) instead of {value} ({row_bytes} bytes)"
                ),
                format!(
                    "the host must allocate `{array}` with a pitch of {padded} elements per row, leave the last {} of each row unused, and copy the rows in at that pitch",
                    padded - value
                ),
            ),
            Pitch::Param { name, .. } => (
                format!(
                    "index the rows of `{array}` by a pitch of their own, `{replacement}`, padded to a multiple of {step} elements (32 bytes)"
                ),
                format!(
                    "the host must allocate `{array}` with a pitch that is a multiple of {step} elements ({padded} for `{name}` = {value}: {padded_bytes} bytes a row instead of {row_bytes}), copy the rows in at that pitch, and pass it as `{replacement}`"
                ),
            ),
        };
        Ok(Draft {
            title,
            applicability: Applicability::DisplayOnly,
            splices: splices.into_iter().map(|s| (path.to_string(), s)).collect(),
            target,
            follow_up: vec![follow_up],
        })
    }
}

/// The row length of a row-major index: where it is written decides how it is padded.
struct Row {
    pitch: Pitch,
    /// Whether it is written in the index itself, not in a `let` the index names.
    in_index: bool,
}

enum Pitch {
    /// A literal, at its bytes in the file.
    Literal { value: i64, at: Range<usize> },
    /// A kernel parameter, with the value the launch gives it.
    Param { name: String, value: i64 },
}

/// The operand of a product that is the row length.
enum Operand {
    Literal(i64),
    Name(String),
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

/// Whether a factor is the same for every thread of a launch (a parameter, a block or grid
/// extent): such a factor scales an offset, it does not index rows.
fn extent(factor: &str, kernel: &KernelReport) -> bool {
    let lower = factor.to_ascii_lowercase();
    kernel.params.iter().any(|p| p.name == factor) || ["dim", "ntid", "nctaid"].iter().any(|word| lower.contains(word))
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Following an index through local bindings into a sum of products.
struct Expansion<'a> {
    file: &'a SourceFile,
    lets: &'a HashMap<String, &'a Expr>,
    depth: usize,
}

impl Expansion<'_> {
    fn terms(&mut self, expr: &Expr, in_index: bool) -> Option<Vec<Term>> {
        let terms = match expr {
            Expr::Paren(p) => self.terms(&p.expr, in_index)?,
            Expr::Group(g) => self.terms(&g.expr, in_index)?,
            Expr::Cast(c) => self.terms(&c.expr, in_index)?,
            Expr::Binary(b) => match b.op {
                BinOp::Add(_) => {
                    let mut left = self.terms(&b.left, in_index)?;
                    left.extend(self.terms(&b.right, in_index)?);
                    left
                }
                BinOp::Sub(_) => {
                    let mut left = self.terms(&b.left, in_index)?;
                    left.extend(self.terms(&b.right, in_index)?.into_iter().map(|mut t| {
                        t.negative = !t.negative;
                        t
                    }));
                    left
                }
                BinOp::Mul(_) => {
                    let (left, right) = (self.terms(&b.left, in_index)?, self.terms(&b.right, in_index)?);
                    let mut out = Vec::new();
                    for l in &left {
                        for r in &right {
                            let mut factors = l.factors.clone();
                            factors.extend(r.factors.iter().cloned());
                            out.push(Term {
                                negative: l.negative != r.negative,
                                factors,
                            });
                        }
                    }
                    out
                }
                _ => vec![self.other(expr, in_index)],
            },
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(int),
                ..
            }) => {
                let value = int.base10_parse::<i64>().ok()?;
                let span = self.file.span_of_node(int);
                vec![Term {
                    negative: false,
                    factors: vec![Factor::Literal {
                        value,
                        at: span.start..span.end,
                        in_index,
                    }],
                }]
            }
            Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = p.path.get_ident().map(|i| i.to_string()).unwrap_or_default();
                match self.lets.get(&name) {
                    Some(bound) if self.depth < 8 => {
                        self.depth += 1;
                        let terms = self.terms(bound, false);
                        self.depth -= 1;
                        terms?
                    }
                    _ => vec![self.other(expr, in_index)],
                }
            }
            _ => vec![self.other(expr, in_index)],
        };
        (terms.len() <= MAX_TERMS).then_some(terms)
    }

    fn other(&self, expr: &Expr, in_index: bool) -> Term {
        Term {
            negative: false,
            factors: vec![Factor::Other {
                text: self.file.snippet(self.file.span_of_node(expr)).to_string(),
                in_index,
            }],
        }
    }
}

/// Names bound once in the body by `let name = expr;` (not `mut`): what an index built from
/// them stands for.
fn single_lets(body: &syn::Block) -> HashMap<String, &Expr> {
    struct Lets<'a> {
        /// How often each name is bound, and the value of its first binding.
        bound: HashMap<String, (usize, Option<&'a Expr>)>,
    }
    impl<'a> Visit<'a> for Lets<'a> {
        fn visit_local(&mut self, local: &'a syn::Local) {
            let pat = match &local.pat {
                syn::Pat::Type(t) => &*t.pat,
                other => other,
            };
            if let syn::Pat::Ident(ident) = pat {
                let value = match (&local.init, ident.mutability) {
                    (Some(init), None) if init.diverge.is_none() => Some(&*init.expr),
                    _ => None,
                };
                let entry = self.bound.entry(ident.ident.to_string()).or_insert((0, value));
                entry.0 += 1;
            }
            syn::visit::visit_local(self, local);
        }
    }
    let mut lets = Lets { bound: HashMap::new() };
    lets.visit_block(body);
    // A name bound twice (shadowed) is not followed.
    lets.bound
        .into_iter()
        .filter_map(|(name, (count, value))| Some((name, value.filter(|_| count == 1)?)))
        .collect()
}

/// The expression of the body whose tokens span exactly `start..end`.
fn find_expr<'a>(file: &SourceFile, body: &'a syn::Block, start: usize, end: usize) -> Option<&'a Expr> {
    struct Find<'a, 'f> {
        file: &'f SourceFile,
        range: (usize, usize),
        found: Option<&'a Expr>,
    }
    impl<'a> Visit<'a> for Find<'a, '_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            if self.found.is_some() {
                return;
            }
            let span = self.file.span_of_node(e);
            if (span.start, span.end) == self.range {
                // The outermost node of that extent: a cast or parentheses keep their inner sum.
                self.found = Some(e);
                return;
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut find = Find {
        file,
        range: (start, end),
        found: None,
    };
    find.visit_block(body);
    find.found
}

/// The byte ranges of the row length (`operand`) where it multiplies something else,
/// anywhere in the body.
fn row_products(file: &SourceFile, body: &syn::Block, operand: &Operand) -> Vec<Range<usize>> {
    struct Walk<'f, 'o> {
        file: &'f SourceFile,
        operand: &'o Operand,
        found: Vec<Range<usize>>,
    }
    impl Walk<'_, '_> {
        fn matches(&self, e: &Expr) -> Option<Range<usize>> {
            let hit = match (e, self.operand) {
                (
                    Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(int),
                        ..
                    }),
                    Operand::Literal(row),
                ) => int.base10_parse::<i64>().ok() == Some(*row),
                (Expr::Path(p), Operand::Name(name)) => p.path.is_ident(name),
                (Expr::Paren(p), _) => return self.matches(&p.expr),
                (Expr::Cast(c), _) => return self.matches(&c.expr),
                _ => false,
            };
            hit.then(|| {
                let s = self.file.span_of_node(e);
                s.start..s.end
            })
        }
    }
    impl<'a> Visit<'a> for Walk<'_, '_> {
        fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
            if let BinOp::Mul(_) = b.op {
                match (self.matches(&b.left), self.matches(&b.right)) {
                    (Some(at), None) | (None, Some(at)) => self.found.push(at),
                    _ => {}
                }
            }
            syn::visit::visit_expr_binary(self, b);
        }
    }
    let mut walk = Walk {
        file,
        operand,
        found: Vec::new(),
    };
    walk.visit_block(body);
    walk.found.sort_by_key(|r| r.start);
    walk.found
}

/// Where the body names `array` as a value.
fn mentions(file: &SourceFile, body: &syn::Block, array: &str) -> Vec<Range<usize>> {
    struct Walk<'f, 'n> {
        file: &'f SourceFile,
        array: &'n str,
        found: Vec<Range<usize>>,
    }
    impl<'a> Visit<'a> for Walk<'_, '_> {
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if p.path.is_ident(self.array) {
                let s = self.file.span_of(p.span());
                self.found.push(s.start..s.end);
            }
        }
    }
    let mut walk = Walk {
        file,
        array,
        found: Vec::new(),
    };
    walk.visit_block(body);
    walk.found
}

/// The trimmed source line holding a byte offset.
fn line_of(file: &SourceFile, offset: usize) -> String {
    let (line, _) = file.line_column(offset);
    file.line_text(line).unwrap_or("").trim().to_string()
}
