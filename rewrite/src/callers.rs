//! The functions of a workspace and the calls written in them: a rewrite that changes the type
//! of an array parameter must change it in every function the array is passed through, and
//! must know every caller of those functions.

use crate::workspace::Workspace;
use kernel_lint_analyzer::SourceFile;
use std::cell::RefCell;
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
    /// The words its signature writes.
    sig_words: std::collections::HashSet<String>,
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
    pub fns: Vec<Rc<FnDef>>,
    /// The calls, file by file.
    pub calls: Vec<Rc<Call>>,
}

/// An index built, with the files it reached.
type Built = (Rc<Found>, Rc<Vec<bool>>);

/// The indexes built, by element type and the files they started from besides those that
/// write it.
type BuiltIndexes = std::collections::HashMap<(String, Option<[usize; 2]>), Built>;

/// The functions and calls of one file.
type Walked = Rc<(Vec<Rc<FnDef>>, Vec<Rc<Call>>)>;

/// The functions and calls of the workspace's files that a rewrite of one array may reach
/// ([`Index::build`]).
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
    /// The indexes built for this run's findings, by workspace, element type and the files
    /// they started from: the findings on one struct in one file share one.
    static BUILT: RefCell<(u64, BuiltIndexes)> = RefCell::new((u64::MAX, Default::default()));
    /// The functions and calls of each file walked, by workspace and file.
    static WALKED: RefCell<(u64, std::collections::HashMap<usize, Option<Walked>>)> =
        RefCell::new((u64::MAX, Default::default()));
}

impl<'w> Index<'w> {
    /// The functions and calls a rewrite of arrays of `element` can reach from the files
    /// `from` (the kernel's and the access's): the files that write `element`, then, for each
    /// function whose signature writes it (the only ones an array of it can be passed
    /// through), every file that writes its name (its callers) and every file that defines a
    /// name called in its body (its callees), until no more are reached. Any other file can
    /// neither call nor be called with such an array, so the rewrite sees what it would with
    /// every file indexed. A file that does not parse adds nothing.
    pub fn build(ws: &'w Workspace<'_>, element: &str, from: [usize; 2]) -> Self {
        let sources: Vec<&SourceFile> = ws.files.iter().map(|(f, ..)| f).collect();
        // The closure from the files that write `element` is shared by every finding on it
        // whose files it holds (the usual case: the kernel's signature writes the struct).
        let common = closure(ws, &sources, element, None);
        if from
            .iter()
            .all(|&f| f >= sources.len() || common.1.get(f).copied().unwrap_or(false))
        {
            return Index {
                sources,
                found: common.0,
            };
        }
        let found = closure(ws, &sources, element, Some(from)).0;
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

/// The functions and calls of file `file` of workspace `ws`, walked once per run; `None`
/// when it does not parse.
/// The functions and calls of the files reached from those that write `element` (and from the
/// files `from`), with which files were reached; built once per run and seeds.
fn closure(ws: &Workspace<'_>, sources: &[&SourceFile], element: &str, from: Option<[usize; 2]>) -> Built {
    let key = (element.to_string(), from);
    let kept = BUILT.with(|built| {
        let built = built.borrow();
        (built.0 == ws.id).then(|| built.1.get(&key).cloned()).flatten()
    });
    if let Some(found) = kept {
        return found;
    }
    let names = ws.names();
    let mut included = vec![false; sources.len()];
    let mut queue: Vec<usize> = names.mentioning(element).to_vec();
    queue.extend(from.into_iter().flatten().filter(|&f| f < sources.len()));
    let mut per_file: Vec<Option<Walked>> = (0..sources.len()).map(|_| None).collect();
    while let Some(file) = queue.pop() {
        if std::mem::replace(&mut included[file], true) {
            continue;
        }
        let Some(walked) = walked(ws.id, file, sources[file]) else {
            continue;
        };
        let (fns, calls) = &*walked;
        for def in fns.iter().filter(|f| f.sig_words.contains(element)) {
            queue.extend(names.mentioning(&def.name).iter().filter(|&&f| !included[f]));
            for call in calls.iter().filter(|c| def.range.contains(&c.range.start)) {
                queue.extend(names.defining(&call.callee).iter().filter(|&&f| !included[f]));
            }
        }
        per_file[file] = Some(walked);
    }
    // In file order, as an index of every file would hold them.
    let (mut fns, mut calls) = (Vec::new(), Vec::new());
    for walked in per_file.into_iter().flatten() {
        fns.extend(walked.0.iter().cloned());
        calls.extend(walked.1.iter().cloned());
    }
    let found = (Rc::new(Found { fns, calls }), Rc::new(included));
    BUILT.with(|built| {
        let mut built = built.borrow_mut();
        if built.0 != ws.id {
            *built = (ws.id, Default::default());
        }
        built.1.insert(key, found.clone());
    });
    found
}

fn walked(ws: u64, file: usize, source: &SourceFile) -> Option<Walked> {
    let kept = WALKED.with(|walked| {
        let walked = walked.borrow();
        (walked.0 == ws).then(|| walked.1.get(&file).cloned()).flatten()
    });
    if let Some(kept) = kept {
        return kept;
    }
    let found = crate::parses::parsed(source).map(|syntax| {
        let (mut fns, mut calls) = (Vec::new(), Vec::new());
        let mut walk = Walk {
            file,
            source,
            fns: &mut fns,
            calls: &mut calls,
        };
        walk.visit_file(&syntax);
        Rc::new((
            fns.into_iter().map(Rc::new).collect(),
            calls.into_iter().map(Rc::new).collect(),
        ))
    });
    WALKED.with(|walked| {
        let mut walked = walked.borrow_mut();
        if walked.0 != ws {
            *walked = (ws, Default::default());
        }
        walked.1.insert(file, found.clone());
    });
    found
}

/// The words a signature writes.
fn words_of(sig: &syn::Signature) -> std::collections::HashSet<String> {
    quote::quote!(#sig)
        .to_string()
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
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
            sig_words: words_of(sig),
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
