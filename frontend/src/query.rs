//! Questions about the code at a byte range of a file: what a call names, what type a value
//! has and how it is laid out, what a constant is worth. Each runs inside the solver's
//! database context (rust-analyzer's trait solver must see the database it answers for).

use crate::load::Loaded;
use either::Either;
use ra_ap_hir::{AsAssocItem, DisplayTarget, HasSource, HirDisplay, Semantics};
use ra_ap_ide_db::RootDatabase;
use ra_ap_syntax::ast::HasGenericArgs;
use ra_ap_syntax::{ast, AstNode, NodeOrToken, SyntaxNode, TextRange, TextSize, WalkEvent};
use std::ops::Range;

/// The function a call names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callee {
    /// Its name.
    pub name: String,
    /// The type of the `impl` block it is defined in, as written there (`Buf`, `f32`), or the
    /// trait's name for a trait method that has no impl for the types at hand.
    pub owner: Option<String>,
    /// Where it is defined: a workspace file and the bytes of its item; `None` for the
    /// bundled `core`.
    pub defined: Option<(usize, Range<usize>)>,
    /// The generic arguments it is called with, as types (`f64`), when known.
    pub generic_args: Vec<String>,
}

/// What is known of a value's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeFacts {
    /// As rust-analyzer writes it (`Skip<StepBy<Range<usize>>>`, `[Rec; 243]`).
    pub display: String,
    /// Size and alignment in bytes on the device, when the layout is known.
    pub layout: Option<(u64, u64)>,
}

impl Loaded {
    fn node_at(&self, sema: &Semantics<'_, RootDatabase>, file: usize, range: &Range<usize>) -> Option<SyntaxNode> {
        let id = *self.files.get(file)?;
        // The edition of the crate the file is a module of, so that its tree is the one the
        // crate's definitions were read from.
        let tree = sema.parse(sema.attach_first_edition(id));
        let start = TextSize::try_from(range.start).ok()?;
        let end = TextSize::try_from(range.end).ok()?;
        let range = TextRange::new(start, end.max(start));
        let element = tree.syntax().covering_element(range);
        let node = match element {
            ra_ap_syntax::NodeOrToken::Node(node) => node,
            ra_ap_syntax::NodeOrToken::Token(token) => token.parent()?,
        };
        Some(node)
    }

    fn display_target(&self, sema: &Semantics<'_, RootDatabase>, file: usize) -> Option<DisplayTarget> {
        let krate = sema.first_crate(*self.files.get(file)?)?;
        Some(DisplayTarget::from_crate(&self.db, krate.into()))
    }

    /// Where a function is defined, and under which `impl` type or trait.
    fn callee(&self, function: ra_ap_hir::Function, generic_args: Vec<String>) -> Callee {
        let db = &self.db;
        let name = function.name(db).as_str().to_string();
        let owner = function.as_assoc_item(db).and_then(|item| match item.container(db) {
            ra_ap_hir::AssocItemContainer::Impl(i) => Some(i.self_ty(db).display(db, self.any_target()?).to_string()),
            ra_ap_hir::AssocItemContainer::Trait(t) => Some(t.name(db).as_str().to_string()),
        });
        let defined = function.source(db).and_then(|src| {
            let file = src.file_id.file_id()?.file_id(db);
            let index = self.files.iter().position(|f| *f == file)?;
            let range = ra_ap_syntax::AstNode::syntax(&src.value).text_range();
            Some((index, usize::from(range.start())..usize::from(range.end())))
        });
        Callee {
            name,
            owner,
            defined,
            generic_args,
        }
    }

    fn any_target(&self) -> Option<DisplayTarget> {
        let krate = ra_ap_hir::Crate::all(&self.db).into_iter().next()?;
        Some(DisplayTarget::from_crate(&self.db, krate.into()))
    }

    /// The method a method call (`buf.set(i, v)`) at `range` of `file` calls.
    pub(crate) fn method_call(&self, file: usize, range: Range<usize>) -> Option<Callee> {
        ra_ap_hir::attach_db(&self.db, || {
            let sema = Semantics::new(&self.db);
            let node = self.node_at(&sema, file, &range)?;
            let call = find(&sema, &node, &range)?;
            let (callee, subst) = sema.resolve_method_call_fallback(&call)?;
            let Either::Left(function) = callee else {
                return None;
            };
            let target = self.display_target(&sema, file)?;
            let args = subst
                .map(|s| {
                    s.types(&self.db)
                        .into_iter()
                        .map(|(_, ty)| ty.display(&self.db, target).to_string())
                        .collect()
                })
                .unwrap_or_default();
            Some(self.callee(function, args))
        })
    }

    /// The function a path call (`T::zero()`, `fill::<f64>(..)`, `Buf::new(..)`) at `range`
    /// of `file` names.
    pub(crate) fn path_call(&self, file: usize, range: Range<usize>) -> Option<Callee> {
        ra_ap_hir::attach_db(&self.db, || {
            let sema = Semantics::new(&self.db);
            let node = self.node_at(&sema, file, &range)?;
            let call = node.ancestors().find_map(ast::CallExpr::cast)?;
            let ast::Expr::PathExpr(path) = call.expr()? else {
                return None;
            };
            let resolution = sema.resolve_path(&path.path()?)?;
            let ra_ap_hir::PathResolution::Def(ra_ap_hir::ModuleDef::Function(function)) = resolution else {
                return None;
            };
            let args = path
                .path()
                .and_then(|p| p.segment())
                .and_then(|s| s.generic_arg_list())
                .map(|list| list.generic_args().map(|a| a.syntax().text().to_string()).collect())
                .unwrap_or_default();
            Some(self.callee(function, args))
        })
    }

    /// The types that implement the trait a path at `range` of `file` names (`Arch` in a
    /// bound `A: Arch`), by name, over every loaded crate that can see the trait; `None` when
    /// the path is not a trait or a blanket `impl<T> Tr for T` covers any type.
    pub(crate) fn implementors(&self, file: usize, range: Range<usize>) -> Option<Vec<String>> {
        ra_ap_hir::attach_db(&self.db, || {
            let sema = Semantics::new(&self.db);
            let node = self.node_at(&sema, file, &range)?;
            let path = node.ancestors().find_map(ast::Path::cast)?;
            let ra_ap_hir::PathResolution::Def(ra_ap_hir::ModuleDef::Trait(tr)) = sema.resolve_path(&path)? else {
                return None;
            };
            let target = self.display_target(&sema, file)?;
            let mut names = Vec::new();
            for implementation in ra_ap_hir::Impl::all_for_trait(&self.db, tr) {
                let ty = implementation.self_ty(&self.db);
                if ty.as_type_param(&self.db).is_some() {
                    return None;
                }
                let name = match ty.as_adt() {
                    Some(adt) => adt.name(&self.db).as_str().to_string(),
                    None => ty.display(&self.db, target).to_string(),
                };
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            Some(names)
        })
    }

    /// The type of the expression at `range` of `file` (the smallest one covering it).
    pub(crate) fn expr_type(&self, file: usize, range: Range<usize>) -> Option<TypeFacts> {
        ra_ap_hir::attach_db(&self.db, || {
            let sema = Semantics::new(&self.db);
            let node = self.node_at(&sema, file, &range)?;
            let expr = node.ancestors().find_map(ast::Expr::cast)?;
            let info = sema.type_of_expr(&expr)?;
            self.type_facts(&info.original, self.display_target(&sema, file)?)
        })
    }

    /// What is known of a type: `None` when it is not known.
    fn type_facts(&self, ty: &ra_ap_hir::Type<'_>, target: DisplayTarget) -> Option<TypeFacts> {
        if ty.is_unknown() {
            return None;
        }
        let display = ty.display(&self.db, target).to_string();
        let layout = ty.layout(&self.db).ok().map(|l| (l.size(), l.align()));
        Some(TypeFacts { display, layout })
    }

    /// The type a `let` pattern or a parameter at `range` of `file` binds.
    pub(crate) fn binding_type(&self, file: usize, range: Range<usize>) -> Option<TypeFacts> {
        ra_ap_hir::attach_db(&self.db, || {
            let sema = Semantics::new(&self.db);
            let node = self.node_at(&sema, file, &range)?;
            let pat = node.ancestors().find_map(ast::Pat::cast)?;
            let info = sema.type_of_pat(&pat)?;
            self.type_facts(&info.original, self.display_target(&sema, file)?)
        })
    }

    /// The value of the constant item at `range` of `file`, or of the constant a path there
    /// names, when it evaluates to an integer.
    pub(crate) fn const_value(&self, file: usize, range: Range<usize>) -> Option<i128> {
        ra_ap_hir::attach_db(&self.db, || {
            let sema = Semantics::new(&self.db);
            let node = self.node_at(&sema, file, &range)?;
            let named = node
                .ancestors()
                .find_map(ast::Path::cast)
                .and_then(|path| match sema.resolve_path(&path)? {
                    ra_ap_hir::PathResolution::Def(ra_ap_hir::ModuleDef::Const(c)) => Some(c),
                    _ => None,
                });
            let konst = match named {
                Some(konst) => konst,
                None => sema.to_def(&node.ancestors().find_map(ast::Const::cast)?)?,
            };
            let value = konst.eval(&self.db).ok()?;
            let target = self.display_target(&sema, file)?;
            value.render(&self.db, target).parse::<i128>().ok()
        })
    }

    /// Size, alignment and field offsets (in declaration order, by name) of the struct, union
    /// or enum defined at `range` of `file`.
    pub(crate) fn adt_layout(&self, file: usize, range: Range<usize>) -> Option<AdtLayout> {
        ra_ap_hir::attach_db(&self.db, || {
            let sema = Semantics::new(&self.db);
            let node = self.node_at(&sema, file, &range)?;
            let adt = node.ancestors().find_map(ast::Adt::cast)?;
            let def = sema.to_def(&adt)?;
            let layout = def.layout(&self.db).ok()?;
            let fields = match def {
                ra_ap_hir::Adt::Struct(s) => s
                    .fields(&self.db)
                    .into_iter()
                    .filter_map(|f| Some((f.name(&self.db).as_str().to_string(), layout.field_offset(f)?)))
                    .collect(),
                _ => Vec::new(),
            };
            Some(AdtLayout {
                size: layout.size(),
                align: layout.align(),
                fields,
            })
        })
    }
}

impl Loaded {
    /// The layout of what the parameter or binding at `range` of `file` points to: the
    /// element of a slice, the target of a reference or raw pointer, else the value itself.
    pub(crate) fn pointee_layout(&self, file: usize, range: Range<usize>) -> Option<TypeLayout> {
        ra_ap_hir::attach_db(&self.db, || {
            let sema = Semantics::new(&self.db);
            let node = self.node_at(&sema, file, &range)?;
            let pat = match node.ancestors().find_map(ast::Param::cast) {
                Some(param) => param.pat()?,
                None => node.ancestors().find_map(ast::Pat::cast)?,
            };
            let mut ty = sema.type_of_pat(&pat)?.original;
            if let Some(inner) = ty.as_reference_inner().or_else(|| ty.remove_raw_ptr()) {
                ty = inner;
            }
            if let Some(elem) = ty.as_slice() {
                ty = elem;
            }
            let target = self.display_target(&sema, file)?;
            self.type_layout(&ty, target, 0)
        })
    }

    fn type_layout(&self, ty: &ra_ap_hir::Type<'_>, target: DisplayTarget, depth: usize) -> Option<TypeLayout> {
        let db = &self.db;
        if ty.contains_unknown() || depth > MAX_LAYOUT_DEPTH {
            return None;
        }
        let layout = ty.layout(db).ok()?;
        let (size, align) = (layout.size(), layout.align());
        let name = match ty.as_adt() {
            Some(adt) => adt.name(db).as_str().to_string(),
            None => ty.display(db, target).to_string(),
        };
        let primitive = ty.is_scalar() || ty.is_raw_ptr() || ty.as_reference().is_some();
        let mut fields = Vec::new();
        if let Some((elem, len)) = ty.as_array(db) {
            let elem = self.type_layout(&elem, target, depth + 1)?;
            // The first elements are enough for the paths code writes, bounded in size.
            for i in 0..len.min(64) {
                fields.push(FieldLayout {
                    name: i.to_string(),
                    offset: i as u64 * elem.size,
                    layout: elem.clone(),
                });
            }
        } else if ty.as_adt().is_some() {
            for (field, field_ty) in ty.fields(db) {
                let offset = layout.field_offset(field)?;
                fields.push(FieldLayout {
                    name: field.name(db).as_str().to_string(),
                    offset,
                    layout: self.type_layout(&field_ty, target, depth + 1)?,
                });
            }
        } else {
            for (i, part) in ty.tuple_fields(db).iter().enumerate() {
                fields.push(FieldLayout {
                    name: i.to_string(),
                    offset: layout.tuple_field_offset(i)?,
                    layout: self.type_layout(part, target, depth + 1)?,
                });
            }
        }
        Some(TypeLayout {
            name,
            size,
            align,
            fields,
            primitive,
        })
    }
}

impl Loaded {
    /// The code a `macro_rules!` call at `range` of `file` expands to, its tokens separated
    /// by spaces; `None` for a call that does not expand (a proc macro, an unknown macro).
    pub(crate) fn expand_macro(&self, file: usize, range: Range<usize>) -> Option<Expansion> {
        ra_ap_hir::attach_db(&self.db, || {
            let sema = Semantics::new(&self.db);
            let node = self.node_at(&sema, file, &range)?;
            let call = node.ancestors().find_map(ast::MacroCall::cast)?;
            let mut tokens = Vec::new();
            expand_into(&sema, &call, 0, &mut tokens)?;
            if tokens.is_empty() {
                return None;
            }
            let mut expansion = Expansion::default();
            for (text, origin) in tokens {
                if !expansion.text.is_empty() {
                    expansion.text.push(' ');
                }
                let at = expansion.text.len();
                expansion.text.push_str(&text);
                let origin = origin.and_then(|(id, range)| Some((self.files.iter().position(|f| *f == id)?, range)));
                expansion.origins.push((at, origin));
            }
            Some(expansion)
        })
    }
}

/// What a `macro_rules!` call expands to: its tokens separated by spaces, and where each token
/// was written (by its offset in `text`): in the macro's body, or in the call's arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expansion {
    pub text: String,
    /// For each token, its offset in `text` and the file (by index) and byte range it comes
    /// from, when that is a file of the workspace.
    pub origins: Vec<(usize, Option<Written>)>,
}

/// A file of the workspace (by index) and a byte range of it.
pub type Written = (usize, Range<usize>);

/// A token of an expansion, with the database file and bytes it was written at.
type ExpandedToken = (String, Option<(ra_ap_base_db::FileId, Range<usize>)>);

/// Where a token of an expansion was written.
fn origin_of(
    sema: &Semantics<'_, RootDatabase>,
    file: ra_ap_hir::HirFileId,
    token: &ra_ap_syntax::SyntaxToken,
) -> Option<(ra_ap_base_db::FileId, Range<usize>)> {
    let call = file.macro_file()?;
    let span = call.expansion_span_map(sema.db).span_at(token.text_range().start());
    let written = ra_ap_hir_expand::resolve_span(sema.db, span);
    let range = written.range;
    Some((
        written.file_id.file_id(sema.db),
        usize::from(range.start())..usize::from(range.end()),
    ))
}

/// Deepest chain of `macro_rules!` calls inside expansions that is expanded.
const MAX_MACRO_DEPTH: usize = 16;

/// The tokens `call` expands to, each `macro_rules!` call inside the expansion expanded in
/// turn (as a block of its own), and `$crate` read as the crate the code is in.
fn expand_into(
    sema: &Semantics<'_, RootDatabase>,
    call: &ast::MacroCall,
    depth: usize,
    out: &mut Vec<ExpandedToken>,
) -> Option<()> {
    if depth > MAX_MACRO_DEPTH {
        return None;
    }
    let expanded = sema.expand_macro_call(call)?;
    let (file, expansion) = (expanded.file_id, expanded.value);
    let mut walk = expansion.preorder_with_tokens();
    while let Some(event) = walk.next() {
        let WalkEvent::Enter(element) = event else { continue };
        match element {
            NodeOrToken::Node(node) => {
                let Some(inner) = ast::MacroCall::cast(node) else {
                    continue;
                };
                let declarative = sema
                    .resolve_macro_call(&inner)
                    .is_some_and(|m| m.kind(sema.db) == ra_ap_hir::MacroKind::Declarative);
                let mut nested = Vec::new();
                if declarative && expand_into(sema, &inner, depth + 1, &mut nested).is_some() {
                    walk.skip_subtree();
                    out.push(("{".to_string(), None));
                    out.append(&mut nested);
                    out.push(("}".to_string(), None));
                }
            }
            NodeOrToken::Token(token) if !token.kind().is_trivia() => {
                let text = token.text();
                let text = if text == "$crate" {
                    "crate".to_string()
                } else {
                    text.to_string()
                };
                out.push((text, origin_of(sema, file, &token)));
            }
            NodeOrToken::Token(_) => {}
        }
    }
    Some(())
}

/// How deep a type's fields are laid out.
const MAX_LAYOUT_DEPTH: usize = 8;

/// A type laid out on the device, fields and all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeLayout {
    /// The type's name (`Params` for `Params<f32>`), or as written for the others (`f32`,
    /// `[u32; 4]`).
    pub name: String,
    pub size: u64,
    pub align: u64,
    /// Struct fields by name, tuple fields and the first array elements by number.
    pub fields: Vec<FieldLayout>,
    /// A scalar, pointer or reference: one value, no fields.
    pub primitive: bool,
}

/// A field of a [`TypeLayout`] at its offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldLayout {
    pub name: String,
    pub offset: u64,
    pub layout: TypeLayout,
}

/// The innermost `N` around `node`; inside a `macro_rules!` call, the innermost one around the
/// first token of `range` in the macro's expansion.
fn find<N: AstNode>(sema: &Semantics<'_, RootDatabase>, node: &SyntaxNode, range: &Range<usize>) -> Option<N> {
    if let Some(found) = node.ancestors().find_map(N::cast) {
        return Some(found);
    }
    node.ancestors().find_map(ast::MacroCall::cast)?;
    let start = TextSize::try_from(range.start).ok()?;
    let token = node
        .descendants_with_tokens()
        .filter_map(|e| e.into_token())
        .find(|t| t.text_range().start() >= start && !t.kind().is_trivia())?;
    sema.descend_into_macros(token)
        .into_iter()
        .find_map(|t| t.parent()?.ancestors().find_map(N::cast))
}

/// How a struct, union or enum is laid out on the device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdtLayout {
    pub size: u64,
    pub align: u64,
    /// Each named field's offset in bytes, in declaration order.
    pub fields: Vec<(String, u64)>,
}
