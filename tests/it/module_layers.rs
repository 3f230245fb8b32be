//! The layers are true in the imports: no two top-level modules of a crate use each other, and
//! no two files of one folder do, through any chain of `crate::`, `super::` or `self::` paths.
//! A module may use its own children and its parent (which declares and re-exports it).

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

type ModulePath = Vec<String>;

/// The module path of a source file under `src`: `interpret/expr.rs` is `[interpret, expr]`.
fn module_of(src: &Path, file: &Path) -> ModulePath {
    let relative = file.strip_prefix(src).expect("under src").with_extension("");
    let mut parts: ModulePath = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable folder")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every path of a file outside `#[cfg(test)]` items that starts with one of `roots`, as
/// written (relative paths still relative).
struct Paths {
    roots: &'static [&'static str],
    found: Vec<Vec<String>>,
}

impl Paths {
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.push(prefix, Some(n.ident.to_string())),
            syn::UseTree::Rename(r) => self.push(prefix, Some(r.ident.to_string())),
            syn::UseTree::Glob(_) => self.push(prefix, None),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(prefix, t)),
        }
    }

    /// Paths that start with `crate`, `super` or `self`.
    fn relative() -> Paths {
        Paths {
            roots: &["crate", "super", "self"],
            found: Vec::new(),
        }
    }

    /// The paths inside unparsed tokens (macro arguments, attributes): each run of identifiers
    /// joined by `::` that starts with one of the roots.
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        let mut run: Vec<String> = Vec::new();
        let mut colons = 0;
        for tree in tokens {
            match tree {
                proc_macro2::TokenTree::Group(group) => {
                    self.end_run(&mut run);
                    self.tokens(group.stream());
                }
                proc_macro2::TokenTree::Ident(ident) if run.is_empty() || colons == 2 => {
                    run.push(ident.to_string());
                    colons = 0;
                }
                proc_macro2::TokenTree::Punct(punct) if punct.as_char() == ':' && !run.is_empty() && colons < 2 => {
                    colons += 1;
                }
                other => {
                    self.end_run(&mut run);
                    colons = 0;
                    if let proc_macro2::TokenTree::Ident(ident) = other {
                        run.push(ident.to_string());
                    }
                }
            }
        }
        self.end_run(&mut run);
    }

    fn end_run(&mut self, run: &mut Vec<String>) {
        if run.len() > 1 {
            self.push(run, None);
        }
        run.clear();
    }

    fn push(&mut self, prefix: &[String], last: Option<String>) {
        let mut path = prefix.to_vec();
        path.extend(last.filter(|l| l != "self"));
        if path.first().is_some_and(|first| self.roots.contains(&first.as_str())) {
            self.found.push(path);
        }
    }
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            _ => &Vec::new(),
        };
        let is_test = attrs.iter().any(|a| {
            a.path().is_ident("cfg") && quote::ToTokens::to_token_stream(&a.meta).to_string().contains("test")
        });
        if !is_test {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if let syn::Meta::List(list) = &attr.meta {
            self.tokens(list.tokens.clone());
        }
        syn::visit::visit_attribute(self, attr);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.push(&segments, None);
        syn::visit::visit_path(self, path);
    }
}

/// The module a path names: the longest prefix that is a module of the crate.
fn resolve(current: &ModulePath, path: &[String], modules: &BTreeSet<ModulePath>) -> ModulePath {
    let mut base = current.clone();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        _ => {}
    }
    while rest.first().map(String::as_str) == Some("super") {
        base.pop();
        rest = &rest[1..];
    }
    let mut target = base;
    target.extend(rest.iter().cloned());
    while !target.is_empty() && !modules.contains(&target) {
        target.pop();
    }
    target
}

fn cycles(edges: &BTreeMap<ModulePath, BTreeSet<ModulePath>>) -> Vec<Vec<ModulePath>> {
    let mut graph = DiGraph::<ModulePath, ()>::new();
    let mut index = BTreeMap::new();
    for (from, tos) in edges {
        for node in std::iter::once(from).chain(tos) {
            index
                .entry(node.clone())
                .or_insert_with(|| graph.add_node(node.clone()));
        }
    }
    for (from, tos) in edges {
        for to in tos {
            graph.add_edge(index[from], index[to], ());
        }
    }
    tarjan_scc(&graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut members: Vec<ModulePath> = c.into_iter().map(|n| graph[n].clone()).collect();
            members.sort();
            members
        })
        .collect()
}

fn crate_cycles(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeSet<ModulePath> = files.iter().map(|f| module_of(src, f)).collect();
    let mut top: BTreeMap<ModulePath, BTreeSet<ModulePath>> = BTreeMap::new();
    let mut siblings: BTreeMap<ModulePath, BTreeSet<ModulePath>> = BTreeMap::new();
    for file in &files {
        let current = module_of(src, file);
        let text = std::fs::read_to_string(file).expect("readable source");
        let syntax = syn::parse_file(&text).expect("the project's own sources parse");
        let mut paths = Paths::relative();
        paths.visit_file(&syntax);
        for path in paths.found {
            let target = resolve(&current, &path, &modules);
            if target.is_empty() || target == current {
                continue;
            }
            if current.first() != target.first() && !current.is_empty() {
                top.entry(current[..1].to_vec())
                    .or_default()
                    .insert(target[..1].to_vec());
            }
            let same_folder =
                current.len() == target.len() && current[..current.len() - 1] == target[..target.len() - 1];
            if same_folder {
                siblings.entry(current.clone()).or_default().insert(target);
            }
        }
    }
    let name = |c: &Vec<ModulePath>| c.iter().map(|m| m.join("/")).collect::<Vec<_>>().join(" <-> ");
    let mut found: Vec<String> = cycles(&top).iter().map(|c| format!("layers {}", name(c))).collect();
    found.extend(cycles(&siblings).iter().map(|c| format!("files {}", name(c))));
    found
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for krate in [".", "analyzer", "frontend", "lints", "rewrite", "harness"] {
        let src = root.join(krate).join("src");
        assert!(src.is_dir(), "{} exists", src.display());
        found.extend(crate_cycles(&src).into_iter().map(|c| format!("{krate}: {c}")));
    }
    assert!(found.is_empty(), "module cycles:\n{}", found.join("\n"));
}

/// The lines of the Rust files under `dir` (relative to the package root) that name one of
/// `names`, as `path:line`.
fn naming(dir: &str, names: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join(dir), &mut files);
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable file");
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if names.iter().any(|name| code.contains(name)) {
                let shown = file.strip_prefix(root).unwrap_or(&file).display().to_string();
                found.push(format!("{shown}:{}", i + 1));
            }
        }
    }
    found
}

/// The pipeline is assembled once, behind the session: nothing else of the tool calls the
/// crates' analysis, lint or proof entry points, and the fuzz target and the benchmark use
/// only the tool's public API.
#[test]
fn the_pipeline_is_assembled_only_behind_the_session() {
    const ENTRY_POINTS: &[&str] = &[
        "analyze_wanted",
        "analyze_configured",
        "analyze_program",
        "analyze_variant",
        "Program::parse",
        "check_file_with_fixes",
        "attach_fixes",
    ];
    let outside: Vec<String> = naming("src", ENTRY_POINTS)
        .into_iter()
        .filter(|at| !at.starts_with("src/session/"))
        .collect();
    assert_eq!(
        outside,
        Vec::<String>::new(),
        "pipeline entry points called outside src/session/"
    );
    let crates = ["kernel_lint_analyzer", "kernel_lint_lints", "kernel_lint_rewrite"];
    assert_eq!(
        naming("fuzz", &crates),
        Vec::<String>::new(),
        "the fuzz target reaches past the session"
    );
    assert_eq!(
        naming("benches", &crates),
        Vec::<String>::new(),
        "the benchmark reaches past the session"
    );
    // The check sees the files it is about.
    assert!(!naming("src/session", &["attach_fixes"]).is_empty());
}

/// The analyzer's paths that the Rust files under `dir` write past the crate's root items, as
/// `path:line: kernel_lint_analyzer::module::..`, unless `module` is one of `open`.
fn analyzer_paths_past_the_root(dir: &str, open: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = std::fs::read_to_string(root.join("analyzer/src/lib.rs")).expect("the analyzer's root");
    let lib = syn::parse_file(&lib).expect("the analyzer's root parses");
    let modules: BTreeSet<String> = (lib.items.iter())
        .filter_map(|item| match item {
            syn::Item::Mod(m) => Some(m.ident.to_string()),
            _ => None,
        })
        .collect();
    assert!(
        modules.contains("model"),
        "the analyzer's modules are read: {modules:?}"
    );
    let mut files = Vec::new();
    rust_files(&root.join(dir), &mut files);
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable file");
        let syntax = syn::parse_file(&text).expect("a file of the project parses");
        let mut paths = Paths {
            roots: &["kernel_lint_analyzer"],
            found: Vec::new(),
        };
        paths.visit_file(&syntax);
        for path in paths.found {
            let Some(second) = path.get(1) else { continue };
            if modules.contains(second) && !open.contains(&second.as_str()) {
                let shown = file.strip_prefix(root).unwrap_or(&file).display();
                found.push(format!("{shown}: {}", path.join("::")));
            }
        }
    }
    found
}

/// The crates use the analyzer through its root's items, its workspace discovery and its
/// limits; only the GPU harness, which lowers kernels by reading the syntax model, reaches
/// into that model.
#[test]
fn the_crates_use_the_analyzer_through_its_public_api() {
    const API: &[&str] = &["workspace", "budget"];
    const SYNTAX_MODEL: &[&str] = &["workspace", "budget", "parse", "model", "algebra", "interpret"];
    for dir in ["src", "lints", "rewrite", "tests", "benches", "fuzz", "xtask"] {
        let past = analyzer_paths_past_the_root(dir, API);
        assert_eq!(past, Vec::<String>::new(), "{dir} reaches past the analyzer's API");
    }
    assert_eq!(
        analyzer_paths_past_the_root("harness", SYNTAX_MODEL),
        Vec::<String>::new()
    );
    // The check sees the paths it is about.
    assert!(!analyzer_paths_past_the_root("harness", API).is_empty());
    assert!(!analyzer_paths_past_the_root("src", &[]).is_empty());
}

#[test]
fn a_cycle_is_detected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\n").expect("write");
    std::fs::write(src.join("a.rs"), "use crate::b::B;\npub struct A;\n").expect("write");
    std::fs::write(src.join("b.rs"), "pub struct B(crate::a::A);\n").expect("write");
    assert_eq!(crate_cycles(src), ["layers a <-> b", "files a <-> b"]);
}

#[test]
fn a_cycle_through_macro_arguments_and_attributes_is_detected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let src = dir.path();
    std::fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod c;\n").expect("write");
    std::fs::write(
        src.join("a.rs"),
        "pub fn a() -> String { format!(\"{}\", super::b::B) }\n",
    )
    .expect("write");
    std::fs::write(
        src.join("b.rs"),
        "pub const B: u8 = 0;\n#[doc(alias = crate::c::C)]\npub struct D;\n",
    )
    .expect("write");
    std::fs::write(src.join("c.rs"), "pub const C: u8 = crate::a::X;\n").expect("write");
    assert_eq!(crate_cycles(src), ["layers a <-> b <-> c", "files a <-> b <-> c"]);
}
