//! Rust semantics for what the item index cannot resolve by name: the method a call on a value
//! of any type calls (`Self(id)` constructors, wrapper types, trait methods), the function a
//! path through a generic or trait names (`T::zero()`), answered by the front end over the
//! same files and crate graph.
//!
//! The front end is loaded at the first question only, and only what a question needs is
//! computed in it (a crate's names and types, and those of the crates it uses), so a
//! workspace whose names the index resolves by itself pays nothing.

use crate::model::layout::{FieldLayout, Layout};
use crate::source::{SourceFile, Span};
use kernel_lint_frontend::{CfgAtom, CrateRoot, Frontend, SourceText, Workspace};
use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, BTreeSet};

pub use kernel_lint_frontend::{Callee, Expansion, Written};

thread_local! {
    /// Whether this thread is inside a question to the front end.
    static ASKING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Keeps the front end's failures off the terminal: a question it fails on only has no
/// answer. Other panics are reported as before.
fn quiet_failures() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !ASKING.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
}

/// The front end over one set of files, loaded when first asked.
pub struct Semantics {
    workspace: Workspace,
    loaded: RefCell<Option<Frontend>>,
}

impl std::fmt::Debug for Semantics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Semantics")
            .field("files", &self.workspace.files.len())
            .field("crates", &self.workspace.crates.len())
            .finish()
    }
}

/// A crate's dependency as its code names it: crate `from` calls crate `root` by `name`.
pub struct Dependency<'a> {
    pub from: &'a str,
    pub name: &'a str,
    pub root: &'a str,
}

impl Semantics {
    /// The files (each the module `modules[i]` of crate `modules[i][0]`, a crate root being
    /// `[crate]`), the crates' dependencies and each crate's enabled features. A crate whose
    /// root file is not among the files is not loaded: its files stay outside every crate.
    pub fn new<'a>(
        files: &[SourceFile],
        modules: &[Vec<String>],
        dependencies: impl IntoIterator<Item = Dependency<'a>>,
        features: &BTreeMap<String, BTreeSet<String>>,
        kernel_files: &[bool],
    ) -> Semantics {
        let texts: Vec<SourceText> = files
            .iter()
            .map(|f| SourceText {
                path: f.path.clone(),
                text: f.text.clone(),
            })
            .collect();
        let mut crates: Vec<CrateRoot> = Vec::new();
        // A package's library and binary may share a name, and two packages may too: each
        // root is a crate of its own (its modules are found from it), named alike.
        let mut by_name: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut cfg_of: BTreeMap<&str, Vec<CfgAtom>> = BTreeMap::new();
        for (file, module) in modules.iter().enumerate() {
            let [name] = module.as_slice() else { continue };
            // A second root of a name is a crate of its own only when modules the analysis
            // read lie beside it and not beside the first (a binary's `mod kernels;`).
            if let Some(&first) = by_name.get(name.as_str()).and_then(|roots| roots.first()) {
                if !holds_modules_of_its_own(files, modules, crates[first].root, file) {
                    continue;
                }
            }
            let cfg = cfg_of
                .entry(name)
                .or_insert_with(|| crate_cfg(files, modules, features, kernel_files, name))
                .clone();
            by_name.entry(name).or_default().push(crates.len());
            crates.push(CrateRoot {
                name: name.clone(),
                root: file,
                dependencies: Vec::new(),
                cfg,
                edition: 2021,
            });
        }
        for dependency in dependencies {
            let (Some(from), Some(to)) = (by_name.get(dependency.from), by_name.get(dependency.root)) else {
                continue;
            };
            // A dependency is a library: of the roots of that name, `lib.rs` first.
            let library = to.iter().find(|&&c| files[crates[c].root].path.ends_with("lib.rs"));
            let Some(&to) = library.or(to.first()) else {
                continue;
            };
            for &from in from.iter().filter(|&&f| f != to) {
                crates[from].dependencies.push((dependency.name.to_string(), to));
            }
        }
        Semantics {
            workspace: Workspace { files: texts, crates },
            loaded: RefCell::new(None),
        }
    }

    /// Asks the loaded front end, loading it first if this is the first question. A question
    /// the front end fails on (code its type checker does not handle yet) has no answer: the
    /// analysis goes on without it, as for any name it cannot resolve.
    fn ask<T>(&self, question: impl FnOnce(&Frontend) -> Option<T>) -> Option<T> {
        let mut loaded = self.loaded.borrow_mut();
        let frontend = loaded.get_or_insert_with(|| Frontend::load(&self.workspace));
        quiet_failures();
        ASKING.with(|asking| asking.set(true));
        let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| question(frontend)));
        ASKING.with(|asking| asking.set(false));
        match answer {
            Ok(answer) => answer,
            Err(panic) if crate::budget::is_exhausted(panic.as_ref()) => std::panic::resume_unwind(panic),
            Err(_) => None,
        }
    }

    /// The method the method call at `span` of file `file` calls.
    pub fn method_call(&self, file: usize, span: Span) -> Option<Callee> {
        self.ask(|f| f.method_call(file, span.start..span.end))
    }

    /// The function the path call at `span` of file `file` names.
    pub fn path_call(&self, file: usize, span: Span) -> Option<Callee> {
        self.ask(|f| f.path_call(file, span.start..span.end))
    }

    /// The types that implement the trait the path at `span` of file `file` names, by name.
    pub fn implementors(&self, file: usize, span: Span) -> Option<Vec<String>> {
        self.ask(|f| f.implementors(file, span.start..span.end))
    }

    /// The layout of what the parameter or binding at `span` of file `file` points to (a
    /// slice's element, a reference's or pointer's target).
    pub fn pointee_layout(&self, file: usize, span: Span) -> Option<Layout> {
        self.ask(|f| f.pointee_layout(file, span.start..span.end)).map(layout)
    }

    /// The code the `macro_rules!` call at `span` of file `file` expands to, with where each
    /// of its tokens was written.
    pub fn expand_macro(&self, file: usize, span: Span) -> Option<Expansion> {
        self.ask(|f| f.expand_macro(file, span.start..span.end))
    }

    /// File `file` has a new text; the other files and the crates stay.
    pub fn set_text(&mut self, file: usize, text: &str) {
        if let Some(t) = self.workspace.files.get_mut(file) {
            t.text = text.to_string();
        }
        if let Some(frontend) = self.loaded.get_mut().as_mut() {
            frontend.set_text(file, text);
        }
    }
}

/// The analyzer's layout of a type the front end laid out.
fn layout(ty: kernel_lint_frontend::TypeLayout) -> Layout {
    Layout {
        name: ty.name,
        size: ty.size,
        align: ty.align,
        fields: ty
            .fields
            .into_iter()
            .map(|f| FieldLayout {
                name: f.name,
                offset: f.offset,
                layout: layout(f.layout),
            })
            .collect(),
        primitive: ty.primitive,
        pointee: None,
    }
}

/// The device target a crate's code is written for, as `cfg` atoms: its kernels and helpers
/// are often gated by it (`#[cfg(target_arch = "spirv")]`), and the host half by its negation.
fn device_target(files: &[SourceFile], modules: &[Vec<String>], krate: &str) -> Vec<CfgAtom> {
    let names = |needle: &str| {
        files
            .iter()
            .zip(modules)
            .any(|(f, m)| m.first().is_some_and(|c| c == krate) && f.text.contains(needle))
    };
    let pair = |k: &str, v: &str| CfgAtom::KeyValue(k.into(), v.into());
    if names("target_arch = \"spirv\"") {
        vec![pair("target_arch", "spirv")]
    } else if names("target_os = \"cuda\"") || names("target_arch = \"nvptx64\"") {
        vec![pair("target_os", "cuda"), pair("target_arch", "nvptx64")]
    } else {
        Vec::new()
    }
}

/// Whether some module of root `root`'s name lies in `root`'s folder and not in the folder of
/// root `first` of the same name.
fn holds_modules_of_its_own(files: &[SourceFile], modules: &[Vec<String>], first: usize, root: usize) -> bool {
    let folder = |f: usize| {
        std::path::Path::new(&files[f].path)
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default()
    };
    let (first_folder, own_folder) = (folder(first), folder(root));
    let name = &modules[root];
    files.iter().zip(modules).any(|(f, m)| {
        let path = std::path::Path::new(&f.path);
        m.len() > 1 && m[0] == name[0] && path.starts_with(&own_folder) && !path.starts_with(&first_folder)
    })
}

/// The cfg a crate is read under: its enabled features, those that gate the modules the
/// analysis read, and its device target.
fn crate_cfg(
    files: &[SourceFile],
    modules: &[Vec<String>],
    features: &BTreeMap<String, BTreeSet<String>>,
    kernel_files: &[bool],
    name: &str,
) -> Vec<CfgAtom> {
    let mut cfg: Vec<CfgAtom> = features
        .get(name)
        .into_iter()
        .flatten()
        .map(|f| CfgAtom::KeyValue("feature".into(), f.clone()))
        .collect();
    cfg.extend(device_target(files, modules, name));
    // A module that holds kernels is compiled when they are: the features that gate its
    // declaration (`#[cfg(feature = "gpu")] mod kernels;`) are on.
    for feature in gating_features(files, modules, kernel_files, name) {
        let atom = CfgAtom::KeyValue("feature".into(), feature);
        if !cfg.contains(&atom) {
            cfg.push(atom);
        }
    }
    cfg
}

/// The features named (not negated) by the `#[cfg(..)]` of each `mod` declaration that leads to
/// a file of crate `krate` that holds kernels.
fn gating_features(
    files: &[SourceFile],
    modules: &[Vec<String>],
    kernel_files: &[bool],
    krate: &str,
) -> BTreeSet<String> {
    let mut by_module: BTreeMap<&[String], Vec<usize>> = BTreeMap::new();
    for (file, module) in modules.iter().enumerate() {
        by_module.entry(module.as_slice()).or_default().push(file);
    }
    let mut items: BTreeMap<usize, Vec<crate::workspace::ModItem>> = BTreeMap::new();
    let mut features = BTreeSet::new();
    let kernel_modules = modules
        .iter()
        .enumerate()
        .filter(|(f, m)| kernel_files.get(*f).copied().unwrap_or(false) && m.first().is_some_and(|c| c == krate))
        .map(|(_, m)| m);
    for module in kernel_modules {
        for depth in 2..=module.len() {
            let (parent, name) = (&module[..depth - 1], &module[depth - 1]);
            for &file in by_module.get(parent).into_iter().flatten() {
                let declared = items
                    .entry(file)
                    .or_insert_with(|| crate::workspace::mod_items(&files[file]).0);
                let cfgs = declared
                    .iter()
                    .filter(|m| m.ident == *name && m.body.is_none())
                    .flat_map(|m| &m.cfg);
                for cfg in cfgs {
                    if let Ok(meta) = syn::parse_str::<syn::Meta>(cfg) {
                        positive_features(&meta, &mut features);
                    }
                }
            }
        }
    }
    features
}

/// The `feature = ".."` predicates of a cfg expression outside any `not(..)`.
fn positive_features(meta: &syn::Meta, out: &mut BTreeSet<String>) {
    match meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("feature") => {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s), ..
            }) = &nv.value
            {
                out.insert(s.value());
            }
        }
        syn::Meta::List(list) if list.path.is_ident("any") || list.path.is_ident("all") => {
            let nested =
                list.parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated);
            for inner in nested.iter().flatten() {
                positive_features(inner, out);
            }
        }
        _ => {}
    }
}

/// Semantics made when first asked for: a workspace whose names the item index resolves by
/// itself never builds them.
#[derive(Clone, Copy)]
pub struct LazySemantics<'a> {
    pub cell: &'a OnceCell<Semantics>,
    pub build: &'a dyn Fn() -> Semantics,
}

impl<'a> LazySemantics<'a> {
    pub fn get(&self) -> &'a Semantics {
        self.cell.get_or_init(|| (self.build)())
    }
}

impl std::fmt::Debug for LazySemantics<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazySemantics")
            .field("built", &self.cell.get().is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(path: &[&str]) -> Vec<String> {
        path.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_features_that_gate_a_kernel_module_are_on() {
        let files = [
            SourceFile::new(
                "bin/src/main.rs",
                "#[cfg(feature = \"gpu\")] mod kernels;\n#[cfg(not(feature = \"cpu\"))] mod host;\n#[cfg(any(feature = \"net\", test))] mod net;\n",
            ),
            SourceFile::new(
                "bin/src/kernels/mod.rs",
                "#[cfg(all(feature = \"oxide\", not(feature = \"slow\")))] mod common;\n",
            ),
            SourceFile::new("bin/src/kernels/common.rs", "#[kernel] pub fn k() {}\n"),
            SourceFile::new("bin/src/host.rs", "fn run() {}\n"),
            SourceFile::new("bin/src/net.rs", "fn serve() {}\n"),
        ];
        let modules = [
            module(&["app"]),
            module(&["app", "kernels"]),
            module(&["app", "kernels", "common"]),
            module(&["app", "host"]),
            module(&["app", "net"]),
        ];
        let kernel_files = [false, false, true, false, false];
        let features = gating_features(&files, &modules, &kernel_files, "app");
        // The path to the kernels, not a module without kernels, nor a negated feature.
        assert_eq!(features, BTreeSet::from(["gpu".to_string(), "oxide".to_string()]));
    }

    #[test]
    fn a_second_root_of_a_name_is_a_crate_when_modules_lie_beside_it() {
        let files = [
            SourceFile::new("crates/train/src/lib.rs", "pub mod data;\n"),
            SourceFile::new("crates/train/src/data.rs", ""),
            SourceFile::new("bins/train/src/main.rs", "mod kernels;\n"),
            SourceFile::new("bins/train/src/kernels.rs", ""),
            SourceFile::new("crates/train/tests/it.rs", ""),
        ];
        let modules = [
            module(&["train"]),
            module(&["train", "data"]),
            module(&["train"]),
            module(&["train", "kernels"]),
            module(&["train"]),
        ];
        assert!(holds_modules_of_its_own(&files, &modules, 0, 2));
        // A test file is a root with no modules of its own.
        assert!(!holds_modules_of_its_own(&files, &modules, 0, 4));
    }
}
