//! The functions of a workspace and the calls written in them: a rewrite that changes the type
//! of an array parameter must change it in every function the array is passed through, and
//! must know every caller of those functions.

use crate::workspace::Workspace;
use kernel_lint_analyzer::SourceFile;
use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::rc::Rc;
use syn::spanned::Spanned;
use syn::visit::Visit;

/// A function or method defined in a file of the workspace.
pub struct FnDef {
    /// Index of its file in [`Workspace::files`].
    pub file: usize,
    /// Its name.
    pub name: String,
    /// The bytes of the whole item.
    pub range: Range<usize>,
    /// Its signature.
    pub sig: syn::Signature,
    /// Its body.
    pub block: syn::Block,
    /// Whether it is a kernel (an attribute or `extern "ptx-kernel"` says so).
    pub kernel: bool,
}

impl FnDef {
    /// Whether it takes `self`.
    pub fn has_receiver(&self) -> bool {
        matches!(self.sig.inputs.first(), Some(syn::FnArg::Receiver(_)))
    }
}

/// A call written in a file of the workspace.
pub struct Call {
    /// Index of its file in [`Workspace::files`].
    pub file: usize,
    /// The function called: the last segment of its path, or the method's name.
    pub callee: String,
    /// Whether it is written as a method call (`x.f(..)`).
    pub method: bool,
    /// The bytes of the whole call.
    pub range: Range<usize>,
    /// The arguments, receiver excluded: their bytes and, when an argument is a plain name,
    /// that name.
    pub args: Vec<(Range<usize>, Option<String>)>,
}

/// The functions and calls of a workspace's files.
pub struct Found {
    /// The functions, file by file.
    pub fns: Vec<FnDef>,
    /// The calls, file by file.
    pub calls: Vec<Call>,
}

/// Every function and call of the workspace's files that parse.
pub struct Index<'w> {
    /// The files, as the workspace holds them.
    pub sources: Vec<&'w SourceFile>,
    found: Rc<Found>,
}

impl std::ops::Deref for Index<'_> {
    type Target = Found;
    fn deref(&self) -> &Found {
        &self.found
    }
}

thread_local! {
    /// The last workspace indexed, by a hash of its files: the findings of one run share it.
    static LAST: RefCell<Option<(u64, Rc<Found>)>> = const { RefCell::new(None) };
    /// Texts parsed for drafts, by a hash of the text, with syn's message when one does not
    /// parse.
    static TEXTS: RefCell<std::collections::HashMap<u64, Result<Rc<syn::File>, String>>> = RefCell::new(Default::default());
    /// Files parsed, by a hash of their path and text.
    static PARSED: RefCell<std::collections::HashMap<u64, Option<Rc<syn::File>>>> = RefCell::new(Default::default());
}

/// A file's text parsed once per run, or syn's message: every draft of every finding of a
/// file reads the same text.
pub fn parse_text(text: &str) -> Result<Rc<syn::File>, String> {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    let key = hasher.finish();
    TEXTS.with(|texts| {
        texts
            .borrow_mut()
            .entry(key)
            .or_insert_with(|| syn::parse_file(text).map(Rc::new).map_err(|e| e.to_string()))
            .clone()
    })
}

/// The syntax of a file, parsed once per run: every draft of every finding looks at the same
/// files.
pub fn parsed(source: &SourceFile) -> Option<Rc<syn::File>> {
    let mut hasher = DefaultHasher::new();
    source.path.hash(&mut hasher);
    source.text.hash(&mut hasher);
    let key = hasher.finish();
    PARSED.with(|parsed| {
        parsed
            .borrow_mut()
            .entry(key)
            .or_insert_with(|| syn::parse_file(&source.text).ok().map(Rc::new))
            .clone()
    })
}

impl<'w> Index<'w> {
    /// Parses every file of the workspace; a file that does not parse adds nothing.
    pub fn build(ws: &'w Workspace<'_>) -> Self {
        let sources: Vec<&SourceFile> = ws.files.iter().map(|(f, ..)| f).collect();
        let mut hasher = DefaultHasher::new();
        for source in &sources {
            source.path.hash(&mut hasher);
            source.text.hash(&mut hasher);
        }
        let key = hasher.finish();
        if let Some(found) = LAST.with(|last| {
            last.borrow()
                .as_ref()
                .filter(|(k, _)| *k == key)
                .map(|(_, f)| f.clone())
        }) {
            return Index { sources, found };
        }
        let mut fns = Vec::new();
        let mut calls = Vec::new();
        for (file, source) in sources.iter().enumerate() {
            let Ok(syntax) = syn::parse_file(&source.text) else {
                continue;
            };
            let mut walk = Walk {
                file,
                source,
                fns: &mut fns,
                calls: &mut calls,
            };
            walk.visit_file(&syntax);
        }
        let found = Rc::new(Found { fns, calls });
        LAST.with(|last| *last.borrow_mut() = Some((key, found.clone())));
        Index { sources, found }
    }

    /// The index of a file by its printed path.
    pub fn file_of(&self, path: &str) -> Option<usize> {
        self.sources.iter().position(|s| s.path == path)
    }

    /// The innermost function of `file` whose item holds byte `at`.
    pub fn enclosing(&self, file: usize, at: usize) -> Option<usize> {
        self.fns
            .iter()
            .enumerate()
            .filter(|(_, f)| f.file == file && f.range.contains(&at))
            .min_by_key(|(_, f)| f.range.len())
            .map(|(i, _)| i)
    }

    /// The byte range of a span of `file`.
    pub fn range(&self, file: usize, span: proc_macro2::Span) -> Range<usize> {
        let s = self.sources[file].span_of(span);
        s.start..s.end
    }
}

struct Walk<'a, 'w> {
    file: usize,
    source: &'w SourceFile,
    fns: &'a mut Vec<FnDef>,
    calls: &'a mut Vec<Call>,
}

impl Walk<'_, '_> {
    fn range(&self, span: proc_macro2::Span) -> Range<usize> {
        let s = self.source.span_of(span);
        s.start..s.end
    }
    fn args<'e>(&self, args: impl Iterator<Item = &'e syn::Expr>) -> Vec<(Range<usize>, Option<String>)> {
        args.map(|a| {
            let name = match a {
                syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                _ => None,
            };
            (self.range(a.span()), name)
        })
        .collect()
    }
    fn add_fn(&mut self, attrs: &[syn::Attribute], sig: &syn::Signature, block: &syn::Block, span: proc_macro2::Span) {
        let kernel = sig
            .abi
            .as_ref()
            .and_then(|a| a.name.as_ref())
            .is_some_and(|n| n.value() == "ptx-kernel")
            || attrs.iter().any(|a| {
                let tokens = quote::quote!(#a).to_string();
                tokens.contains("kernel")
            });
        self.fns.push(FnDef {
            file: self.file,
            name: sig.ident.to_string(),
            range: self.range(span),
            sig: sig.clone(),
            block: block.clone(),
            kernel,
        });
    }
}

impl<'a> Visit<'a> for Walk<'_, '_> {
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        self.add_fn(&f.attrs, &f.sig, &f.block, f.span());
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.add_fn(&f.attrs, &f.sig, &f.block, f.span());
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            if let Some(last) = p.path.segments.last() {
                let call = Call {
                    file: self.file,
                    callee: last.ident.to_string(),
                    method: false,
                    range: self.range(c.span()),
                    args: self.args(c.args.iter()),
                };
                self.calls.push(call);
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
    fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
        let call = Call {
            file: self.file,
            callee: m.method.to_string(),
            method: true,
            range: self.range(m.span()),
            args: self.args(m.args.iter()),
        };
        self.calls.push(call);
        syn::visit::visit_expr_method_call(self, m);
    }
}
