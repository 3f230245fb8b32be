//! Rewrites for shared-memory bank conflicts (KL009): pad the tile's rows by one element, or,
//! where its size cannot change, swizzle the column with the row (`tile[r][c ^ r]`). Every
//! index of the tile in the kernel is rewritten together, and the result is analyzed again:
//! the access must take fewer wavefronts and no other access may get worse.

use crate::draft::{Declined, Draft};
use crate::edits::{self, Splice};
use crate::syntax::kernel_fn;
use crate::workspace::Workspace;
use kernel_lint_analyzer::{AccessReport, KernelReport, MemorySpace, SourceFile};
use kernel_lint_lints::{Applicability, Fix, Gain, GainUnit};
use std::collections::HashMap;
use std::ops::Range;
use syn::visit::Visit;
use syn::{BinOp, Expr};

/// The rewrites that answer a bank conflict: the padding, else the swizzle.
pub fn drafts(
    ws: &Workspace<'_>,
    path: &str,
    kernel: &KernelReport,
    access: &AccessReport,
) -> Vec<(&'static str, Result<Draft, Declined>)> {
    if access.space != MemorySpace::Shared {
        return Vec::new();
    }
    let tile = match Tile::read(ws, path, kernel, access) {
        Ok(tile) => tile,
        Err(reason) => return vec![("pad", Err(reason))],
    };
    match tile.pad() {
        Ok(draft) => vec![("pad", Ok(draft))],
        // Padding changes the tile's size; the swizzle keeps it.
        Err(why_not) => match tile.swizzle() {
            Ok(draft) => vec![("swizzle", Ok(draft))],
            Err(reason) => vec![("pad", Err(why_not)), ("swizzle", Err(reason))],
        },
    }
}

/// How the tile is declared.
enum Declaration {
    /// `static mut T: [[E; W]; R]` (also `[E; N]`, `SharedArray<E, N>`): the row length
    /// literal (or the length expression of a flat tile) and the repeat length of its
    /// initializer, when it has one.
    Static {
        length: Range<usize>,
        init: Option<Range<usize>>,
        generic: bool,
    },
    /// `let t = shared_array![E; N]`: the length expression.
    Macro { length: Range<usize> },
    /// Memory whose size the host launch gives (`dynamic_shared_mem::<E>()`).
    Dynamic,
}

/// One use of the tile: its row and column index expressions (a flat index is `row * W + col`),
/// and for a flat index the range of its `W` literal.
struct Use {
    row: Range<usize>,
    col: Range<usize>,
    width_literal: Option<Range<usize>>,
}

/// A shared tile of `rows` rows of `width` elements and every place the kernel indexes it.
struct Tile<'a> {
    file: SourceFile,
    name: String,
    width: u64,
    rows: u64,
    flat: bool,
    declaration: Declaration,
    uses: Vec<Use>,
    workspace_path: &'a str,
}

impl<'a> Tile<'a> {
    fn read(
        ws: &Workspace<'_>,
        path: &'a str,
        kernel: &KernelReport,
        access: &AccessReport,
    ) -> Result<Tile<'a>, Declined> {
        if access.file.is_some() {
            return Err(Declined::new(
                "the access is in a helper of another file: the tile's uses are rewritten in the kernel's file only",
            ));
        }
        let text = ws
            .text(path)
            .ok_or_else(|| Declined::new(format!("the text of `{path}` was not read")))?;
        let file = SourceFile::new(path, text);
        let syntax =
            crate::parses::parse_text(text).map_err(|e| Declined::new(format!("`{path}` does not parse: {e}")))?;
        let function = kernel_fn(&syntax, &kernel.name)
            .ok_or_else(|| Declined::new(format!("the kernel `{}` was not found in `{path}`", kernel.name)))?;
        let name = tile_name(&file, access)?;
        let mut walk = Walk {
            file: &file,
            name: &name,
            uses: Vec::new(),
            other: None,
            declaration: None,
        };
        walk.visit_item_fn(function);
        if walk.declaration.is_none() {
            // A static of the module, outside the kernel.
            walk.visit_file(&syntax);
            walk.uses.clear();
            walk.other = None;
            walk.visit_item_fn(function);
        }
        let Walk {
            uses,
            other,
            declaration,
            ..
        } = walk;
        if let Some(other) = other {
            return Err(Declined::new(format!(
                "`{name}` is also used as `{other}`: every use of the tile must be an index to rewrite it"
            )));
        }
        let (declaration, shape) = declaration.ok_or_else(|| {
            Declined::new(format!(
                "the declaration of `{name}` was not found in the kernel's file"
            ))
        })?;
        let flat = uses.iter().any(|u| u.width_literal.is_some());
        let (width, rows) = match shape {
            Shape::Grid { width, rows } if !flat => (width, rows),
            Shape::Flat { elements } if flat => {
                let width = flat_width(&uses, &file)?;
                (width, elements.map_or(0, |n| n / width.max(1)))
            }
            _ => {
                return Err(Declined::new(format!(
                    "`{name}` is indexed in a shape its declaration does not have"
                )))
            }
        };
        if uses.is_empty() {
            return Err(Declined::new(format!(
                "`{name}` is not indexed as a tile everywhere (`tile[row][col]` or `tile[row * width + col]`)"
            )));
        }
        Ok(Tile {
            file,
            name,
            width,
            rows,
            flat,
            declaration,
            uses,
            workspace_path: path,
        })
    }

    /// Rows one element longer: `[[T; 33]; 32]`, or a flat tile `32 * 33` long indexed
    /// `row * 33 + col`.
    fn pad(&self) -> Result<Draft, Declined> {
        let padded = self.width + 1;
        let mut splices = Vec::new();
        match &self.declaration {
            Declaration::Dynamic => {
                return Err(Declined::new(format!(
                    "the size of `{}` is set by the host launch, so its rows cannot be padded here",
                    self.name
                )))
            }
            Declaration::Static { length, init, generic } => {
                let text = if self.flat && *generic {
                    format!("{{ {} * {padded} }}", self.rows)
                } else if self.flat {
                    format!("{} * {padded}", self.rows)
                } else {
                    padded.to_string()
                };
                splices.push(self.splice(length.clone(), text.clone()));
                if let Some(init) = init {
                    splices.push(self.splice(init.clone(), text));
                }
            }
            Declaration::Macro { length } => {
                splices.push(self.splice(length.clone(), format!("{} * {padded}", self.rows)));
            }
        }
        if self.flat && self.rows == 0 {
            return Err(Declined::new(format!(
                "the length of `{}` is not a constant multiple of its row length {}",
                self.name, self.width
            )));
        }
        for u in &self.uses {
            if let Some(literal) = &u.width_literal {
                splices.push(self.splice(literal.clone(), padded.to_string()));
            }
        }
        let target = 0;
        let extra = self.rows;
        Ok(Draft {
            title: format!(
                "pad the rows of `{}` to {padded} elements, so that a column spreads over the banks ({extra} more elements of shared memory per block)",
                self.name
            ),
            applicability: Applicability::Unsafe,
            splices,
            target,
            follow_up: Vec::new(),
        })
    }

    /// The column of each use exclusive-or'ed with its row, which permutes each row of a tile
    /// whose width is a power of two and no smaller than its row count.
    fn swizzle(&self) -> Result<Draft, Declined> {
        if !self.width.is_power_of_two() || self.width < 32 || (self.rows > self.width && self.rows != 0) {
            return Err(Declined::new(format!(
                "the swizzle needs rows of a power of two of at least 32 elements and no more rows than that; `{}` has rows of {}",
                self.name, self.width
            )));
        }
        let splices: Vec<(String, Splice)> = self
            .uses
            .iter()
            .map(|u| {
                let col = operand(&self.file.text[u.col.clone()]);
                let row = operand(&self.file.text[u.row.clone()]);
                // In `row * W + col`, `^` binds looser than `+`: the column keeps parentheses.
                let text = match u.width_literal {
                    Some(_) => format!("({col} ^ {row})"),
                    None => format!("{col} ^ {row}"),
                };
                self.splice(u.col.clone(), text)
            })
            .collect();
        Ok(Draft {
            title: format!(
                "swizzle the columns of `{}` with the rows (`col ^ row` at every index), so that a column spreads over the banks",
                self.name
            ),
            applicability: Applicability::Unsafe,
            splices,
            target: 0,
            follow_up: vec![format!(
                "keep every column index of `{}` below {}: the swizzle permutes the elements within a row",
                self.name, self.width
            )],
        })
    }

    fn splice(&self, range: Range<usize>, text: String) -> (String, Splice) {
        (self.workspace_path.to_string(), Splice { range, text })
    }
}

/// The name the kernel gives the tile: the array as the analysis names it, or for memory it
/// names by its source (`dynamic_shared_mem()`), the pointer the access goes through.
fn tile_name(file: &SourceFile, access: &AccessReport) -> Result<String, Declined> {
    if syn::parse_str::<syn::Ident>(&access.array).is_ok() {
        return Ok(access.array.clone());
    }
    let text = file.text.get(access.span.start..access.span.end).unwrap_or("");
    let mut e = syn::parse_str::<Expr>(text).map_err(|_| Declined::new("the access's text does not parse"))?;
    loop {
        e = match e {
            Expr::Unary(u) => *u.expr,
            Expr::Paren(p) => *p.expr,
            Expr::MethodCall(m) => *m.receiver,
            Expr::Index(i) => *i.expr,
            Expr::Path(p) => {
                return p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .ok_or_else(|| Declined::new(format!("`{}` is not a local name", access.array)))
            }
            _ => {
                return Err(Declined::new(format!(
                    "the tile `{}` is not a local name",
                    access.array
                )))
            }
        };
    }
}

/// An operand of `^` as text: parenthesized unless it binds tighter already.
fn operand(text: &str) -> String {
    match syn::parse_str::<Expr>(text) {
        Ok(Expr::Path(_) | Expr::Lit(_) | Expr::Cast(_) | Expr::MethodCall(_) | Expr::Field(_) | Expr::Paren(_)) => {
            text.to_string()
        }
        Ok(Expr::Binary(b))
            if matches!(
                b.op,
                BinOp::Add(_)
                    | BinOp::Sub(_)
                    | BinOp::Mul(_)
                    | BinOp::Div(_)
                    | BinOp::Rem(_)
                    | BinOp::Shl(_)
                    | BinOp::Shr(_)
                    | BinOp::BitAnd(_)
            ) =>
        {
            text.to_string()
        }
        _ => format!("({text})"),
    }
}

/// The row length every flat index uses: one literal.
fn flat_width(uses: &[Use], file: &SourceFile) -> Result<u64, Declined> {
    let mut width = None;
    for u in uses {
        let literal = u
            .width_literal
            .as_ref()
            .ok_or_else(|| Declined::new("the tile is indexed both flat and by row and column"))?;
        let value: u64 = file.text[literal.clone()]
            .trim_end_matches("usize")
            .trim_end_matches("u32")
            .replace('_', "")
            .parse()
            .map_err(|_| Declined::new("the row length of the tile is not an integer literal"))?;
        if width.is_some_and(|w| w != value) {
            return Err(Declined::new("the tile's indices use different row lengths"));
        }
        width = Some(value);
    }
    width.ok_or_else(|| Declined::new("the tile has no index"))
}

/// The shape a declaration gives.
enum Shape {
    Grid { width: u64, rows: u64 },
    Flat { elements: Option<u64> },
}

/// Finds the tile's declaration and every use of its name in a kernel.
struct Walk<'f> {
    file: &'f SourceFile,
    name: &'f str,
    uses: Vec<Use>,
    /// A use that is not an index, as written.
    other: Option<String>,
    declaration: Option<(Declaration, Shape)>,
}

impl Walk<'_> {
    fn range(&self, node: &impl quote::ToTokens) -> Range<usize> {
        let s = self.file.span_of_node(node);
        s.start..s.end
    }

    fn is_name(&self, e: &Expr) -> bool {
        match e {
            Expr::Path(p) => p.path.is_ident(self.name),
            Expr::Paren(p) => self.is_name(&p.expr),
            _ => false,
        }
    }

    /// `row * W + col`, `col + row * W` or `W * row + col`: the row, the column and the
    /// literal `W`.
    fn flat(&self, index: &Expr) -> Option<Use> {
        let Expr::Binary(add) = strip(index) else { return None };
        if !matches!(add.op, BinOp::Add(_)) {
            return None;
        }
        let scaled = |e: &Expr| -> Option<(Range<usize>, Range<usize>)> {
            let Expr::Binary(m) = strip(e) else { return None };
            if !matches!(m.op, BinOp::Mul(_)) {
                return None;
            }
            match (strip(&m.left), strip(&m.right)) {
                (row, Expr::Lit(w)) => Some((self.range(row), self.range(w))),
                (Expr::Lit(w), row) => Some((self.range(row), self.range(w))),
                _ => None,
            }
        };
        let ((row, literal), col) = match (scaled(&add.left), scaled(&add.right)) {
            (Some(r), _) => (r, self.range(&*add.right)),
            (None, Some(r)) => (r, self.range(&*add.left)),
            _ => return None,
        };
        Some(Use {
            row,
            col,
            width_literal: Some(literal),
        })
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

/// An integer literal's value (`32`, `32usize`, `4 * 8`).
fn constant(e: &Expr) -> Option<u64> {
    match strip(e) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i), ..
        }) => i.base10_parse().ok(),
        Expr::Binary(b) if matches!(b.op, BinOp::Mul(_)) => Some(constant(&b.left)? * constant(&b.right)?),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Walk<'_> {
    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        if s.ident != self.name || self.declaration.is_some() {
            return;
        }
        let init = |depth: usize| -> Option<Range<usize>> {
            let mut e = strip(&s.expr);
            for _ in 0..depth {
                let Expr::Repeat(r) = e else { return None };
                e = &r.expr;
            }
            match e {
                Expr::Repeat(r) => Some(self.range(&*r.len)),
                _ => None,
            }
        };
        self.declaration = match &*s.ty {
            syn::Type::Array(outer) => match &*outer.elem {
                syn::Type::Array(inner) => constant(&inner.len).zip(constant(&outer.len)).map(|(width, rows)| {
                    (
                        Declaration::Static {
                            length: self.range(&inner.len),
                            init: init(1),
                            generic: false,
                        },
                        Shape::Grid { width, rows },
                    )
                }),
                _ => Some((
                    Declaration::Static {
                        length: self.range(&outer.len),
                        init: init(0),
                        generic: false,
                    },
                    Shape::Flat {
                        elements: constant(&outer.len),
                    },
                )),
            },
            // cuda-oxide's `SharedArray<T, N[, ALIGN]>`.
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .filter(|seg| seg.ident == "SharedArray")
                .and_then(|seg| {
                    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
                        return None;
                    };
                    let length = args.args.iter().nth(1)?;
                    let elements = match length {
                        syn::GenericArgument::Const(e) => constant(e),
                        syn::GenericArgument::Type(syn::Type::Path(t)) => t.path.get_ident()?.to_string().parse().ok(),
                        _ => None,
                    };
                    Some((
                        Declaration::Static {
                            length: self.range(length),
                            init: None,
                            generic: true,
                        },
                        Shape::Flat { elements },
                    ))
                }),
            _ => None,
        };
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        let bound = matches!(&local.pat, syn::Pat::Ident(i) if i.ident == self.name);
        let init = local.init.as_ref().map(|i| strip(&i.expr));
        match init {
            Some(Expr::Macro(m)) if bound && m.mac.path.segments.last().is_some_and(|s| s.ident == "shared_array") => {
                let parsed = m.mac.parse_body_with(|input: syn::parse::ParseStream| {
                    let _: syn::Type = input.parse()?;
                    let _: syn::Token![;] = input.parse()?;
                    input.parse::<Expr>()
                });
                if let Ok(length) = parsed {
                    self.declaration = Some((
                        Declaration::Macro {
                            length: self.range(&length),
                        },
                        Shape::Flat {
                            elements: constant(&length),
                        },
                    ));
                }
            }
            Some(init) if bound => {
                let text = quote::ToTokens::to_token_stream(init).to_string();
                if text.contains("dynamic_shared") || text.contains("DynamicSharedArray") {
                    self.declaration = Some((Declaration::Dynamic, Shape::Flat { elements: None }));
                } else {
                    syn::visit::visit_local(self, local);
                }
            }
            _ => syn::visit::visit_local(self, local),
        }
    }

    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Index(outer) => {
                if let Expr::Index(inner) = strip(&outer.expr) {
                    if self.is_name(&inner.expr) {
                        self.uses.push(Use {
                            row: self.range(&*inner.index),
                            col: self.range(&*outer.index),
                            width_literal: None,
                        });
                        self.visit_expr(&inner.index);
                        self.visit_expr(&outer.index);
                        return;
                    }
                }
                if self.is_name(&outer.expr) {
                    match self.flat(&outer.index) {
                        Some(u) => self.uses.push(u),
                        None => self.other = self.other.take().or(Some(self.text(e))),
                    }
                    self.visit_expr(&outer.index);
                    return;
                }
            }
            Expr::MethodCall(call)
                if self.is_name(&call.receiver)
                    && matches!(call.method.to_string().as_str(), "add" | "offset")
                    && call.args.len() == 1 =>
            {
                match self.flat(&call.args[0]) {
                    Some(u) => self.uses.push(u),
                    None => self.other = self.other.take().or(Some(self.text(e))),
                }
                self.visit_expr(&call.args[0]);
                return;
            }
            Expr::Path(_) if self.is_name(e) => {
                self.other = self.other.take().or(Some(self.text(e)));
                return;
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }
}

impl Walk<'_> {
    fn text(&self, node: &impl quote::ToTokens) -> String {
        self.file.text.get(self.range(node)).unwrap_or("").to_string()
    }
}

/// Applies a draft to a copy of the workspace and analyzes it again: a fix when the access
/// takes fewer wavefronts per request and no access of the kernel, global or shared, gets
/// worse.
pub fn prove(
    ws: &Workspace<'_>,
    path: &str,
    (kernel, nth): (&KernelReport, usize),
    access: &AccessReport,
    draft: &Draft,
) -> Result<Fix, Declined> {
    let mut splices: Vec<Splice> = draft.splices.iter().map(|(_, s)| s.clone()).collect();
    splices.sort_by_key(|s| (s.range.start, s.range.end));
    let text = ws
        .text(path)
        .ok_or_else(|| Declined::new(format!("the text of `{path}` was not read")))?;
    let new = edits::apply(text, &splices).ok_or_else(|| Declined::new("the rewrite's edits overlap"))?;
    let changed = HashMap::from([(path.to_string(), new)]);
    // Only the kernel is analyzed again: the others of its file cannot change its figures.
    let new_kernel = ws.reanalyzed_kernel(&changed, path, &kernel.name, nth)?;
    let counterpart = |a: &AccessReport| -> Option<&AccessReport> {
        let moved = edits::map_offset(a.span.start, &splices).ok()?;
        new_kernel
            .accesses
            .iter()
            .find(|b| b.op == a.op && b.space == a.space && b.file == a.file && b.span.start == moved)
    };
    let before = wavefronts(access).ok_or_else(|| Declined::new("the access has no figure to improve"))?;
    let after = counterpart(access)
        .and_then(wavefronts)
        .ok_or_else(|| Declined::new("the rewritten access gets no figure from the analysis"))?;
    if after.0 >= before.0 {
        return Err(Declined::new(format!(
            "after the rewrite the access still takes {} wavefronts per request",
            after.0
        )));
    }
    for a in kernel.accesses.iter().filter(|a| a.file.is_none()) {
        let (Some(old), Some(new)) = (cost(a), counterpart(a).and_then(cost)) else {
            continue;
        };
        if new.0 > old.0 + 1e-9 {
            return Err(Declined::new(format!(
                "the rewrite makes `{}` worse ({} -> {} {} per request)",
                a.array, old.0, new.0, old.1
            )));
        }
    }
    let file = SourceFile::new(path, text);
    Ok(Fix {
        title: draft.title.clone(),
        applicability: draft.applicability,
        edits: splices.iter().map(|s| edits::edit(&file, s)).collect(),
        gain: Some(Gain {
            unit: GainUnit::Wavefronts,
            sectors_before: before.0,
            sectors_after: after.0,
            efficiency_before: before.1,
            efficiency_after: after.1,
            dram_bytes_before: None,
            dram_bytes_after: None,
            requests: None,
            warp_before: None,
            warp_after: None,
        }),
        follow_up: draft.follow_up.clone(),
    })
}

/// Wavefronts per request and the bank efficiency of a shared access.
fn wavefronts(access: &AccessReport) -> Option<(f64, f64)> {
    let b = access.banks.as_ref()?;
    Some((b.wavefronts_per_request?, b.efficiency()?))
}

/// What an access costs per request, in its memory's unit.
fn cost(access: &AccessReport) -> Option<(f64, &'static str)> {
    match access.space {
        MemorySpace::Shared => wavefronts(access).map(|w| (w.0, "wavefronts")),
        _ => access
            .prediction
            .as_ref()
            .and_then(|p| p.sectors_per_request)
            .map(|s| (s, "sectors")),
    }
}
