//! The items of every analyzed module (structs, enums, aliases, consts, statics, functions,
//! inherent methods and `use` imports) and the resolution of a path written in one module to
//! the item it names, across modules and workspace crates.

use super::cfg;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use syn::{Expr, Item, Type};

/// Where an item lives: the crate's name, then the modules down to it (`["common", "kernel"]`).
pub type ModulePath = Vec<String>;

/// Most (module, name) pairs one resolution asks about before giving up.
const MAX_RESOLVE_STEPS: usize = 4096;

/// Paths resolved so far: (module written in, path) to what it names.
type ResolvedPaths = HashMap<(ModulePath, Vec<String>), Option<Target>>;

/// The (module, name) pairs a resolution has asked about.
type Seen = BTreeSet<(ModulePath, String)>;

/// A free function or an inherent method with the module that defines it.
#[derive(Debug, Clone)]
pub struct FunctionRef<'a> {
    /// The defining module.
    pub module: &'a ModulePath,
    /// The source file it is written in (an index into the analyzed files).
    pub file: usize,
    /// Its name.
    pub name: String,
    /// The type an inherent method belongs to, by name.
    pub self_type: Option<&'a str>,
    /// Signature and body.
    pub sig: &'a syn::Signature,
    /// Body.
    pub block: &'a syn::Block,
}

/// What a path names.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    /// A module.
    Module(ModulePath),
    /// An item of a module, by name.
    Item(ModulePath, String),
    /// An associated item (`Type::NAME`, `Type::method`) of a type defined in a module.
    Associated(ModulePath, String, String),
    /// A crate outside the analyzed workspace (`glam`, `cuda_std`), with the rest of the path.
    External(String),
}

/// A method of an `impl Type { .. }` block.
#[derive(Debug, Clone)]
struct Method {
    self_type: String,
    item: syn::ImplItemFn,
    /// The file it is written in: one module may be spread over several files, one per `cfg`.
    file: usize,
}

/// The items one module defines and imports.
#[derive(Debug, Clone, Default)]
struct ModuleItems {
    structs: BTreeMap<String, syn::ItemStruct>,
    enums: BTreeSet<String>,
    /// Enum definitions, by name (unions are only named in `enums`).
    enum_defs: BTreeMap<String, syn::ItemEnum>,
    aliases: BTreeMap<String, syn::ItemType>,
    consts: BTreeMap<String, Expr>,
    statics: BTreeMap<String, syn::ItemStatic>,
    /// Free functions with the file each is written in.
    functions: BTreeMap<String, (syn::ItemFn, usize)>,
    methods: Vec<Method>,
    /// `Type::NAME` constants of `impl` blocks, by type then name.
    associated_consts: BTreeMap<(String, String), Expr>,
    /// `use a::b as c;`: `c` -> `a::b`, as written.
    uses: BTreeMap<String, Vec<String>>,
    /// `use a::b::*;`: `a::b`, as written.
    globs: Vec<Vec<String>>,
    /// `extern crate a as b;` of a crate root: `b` -> `a`, a name of the whole crate.
    extern_crates: BTreeMap<String, String>,
}

/// Every analyzed module's items, and the crates they belong to.
#[derive(Debug, Clone, Default)]
pub struct ItemIndex {
    modules: BTreeMap<ModulePath, ModuleItems>,
    /// For each crate, the other crates it may name: the name its code uses for each, and that
    /// crate's root module name. A crate with no entry sees only itself.
    dependencies: BTreeMap<String, BTreeMap<String, String>>,
    /// Paths already resolved, by the module they are written in.
    resolved: RefCell<ResolvedPaths>,
    /// Every method by name: its module and place in that module's methods, in module order;
    /// made at the first question, as [`ItemIndex::methods_named`] is asked for each method
    /// call of every body a kernel may reach.
    methods_by_name: RefCell<Option<MethodsByName>>,
    /// What each function's and constant's body mentions, as [`ItemIndex::reachable`] follows
    /// it: kept across edits that name nothing new, but for the bodies of the file replaced.
    reach: RefCell<Reach>,
    /// Every name a path can start with: what any module defines, imports or declares, and the
    /// crates' names for each other. Names are added as modules are and never taken out: a
    /// name no longer answered costs only the search that finds nothing.
    nameable: HashSet<String>,
    /// The enabled features of each crate whose manifest was read: `#[cfg]` is decided by them.
    features: BTreeMap<String, BTreeSet<String>>,
}

/// Method name to (module, index into its methods).
type MethodsByName = HashMap<String, Vec<(ModulePath, usize)>>;

/// A body [`ItemIndex::reachable`] reads: a function's or method's, or a constant's.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Node {
    Function(FunctionKey),
    Const(Target),
}

/// The nodes met so far, by number, and the nodes each one's body mentions, once known.
#[derive(Debug, Clone, Default)]
struct Reach {
    ids: HashMap<Node, usize>,
    nodes: Vec<Node>,
    edges: Vec<Option<Arc<[usize]>>>,
}

impl Reach {
    fn id(&mut self, node: Node) -> usize {
        if let Some(&id) = self.ids.get(&node) {
            return id;
        }
        self.nodes.push(node.clone());
        self.edges.push(None);
        self.ids.insert(node, self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    /// Forgets what the bodies written under `module` mention.
    fn forget_under(&mut self, module: &ModulePath) {
        for (node, edges) in self.nodes.iter().zip(&mut self.edges) {
            let at = match node {
                Node::Function((at, ..)) => at,
                Node::Const(Target::Item(at, _) | Target::Associated(at, ..)) => at,
                Node::Const(_) => continue,
            };
            if at.starts_with(module) {
                *edges = None;
            }
        }
    }
}

/// The names one module defines and imports, and its methods in order.
#[derive(Debug, PartialEq, Eq)]
struct ModuleNames {
    defined: Vec<String>,
    methods: Vec<(String, String, usize)>,
    uses: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
    extern_crates: BTreeMap<String, String>,
}

impl ItemIndex {
    /// Drops what is derived from the items, after they changed.
    fn forget_derived(&mut self) {
        self.resolved.get_mut().clear();
        *self.methods_by_name.get_mut() = None;
        *self.reach.get_mut() = Reach::default();
    }

    /// Adds the items of a file that is module `module` (a crate root is `[crate_name]`),
    /// inline modules included as children.
    pub fn add_file(&mut self, module: ModulePath, file: usize, syntax: &syn::File) {
        self.forget_derived();
        self.add_items(module, file, &syntax.items);
    }

    fn add_items(&mut self, module: ModulePath, file: usize, items: &[Item]) {
        let mut inline = Vec::new();
        let features = module.first().and_then(|c| self.features.get(c)).cloned();
        let entry = self.modules.entry(module.clone()).or_default();
        // Of two definitions under exclusive `#[cfg]`s only the one compiled is indexed.
        for item in items.iter().filter(|i| cfg::active(item_attrs(i), features.as_ref())) {
            match item {
                Item::Struct(s) => {
                    entry.structs.insert(s.ident.to_string(), s.clone());
                }
                Item::Enum(e) => {
                    entry.enums.insert(e.ident.to_string());
                    entry.enum_defs.insert(e.ident.to_string(), e.clone());
                }
                Item::Union(u) => {
                    entry.enums.insert(u.ident.to_string());
                }
                Item::Type(t) => {
                    entry.aliases.insert(t.ident.to_string(), t.clone());
                }
                Item::Const(c) => {
                    entry.consts.insert(c.ident.to_string(), (*c.expr).clone());
                }
                Item::Static(s) => {
                    entry.statics.insert(s.ident.to_string(), s.clone());
                }
                Item::Fn(f) => {
                    entry.functions.insert(f.sig.ident.to_string(), (f.clone(), file));
                }
                Item::Impl(i) => {
                    let Some(self_type) = type_name(&i.self_ty) else {
                        continue;
                    };
                    let compiled = i
                        .items
                        .iter()
                        .filter(|ii| cfg::active(impl_item_attrs(ii), features.as_ref()));
                    for impl_item in compiled {
                        match impl_item {
                            syn::ImplItem::Fn(f) => entry.methods.push(Method {
                                self_type: self_type.clone(),
                                item: f.clone(),
                                file,
                            }),
                            syn::ImplItem::Const(c) => {
                                entry
                                    .associated_consts
                                    .insert((self_type.clone(), c.ident.to_string()), c.expr.clone());
                            }
                            _ => {}
                        }
                    }
                }
                Item::Use(u) => collect_use(&mut Vec::new(), &u.tree, entry),
                // `extern crate sparkl2d_core as sparkl_core;` names a crate under another name.
                Item::ExternCrate(e) => {
                    if let Some((_, alias)) = &e.rename {
                        entry.uses.insert(alias.to_string(), vec![e.ident.to_string()]);
                        entry.extern_crates.insert(alias.to_string(), e.ident.to_string());
                    } else if e.ident != "self" {
                        // `extern crate math;` also names the crate inside this module:
                        // `crate::math::tuple4d::Tuple4D`.
                        entry.extern_crates.insert(e.ident.to_string(), e.ident.to_string());
                    }
                }
                Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        inline.push((m.ident.to_string(), items.clone()));
                    }
                }
                _ => {}
            }
        }
        let names = &mut self.nameable;
        names.extend(module.last().cloned());
        if let Some(items) = self.modules.get(&module) {
            names.extend(items.structs.keys().cloned());
            names.extend(items.enums.iter().cloned());
            names.extend(items.aliases.keys().cloned());
            names.extend(items.consts.keys().cloned());
            names.extend(items.statics.keys().cloned());
            names.extend(items.functions.keys().cloned());
            names.extend(items.uses.keys().cloned());
            names.extend(items.extern_crates.keys().cloned());
        }
        for (name, items) in inline {
            let mut child = module.clone();
            child.push(name);
            self.add_items(child, file, &items);
        }
    }

    /// Puts the items of file `file`, module `module`, in place of those it added before
    /// (`syntax` is `None` when it no longer parses): its own items and those of the inline
    /// modules written in it. `others` are the modules of the other files: the modules below
    /// `module` that it holds, and the modules below those, are theirs and are kept. What is derived from the items is kept
    /// when the modules under `module` name the same things as before: resolution reads only
    /// names, imports and modules, so an edit inside a body leaves every resolved path true.
    pub fn replace_file(
        &mut self,
        module: &ModulePath,
        file: usize,
        syntax: Option<&syn::File>,
        others: &HashSet<ModulePath>,
    ) {
        let before = self.names_under(module);
        self.remove_items_under(module, others);
        if let Some(syntax) = syntax {
            self.add_items(module.clone(), file, &syntax.items);
        }
        if self.names_under(module) != before {
            self.forget_derived();
        } else {
            self.reach.get_mut().forget_under(module);
        }
    }

    /// What the modules under `module` name, as resolution and the method index read them.
    fn names_under(&self, module: &ModulePath) -> Vec<(ModulePath, ModuleNames)> {
        self.modules
            .range(module.clone()..)
            .take_while(|(key, _)| key.starts_with(module))
            .map(|(key, items)| (key.clone(), items.names()))
            .collect()
    }

    fn remove_items_under(&mut self, module: &ModulePath, files: &HashSet<ModulePath>) {
        self.modules.retain(|key, _| {
            !key.starts_with(module) || (module.len() + 1..=key.len()).any(|len| files.contains(&key[..len]))
        });
    }

    /// Forgets every module's items, keeping the crates' dependencies and features, so that
    /// the files can be added again after one of them changed.
    pub fn clear_items(&mut self) {
        self.modules.clear();
        self.forget_derived();
    }

    /// Sets the features crate `krate` is compiled with; its items under a `#[cfg]` that does
    /// not hold with them are left out. Call it before adding the crate's files.
    pub fn set_features(&mut self, krate: &str, features: BTreeSet<String>) {
        self.features.insert(krate.to_string(), features);
    }

    /// Whether code with these attributes, written in `module`, is compiled.
    pub fn cfg_active(&self, module: &ModulePath, attrs: &[syn::Attribute]) -> bool {
        cfg::active(attrs, module.first().and_then(|c| self.features.get(c)))
    }

    /// Like [`ItemIndex::cfg_active`], for code compiled for the device `target`.
    pub fn cfg_active_on(
        &self,
        module: &ModulePath,
        attrs: &[syn::Attribute],
        target: Option<cfg::DeviceTarget>,
    ) -> bool {
        cfg::active_on(attrs, module.first().and_then(|c| self.features.get(c)), target)
    }

    /// Declares that crate `from` uses crate `root` under the name `name` (a path dependency,
    /// or the package's library seen from its binaries).
    pub fn add_dependency(&mut self, from: &str, name: &str, root: &str) {
        self.forget_derived();
        self.nameable.insert(name.to_string());
        self.dependencies
            .entry(from.to_string())
            .or_default()
            .insert(name.to_string(), root.to_string());
    }

    /// Whether code of crate `from` may use items of crate `to`.
    fn sees(&self, from: &str, to: &str) -> bool {
        from == to || self.dependencies.get(from).is_some_and(|d| d.values().any(|r| r == to))
    }

    /// The crate whose root module code of crate `from` names `name`, if it is one it uses.
    fn dependency(&self, from: &str, name: &str) -> Option<&String> {
        self.dependencies.get(from)?.get(name)
    }

    /// The index's own copy of a module path, which lives as long as the index.
    pub fn module_key(&self, module: &ModulePath) -> Option<&ModulePath> {
        self.modules.get_key_value(module).map(|(k, _)| k)
    }

    /// What `path`, written in `from`, names.
    pub fn resolve(&self, from: &ModulePath, path: &[String]) -> Option<Target> {
        // A first segment no module can name (a local variable, a parameter) resolves to
        // nothing: asked of every module its globs reach, it would cost the longest search.
        let first = path.first()?;
        if !matches!(first.as_str(), "crate" | "self" | "super") && !self.nameable.contains(first) {
            return None;
        }
        let key = (from.clone(), path.to_vec());
        if let Some(known) = self.resolved.borrow().get(&key) {
            return known.clone();
        }
        let found = self.resolve_at(from, path, &mut BTreeSet::new());
        self.resolved.borrow_mut().insert(key, found.clone());
        found
    }

    /// `seen` holds the (module, name) pairs already asked about in this resolution: `use`
    /// and glob imports may form cycles, and each pair's answer does not depend on the way in.
    fn resolve_at(&self, from: &ModulePath, path: &[String], seen: &mut Seen) -> Option<Target> {
        let (first, rest) = path.split_first()?;
        let mut target = match first.as_str() {
            "crate" => Target::Module(from.first().map(|c| vec![c.clone()])?),
            "self" => Target::Module(from.clone()),
            "super" => Target::Module(parent(from)?),
            _ => self.lookup(from, first, seen)?,
        };
        for segment in rest {
            target = match target {
                Target::Module(module) if segment == "super" => Target::Module(parent(&module)?),
                Target::Module(module) => self.member(&module, segment, seen)?,
                Target::Item(module, item) => Target::Associated(module, item, segment.clone()),
                Target::Associated(..) => return None,
                Target::External(mut text) => {
                    text.push_str("::");
                    text.push_str(segment);
                    Target::External(text)
                }
            };
        }
        Some(target)
    }

    /// A name as it is visible inside `module`: its child modules, items, imports, glob
    /// imports, then the crates its crate uses.
    fn lookup(&self, module: &ModulePath, name: &str, seen: &mut Seen) -> Option<Target> {
        if let Some(found) = self.member(module, name, seen) {
            return Some(found);
        }
        let from = module.first()?;
        // A crate root's `extern crate a as b;` puts `b` in every module's prelude.
        let renamed = self
            .modules
            .get(&vec![from.clone()])
            .and_then(|root| root.extern_crates.get(name));
        let root = self.dependency(from, renamed.map_or(name, String::as_str))?;
        let crate_root = vec![root.clone()];
        self.modules
            .contains_key(&crate_root)
            .then_some(Target::Module(crate_root))
    }

    /// A name defined in, or imported into, a module.
    fn member(&self, module: &ModulePath, name: &str, seen: &mut Seen) -> Option<Target> {
        let items = self.modules.get(module)?;
        let mut child = module.clone();
        child.push(name.to_string());
        if self.modules.contains_key(&child) {
            return Some(Target::Module(child));
        }
        if items.defines(name) {
            return Some(Target::Item(module.clone(), name.to_string()));
        }
        if let Some(krate) = items.extern_crates.get(name) {
            let root = module.first().and_then(|from| self.dependency(from, krate));
            if let Some(root) = root.filter(|r| self.modules.contains_key(&vec![(*r).clone()])) {
                return Some(Target::Module(vec![root.clone()]));
            }
        }
        if seen.len() > MAX_RESOLVE_STEPS || !seen.insert((module.clone(), name.to_string())) {
            return None;
        }
        if let Some(path) = items.uses.get(name) {
            if let Some(found) = self.resolve_at(module, path, seen) {
                return Some(found);
            }
            // A path into the workspace's own modules that does not resolve here was cut short
            // by a cycle of glob imports (`use crate::Tuple4D` read while `crate::*` is being
            // searched): the name is found the other way in, and is no external item.
            if path.len() > 1 && self.names_workspace_module(module, &path[0]) {
                return None;
            }
            return Some(Target::External(path.join("::")));
        }
        for glob in &items.globs {
            if let Some(Target::Module(imported)) = self.resolve_at(module, glob, seen) {
                if imported != *module {
                    if let Some(found) = self.member(&imported, name, seen) {
                        return Some(found);
                    }
                }
            }
        }
        None
    }

    /// Whether a path's first segment, read in `module`, names one of this crate's own modules:
    /// `crate`, `self`, `super` or a child module. A path into another crate of the workspace
    /// may name an item the index does not hold (an intrinsic declared by a macro): external.
    fn names_workspace_module(&self, module: &ModulePath, first: &str) -> bool {
        if matches!(first, "crate" | "self" | "super") {
            return true;
        }
        let mut child = module.clone();
        child.push(first.to_string());
        self.modules.contains_key(&child)
    }

    /// The struct definition an item target names, following type aliases.
    pub fn struct_def(&self, target: &Target) -> Option<(&ModulePath, &syn::ItemStruct)> {
        let Target::Item(module, name) = target else {
            return None;
        };
        let (key, items) = self.modules.get_key_value(module)?;
        items.structs.get(name).map(|s| (key, s))
    }

    /// The enum definition an item target names.
    pub fn enum_def(&self, target: &Target) -> Option<(&ModulePath, &syn::ItemEnum)> {
        let Target::Item(module, name) = target else {
            return None;
        };
        let (key, items) = self.modules.get_key_value(module)?;
        items.enum_defs.get(name).map(|e| (key, e))
    }

    /// The aliased type of an item target (`type Vector<N> = Vector3<N>;`), with the module to
    /// read it in.
    pub fn alias(&self, target: &Target) -> Option<(&ModulePath, &syn::ItemType)> {
        let Target::Item(module, name) = target else {
            return None;
        };
        let (key, items) = self.modules.get_key_value(module)?;
        items.aliases.get(name).map(|t| (key, t))
    }

    /// The initializer of a constant (or of an associated constant), with its module.
    pub fn const_expr(&self, target: &Target) -> Option<(&ModulePath, &Expr)> {
        match target {
            Target::Item(module, name) => {
                let (key, items) = self.modules.get_key_value(module)?;
                items.consts.get(name).map(|e| (key, e))
            }
            Target::Associated(module, ty, name) => {
                let (key, items) = self.modules.get_key_value(module)?;
                if let Some(e) = items.associated_consts.get(&(ty.clone(), name.clone())) {
                    return Some((key, e));
                }
                // `impl` blocks may sit in another module than the type.
                self.modules.iter().find_map(|(key, items)| {
                    items
                        .associated_consts
                        .get(&(ty.clone(), name.clone()))
                        .map(|e| (key, e))
                })
            }
            _ => None,
        }
    }

    /// A `static` item.
    pub fn static_item(&self, target: &Target) -> Option<(&ModulePath, &syn::ItemStatic)> {
        let Target::Item(module, name) = target else {
            return None;
        };
        let (key, items) = self.modules.get_key_value(module)?;
        items.statics.get(name).map(|s| (key, s))
    }

    /// A free function, or an associated function (`Type::new`) of a type.
    pub fn function(&self, target: &Target) -> Option<FunctionRef<'_>> {
        match target {
            Target::Item(module, name) => {
                let (key, items) = self.modules.get_key_value(module)?;
                items.functions.get(name).map(|(f, file)| FunctionRef {
                    module: key,
                    file: *file,
                    name: name.clone(),
                    self_type: None,
                    sig: &f.sig,
                    block: &f.block,
                })
            }
            Target::Associated(module, ty, name) => self
                .methods_named(name, module)
                .find(|m| m.self_type == Some(ty.as_str())),
            _ => None,
        }
    }

    /// The function or method named `name` whose name is written inside bytes `within` of file
    /// `file` (`source` is that file): how a definition the Rust semantics found is looked up.
    pub fn function_at(
        &self,
        file: usize,
        name: &str,
        within: std::ops::Range<usize>,
        source: &crate::source::SourceFile,
    ) -> Option<FunctionRef<'_>> {
        let inside = |ident: &syn::Ident| ident == name && within.contains(&source.span_of_node(ident).start);
        self.modules.iter().find_map(|(module, items)| {
            let free = items.functions.iter().find_map(|(fname, (f, at))| {
                (*at == file && inside(&f.sig.ident)).then(|| FunctionRef {
                    module,
                    file,
                    name: fname.clone(),
                    self_type: None,
                    sig: &f.sig,
                    block: &f.block,
                })
            });
            free.or_else(|| {
                items.methods.iter().find_map(|m| {
                    (m.file == file && inside(&m.item.sig.ident)).then(|| FunctionRef {
                        module,
                        file,
                        name: name.to_string(),
                        self_type: Some(m.self_type.as_str()),
                        sig: &m.item.sig,
                        block: &m.item.block,
                    })
                })
            })
        })
    }

    /// Whether an item target is a tuple struct (`Id(u32)`), constructed like a call.
    pub fn is_tuple_struct(&self, target: &Target) -> bool {
        self.struct_def(target)
            .is_some_and(|(_, s)| matches!(s.fields, syn::Fields::Unnamed(_)))
    }

    /// Every method with this name that code of module `from` may call, in module order.
    pub fn methods_named<'a>(&'a self, name: &str, from: &ModulePath) -> impl Iterator<Item = FunctionRef<'a>> + 'a {
        let from = from.first().cloned().unwrap_or_default();
        let places = {
            let mut index = self.methods_by_name.borrow_mut();
            let index = index.get_or_insert_with(|| {
                let mut by_name = MethodsByName::new();
                for (module, items) in &self.modules {
                    for (at, method) in items.methods.iter().enumerate() {
                        by_name
                            .entry(method.item.sig.ident.to_string())
                            .or_default()
                            .push((module.clone(), at));
                    }
                }
                by_name
            });
            index.get(name).cloned().unwrap_or_default()
        };
        places.into_iter().filter_map(move |(module, at)| {
            let (module, items) = self.modules.get_key_value(&module)?;
            if !module.first().is_some_and(|c| self.sees(&from, c)) {
                return None;
            }
            let m = items.methods.get(at)?;
            Some(FunctionRef {
                module,
                file: m.file,
                name: m.item.sig.ident.to_string(),
                self_type: Some(m.self_type.as_str()),
                sig: &m.item.sig,
                block: &m.item.block,
            })
        })
    }

    /// The one struct named `name` in the crates code of module `from` may use, where a type
    /// is known by its name only (read from another module's signature); none when several
    /// structs share the name.
    pub fn struct_named(&self, name: &str, from: &ModulePath) -> Option<Target> {
        let from = from.first().cloned().unwrap_or_default();
        let mut found = self
            .modules
            .iter()
            .filter(|(module, _)| module.first().is_some_and(|c| self.sees(&from, c)))
            .filter(|(_, items)| items.structs.contains_key(name));
        let (module, _) = found.next()?;
        if found.next().is_some() {
            return None;
        }
        Some(Target::Item(module.clone(), name.to_string()))
    }
}

/// Identifies a function across the index: defining module, `impl` type, name.
pub type FunctionKey = (ModulePath, Option<String>, String);

impl ItemIndex {
    /// Whether a function can call itself, directly or through other functions of the index.
    pub fn is_recursive(&self, function: &FunctionRef<'_>) -> bool {
        let start = key(function);
        let mut seen: BTreeSet<FunctionKey> = BTreeSet::new();
        let mut stack = self.callees(function);
        while let Some(next) = stack.pop() {
            let k = key(&next);
            if k == start {
                return true;
            }
            if seen.insert(k) {
                stack.extend(self.callees(&next));
            }
        }
        false
    }

    /// The functions of the index a function's body may call.
    fn callees<'a>(&'a self, function: &FunctionRef<'_>) -> Vec<FunctionRef<'a>> {
        let mut calls = CallNames {
            features: function.module.first().and_then(|c| self.features.get(c)).cloned(),
            ..CallNames::default()
        };
        syn::visit::Visit::visit_block(&mut calls, function.block);
        self.named_functions(function.module, function.self_type, calls).0
    }

    /// Every function of the index that the analysis of `function` may follow or look into:
    /// the functions any path or method name of its body names (calls, paths passed along,
    /// paths inside macros, items nested in it), those that the constants it names call, and
    /// so on from each. A function outside the set cannot change what its analysis finds.
    pub fn reachable(&self, function: &FunctionRef<'_>) -> BTreeSet<FunctionKey> {
        let start = Mentions::of_block(function.block);
        let mut stack = self.mentioned(function.module, function.self_type, start);
        let mut graph = self.reach.borrow_mut();
        let mut seen = vec![false; graph.nodes.len()];
        let mut reached = BTreeSet::new();
        while let Some(node) = stack.pop() {
            if seen.len() <= node {
                seen.resize(node + 1, false);
            }
            if std::mem::replace(&mut seen[node], true) {
                continue;
            }
            if let Node::Function(key) = &graph.nodes[node] {
                reached.insert(key.clone());
            }
            let next = match &graph.edges[node] {
                Some(next) => next.clone(),
                None => {
                    let bodies = self.bodies(&graph.nodes[node]);
                    let mut next = Vec::new();
                    for (module, self_type, mentions) in bodies {
                        next.extend(self.mentioned_in(&mut graph, module, self_type, mentions));
                    }
                    let next: Arc<[usize]> = next.into();
                    graph.edges[node] = Some(next.clone());
                    next
                }
            };
            stack.extend(next.iter().copied());
        }
        reached
    }

    /// The nodes a body's mentions name, read in `module` (`Self` as `self_type`).
    fn mentioned(&self, module: &ModulePath, self_type: Option<&str>, mentions: Mentions) -> Vec<usize> {
        self.mentioned_in(&mut self.reach.borrow_mut(), module, self_type, mentions)
    }

    fn mentioned_in(
        &self,
        graph: &mut Reach,
        module: &ModulePath,
        self_type: Option<&str>,
        mentions: Mentions,
    ) -> Vec<usize> {
        let (functions, named) = self.named_functions(module, self_type, mentions.0);
        let consts = named
            .into_iter()
            .filter(|t| self.const_expr(t).is_some())
            .map(Node::Const);
        let functions = functions.iter().map(|f| Node::Function(key(f)));
        consts.chain(functions).map(|node| graph.id(node)).collect()
    }

    /// The bodies a node stands for, each with the module it is read in and its `Self` type:
    /// every function or method of that key (two `impl` blocks may define one name), or the
    /// constant's initializer.
    fn bodies(&self, node: &Node) -> Vec<(&ModulePath, Option<&str>, Mentions)> {
        match node {
            Node::Const(target) => (self.const_expr(target).into_iter())
                .map(|(module, expr)| (module, None, Mentions::of_expr(expr)))
                .collect(),
            Node::Function((module, self_type, name)) => {
                let Some((module, items)) = self.modules.get_key_value(module) else {
                    return Vec::new();
                };
                match self_type {
                    None => (items.functions.get(name).into_iter())
                        .map(|(f, _)| (module, None, Mentions::of_block(&f.block)))
                        .collect(),
                    Some(ty) => (items.methods.iter())
                        .filter(|m| &m.self_type == ty && m.item.sig.ident == name)
                        .map(|m| (module, Some(m.self_type.as_str()), Mentions::of_block(&m.item.block)))
                        .collect(),
                }
            }
        }
    }

    /// The functions the paths and method names of a body name, read in `module` (`Self` as
    /// `self_type`), and what else its paths resolve to.
    fn named_functions<'a>(
        &'a self,
        module: &ModulePath,
        self_type: Option<&str>,
        calls: CallNames,
    ) -> (Vec<FunctionRef<'a>>, Vec<Target>) {
        let mut out = Vec::new();
        let mut others = Vec::new();
        for mut path in calls.paths {
            if let (Some(first), Some(ty)) = (path.first_mut(), self_type) {
                if first == "Self" {
                    *first = ty.to_string();
                }
            }
            if let Some(target) = self.resolve(module, &path) {
                match self.function(&target) {
                    Some(f) => out.push(f),
                    None => others.push(target),
                }
            }
        }
        for method in calls.methods {
            out.extend(self.methods_named(&method, module));
        }
        (out, others)
    }
}

fn key(function: &FunctionRef<'_>) -> FunctionKey {
    (
        function.module.clone(),
        function.self_type.map(str::to_string),
        function.name.clone(),
    )
}

/// The paths called and the method names called in a body (items nested in it excluded).
#[derive(Default)]
struct CallNames {
    paths: Vec<Vec<String>>,
    methods: BTreeSet<String>,
    /// The features of the body's crate, when known: statements whose `#[cfg]` they rule
    /// out call nothing.
    features: Option<BTreeSet<String>>,
}

impl<'ast> syn::visit::Visit<'ast> for CallNames {
    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*call.func {
            self.paths
                .push(p.path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_expr_call(self, call);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        self.methods.insert(call.method.to_string());
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_item(&mut self, _: &'ast Item) {}

    fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
        if cfg::active(stmt_attrs(stmt), self.features.as_ref()) {
            syn::visit::visit_stmt(self, stmt);
        }
    }
}

/// Every path and method name a body writes, nested items and macro arguments included: what
/// its analysis may resolve, at most.
struct Mentions(CallNames);

impl Mentions {
    fn of_block(block: &syn::Block) -> Mentions {
        let mut mentions = Mentions(CallNames::default());
        syn::visit::Visit::visit_block(&mut mentions, block);
        mentions
    }

    fn of_expr(expr: &Expr) -> Mentions {
        let mut mentions = Mentions(CallNames::default());
        syn::visit::Visit::visit_expr(&mut mentions, expr);
        mentions
    }

    /// The runs of identifiers joined by `::` in unparsed tokens, each identifier also taken
    /// as a method name.
    fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
        let mut run: Vec<String> = Vec::new();
        let mut colons = 0;
        for tree in tokens {
            match tree {
                proc_macro2::TokenTree::Ident(ident) => {
                    let name = ident.to_string();
                    self.0.methods.insert(name.clone());
                    if colons != 2 {
                        self.end_run(&mut run);
                    }
                    run.push(name);
                    colons = 0;
                }
                proc_macro2::TokenTree::Punct(punct) if punct.as_char() == ':' && colons < 2 => colons += 1,
                proc_macro2::TokenTree::Group(group) => {
                    self.end_run(&mut run);
                    colons = 0;
                    self.tokens(group.stream());
                }
                _ => {
                    self.end_run(&mut run);
                    colons = 0;
                }
            }
        }
        self.end_run(&mut run);
    }

    fn end_run(&mut self, run: &mut Vec<String>) {
        if !run.is_empty() {
            self.0.paths.push(std::mem::take(run));
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for Mentions {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.0
            .paths
            .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, path);
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        self.0.methods.insert(call.method.to_string());
        syn::visit::visit_expr_method_call(self, call);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        syn::visit::visit_macro(self, mac);
    }
}

impl ModuleItems {
    /// Everything of the module that resolution or the method index reads: not the items'
    /// bodies, types or values, which are looked up again by name each time.
    fn names(&self) -> ModuleNames {
        let mut defined: Vec<String> = (self.structs.keys())
            .chain(&self.enums)
            .chain(self.aliases.keys())
            .chain(self.consts.keys())
            .chain(self.statics.keys())
            .chain(self.functions.keys())
            .cloned()
            .collect();
        defined.sort_unstable();
        defined.dedup();
        ModuleNames {
            defined,
            methods: (self.methods.iter())
                .map(|m| (m.self_type.clone(), m.item.sig.ident.to_string(), m.file))
                .collect(),
            uses: self.uses.clone(),
            globs: self.globs.clone(),
            extern_crates: self.extern_crates.clone(),
        }
    }

    fn defines(&self, name: &str) -> bool {
        self.structs.contains_key(name)
            || self.enums.contains(name)
            || self.aliases.contains_key(name)
            || self.consts.contains_key(name)
            || self.statics.contains_key(name)
            || self.functions.contains_key(name)
    }
}

/// The attributes written on a statement (`#[cfg(..)]` among them): a `let`'s, an item's, a
/// macro call's, or those of the expression a statement is.
pub fn stmt_attrs(stmt: &syn::Stmt) -> &[syn::Attribute] {
    match stmt {
        syn::Stmt::Local(local) => &local.attrs,
        syn::Stmt::Item(item) => item_attrs(item),
        syn::Stmt::Expr(expr, _) => expr_attrs(expr),
        syn::Stmt::Macro(m) => &m.attrs,
    }
}

/// The outer attributes of an expression statement's expression.
fn expr_attrs(expr: &Expr) -> &[syn::Attribute] {
    match expr {
        Expr::Return(e) => &e.attrs,
        Expr::Call(e) => &e.attrs,
        Expr::MethodCall(e) => &e.attrs,
        Expr::Assign(e) => &e.attrs,
        Expr::Binary(e) => &e.attrs,
        Expr::Block(e) => &e.attrs,
        Expr::Unsafe(e) => &e.attrs,
        Expr::If(e) => &e.attrs,
        Expr::ForLoop(e) => &e.attrs,
        Expr::While(e) => &e.attrs,
        Expr::Loop(e) => &e.attrs,
        Expr::Match(e) => &e.attrs,
        Expr::Macro(e) => &e.attrs,
        Expr::Path(e) => &e.attrs,
        Expr::Reference(e) => &e.attrs,
        Expr::Unary(e) => &e.attrs,
        Expr::Index(e) => &e.attrs,
        Expr::Field(e) => &e.attrs,
        _ => &[],
    }
}

/// An item's outer attributes (`#[cfg]` among them).
pub fn item_attrs(item: &Item) -> &[syn::Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn impl_item_attrs(item: &syn::ImplItem) -> &[syn::Attribute] {
    match item {
        syn::ImplItem::Const(i) => &i.attrs,
        syn::ImplItem::Fn(i) => &i.attrs,
        syn::ImplItem::Type(i) => &i.attrs,
        _ => &[],
    }
}

fn parent(module: &ModulePath) -> Option<ModulePath> {
    (module.len() > 1).then(|| module[..module.len() - 1].to_vec())
}

/// The name of the type an `impl` block is for (`Grid` in `impl<T> Grid<T>`).
fn type_name(ty: &Type) -> Option<String> {
    match ty {
        Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        Type::Paren(p) => type_name(&p.elem),
        Type::Group(g) => type_name(&g.elem),
        // Methods of a trait implemented for slices, arrays and pointers (`impl Tr for [T]`):
        // no named type has them, only the Rust semantics pick them for a receiver.
        Type::Slice(_) => Some("[T]".to_string()),
        Type::Array(_) => Some("[T; N]".to_string()),
        Type::Ptr(_) => Some("*T".to_string()),
        _ => None,
    }
}

fn collect_use(prefix: &mut Vec<String>, tree: &syn::UseTree, items: &mut ModuleItems) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            collect_use(prefix, &p.tree, items);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                if let Some(last) = prefix.last().cloned() {
                    items.uses.insert(last, prefix.clone());
                }
            } else {
                let mut path = prefix.clone();
                path.push(name.clone());
                items.uses.insert(name, path);
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            items.uses.insert(r.rename.to_string(), path);
        }
        syn::UseTree::Glob(_) => items.globs.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for tree in &g.items {
                collect_use(prefix, tree, items);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A first segment no module defines, imports or declares names nothing; every kind of name
    /// a module can answer still resolves, also after the modules change.
    #[test]
    fn only_names_some_module_can_answer_start_a_resolution() {
        let mut index = ItemIndex::default();
        let file = |text: &str| syn::parse_str::<syn::File>(text).unwrap();
        let m = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<ModulePath>();
        let path = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        index.add_file(
            m(&["app"]),
            0,
            &file("extern crate alloc as heap; pub mod util; use util::*; use std::mem::size_of as sz; pub const N: u32 = 4;"),
        );
        index.add_file(m(&["app", "util"]), 1, &file("pub fn at(i: u32) -> u32 { i }"));
        index.add_file(m(&["shared"]), 2, &file("pub struct Cell;"));
        index.add_dependency("app", "common", "shared");
        let app = m(&["app"]);
        assert_eq!(index.resolve(&app, &path(&["n_items"])), None);
        assert_eq!(
            index.resolve(&app, &path(&["N"])),
            Some(Target::Item(app.clone(), "N".into()))
        );
        assert_eq!(
            index.resolve(&app, &path(&["at"])),
            Some(Target::Item(m(&["app", "util"]), "at".into()))
        );
        assert_eq!(
            index.resolve(&app, &path(&["util"])),
            Some(Target::Module(m(&["app", "util"])))
        );
        assert_eq!(
            index.resolve(&app, &path(&["sz"])),
            Some(Target::External("std::mem::size_of".into()))
        );
        assert_eq!(
            index.resolve(&app, &path(&["common", "Cell"])),
            Some(Target::Item(m(&["shared"]), "Cell".into()))
        );
        assert!(
            index.resolve(&app, &path(&["heap"])).is_some(),
            "an `extern crate` rename"
        );
        // A name defined later is nameable from then on.
        assert_eq!(index.resolve(&app, &path(&["later"])), None);
        index.add_file(m(&["app", "more"]), 3, &file("pub fn later() {}"));
        assert_eq!(
            index.resolve(&m(&["app", "more"]), &path(&["later"])),
            Some(Target::Item(m(&["app", "more"]), "later".into()))
        );
    }

    /// The shape of a math crate whose prelude re-exports a module of globs, one of whose files
    /// imports a sibling's type back through the crate root (raytracer-challenge, `math`).
    #[test]
    fn a_use_cut_short_by_a_glob_cycle_is_found_the_other_way_in() {
        let mut index = ItemIndex::default();
        let file = |text: &str| syn::parse_str::<syn::File>(text).unwrap();
        let m = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<ModulePath>();
        index.add_file(
            m(&["math"]),
            0,
            &file("pub mod shapes; pub use self::shapes::*; pub mod prelude { pub use super::shapes::*; }"),
        );
        index.add_file(
            m(&["math", "shapes"]),
            1,
            &file("pub use self::common::*; pub use self::matrix::*; pub use self::tuple::*;"),
        );
        index.add_file(m(&["math", "shapes", "common"]), 2, &file("use crate::prelude::*;"));
        index.add_file(
            m(&["math", "shapes", "matrix"]),
            3,
            &file("use crate::Tuple4D; pub struct Matrix;"),
        );
        index.add_file(
            m(&["math", "shapes", "tuple"]),
            4,
            &file("pub struct Tuple4D { x: f32 }"),
        );
        index.add_file(m(&["user"]), 5, &file("use math::prelude::*;"));
        index.add_dependency("user", "math", "math");
        let found = index.resolve(&m(&["user"]), &["Tuple4D".to_string()]);
        assert_eq!(
            found,
            Some(Target::Item(m(&["math", "shapes", "tuple"]), "Tuple4D".to_string()))
        );
        let external = index.resolve(&m(&["user"]), &["Missing".to_string()]);
        assert_eq!(external, None);
        // `extern crate math;` at the root: `crate::math::..` through the crate's globs.
        index.add_file(m(&["user"]), 5, &file("extern crate math; use math::prelude::*;"));
        index.add_file(m(&["user", "lights"]), 6, &file("use crate::math::tuple::Tuple4D;"));
        let through_root = index.resolve(&m(&["user", "lights"]), &["Tuple4D".to_string()]);
        assert_eq!(through_root, found);
    }

    #[test]
    fn what_a_function_may_reach_counts_macros_constants_methods_and_nested_items() {
        let mut index = ItemIndex::default();
        let file = |text: &str| syn::parse_str::<syn::File>(text).unwrap();
        let m = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<ModulePath>();
        index.add_file(
            m(&["k"]),
            0,
            &file(
                "pub mod util { pub fn checked(i: usize) -> bool { deeper(i) } fn deeper(_: usize) -> bool { true } }
                 pub fn width() -> usize { 4 }
                 pub const W: usize = width();
                 pub struct P; impl P { pub fn get(&self) -> usize { 0 } }
                 pub fn unrelated() {}
                 pub fn other_kernel() {}
                 pub fn kernel(p: P) {
                     assert!(util::checked(W));
                     let _ = p.get();
                     fn local() { other_kernel() }
                 }",
            ),
        );
        let key = |module: &[&str], ty: Option<&str>, name: &str| (m(module), ty.map(str::to_string), name.to_string());
        let kernel = index
            .function(&Target::Item(m(&["k"]), "kernel".into()))
            .expect("indexed");
        assert_eq!(
            index.reachable(&kernel),
            BTreeSet::from([
                key(&["k", "util"], None, "checked"),
                key(&["k", "util"], None, "deeper"),
                key(&["k"], None, "width"),
                key(&["k"], Some("P"), "get"),
                key(&["k"], None, "other_kernel"),
            ])
        );
        // What the recursion check follows leaves the macro's call out.
        let mut calls = CallNames::default();
        syn::visit::Visit::visit_block(&mut calls, kernel.block);
        assert!(calls.paths.is_empty());
    }

    /// A file replaced with an edit inside a body keeps what was resolved (resolution reads
    /// names only) but not what its own bodies reach; an edit that adds, removes or imports a
    /// name forgets every resolved path.
    #[test]
    fn a_replaced_file_is_resolved_and_followed_as_a_fresh_index_would() {
        let file = |text: &str| syn::parse_str::<syn::File>(text).unwrap();
        let m = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<ModulePath>();
        let key = |module: &[&str], name: &str| (m(module), None, name.to_string());
        let helpers = |text: &str| {
            let mut index = ItemIndex::default();
            index.add_file(m(&["k"]), 0, &file("pub mod h; pub fn kernel() { h::load(); }"));
            index.add_file(m(&["k", "h"]), 1, &file(text));
            index
        };
        let reached = |index: &ItemIndex| {
            let kernel = index
                .function(&Target::Item(m(&["k"]), "kernel".into()))
                .expect("indexed");
            index.reachable(&kernel)
        };
        let others = HashSet::from([m(&["k"])]);
        let first = "pub fn load() { a() } pub fn a() {} pub fn b() {}";
        let mut kept = helpers(first);
        assert_eq!(
            reached(&kept),
            BTreeSet::from([key(&["k", "h"], "load"), key(&["k", "h"], "a")])
        );
        let b = vec!["h".to_string(), "b".to_string()];
        assert_eq!(
            kept.resolve(&m(&["k"]), &b),
            Some(Target::Item(m(&["k", "h"]), "b".into()))
        );

        // The body of `load` now calls `b`: the same names, so resolutions are kept, but what
        // `load` reaches is read again.
        let body_edit = "pub fn load() { b() } pub fn a() {} pub fn b() {}";
        kept.replace_file(&m(&["k", "h"]), 1, Some(&file(body_edit)), &others);
        assert!(!kept.resolved.borrow().is_empty(), "resolutions are kept");
        assert_eq!(
            reached(&kept),
            BTreeSet::from([key(&["k", "h"], "load"), key(&["k", "h"], "b")])
        );
        assert_eq!(reached(&kept), reached(&helpers(body_edit)));

        // `b` is gone: what named it names nothing now.
        let removed = "pub fn load() { a() } pub fn a() {}";
        kept.replace_file(&m(&["k", "h"]), 1, Some(&file(removed)), &others);
        assert_eq!(kept.resolve(&m(&["k"]), &b), None);
        assert_eq!(reached(&kept), reached(&helpers(removed)));
        // A file that no longer parses adds no items.
        kept.replace_file(&m(&["k", "h"]), 1, None, &others);
        assert_eq!(reached(&kept), BTreeSet::new());
    }
}
