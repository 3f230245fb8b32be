//! Finding the items a rewrite changes in a file's syntax tree.

use crate::draft::Declined;
use syn::visit::Visit;
use syn::{BinOp, FnArg, Pat, PatType, Type};

/// How a kernel takes an array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// `*mut T` or `*const T`.
    Pointer { mutable: bool },
    /// `&[T]` or `&mut [T]`.
    Slice { mutable: bool },
}

/// The parameter of `sig` named `array`, how it takes the array and its element type: `None`
/// when no parameter has that name, a reason when it takes something other than an array.
pub(crate) fn array_parameter<'f>(
    sig: &'f syn::Signature,
    array: &str,
) -> Option<Result<(&'f PatType, Style, &'f Type), Declined>> {
    let arg = sig.inputs.iter().find_map(|input| match input {
        FnArg::Typed(arg) if matches!(&*arg.pat, Pat::Ident(i) if i.ident == array) => Some(arg),
        _ => None,
    })?;
    Some(match &*arg.ty {
        Type::Ptr(p) => Ok((
            arg,
            Style::Pointer {
                mutable: p.mutability.is_some(),
            },
            &*p.elem,
        )),
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) => Ok((
                arg,
                Style::Slice {
                    mutable: r.mutability.is_some(),
                },
                &*s.elem,
            )),
            _ => Err(Declined::new(format!(
                "`{array}` is a reference to one element, not an array"
            ))),
        },
        _ => Err(Declined::new(format!(
            "`{array}` is neither a raw pointer nor a slice: the rewrite keeps to those argument styles"
        ))),
    })
}

/// `+=`, `<<=` and the other operators that assign to their left side.
pub(crate) fn is_compound_assign(op: &BinOp) -> bool {
    matches!(
        op,
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
    )
}

/// The kernel function `name` of a file, wherever it is nested (an inline `mod`).
pub fn kernel_fn<'a>(file: &'a syn::File, name: &str) -> Option<&'a syn::ItemFn> {
    struct Find<'a, 'n> {
        name: &'n str,
        found: Option<&'a syn::ItemFn>,
    }
    impl<'a> Visit<'a> for Find<'a, '_> {
        fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
            if self.found.is_none() && f.sig.ident == self.name {
                self.found = Some(f);
            }
        }
    }
    let mut find = Find { name, found: None };
    find.visit_file(file);
    find.found
}

/// The struct `name` of a file, wherever it is nested.
pub fn struct_item<'a>(file: &'a syn::File, name: &str) -> Option<&'a syn::ItemStruct> {
    struct Find<'a, 'n> {
        name: &'n str,
        found: Option<&'a syn::ItemStruct>,
    }
    impl<'a> Visit<'a> for Find<'a, '_> {
        fn visit_item_struct(&mut self, s: &'a syn::ItemStruct) {
            if self.found.is_none() && s.ident == self.name {
                self.found = Some(s);
            }
        }
    }
    let mut find = Find { name, found: None };
    find.visit_file(file);
    find.found
}

/// Whether a name is declared anywhere in a file as an item (a struct, fn, type, const...).
pub fn declares(file: &syn::File, name: &str) -> bool {
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
    find.visit_file(file);
    find.found
}

/// The last segment of a type path (`Particle` of `crate::Particle`), without generics.
pub fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Paren(p) => type_name(&p.elem),
        syn::Type::Group(g) => type_name(&g.elem),
        _ => None,
    }
}

/// An item formatted as rustfmt would lay it out (prettyplease), without a trailing newline.
pub fn format_item(item: syn::Item) -> String {
    let file = syn::File {
        shebang: None,
        attrs: Vec::new(),
        items: vec![item],
    };
    prettyplease::unparse(&file).trim_end().to_string()
}

/// Where to insert an item before the kernel: above its attributes and the comment lines
/// directly above them (a launch hint stays with its kernel).
pub fn item_start(text: &str, file: &kernel_lint_analyzer::SourceFile, function: &syn::ItemFn) -> usize {
    use syn::spanned::Spanned;
    let first = function
        .attrs
        .first()
        .map(|a| a.span())
        .unwrap_or_else(|| function.sig.span());
    let mut start = file.span_of(first).start;
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
