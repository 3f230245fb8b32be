//! Array of structs to structure of arrays: one array per field, so that the lanes reading a
//! field of consecutive elements read consecutive values.
//!
//! A kernel that takes `p: *mut Particle` gets `p: ParticleSoa`, a struct of one pointer per
//! field (`(*p.add(i)).x` becomes `*p.x.add(i)`); one that takes `data: &[Pair]` gets one
//! slice per field it uses (`data[i].x` becomes `data_x[i]`). Any other use of the array (a
//! whole-element copy, a call that takes it, a reference kept) leaves the rewrite undone,
//! with the reason.

use crate::draft::{Declined, Draft};
use crate::edits::Splice;
use crate::syntax;
use crate::workspace::Workspace;
use kernel_lint_analyzer::{AccessReport, KernelReport, SourceFile};
use kernel_lint_lints::Applicability;
use proc_macro2::Span;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, FnArg, Pat, Type};

/// How the kernel takes the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    /// `*mut T` or `*const T`.
    Pointer { mutable: bool },
    /// `&[T]` or `&mut [T]`.
    Slice { mutable: bool },
}

/// The structure-of-arrays rewrite of the array an access reads a field of.
pub fn draft(ws: &Workspace<'_>, path: &str, kernel: &KernelReport, access: &AccessReport) -> Result<Draft, Declined> {
    let field_of = access
        .field_of
        .as_ref()
        .ok_or_else(|| Declined::new("the access is not to a field of a struct"))?;
    if let Some(call) = access.via.first() {
        return Err(Declined::new(format!(
            "the access is made in `{}`, a function the kernel calls: the rewrite changes accesses written in the kernel only",
            call.callee
        )));
    }
    let text = ws
        .text(path)
        .ok_or_else(|| Declined::new(format!("the text of `{path}` was not read")))?;
    let file = SourceFile::new(path, text);
    let syntax = syn::parse_file(text).map_err(|e| Declined::new(format!("`{path}` does not parse: {e}")))?;
    let function = syntax::kernel_fn(&syntax, &kernel.name)
        .ok_or_else(|| Declined::new(format!("the kernel `{}` was not found in `{path}`", kernel.name)))?;
    let (arg, style, element) = parameter(function, &access.array)?;
    if element != field_of.type_name {
        return Err(Declined::new(format!(
            "`{}` is an array of `{element}`, not of `{}`",
            access.array, field_of.type_name
        )));
    }
    let fields = struct_fields(ws, &element)?;
    let uses = uses(&file, &function.block, &access.array, style);
    if let Some(other) = uses.other.first() {
        return Err(Declined::new(format!(
            "`{}` is also used in `{}`, which the rewrite does not follow: a structure of arrays has no whole `{element}` to give it",
            access.array,
            snippet(&file, other.1)
        )));
    }
    if uses.fields.is_empty() {
        return Err(Declined::new(format!(
            "no field of `{}` is read in the kernel",
            access.array
        )));
    }
    for (name, ..) in &uses.fields {
        if !fields.iter().any(|(f, _)| f == name) {
            return Err(Declined::new(format!("`{element}` has no field `{name}`")));
        }
    }
    let array = &access.array;
    let mut splices = Vec::new();
    let mut follow_up = Vec::new();
    let soa_name = match style {
        Style::Pointer { mutable } => {
            let name = free_name(&syntax, &format!("{element}Soa"));
            let ident = format_ident!("{}", name);
            let members = fields.iter().map(|(f, ty)| {
                let f = format_ident!("{}", f);
                if mutable {
                    quote!(pub #f: *mut #ty)
                } else {
                    quote!(pub #f: *const #ty)
                }
            });
            let doc = format!(" `{element}` stored as a structure of arrays: one array per field.");
            let item: syn::Item = syn::parse_quote! {
                #[doc = #doc]
                #[repr(C)]
                #[derive(Clone, Copy)]
                pub struct #ident { #(#members,)* }
            };
            let at = item_start(text, &file, function);
            splices.push(Splice {
                range: at..at,
                text: format!("{}\n\n", syntax::format_item(item)),
            });
            splices.push(Splice {
                range: range(&file, arg.span()),
                text: format!("{array}: {name}"),
            });
            follow_up.push(format!(
                "the host must allocate one buffer per field of `{element}` ({}) and pass a `{name}` of their pointers in place of the `{element}` buffer",
                fields.iter().map(|(f, _)| format!("`{f}`")).collect::<Vec<_>>().join(", ")
            ));
            Some(name)
        }
        Style::Slice { mutable } => {
            let mut used: Vec<&String> = Vec::new();
            for (f, ..) in &uses.fields {
                if !used.contains(&f) {
                    used.push(f);
                }
            }
            // In declaration order, as the host will write them.
            used.sort_by_key(|f| fields.iter().position(|(g, _)| g == *f));
            let reference = if mutable { "&mut " } else { "&" };
            let params: Vec<String> = used
                .iter()
                .map(|f| {
                    let ty = &fields.iter().find(|(g, _)| g == *f).expect("checked above").1;
                    format!("{array}_{f}: {reference}[{}]", quote!(#ty).to_string().replace(' ', ""))
                })
                .collect();
            splices.push(Splice {
                range: range(&file, arg.span()),
                text: params.join(", "),
            });
            follow_up.push(format!(
                "the host must pass one slice per field ({}) in place of the slice of `{element}`",
                used.iter()
                    .map(|f| format!("`{array}_{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            None
        }
    };
    let first_field = uses.fields.first().map(|(f, ..)| f.clone()).unwrap_or_default();
    for (field, at, form) in &uses.fields {
        splices.push(Splice {
            range: at.clone(),
            text: form.rewrite(array, field, &file),
        });
    }
    for at in &uses.lengths {
        // `data.len()` is the length of every field's slice.
        splices.push(Splice {
            range: at.clone(),
            text: format!("{array}_{first_field}"),
        });
    }
    let target = splices
        .iter()
        .position(|s| s.range.start <= access.span.start && access.span.start < s.range.end.max(s.range.start + 1))
        .ok_or_else(|| Declined::new("the access is not among the ones the rewrite changes"))?;
    let title = match &soa_name {
        Some(name) => format!("store `{element}` as a structure of arrays (`{name}`, one pointer per field)"),
        None => format!("pass `{array}` as one slice per field of `{element}`"),
    };
    Ok(Draft {
        title,
        applicability: Applicability::Unsafe,
        splices: splices.into_iter().map(|s| (path.to_string(), s)).collect(),
        target,
        follow_up,
    })
}

/// The kernel parameter named `array`, how it is taken and the name of its element type.
fn parameter<'f>(function: &'f syn::ItemFn, array: &str) -> Result<(&'f syn::PatType, Style, String), Declined> {
    for input in &function.sig.inputs {
        let FnArg::Typed(arg) = input else { continue };
        let Pat::Ident(ident) = &*arg.pat else { continue };
        if ident.ident != array {
            continue;
        }
        let (style, element) = match &*arg.ty {
            Type::Ptr(p) => (
                Style::Pointer {
                    mutable: p.mutability.is_some(),
                },
                &*p.elem,
            ),
            Type::Reference(r) => match &*r.elem {
                Type::Slice(s) => (
                    Style::Slice {
                        mutable: r.mutability.is_some(),
                    },
                    &*s.elem,
                ),
                _ => {
                    return Err(Declined::new(format!(
                        "`{array}` is a reference to one element, not an array"
                    )))
                }
            },
            _ => {
                return Err(Declined::new(format!(
                    "`{array}` is neither a raw pointer nor a slice: the rewrite keeps to those argument styles"
                )))
            }
        };
        let element = syntax::type_name(element)
            .ok_or_else(|| Declined::new(format!("the element type of `{array}` is not a named struct")))?;
        return Ok((arg, style, element));
    }
    Err(Declined::new(format!("`{array}` is not a parameter of the kernel")))
}

/// The named fields of the struct `name`, found in the files of the workspace.
fn struct_fields(ws: &Workspace<'_>, name: &str) -> Result<Vec<(String, Type)>, Declined> {
    let mut found = Vec::new();
    for (source, ..) in &ws.files {
        if !source.text.contains(name) {
            continue;
        }
        let Ok(file) = syn::parse_file(&source.text) else {
            continue;
        };
        if let Some(item) = syntax::struct_item(&file, name) {
            found.push(item.clone());
        }
    }
    let [item] = found.as_slice() else {
        return Err(Declined::new(if found.is_empty() {
            format!("the definition of `{name}` was not found")
        } else {
            format!("`{name}` is defined {} times in the workspace", found.len())
        }));
    };
    if !item.generics.params.is_empty() {
        return Err(Declined::new(format!("`{name}` is generic")));
    }
    match &item.fields {
        syn::Fields::Named(named) => Ok(named
            .named
            .iter()
            .filter_map(|f| Some((f.ident.as_ref()?.to_string(), f.ty.clone())))
            .collect()),
        _ => Err(Declined::new(format!("`{name}` has no named fields"))),
    }
}

/// How an access to a field is written.
#[derive(Debug, Clone)]
enum Form {
    /// `(*p.add(i)).x`: the method (`add`, `offset`, `wrapping_add`), the index range, and
    /// whether it must stay parenthesized (a method is called on it, or a field read).
    Pointer {
        method: String,
        index: std::ops::Range<usize>,
        parens: bool,
    },
    /// `p[i].x`: the index range.
    Slice { index: std::ops::Range<usize> },
}

impl Form {
    fn rewrite(&self, array: &str, field: &str, file: &SourceFile) -> String {
        let text = |r: &std::ops::Range<usize>| file.text.get(r.clone()).unwrap_or("").to_string();
        match self {
            Form::Pointer { method, index, parens } => {
                let expr = format!("*{array}.{field}.{method}({})", text(index));
                if *parens {
                    format!("({expr})")
                } else {
                    expr
                }
            }
            Form::Slice { index } => format!("{array}_{field}[{}]", text(index)),
        }
    }
}

/// The uses of the array in the kernel body.
#[derive(Default)]
struct Uses {
    /// Field accesses: field, the range of the whole expression, its form.
    fields: Vec<(String, std::ops::Range<usize>, Form)>,
    /// `array.len()`: the range of the receiver `array`.
    lengths: Vec<std::ops::Range<usize>>,
    /// Any other mention of the array, with the statement it is in.
    other: Vec<(Span, Span)>,
}

fn uses(file: &SourceFile, body: &syn::Block, array: &str, style: Style) -> Uses {
    struct Walk<'n> {
        file: &'n SourceFile,
        array: &'n str,
        style: Style,
        uses: Uses,
        /// Ranges of the array's path expressions that a recognized form consumed.
        consumed: Vec<std::ops::Range<usize>>,
        mentions: Vec<(Span, Span)>,
        /// The statements being walked, innermost last.
        statements: Vec<Span>,
        /// Field expressions that are receivers of a method call or bases of a field read.
        postfix_bases: Vec<std::ops::Range<usize>>,
    }
    impl Walk<'_> {
        fn is_array(&self, expr: &Expr) -> bool {
            matches!(expr, Expr::Path(p) if p.path.is_ident(self.array))
        }
        fn byte_range(&self, span: Span) -> std::ops::Range<usize> {
            range(self.file, span)
        }
        /// `(*p.add(i)).x` or `p[i].x`, recognized from the field expression.
        fn field_form(&self, f: &syn::ExprField) -> Option<(String, Form, std::ops::Range<usize>)> {
            let syn::Member::Named(field) = &f.member else {
                return None;
            };
            match (self.style, &*f.base) {
                (Style::Pointer { .. }, Expr::Paren(paren)) => {
                    let Expr::Unary(u) = &*paren.expr else { return None };
                    if !matches!(u.op, syn::UnOp::Deref(_)) {
                        return None;
                    }
                    let Expr::MethodCall(m) = &*u.expr else { return None };
                    let method = m.method.to_string();
                    if !matches!(method.as_str(), "add" | "offset" | "wrapping_add" | "wrapping_offset")
                        || !self.is_array(&m.receiver)
                        || m.args.len() != 1
                    {
                        return None;
                    }
                    let index = self.byte_range(m.args[0].span());
                    Some((
                        field.to_string(),
                        Form::Pointer {
                            method,
                            index,
                            parens: false,
                        },
                        self.byte_range(m.receiver.span()),
                    ))
                }
                (Style::Slice { .. }, Expr::Index(i)) if self.is_array(&i.expr) => Some((
                    field.to_string(),
                    Form::Slice {
                        index: self.byte_range(i.index.span()),
                    },
                    self.byte_range(i.expr.span()),
                )),
                _ => None,
            }
        }
    }
    impl<'a> Visit<'a> for Walk<'_> {
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            if matches!(&*m.receiver, Expr::Field(_)) {
                self.postfix_bases.push(self.byte_range(m.receiver.span()));
            }
            if m.method == "len" && m.args.is_empty() && self.is_array(&m.receiver) {
                if let Style::Slice { .. } = self.style {
                    let at = self.byte_range(m.receiver.span());
                    self.uses.lengths.push(at.clone());
                    self.consumed.push(at);
                }
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_field(&mut self, f: &'a syn::ExprField) {
            if matches!(&*f.base, Expr::Field(_)) {
                self.postfix_bases.push(self.byte_range(f.base.span()));
            }
            if let Some((field, form, receiver)) = self.field_form(f) {
                self.uses.fields.push((field, self.byte_range(f.span()), form));
                self.consumed.push(receiver);
            }
            syn::visit::visit_expr_field(self, f);
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if p.path.is_ident(self.array) {
                let statement = self.statements.last().copied().unwrap_or_else(|| p.span());
                self.mentions.push((p.span(), statement));
            }
        }
        fn visit_stmt(&mut self, s: &'a syn::Stmt) {
            self.statements.push(s.span());
            syn::visit::visit_stmt(self, s);
            self.statements.pop();
        }
    }
    let mut walk = Walk {
        file,
        array,
        style,
        uses: Uses::default(),
        consumed: Vec::new(),
        mentions: Vec::new(),
        statements: Vec::new(),
        postfix_bases: Vec::new(),
    };
    walk.visit_block(body);
    // A field expression is visited before its receiver's parents are known: settle the
    // parentheses now that every postfix base is.
    for (_, range, form) in &mut walk.uses.fields {
        if let Form::Pointer { parens, .. } = form {
            *parens = walk.postfix_bases.contains(range);
        }
    }
    let (consumed, file) = (&walk.consumed, walk.file);
    walk.uses.other = walk
        .mentions
        .into_iter()
        .filter(|(s, _)| !consumed.contains(&range(file, *s)))
        .collect();
    walk.uses
}

/// The byte range of a span in the file.
fn range(file: &SourceFile, span: Span) -> std::ops::Range<usize> {
    let s = file.span_of(span);
    s.start..s.end
}

fn snippet(file: &SourceFile, span: Span) -> String {
    let s = file.span_of(span);
    let text = file.snippet(s);
    let line = text.lines().next().unwrap_or("");
    line.to_string()
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

/// Where to insert an item before the kernel: above its attributes and the comment lines
/// directly above them (a launch hint stays with its kernel).
fn item_start(text: &str, file: &SourceFile, function: &syn::ItemFn) -> usize {
    let first = function
        .attrs
        .first()
        .map(|a| a.span())
        .unwrap_or_else(|| function.sig.span());
    let mut start = file.span_of(first).start;
    // Back to the start of the line.
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
