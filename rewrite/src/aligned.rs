//! Aligned whole-element copies: a kernel that reads every field of an 8- or 16-byte struct one
//! by one (`data[i].x`, then `data[i].y`) makes one request per field, each touching the sectors
//! of the whole elements. Aligned to its size, the struct is copied in one access per lane:
//! `let data_elem = data[i];` then `data_elem.x`, and the fields written one by one become one
//! store of the whole element.
//!
//! The lint's own fix answers a kernel that already copies whole elements (alignment alone);
//! this rewrite is for the kernels that read the fields one by one.

use crate::draft::{Declined, Draft};
use crate::edits::Splice;
use crate::soa::{self, Form, Style};
use crate::syntax;
use crate::workspace::Workspace;
use kernel_lint_analyzer::{AccessReport, KernelReport, Op, SourceFile};
use kernel_lint_lints::rules::kl002_array_of_structs_access::repr_edit;
use kernel_lint_lints::Applicability;
use std::ops::Range;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, FnArg, Pat};

/// The aligned whole-copy rewrite of the arrays of the access's struct in its kernel; `None`
/// when the shape is not this rewrite's (a struct of another size, a field the kernels leave
/// unused, an access in a function the kernel calls).
pub fn draft(
    ws: &Workspace<'_>,
    path: &str,
    kernel: &KernelReport,
    access: &AccessReport,
) -> Option<Result<Draft, Declined>> {
    let field_of = access.field_of.as_ref()?;
    if !matches!(field_of.size, 8 | 16) || !access.via.is_empty() {
        return None;
    }
    let text = ws.text(path)?;
    let file = SourceFile::new(path, text);
    let syntax = crate::parses::parse_text(text).ok()?;
    let function = syntax::kernel_fn(&syntax, &kernel.name)?;
    let element = &field_of.type_name;
    let fields = soa::struct_fields(ws, element).ok()?;
    // Every array of the struct the kernel takes, with its uses.
    let mut arrays = Vec::new();
    for input in &function.sig.inputs {
        let FnArg::Typed(arg) = input else { continue };
        let Pat::Ident(name) = &*arg.pat else { continue };
        let name = name.ident.to_string();
        let Ok((_, style, of)) = soa::parameter(&function.sig, &name) else {
            continue;
        };
        if &of != element {
            continue;
        }
        let uses = soa::uses(&file, &function.block, &name, style);
        let written = match &*arg.ty {
            syn::Type::Ptr(p) => soa::snippet(&file, p.elem.span()),
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(s) => soa::snippet(&file, s.elem.span()),
                _ => continue,
            },
            _ => continue,
        };
        arrays.push((name, style, uses, written));
    }
    let used = |f: &String| arrays.iter().any(|(_, _, u, _)| u.fields.iter().any(|(g, ..)| g == f));
    if !fields.iter().all(|(f, _)| used(f)) {
        return None;
    }
    if let Err(declined) = copyable(ws, path, element) {
        return Some(Err(declined));
    }
    Some(rewrite(
        ws,
        &file,
        function,
        access,
        element,
        field_of.size,
        &fields,
        &arrays,
    ))
}

/// The statements and conditional regions of a kernel body, and what it assigns.
#[derive(Default)]
struct Shape {
    /// Every statement: its range and the range of the block holding it.
    statements: Vec<(Range<usize>, Range<usize>)>,
    /// Regions that run conditionally or repeatedly within a statement.
    conditional: Vec<Range<usize>>,
    /// Assignments `place = value`: the ranges of the place, the value and the statement.
    assigns: Vec<(Range<usize>, Range<usize>)>,
    /// Places of compound assignments (`+=`), of `&mut` borrows and receivers of methods.
    in_place: Vec<Range<usize>>,
    /// Names assigned anywhere.
    assigned: Vec<String>,
}

fn shape(file: &SourceFile, body: &syn::Block) -> Shape {
    struct Walk<'f> {
        file: &'f SourceFile,
        blocks: Vec<Range<usize>>,
        shape: Shape,
    }
    impl Walk<'_> {
        fn r(&self, span: proc_macro2::Span) -> Range<usize> {
            soa::range(self.file, span)
        }
        fn assigned(&mut self, place: &Expr) {
            if let Expr::Path(p) = place {
                if let Some(i) = p.path.get_ident() {
                    self.shape.assigned.push(i.to_string());
                }
            }
        }
    }
    impl<'a> Visit<'a> for Walk<'_> {
        fn visit_block(&mut self, b: &'a syn::Block) {
            self.blocks.push(self.r(b.span()));
            syn::visit::visit_block(self, b);
            self.blocks.pop();
        }
        fn visit_stmt(&mut self, s: &'a syn::Stmt) {
            let block = self.blocks.last().cloned().unwrap_or_default();
            self.shape.statements.push((self.r(s.span()), block));
            syn::visit::visit_stmt(self, s);
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::If(_) | Expr::Match(_) | Expr::Closure(_) | Expr::While(_) | Expr::ForLoop(_) | Expr::Loop(_) => {
                    self.shape.conditional.push(self.r(e.span()))
                }
                Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) => {
                    self.shape.conditional.push(self.r(b.right.span()))
                }
                Expr::Binary(b)
                    if matches!(
                        b.op,
                        syn::BinOp::AddAssign(_)
                            | syn::BinOp::SubAssign(_)
                            | syn::BinOp::MulAssign(_)
                            | syn::BinOp::DivAssign(_)
                            | syn::BinOp::RemAssign(_)
                            | syn::BinOp::BitXorAssign(_)
                            | syn::BinOp::BitAndAssign(_)
                            | syn::BinOp::BitOrAssign(_)
                            | syn::BinOp::ShlAssign(_)
                            | syn::BinOp::ShrAssign(_)
                    ) =>
                {
                    self.shape.in_place.push(self.r(b.left.span()));
                    self.assigned(&b.left);
                }
                Expr::Assign(a) => {
                    self.shape.assigns.push((self.r(a.left.span()), self.r(a.right.span())));
                    self.assigned(&a.left);
                }
                Expr::Reference(r) if r.mutability.is_some() => self.shape.in_place.push(self.r(r.expr.span())),
                Expr::MethodCall(m) => self.shape.in_place.push(self.r(m.receiver.span())),
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut walk = Walk {
        file,
        blocks: Vec::new(),
        shape: Shape::default(),
    };
    walk.visit_block(body);
    walk.shape
}

type Arrays = [(String, Style, soa::Uses, String)];

/// The field accesses of one element: field, range, form.
type Group<'u> = Vec<(String, Range<usize>, &'u Form)>;

#[allow(clippy::too_many_arguments)]
fn rewrite(
    ws: &Workspace<'_>,
    file: &SourceFile,
    function: &syn::ItemFn,
    access: &AccessReport,
    element: &str,
    size: u64,
    fields: &[(String, syn::Type)],
    arrays: &Arrays,
) -> Result<Draft, Declined> {
    let text = file.text.as_str();
    let shape = shape(file, &function.block);
    let syntax =
        crate::parses::parse_text(text).map_err(|e| Declined::new(format!("`{}` does not parse: {e}", file.path)))?;
    let mut splices: Vec<Splice> = Vec::new();
    let mut target = None;
    let mut requests = 0;
    let statement_of = |at: &Range<usize>| {
        shape
            .statements
            .iter()
            .filter(|(s, _)| s.start <= at.start && at.end <= s.end)
            .min_by_key(|(s, _)| s.len())
            .cloned()
    };
    for (array, _, uses, written) in arrays {
        if let Some(other) = uses.other.first() {
            return Err(Declined::new(format!(
                "`{array}` is also used in `{}`, which the rewrite does not follow",
                soa::snippet(file, other.1)
            )));
        }
        if let Some((callee, ..)) = uses.calls.first() {
            return Err(Declined::new(format!(
                "`{array}` is passed to `{callee}`, which the rewrite does not follow"
            )));
        }
        // Loads and stores by element: the index as written.
        let mut loads: Vec<(String, Group<'_>)> = Vec::new();
        let mut stores: Vec<(String, Group<'_>)> = Vec::new();
        for (field, at, form) in &uses.fields {
            if shape.in_place.contains(at) {
                return Err(Declined::new(format!(
                    "`{}` is updated in place: a copy of the element would not write it back",
                    soa::snippet_range(file, at)
                )));
            }
            let (index, method) = match form {
                Form::Pointer { index, method, .. } => (index, Some(method)),
                Form::Slice { index } => (index, None),
            };
            let key = format!("{}{}", method.map(|m| m.as_str()).unwrap_or(""), &text[index.clone()]);
            let groups = if shape.assigns.iter().any(|(place, _)| place == at) {
                &mut stores
            } else {
                &mut loads
            };
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, group)) => group.push((field.clone(), at.clone(), form)),
                None => groups.push((key, vec![(field.clone(), at.clone(), form)])),
            }
        }
        let place_of = |form: &Form| match form {
            Form::Pointer { method, index, .. } => format!("*{array}.{method}({})", &text[index.clone()]),
            Form::Slice { index } => format!("{array}[{}]", &text[index.clone()]),
        };
        for (n, (_, group)) in loads.iter().enumerate() {
            let (_, first, form) = &group[0];
            let (Form::Pointer { index, .. } | Form::Slice { index }) = form;
            let idents = identifiers(&text[index.clone()]);
            if let Some(name) = idents.iter().find(|i| shape.assigned.contains(i)) {
                return Err(Declined::new(format!(
                    "`{name}`, in the index of `{}`, is assigned in the kernel: one copy may not serve every read",
                    soa::snippet_range(file, first)
                )));
            }
            let mut block = None;
            let mut start = usize::MAX;
            let mut last = 0;
            for (_, at, _) in group {
                let (statement, holder) =
                    statement_of(at).ok_or_else(|| Declined::new("a read is outside any statement"))?;
                if shape.conditional.iter().any(|c| {
                    c.start <= at.start && at.end <= c.end && statement.start <= c.start && c.end <= statement.end
                }) {
                    return Err(Declined::new(format!(
                        "`{}` is read conditionally within its statement: a copy before it would read the element always",
                        soa::snippet_range(file, at)
                    )));
                }
                if block.get_or_insert(holder.clone()) != &holder {
                    return Err(Declined::new(format!(
                        "the fields of `{}` are read in different blocks",
                        place_of(form)
                    )));
                }
                start = start.min(statement.start);
                last = last.max(at.end);
            }
            // A store to the array between the copy and a read would not be seen by the read.
            if stores
                .iter()
                .flat_map(|(_, g)| g)
                .any(|(_, at, _)| start <= at.start && at.start < last)
            {
                return Err(Declined::new(format!(
                    "`{array}` is written between reads of the same element: a copy would read the old value"
                )));
            }
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            let indent = &text[line_start..start];
            if !indent.chars().all(char::is_whitespace) {
                return Err(Declined::new("the first read shares its line with other code"));
            }
            let base = if n == 0 {
                format!("{array}_elem")
            } else {
                format!("{array}_elem{}", n + 1)
            };
            let name = soa::free_name(&syntax, &base);
            let copy = place_of(form);
            let copy_index = splices.len();
            splices.push(Splice {
                range: line_start..line_start,
                text: format!("{indent}let {name} = {copy};\n"),
            });
            if group.iter().any(|(_, at, _)| at.contains(&access.span.start)) && access.op == Op::Load {
                target = Some(copy_index);
            }
            for (field, at, _) in group {
                splices.push(Splice {
                    range: at.clone(),
                    text: format!("{name}.{field}"),
                });
            }
            requests = requests.max(group.len());
        }
        for (_, group) in &stores {
            let (_, first, form) = &group[0];
            let mut statements = Vec::new();
            for (field, at, _) in group {
                let (statement, holder) =
                    statement_of(at).ok_or_else(|| Declined::new("a store is outside any statement"))?;
                let value = shape
                    .assigns
                    .iter()
                    .find(|(place, _)| place == at)
                    .map(|(_, v)| v.clone())
                    .expect("a store is an assignment");
                if statement.start != at.start || text[value.end..statement.end].trim() != ";" {
                    return Err(Declined::new(format!(
                        "the store to `{}` is not a statement of its own",
                        soa::snippet_range(file, at)
                    )));
                }
                if uses
                    .fields
                    .iter()
                    .any(|(_, f, _)| value.start <= f.start && f.end <= value.end)
                {
                    return Err(Declined::new(format!(
                        "the value stored to `{}` reads `{array}`: one store of the whole element would read it first",
                        soa::snippet_range(file, at)
                    )));
                }
                statements.push((statement, holder, field.clone(), value));
            }
            let mut written_fields: Vec<&String> = statements.iter().map(|(.., f, _)| f).collect();
            written_fields.sort();
            written_fields.dedup();
            if written_fields.len() != statements.len() || written_fields.len() != fields.len() {
                return Err(Declined::new(format!(
                    "the stores to `{}` do not write each field of `{element}` once: a whole store would change the others",
                    place_of(form)
                )));
            }
            statements.sort_by_key(|(s, ..)| s.start);
            let holder = &statements[0].1;
            let siblings: Vec<&Range<usize>> = shape
                .statements
                .iter()
                .filter(|(_, b)| b == holder)
                .map(|(s, _)| s)
                .collect();
            let positions: Vec<Option<usize>> = statements
                .iter()
                .map(|(s, ..)| siblings.iter().position(|t| *t == s))
                .collect();
            let consecutive = positions
                .windows(2)
                .all(|w| matches!(w, [Some(a), Some(b)] if *b == a + 1));
            if !consecutive || statements.iter().any(|(_, b, ..)| b != holder) {
                return Err(Declined::new(format!(
                    "the fields of `{}` are not written by consecutive statements",
                    soa::snippet_range(file, first)
                )));
            }
            let values: Vec<String> = statements
                .iter()
                .map(|(_, _, field, value)| format!("{field}: {}", &text[value.clone()]))
                .collect();
            requests = requests.max(group.len());
            // The last store writes the whole element; the others go, their comments stay.
            let (last, earlier) = statements.split_last().expect("one store at least");
            for (statement, ..) in earlier {
                let line_start = text[..statement.start].rfind('\n').map_or(0, |i| i + 1);
                let line_end = text[statement.end..]
                    .find('\n')
                    .map_or(text.len(), |i| statement.end + i + 1);
                let alone = text[line_start..statement.start].trim().is_empty()
                    && text[statement.end..line_end].trim().is_empty();
                let range = if alone {
                    line_start..line_end
                } else {
                    let spaces = text[statement.end..].len() - text[statement.end..].trim_start_matches(' ').len();
                    statement.start..statement.end + spaces
                };
                splices.push(Splice {
                    range,
                    text: String::new(),
                });
            }
            if group.iter().any(|(_, at, _)| at.contains(&access.span.start)) && access.op == Op::Store {
                target = Some(splices.len());
            }
            splices.push(Splice {
                range: last.0.clone(),
                text: format!("{} = {written} {{ {} }};", place_of(form), values.join(", ")),
            });
        }
    }
    let target = target.ok_or_else(|| Declined::new("the access is not among the ones the rewrite changes"))?;
    let sources: Vec<SourceFile> = ws.files.iter().map(|(f, ..)| f.clone()).collect();
    let align = repr_edit(element, size, &sources).ok_or_else(|| {
        Declined::new(format!(
            "`{element}` cannot be given `#[repr(C, align({size}))]`: it is not defined once, or its `repr` is `packed` or `transparent`"
        ))
    })?;
    let mut all: Vec<(String, Splice)> = vec![(
        align.file.clone(),
        Splice {
            range: align.span.start..align.span.end,
            text: align.replacement.clone(),
        },
    )];
    let shift = all.len();
    all.extend(splices.into_iter().map(|s| (file.path.clone(), s)));
    let per_element = if requests > 1 {
        format!(" (one request per element instead of {requests})")
    } else {
        String::new()
    };
    Ok(Draft {
        title: format!("give `{element}` `#[repr(C, align({size}))]` and copy each element whole{per_element}"),
        applicability: Applicability::Unsafe,
        splices: all,
        target: target + shift,
        follow_up: vec![format!(
            "the host must allocate `{element}` buffers {size}-byte aligned"
        )],
    })
}

/// An element can be copied whole (`Copy`) and built whole (every field visible from the
/// kernel's file: public, or the struct is the kernel file's own).
fn copyable(ws: &Workspace<'_>, path: &str, element: &str) -> Result<(), Declined> {
    for (source, ..) in &ws.files {
        if !source.text.contains(element) {
            continue;
        }
        let Some(file) = crate::parses::parsed(source) else {
            continue;
        };
        let Some(item) = syntax::struct_item(&file, element) else {
            continue;
        };
        let derives_copy = item.attrs.iter().any(|a| {
            a.path().is_ident("derive") && identifiers(&quote::quote!(#a).to_string()).iter().any(|w| w == "Copy")
        });
        let implements_copy = ws
            .files
            .iter()
            .any(|(f, ..)| f.text.contains(&format!("Copy for {element}")));
        if !derives_copy && !implements_copy {
            return Err(Declined::new(format!(
                "`{element}` is not `Copy`: an element cannot be copied whole"
            )));
        }
        let private = item.fields.iter().any(|f| matches!(f.vis, syn::Visibility::Inherited));
        if private && source.path != path {
            return Err(Declined::new(format!(
                "`{element}` has private fields: the kernel cannot build a whole element"
            )));
        }
        return Ok(());
    }
    Ok(())
}

/// The identifiers of an expression's text.
fn identifiers(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_'))
        .map(str::to_string)
        .collect()
}
