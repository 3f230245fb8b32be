//! Host launch sites: where host code launches a kernel, with the block, grid and scalar
//! arguments it passes when they are known statically.
//!
//! The forms read: cust's `launch!(module.kernel<<<grid, block, shared, stream>>>(args))` and
//! `Stream::launch(&function, grid, block, shared, &[args])`; cudarc's and cuda-oxide's
//! `LaunchConfig { .. }` and `LaunchConfig::for_num_elems(n)` used by `function.launch(cfg,
//! (args,))`, `stream.launch_builder(&function).arg(..).launch(cfg)` or cuda-oxide's generated
//! `module.kernel(&stream, cfg, args..)` and its `cuda_launch! { kernel: .., config: cfg, args:
//! [..] }`. Values are integer literals, constants, `let`
//! bindings of the same function and arithmetic over them.

use crate::model::cubecl::{self, CubeArgs};
use crate::model::kernel::{Kernel, ParamKind};
use crate::model::launch::{
    extent_names, BlockSource, Dim3, LaunchSite, LaunchSpec, ResolvedLaunch, MAX_BLOCK_THREADS, RUNTIME_EXTENTS,
};
use crate::model::layout::{integer_binary, Scope};
use crate::source::SourceFile;
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::cell::RefCell;
use std::collections::BTreeMap;
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Expr, Pat, Token};

/// One launch of a kernel found in host code.
#[derive(Debug, Clone, PartialEq)]
pub struct HostLaunch {
    /// The kernel's name as the launch gives it.
    pub kernel: String,
    /// The block, or why it is not known statically.
    pub block: Result<Dim3, String>,
    /// Where the block is not known statically: the extents that are (`(1, bs)` sets x = 1).
    pub partial_block: [Option<u32>; 3],
    /// The grid, when known.
    pub grid: Option<Dim3>,
    /// The kernel arguments in order, each `Some` when it is a known integer; `None` when the
    /// argument list itself is not known.
    pub args: Option<Vec<Option<i64>>>,
    /// Where the launch is.
    pub site: LaunchSite,
    /// What a CubeCL launch says of its buffers and element types; `None` for the others.
    pub cube: Option<CubeArgs>,
}

/// One launch a kernel is analyzed under.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelLaunch {
    /// The launch.
    pub launch: ResolvedLaunch,
    /// The host launch it was read from, if any.
    pub site: Option<LaunchSite>,
    /// Why host launches of the kernel were not used, and what of this one was not.
    pub notes: Vec<String>,
}

/// The cudarc block of `LaunchConfig::for_num_elems`.
const CUDARC_FOR_NUM_ELEMS_BLOCK: i64 = 1024;
/// The cuda-oxide (`cuda_core`) block of `LaunchConfig::for_num_elems`.
const OXIDE_FOR_NUM_ELEMS_BLOCK: i64 = 256;

/// Methods whose result is a block size chosen at run time from the device's occupancy.
const OCCUPANCY_METHODS: [&str; 3] = [
    "suggested_launch_configuration",
    "max_potential_block_size",
    "occupancy_max_potential_block_size",
];

/// What a scan read outside its own file: the constants it asked for, with the value each
/// had, and the functions of other files it followed, with a fingerprint of each one's text.
/// While they are all as they were, the file's launches are the same.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConstAnswers {
    pub constants: Vec<(syn::Path, Option<i64>)>,
    /// A function's path as written, with the module it was written in, and its fingerprint.
    pub functions: Vec<(syn::Path, Option<u64>)>,
}

impl ConstAnswers {
    /// Every path the answers were read through.
    pub fn paths(&self) -> impl Iterator<Item = &syn::Path> {
        self.constants
            .iter()
            .map(|(p, _)| p)
            .chain(self.functions.iter().map(|(p, _)| p))
    }
}

/// A function of another file that sizes launches, with its module and a fingerprint of its
/// text (a change to its body is a change to what it returns).
fn function_elsewhere<'a>(scope: Scope<'a>, path: &syn::Path) -> Option<(crate::model::items::FunctionRef<'a>, u64)> {
    use std::hash::{Hash, Hasher};
    let target = scope.resolve(path)?;
    let function = scope.index.function(&target)?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    quote::ToTokens::to_token_stream(function.sig)
        .to_string()
        .hash(&mut hasher);
    quote::ToTokens::to_token_stream(function.block)
        .to_string()
        .hash(&mut hasher);
    Some((function, hasher.finish()))
}

/// Every launch in a file, in source order.
pub fn scan<'a>(file: &'a SourceFile, syntax: &'a syn::File, scope: Option<Scope<'a>>) -> Vec<HostLaunch> {
    scan_recorded(file, syntax, scope).0
}

/// Like [`scan`], with the constants it read through `scope` and their values: while each
/// of them still has its value, the file's launches are the same.
pub fn scan_recorded<'a>(
    file: &'a SourceFile,
    syntax: &'a syn::File,
    scope: Option<Scope<'a>>,
) -> (Vec<HostLaunch>, ConstAnswers) {
    let mut helpers = Helpers::default();
    helpers.visit_file(syntax);
    let asked = RefCell::new(ConstAnswers::default());
    let mut walker = Walker {
        file,
        scope,
        asked: &asked,
        for_num_elems: for_num_elems_block(syntax),
        env: vec![BTreeMap::new()],
        found: Vec::new(),
        helpers: &helpers,
        helper_depth: 0,
    };
    walker.visit_file(syntax);
    walker.found.sort_by_key(|l| l.site.span.start);
    (walker.found, asked.into_inner())
}

/// Whether every constant a scan read still has the value it had, under `scope`.
pub fn answers_hold(answers: &ConstAnswers, scope: Option<Scope<'_>>) -> bool {
    let constants = answers
        .constants
        .iter()
        .all(|(path, value)| scope.as_ref().and_then(|scope| scope.const_named(path)) == *value);
    let functions = answers.functions.iter().all(|(path, fingerprint)| {
        scope.and_then(|scope| function_elsewhere(scope, path)).map(|(_, f)| f) == *fingerprint
    });
    constants && functions
}

/// The launches a kernel is analyzed under, given the launches of its name found on the host,
/// the configuration entry for it and how many kernels of the analyzed files share its name:
/// one per distinct launch, each with the site it was read from; or the kernel's own launch
/// with notes on why the host launches were not used.
pub fn resolve(
    kernel: &Kernel,
    spec: Option<&LaunchSpec>,
    launches: &[HostLaunch],
    same_name: usize,
) -> Vec<KernelLaunch> {
    // Configuration and hint come first: the host launches are then not read.
    if kernel.launch.block_source != BlockSource::Default || launches.is_empty() {
        return vec![KernelLaunch {
            launch: kernel.launch.clone(),
            site: None,
            notes: Vec::new(),
        }];
    }
    let mut notes = Vec::new();
    if same_name > 1 {
        notes.push(format!(
            "{same_name} kernels of the analyzed files are named `{}`: a launch of it may be another's",
            kernel.name
        ));
    }
    let mut resolved: Vec<KernelLaunch> = Vec::new();
    for launch in launches {
        let where_ = format!("{}:{}", launch.site.file, launch.site.span.line);
        let mut own_notes = Vec::new();
        let (block, unknown_block) = match &launch.block {
            Ok(block) => (*block, [false; 3]),
            Err(why) => match partly_known(launch.partial_block) {
                // What the launch gives of the block is kept; the rest is tried at a few values.
                Some((block, unknown)) => {
                    own_notes.push(format!(
                        "the launch at {where_} sets {} at run time: ({}, {}, {}) is one value tried",
                        extent_names(unknown),
                        block[0],
                        block[1],
                        block[2]
                    ));
                    (block, unknown)
                }
                None => {
                    notes.push(format!("the launch at {where_} {why}"));
                    continue;
                }
            },
        };
        let mut params = BTreeMap::new();
        let args = match (&launch.args, &launch.cube) {
            (Some(args), Some(_)) => Some(cubecl::kernel_arguments(&kernel.item.sig, args).1),
            (args, None) => args.as_deref(),
            (None, Some(_)) => None,
        };
        match args.and_then(|args| arguments_by_parameter(kernel, args)) {
            Some(named) => {
                for (name, value) in named {
                    let (Some(name), Some(value)) = (name, value) else {
                        continue;
                    };
                    let kind = kernel.params.iter().find(|p| p.name == name).map(|p| p.kind);
                    let fits = match kind {
                        Some(ParamKind::Unsigned) => value >= 0,
                        Some(ParamKind::Signed) => true,
                        _ => false,
                    };
                    if fits {
                        params.insert(name, value);
                    }
                }
            }
            None => {
                if let Some(args) = args {
                    own_notes.push(format!(
                        "the launch passes {} arguments for {} parameters: no argument value is used",
                        args.len(),
                        kernel.item.sig.inputs.len()
                    ));
                }
            }
        }
        if let (Some(cube), Some(args)) = (&launch.cube, &launch.args) {
            params.extend(cubecl::launch_values(&kernel.item.sig, args, cube));
        }
        if let Some(spec) = spec {
            params.extend(spec.params.iter().map(|(k, v)| (k.clone(), *v)));
        }
        let launch_value = ResolvedLaunch {
            block,
            grid: spec.and_then(|s| s.grid).or(launch.grid),
            block_source: BlockSource::Launch,
            params,
            float_params: kernel.launch.float_params.clone(),
            unknown_block,
        };
        if !resolved.iter().any(|r| r.launch == launch_value) {
            resolved.push(KernelLaunch {
                launch: launch_value,
                site: Some(launch.site.clone()),
                notes: own_notes,
            });
        }
    }
    if resolved.is_empty() {
        return vec![KernelLaunch {
            launch: kernel.launch.clone(),
            site: None,
            notes,
        }];
    }
    // What holds for every launch (a name shared, a launch not used) is said with each.
    for launch in &mut resolved {
        launch.notes.splice(0..0, notes.iter().cloned());
    }
    resolved
}

/// A block some of whose extents are known: the block with the first value tried for each
/// unknown one that keeps it within the thread limit, and which extents those are.
fn partly_known(known: [Option<u32>; 3]) -> Option<(Dim3, [bool; 3])> {
    if known.iter().all(Option::is_none) || known.iter().all(Option::is_some) {
        return None;
    }
    let fixed: u32 = known.iter().flatten().product();
    let unknown = known.map(|d| d.is_none());
    let first = RUNTIME_EXTENTS.iter().copied().find(|&e| {
        u64::from(fixed) * u64::from(e).pow(unknown.iter().filter(|&&u| u).count() as u32)
            <= u64::from(MAX_BLOCK_THREADS)
    })?;
    Some((known.map(|d| d.unwrap_or(first)), unknown))
}

/// Each parameter's name with the argument a launch passes for it: one argument a parameter,
/// or, for Rust-CUDA kernels launched with `launch!`, a pointer and a length for each slice.
fn arguments_by_parameter(kernel: &Kernel, args: &[Option<i64>]) -> Option<Vec<(Option<String>, Option<i64>)>> {
    let inputs = &kernel.item.sig.inputs;
    if args.len() == inputs.len() {
        return Some(inputs.iter().map(input_name).zip(args.iter().copied()).collect());
    }
    let is_slice = |input: &syn::FnArg| matches!(input, syn::FnArg::Typed(t) if matches!(&*t.ty, syn::Type::Reference(r) if matches!(&*r.elem, syn::Type::Slice(_))));
    let expanded = inputs.len() + inputs.iter().filter(|i| is_slice(i)).count();
    if args.len() != expanded {
        return None;
    }
    let mut rest = args.iter().copied();
    let mut named = Vec::new();
    for input in inputs {
        let value = rest.next()?;
        if is_slice(input) {
            // The pointer and the length: neither is a scalar parameter's value.
            rest.next()?;
            named.push((None, None));
        } else {
            named.push((input_name(input), value));
        }
    }
    Some(named)
}

/// The name of a plain `name: T` parameter.
fn input_name(input: &syn::FnArg) -> Option<String> {
    match input {
        syn::FnArg::Typed(typed) => match &*typed.pat {
            Pat::Ident(ident) => Some(ident.ident.to_string()),
            _ => None,
        },
        syn::FnArg::Receiver(_) => None,
    }
}

/// The block of `LaunchConfig::for_num_elems` in a file: cudarc's or cuda-oxide's, by the crate
/// the file imports `LaunchConfig` from (or the `#[cuda_module]` of cuda-oxide).
fn for_num_elems_block(syntax: &syn::File) -> Option<i64> {
    let mut finder = ImportFinder::default();
    finder.visit_file(syntax);
    finder
        .root
        .as_deref()
        .and_then(crate_block)
        .or(finder.cuda_module.then_some(OXIDE_FOR_NUM_ELEMS_BLOCK))
}

/// The `for_num_elems` block of a crate that has a `LaunchConfig`.
fn crate_block(root: &str) -> Option<i64> {
    match root {
        "cudarc" => Some(CUDARC_FOR_NUM_ELEMS_BLOCK),
        "cuda_core" | "cuda_host" | "cuda_oxide" => Some(OXIDE_FOR_NUM_ELEMS_BLOCK),
        _ => None,
    }
}

/// The crate a file imports `LaunchConfig` from, and whether it has a `#[cuda_module]`.
#[derive(Default)]
struct ImportFinder {
    root: Option<String>,
    cuda_module: bool,
}

impl ImportFinder {
    fn tree(&mut self, root: &str, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => self.tree(root, &p.tree),
            syn::UseTree::Name(n) if n.ident == "LaunchConfig" => {
                self.root.get_or_insert_with(|| root.to_string());
            }
            syn::UseTree::Rename(r) if r.ident == "LaunchConfig" => {
                self.root.get_or_insert_with(|| root.to_string());
            }
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.tree(root, t)),
            _ => {}
        }
    }
}

impl<'ast> Visit<'ast> for ImportFinder {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if let syn::UseTree::Path(p) = &item.tree {
            let root = p.ident.to_string();
            self.tree(&root, &p.tree);
        }
    }

    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if attr.path().segments.last().is_some_and(|s| s.ident == "cuda_module") {
            self.cuda_module = true;
        }
    }
}

/// A value of host code, as far as it is known.
#[derive(Debug, Clone)]
enum Value {
    /// An integer.
    Int(i64),
    /// A tuple or vector of extents, x first.
    Dims(Vec<Value>),
    /// A launch configuration: grid and block.
    Config(Box<Value>, Box<Value>),
    /// A kernel function loaded by name.
    Function(String),
    /// A launch builder of a function, with the arguments pushed so far.
    Builder(String, Vec<Option<i64>>),
    /// A CubeCL buffer argument (`ArrayArg`, `TensorArg`), with its line size when known.
    Buffer(Option<i64>),
    /// Not known statically; the reason when it is worth telling.
    Unknown(Option<String>),
}

impl Value {
    fn int(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            _ => None,
        }
    }

    /// The extents of a block that are known when the others are not, x first (missing ones
    /// are 1): `(1, bs)` is x = 1, y unknown. A value not written as extents knows none.
    fn partial_dims(&self) -> [Option<u32>; 3] {
        let Value::Dims(parts) = self else {
            return [None; 3];
        };
        if parts.is_empty() || parts.len() > 3 {
            return [None; 3];
        }
        let mut dims = [Some(1u32); 3];
        for (slot, part) in dims.iter_mut().zip(parts) {
            *slot = part.int().and_then(|v| u32::try_from(v).ok()).filter(|&v| v > 0);
        }
        dims
    }

    /// The extents of a grid or block, x first (missing ones are 1).
    fn dims(&self) -> Result<Dim3, Option<String>> {
        let parts: Vec<&Value> = match self {
            Value::Dims(parts) => parts.iter().collect(),
            Value::Unknown(why) => return Err(why.clone()),
            other => vec![other],
        };
        if parts.is_empty() || parts.len() > 3 {
            return Err(None);
        }
        let mut dims = [1u32; 3];
        for (slot, part) in dims.iter_mut().zip(parts) {
            *slot = match part {
                Value::Int(v) => u32::try_from(*v).ok().filter(|&v| v > 0).ok_or(None)?,
                Value::Unknown(why) => return Err(why.clone()),
                _ => return Err(None),
            };
        }
        Ok(dims)
    }
}

/// The block a launch gives, or why it is not used.
fn block_of(value: &Value, text: &str) -> Result<Dim3, String> {
    match value.dims() {
        Ok(block) => {
            let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
            if threads > u64::from(MAX_BLOCK_THREADS) {
                Err(format!(
                    "has a block of {threads} threads (at most {MAX_BLOCK_THREADS}): `{text}`"
                ))
            } else {
                Ok(block)
            }
        }
        Err(Some(why)) => Err(why),
        Err(None) => Err(format!("has a block not known statically: `{text}`")),
    }
}

/// Walks every function of a file with the `let` bindings in scope, recording launches.
struct Walker<'a> {
    file: &'a SourceFile,
    scope: Option<Scope<'a>>,
    /// The constants read through `scope`, with their values.
    asked: &'a RefCell<ConstAnswers>,
    for_num_elems: Option<i64>,
    env: Vec<BTreeMap<String, Value>>,
    found: Vec<HostLaunch>,
    helpers: &'a Helpers<'a>,
    /// Helper calls followed to get here.
    helper_depth: usize,
}

/// The functions and methods of a file that a launch may take its sizes from
/// (`let (grid, block) = self.launch_dimensions();`, `&launch_config_2d(w, h)`), and the
/// associated constants of its impls (`Self::THREADS`).
#[derive(Default)]
struct Helpers<'a> {
    functions: BTreeMap<String, (&'a syn::Signature, &'a syn::Block)>,
    constants: BTreeMap<String, &'a Expr>,
}

impl<'a> Visit<'a> for Helpers<'a> {
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        self.functions.insert(f.sig.ident.to_string(), (&f.sig, &f.block));
    }

    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.functions.insert(f.sig.ident.to_string(), (&f.sig, &f.block));
    }

    fn visit_impl_item_const(&mut self, c: &'a syn::ImplItemConst) {
        self.constants.insert(c.ident.to_string(), &c.expr);
    }
}

/// The most values of a listed loop (`for bs in [..]`) walked one by one.
const MAX_LISTED_VALUES: usize = 16;

/// The elements of a literal list a loop runs over: `[a, b]`, `&[a, b]`, `[a, b].iter()`,
/// `vec![a, b]`.
fn literal_list(expr: &Expr) -> Option<Vec<Expr>> {
    match expr {
        Expr::Array(a) => Some(a.elems.iter().cloned().collect()),
        Expr::Reference(r) => literal_list(&r.expr),
        Expr::Paren(p) => literal_list(&p.expr),
        Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "iter" | "into_iter" | "copied" | "cloned"
            ) =>
        {
            literal_list(&m.receiver)
        }
        Expr::Macro(m) if m.mac.path.is_ident("vec") => m
            .mac
            .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
            .ok()
            .map(|items| items.into_iter().collect()),
        _ => None,
    }
}

/// How many helper calls deep sizes are followed.
const MAX_HELPER_DEPTH: usize = 4;

/// How deep expressions are evaluated; deeper ones are unknown.
const MAX_EVAL_DEPTH: usize = 64;

impl Walker<'_> {
    fn lookup(&self, name: &str) -> Option<&Value> {
        self.env.iter().rev().find_map(|scope| scope.get(name))
    }

    fn bind(&mut self, name: String, value: Value) {
        if let Some(scope) = self.env.last_mut() {
            scope.insert(name, value);
        }
    }

    fn bind_pat(&mut self, pat: &Pat, value: Value) {
        match pat {
            Pat::Ident(ident) => self.bind(ident.ident.to_string(), value),
            Pat::Type(typed) => self.bind_pat(&typed.pat, value),
            Pat::Tuple(tuple) => {
                for (i, elem) in tuple.elems.iter().enumerate() {
                    let part = match &value {
                        Value::Dims(parts) => parts.get(i).cloned().unwrap_or(Value::Unknown(None)),
                        Value::Unknown(why) => Value::Unknown(why.clone()),
                        _ => Value::Unknown(None),
                    };
                    self.bind_pat(elem, part);
                }
            }
            _ => {}
        }
    }

    fn text(&self, node: &impl quote::ToTokens) -> String {
        self.file.snippet(self.file.span_of_node(node)).to_string()
    }

    fn eval(&self, expr: &Expr) -> Value {
        self.eval_at(expr, 0)
    }

    fn eval_at(&self, expr: &Expr, depth: usize) -> Value {
        if depth > MAX_EVAL_DEPTH {
            return Value::Unknown(None);
        }
        let eval = |e: &Expr| self.eval_at(e, depth + 1);
        match expr {
            Expr::Lit(lit) => match &lit.lit {
                syn::Lit::Int(i) => i.base10_parse::<i64>().map_or(Value::Unknown(None), Value::Int),
                _ => Value::Unknown(None),
            },
            Expr::Paren(p) => eval(&p.expr),
            Expr::Group(g) => eval(&g.expr),
            Expr::Cast(c) => eval(&c.expr),
            Expr::Reference(r) => eval(&r.expr),
            Expr::Try(t) => eval(&t.expr),
            Expr::Unsafe(u) => self.block_value(&u.block, depth),
            Expr::Block(b) => self.block_value(&b.block, depth),
            Expr::Path(p) => {
                if let Some(ident) = p.path.get_ident() {
                    if let Some(value) = self.lookup(&ident.to_string()) {
                        return value.clone();
                    }
                }
                self.constant(&p.path)
            }
            // `&*kernel_cell`: the lazily built function itself.
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => eval(&u.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match eval(&u.expr) {
                Value::Int(v) => v.checked_neg().map_or(Value::Unknown(None), Value::Int),
                other => unknown_of(&other),
            },
            Expr::Binary(b) => arithmetic(&b.op, &eval(&b.left), &eval(&b.right)),
            Expr::Tuple(t) => Value::Dims(t.elems.iter().map(eval).collect()),
            Expr::Struct(s) => self.config_literal(s, depth),
            Expr::Call(call) => self.call(call, depth),
            Expr::MethodCall(m) => self.method(m, depth),
            _ => Value::Unknown(None),
        }
    }

    fn block_value(&self, block: &syn::Block, depth: usize) -> Value {
        match block.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => self.eval_at(e, depth + 1),
            _ => Value::Unknown(None),
        }
    }

    fn constant(&self, path: &syn::Path) -> Value {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let [first, name] = segments.as_slice() {
            if first == "Self" {
                if let Some(expr) = self.helpers.constants.get(name) {
                    return self.eval_at(expr, MAX_EVAL_DEPTH - 8);
                }
            }
        }
        let value = self.scope.as_ref().and_then(|scope| scope.const_named(path));
        self.asked.borrow_mut().constants.push((path.clone(), value));
        value.map_or(Value::Unknown(None), Value::Int)
    }

    /// `LaunchConfig { grid_dim, block_dim, .. }`.
    fn config_literal(&self, s: &syn::ExprStruct, depth: usize) -> Value {
        let field = |name: &str| {
            s.fields
                .iter()
                .find(|f| matches!(&f.member, syn::Member::Named(i) if i == name))
                .map_or(Value::Unknown(None), |f| self.eval_at(&f.expr, depth + 1))
        };
        match s.path.segments.last().map(|seg| seg.ident.to_string()).as_deref() {
            Some("LaunchConfig") => Value::Config(Box::new(field("grid_dim")), Box::new(field("block_dim"))),
            // CubeCL's `CubeDim { x, y, z }`.
            Some("CubeDim") => Value::Dims(vec![field("x"), field("y"), field("z")]),
            _ => Value::Unknown(None),
        }
    }

    /// Constructors of extents and configurations: `UVec3::new`, `BlockSize::xy`,
    /// `LaunchConfig::for_num_elems`.
    fn call(&self, call: &syn::ExprCall, depth: usize) -> Value {
        let Expr::Path(path) = &*call.func else {
            return Value::Unknown(None);
        };
        let segments: Vec<String> = path.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let args: Vec<Value> = call.args.iter().map(|a| self.eval_at(a, depth + 1)).collect();
        let [.., ty, function] = segments.as_slice() else {
            return match segments.as_slice() {
                [function] if self.helpers.functions.contains_key(function) => self.helper(function, args, depth),
                _ => self.helper_elsewhere(&path.path, args, depth),
            };
        };
        if ty == "Self" {
            return self.helper(function, args, depth);
        }
        match (ty.as_str(), function.as_str()) {
            // cuda_min's `Param::new(&mut result)`: 32 threads a block unless the result is
            // shorter, as many blocks as the result's length needs.
            ("Param", "new") => Value::Config(
                Box::new(Value::Unknown(None)),
                Box::new(Value::Unknown(Some(
                    "takes its block from the result's length (`Param::new`)".into(),
                ))),
            ),
            // `LazyCell::new(|| module.get_function("k"))`: what the closure builds.
            ("LazyCell" | "LazyLock" | "Lazy", "new") => match call.args.first() {
                Some(Expr::Closure(c)) if c.inputs.is_empty() => self.eval_at(&c.body, depth + 1),
                _ => Value::Unknown(None),
            },
            ("LaunchConfig", "for_num_elems") => {
                let root = segments.first().and_then(|r| crate_block(r));
                let Some(block) = root.or(self.for_num_elems) else {
                    let why = "calls `LaunchConfig::for_num_elems` of a crate not known (cudarc's block is 1024 threads, cuda-oxide's 256)";
                    return Value::Config(
                        Box::new(Value::Unknown(None)),
                        Box::new(Value::Unknown(Some(why.into()))),
                    );
                };
                let grid = match args.first() {
                    Some(Value::Int(n)) => n
                        .checked_add(block - 1)
                        .map_or(Value::Unknown(None), |v| Value::Int(v / block)),
                    _ => Value::Unknown(None),
                };
                Value::Config(Box::new(grid), Box::new(Value::Int(block)))
            }
            // cuda_core's typed configurations: `LaunchConfig2D::new((gx, gy), (bx, by), shared)`.
            ("LaunchConfig1D" | "LaunchConfig2D" | "LaunchConfig3D", "new") => match args.as_slice() {
                [grid, block, ..] => Value::Config(Box::new(grid.clone()), Box::new(block.clone())),
                _ => Value::Unknown(None),
            },
            (_, "new") if is_vector(ty) => Value::Dims(args),
            (_, "splat") if is_vector(ty) => {
                let count = if ty.ends_with('2') { 2 } else { 3 };
                args.first()
                    .map_or(Value::Unknown(None), |v| Value::Dims(vec![v.clone(); count]))
            }
            ("BlockSize" | "GridSize" | "Block" | "Grid", "x" | "xy" | "xyz") => Value::Dims(args),
            // CubeCL: `CubeDim::new(x, y, z)` (up to 0.8; from 0.9 `CubeDim::new(&client, units)`
            // picks the block at run time), `new_1d`, `new_2d`, `new_3d`, `new_single`, and
            // `CubeDim::default()`, 16 x 16 up to 0.8; `CubeCount::Static(x, y, z)`.
            ("CubeDim", "new") if args.len() == 3 => Value::Dims(args),
            ("CubeDim", "new") => {
                Value::Unknown(Some("sizes the block at run time (`CubeDim::new(&client, ..)`)".into()))
            }
            ("CubeDim" | "CubeCount", "new_1d" | "new_2d" | "new_3d") => Value::Dims(args),
            ("CubeDim" | "CubeCount", "new_single") => Value::Dims(vec![Value::Int(1)]),
            ("CubeDim", "default") => Value::Dims(vec![Value::Int(16), Value::Int(16)]),
            ("CubeCount", "Static") => Value::Dims(args),
            ("ScalarArg", "new") => args.into_iter().next().unwrap_or(Value::Unknown(None)),
            // `ArrayArg::from_raw_parts::<F>(&handle, len, line_size)`,
            // `TensorArg::from_raw_parts::<F>(&handle, &strides, &shape, line_size)`; newer
            // versions take no line size there (`BufferArg`, the launch's `vector_size`).
            ("ArrayArg" | "TensorArg" | "BufferArg", "from_raw_parts" | "from_raw_parts_and_size") => {
                let at = match (ty.as_str(), function.as_str()) {
                    ("ArrayArg", _) => 2,
                    ("TensorArg", "from_raw_parts") => 3,
                    ("TensorArg", _) => 4,
                    _ => usize::MAX,
                };
                Value::Buffer(args.get(at).and_then(Value::int))
            }
            _ => self.helper_elsewhere(&path.path, args, depth),
        }
    }

    /// A function of another file of the crate called for its value (`config: cfg_1d(n)` with
    /// `cfg_1d` in a sibling module), evaluated in its own module; the scan's answers keep its
    /// fingerprint, so a change to it reads the launches again.
    fn helper_elsewhere(&self, path: &syn::Path, args: Vec<Value>, depth: usize) -> Value {
        let Some(scope) = self.scope else {
            return Value::Unknown(None);
        };
        if self.helper_depth >= MAX_HELPER_DEPTH {
            return Value::Unknown(None);
        }
        let found = function_elsewhere(scope, path);
        self.asked
            .borrow_mut()
            .functions
            .push((path.clone(), found.as_ref().map(|(_, f)| *f)));
        let Some((function, _)) = found else {
            return Value::Unknown(None);
        };
        // Names in its body are its module's: none of this file's helpers.
        let none = Helpers::default();
        let inner = Walker {
            file: self.file,
            scope: Some(scope.at(function.module)),
            asked: self.asked,
            for_num_elems: self.for_num_elems,
            env: Vec::new(),
            found: Vec::new(),
            helpers: &none,
            helper_depth: self.helper_depth,
        };
        inner.body_value(function.sig, function.block, args, depth)
    }

    /// A function of the file called for its value: its body evaluated with the arguments
    /// bound to its parameters (a `self` receiver is skipped), its `let`s and local constants
    /// in order, and its tail expression or `return`.
    fn helper(&self, name: &str, args: Vec<Value>, depth: usize) -> Value {
        let Some((sig, block)) = self.helpers.functions.get(name) else {
            return Value::Unknown(None);
        };
        if self.helper_depth >= MAX_HELPER_DEPTH {
            return Value::Unknown(None);
        }
        self.body_value(sig, block, args, depth)
    }

    /// What a function body returns with its parameters bound to `args`.
    fn body_value(&self, sig: &syn::Signature, block: &syn::Block, args: Vec<Value>, depth: usize) -> Value {
        let mut params = BTreeMap::new();
        let typed = sig.inputs.iter().filter_map(|i| match i {
            syn::FnArg::Typed(t) => Some(t),
            syn::FnArg::Receiver(_) => None,
        });
        let mut inner = Walker {
            file: self.file,
            scope: self.scope,
            asked: self.asked,
            for_num_elems: self.for_num_elems,
            env: Vec::new(),
            found: Vec::new(),
            helpers: self.helpers,
            helper_depth: self.helper_depth + 1,
        };
        for (input, value) in typed.zip(args) {
            if let Pat::Ident(ident) = &*input.pat {
                params.insert(ident.ident.to_string(), value);
            }
        }
        inner.env.push(params);
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
                syn::Stmt::Local(local) => {
                    let value = match &local.init {
                        Some(init) if init.diverge.is_none() => inner.eval_at(&init.expr, depth + 1),
                        _ => Value::Unknown(None),
                    };
                    inner.bind_pat(&local.pat, value);
                }
                syn::Stmt::Item(syn::Item::Const(c)) => {
                    let value = inner.eval_at(&c.expr, depth + 1);
                    inner.bind(c.ident.to_string(), value);
                }
                syn::Stmt::Expr(Expr::Return(r), _) => {
                    return r
                        .expr
                        .as_ref()
                        .map_or(Value::Unknown(None), |e| inner.eval_at(e, depth + 1));
                }
                syn::Stmt::Expr(e, None) if i + 1 == block.stmts.len() => return inner.eval_at(e, depth + 1),
                // A name assigned on some path no longer holds its value.
                syn::Stmt::Expr(e, _) => {
                    let mut assigned = Assigned::default();
                    assigned.visit_expr(e);
                    for name in assigned.names {
                        inner.bind(name, Value::Unknown(None));
                    }
                }
                _ => {}
            }
        }
        Value::Unknown(None)
    }

    fn method(&self, m: &syn::ExprMethodCall, depth: usize) -> Value {
        let name = m.method.to_string();
        if OCCUPANCY_METHODS.contains(&name.as_str()) {
            return Value::Unknown(Some(format!("sizes the block at run time (`{name}`)")));
        }
        let receiver = || self.eval_at(&m.receiver, depth + 1);
        let arg = |i: usize| {
            m.args
                .iter()
                .nth(i)
                .map_or(Value::Unknown(None), |a| self.eval_at(a, depth + 1))
        };
        match name.as_str() {
            "get_function" | "load_function" => {
                string_arg(m.args.first()).map_or(Value::Unknown(None), Value::Function)
            }
            "get_func" => string_arg(m.args.iter().nth(1)).map_or(Value::Unknown(None), Value::Function),
            "launch_builder" => match arg(0) {
                Value::Function(f) => Value::Builder(f, Vec::new()),
                _ => Value::Unknown(None),
            },
            "arg" => match receiver() {
                Value::Builder(f, mut args) => {
                    args.push(arg(0).int());
                    Value::Builder(f, args)
                }
                _ => Value::Unknown(None),
            },
            "into" | "try_into" | "unwrap" | "expect" | "as_kernel_param" | "clone" => receiver(),
            // CubeCL's buffer arguments: `tensor.as_tensor_arg(line_size)`, `as_array_arg(..)`.
            "as_tensor_arg" | "into_tensor_arg" | "as_array_arg" | "into_array_arg" => Value::Buffer(arg(0).int()),
            // cuda-oxide's `module.prepare_kernel(config)?`: the configuration, checked against
            // the kernel once and passed to each of its launches.
            _ if name.starts_with("prepare_") && matches!(arg(0), Value::Config(..)) => arg(0),
            // cuda_min's `Param`: `.block_size(n)` makes `len / n` blocks of `n`;
            // `.set_block_grid_size(block, grid)` states both; `.len(n)` resizes the grid.
            "push" | "checked_push" if matches!(receiver(), Value::Config(..)) => receiver(),
            "block_size" => match (receiver(), arg(0)) {
                (Value::Config(..), Value::Int(n)) => Value::Config(
                    Box::new(Value::Unknown(None)),
                    Box::new(Value::Dims(vec![Value::Int(n)])),
                ),
                _ => Value::Unknown(None),
            },
            "set_block_grid_size" => match receiver() {
                Value::Config(..) => Value::Config(Box::new(arg(1)), Box::new(arg(0))),
                _ => Value::Unknown(None),
            },
            "len" => match (receiver(), arg(0)) {
                (Value::Config(_, block), Value::Int(n)) => {
                    let grid = match block.dims() {
                        Ok([x, ..]) if x > 0 => Value::Dims(vec![Value::Int(n / i64::from(x))]),
                        _ => Value::Unknown(None),
                    };
                    Value::Config(Box::new(grid), block)
                }
                _ => Value::Unknown(None),
            },
            // Arithmetic on known numbers (`n.div_ceil(block)`, `a.min(b)`), as constants evaluate it.
            "div_ceil" | "min" | "max" | "pow" | "next_multiple_of" | "next_power_of_two" | "saturating_sub" => {
                let args: Vec<Value> = (0..m.args.len()).map(arg).collect();
                match (receiver(), args.iter().map(Value::int).collect::<Option<Vec<i64>>>()) {
                    (Value::Int(a), Some(ints)) => {
                        crate::model::layout::integer_method(&name, a, &ints).map_or(Value::Unknown(None), Value::Int)
                    }
                    (a, _) => args.iter().fold(unknown_of(&a), |why, b| why.or_unknown(b)),
                }
            }
            // `self.launch_dimensions()`: a method of the file.
            _ if matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident("self")) => {
                let args = m.args.iter().map(|a| self.eval_at(a, depth + 1)).collect();
                self.helper(&name, args, depth)
            }
            _ => Value::Unknown(None),
        }
    }

    /// Records a launch if `m` is one.
    fn launch_method(&mut self, m: &syn::ExprMethodCall) {
        let name = m.method.to_string();
        let site = self.site(m.method.span());
        let args: Vec<&Expr> = m.args.iter().collect();
        match (name.as_str(), args.as_slice()) {
            // cust: `stream.launch(&function, grid, block, shared, &[args])`.
            ("launch", [function, grid, block, _, params]) => {
                if let Value::Function(kernel) = self.eval(function) {
                    let params = self.param_list(params);
                    self.record(kernel, grid, block, params, site);
                }
            }
            // cudarc: `function.launch(cfg, (args,))`; a function kept in a field is named
            // after its kernel (`self.blur.launch(..)`).
            ("launch", [cfg, params]) => {
                if let Value::Function(kernel) = self.function(&m.receiver) {
                    let params = self.param_list(params);
                    self.record_config(kernel, cfg, params, site);
                }
            }
            // A driver wrapper's `function.launch(&cfg, stream, params)`.
            ("launch", [cfg, _, params]) if matches!(self.eval(cfg), Value::Config(..)) => {
                if let Value::Function(kernel) = self.function(&m.receiver) {
                    let params = self.param_list(params);
                    self.record_config(kernel, cfg, params, site);
                }
            }
            // cuda_min: `function.call(param)`, the launch configuration in the parameters.
            ("call", [param]) if matches!(self.eval(param), Value::Config(..)) => {
                if let Value::Function(kernel) = self.function(&m.receiver) {
                    self.record_config(kernel, param, None, site);
                }
            }
            // cudarc: `stream.launch_builder(&function).arg(..).launch(cfg)`.
            ("launch", [cfg]) => {
                if let Value::Builder(kernel, params) = self.eval(&m.receiver) {
                    self.record_config(kernel, cfg, Some(params), site);
                }
            }
            // cuda-oxide: `module.kernel(&stream, cfg, args..)`.
            (_, [_, cfg, rest @ ..]) if matches!(self.eval(cfg), Value::Config(..)) => {
                let params = rest.iter().map(|a| self.eval(a).int()).collect();
                self.record_config(name, cfg, Some(params), site);
            }
            // A builder kept in a variable: `builder.arg(&x);`.
            ("arg", [value]) => {
                if let Expr::Path(p) = &*m.receiver {
                    if let Some(ident) = p.path.get_ident() {
                        let value = self.eval(value).int();
                        if let Some(Value::Builder(f, mut pushed)) = self.lookup(&ident.to_string()).cloned() {
                            pushed.push(value);
                            self.bind(ident.to_string(), Value::Builder(f, pushed));
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The kernel function a launch is called on; one kept in a field is named after its
    /// kernel (`self.blur.launch(..)`).
    fn function(&self, receiver: &Expr) -> Value {
        match (receiver, self.eval(receiver)) {
            (Expr::Field(f), Value::Unknown(_)) => match &f.member {
                syn::Member::Named(member) => Value::Function(member.to_string()),
                syn::Member::Unnamed(_) => Value::Unknown(None),
            },
            (_, value) => value,
        }
    }

    /// The values of an argument list written as a tuple or an array (`(a, n)`, `&[a, n]`).
    fn param_list(&self, expr: &Expr) -> Option<Vec<Option<i64>>> {
        match expr {
            Expr::Reference(r) => self.param_list(&r.expr),
            Expr::Paren(p) => Some(vec![self.eval(&p.expr).int()]),
            Expr::Tuple(t) => Some(t.elems.iter().map(|e| self.param(e)).collect()),
            Expr::Array(a) => Some(a.elems.iter().map(|e| self.param(e)).collect()),
            // `kernel_params!(a, n)` and the like: the arguments as a list.
            Expr::Macro(m) => {
                let list = m
                    .mac
                    .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
                    .ok()?;
                Some(list.iter().map(|e| self.param(e)).collect())
            }
            _ => None,
        }
    }

    /// One kernel argument: `n`, `&n`, `n.as_kernel_param()`, `&n as *const _ as *mut c_void`.
    fn param(&self, expr: &Expr) -> Option<i64> {
        self.eval(expr).int()
    }

    fn site(&self, span: proc_macro2::Span) -> LaunchSite {
        LaunchSite {
            file: self.file.path.clone(),
            span: self.file.span_of(span),
        }
    }

    fn record(&mut self, kernel: String, grid: &Expr, block: &Expr, args: Option<Vec<Option<i64>>>, site: LaunchSite) {
        let value = self.eval(block);
        let partial_block = value.partial_dims();
        let block = block_of(&value, &self.text(block));
        let grid = self.eval(grid).dims().ok();
        self.found.push(HostLaunch {
            kernel,
            block,
            partial_block,
            grid,
            args,
            site,
            cube: None,
        });
    }

    fn record_config(&mut self, kernel: String, cfg: &Expr, args: Option<Vec<Option<i64>>>, site: LaunchSite) {
        let text = self.text(cfg);
        let (grid, block, partial_block) = match self.eval(cfg) {
            Value::Config(grid, block) => (grid.dims().ok(), block_of(&block, &text), block.partial_dims()),
            other => (None, block_of(&unknown_of(&other), &text), [None; 3]),
        };
        self.found.push(HostLaunch {
            kernel,
            block,
            partial_block,
            grid,
            args,
            site,
            cube: None,
        });
    }

    /// Records a CubeCL launch, `kernel::launch::<F, R>(&client, cube_count, cube_dim, args..)`
    /// (also `launch_unchecked`; newer versions pass the vector size before the arguments).
    fn cube_launch(&mut self, call: &syn::ExprCall) {
        let Expr::Path(path) = &*call.func else { return };
        let segments = &path.path.segments;
        let Some(last) = segments.last() else { return };
        if segments.len() < 2 || !matches!(last.ident.to_string().as_str(), "launch" | "launch_unchecked") {
            return;
        }
        let args: Vec<&Expr> = call.args.iter().collect();
        let [_, count, dim, rest @ ..] = args.as_slice() else {
            return;
        };
        let kernel = segments[segments.len() - 2].ident.to_string();
        let site = self.site(last.ident.span());
        let values: Vec<Value> = rest.iter().map(|a| self.eval(a)).collect();
        let types = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(self.text(t)),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let args = values.iter().map(Value::int).collect();
        let line_sizes = values
            .iter()
            .map(|v| match v {
                Value::Buffer(line) => Some(*line),
                _ => None,
            })
            .collect();
        let value = self.eval(dim);
        let partial_block = value.partial_dims();
        let block = block_of(&value, &self.text(dim));
        let grid = self.eval(count).dims().ok();
        self.found.push(HostLaunch {
            kernel,
            block,
            partial_block,
            grid,
            args: Some(args),
            site,
            cube: Some(CubeArgs { line_sizes, types }),
        });
    }

    /// Records a cust `launch!` if `mac` is one.
    fn launch_macro(&mut self, mac: &syn::Macro) {
        if mac.path.segments.last().is_none_or(|s| s.ident != "launch") {
            return;
        }
        let Some(parts) = launch_macro_parts(mac.tokens.clone()) else {
            return;
        };
        let kernel = match (&parts.module, self.lookup(&parts.name)) {
            (None, Some(Value::Function(name))) => name.clone(),
            _ => parts.name.clone(),
        };
        let site = self.site(
            mac.path
                .segments
                .last()
                .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        );
        let (Some(grid), Some(block)) = (parts.config.first(), parts.config.get(1)) else {
            return;
        };
        let args = Some(parts.args.iter().map(|a| self.param(a)).collect());
        self.record(kernel, grid, block, args, site);
    }
}

impl Walker<'_> {
    /// Records a cuda-oxide `cuda_launch! { kernel: k, stream: s, module: m, config: cfg,
    /// args: [slice(a), slice_mut(b), n] }`: one argument a parameter, a slice passed as
    /// `slice(..)` or `slice_mut(..)`.
    fn oxide_launch_macro(&mut self, mac: &syn::Macro) {
        if mac.path.segments.last().is_none_or(|s| s.ident != "cuda_launch") {
            return;
        }
        let Ok(fields) = mac.parse_body_with(Punctuated::<syn::FieldValue, Token![,]>::parse_terminated) else {
            return;
        };
        let field = |name: &str| {
            fields.iter().find_map(|f| match &f.member {
                syn::Member::Named(ident) if ident == name => Some(&f.expr),
                _ => None,
            })
        };
        let (Some(Expr::Path(kernel)), Some(config)) = (field("kernel"), field("config")) else {
            return;
        };
        let Some(kernel) = kernel.path.segments.last().map(|s| s.ident.to_string()) else {
            return;
        };
        let args = match field("args") {
            Some(Expr::Array(list)) => Some(
                list.elems
                    .iter()
                    .map(|arg| match arg {
                        Expr::Call(call) if matches!(&*call.func, Expr::Path(p) if p.path.is_ident("slice") || p.path.is_ident("slice_mut")) => None,
                        other => self.param(other),
                    })
                    .collect(),
            ),
            _ => None,
        };
        let site = self.site(
            mac.path
                .segments
                .last()
                .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span()),
        );
        let config = config.clone();
        self.record_config(kernel, &config, args, site);
    }
}

impl Value {
    /// This value if unknown, else `other` if unknown, else an unknown with no reason.
    fn or_unknown(self, other: &Value) -> Value {
        match self {
            Value::Unknown(Some(_)) => self,
            _ => unknown_of(other),
        }
    }
}

/// An unknown value carrying the reason of `value` if it has one.
fn unknown_of(value: &Value) -> Value {
    match value {
        Value::Unknown(why) => Value::Unknown(why.clone()),
        _ => Value::Unknown(None),
    }
}

fn arithmetic(op: &syn::BinOp, left: &Value, right: &Value) -> Value {
    let (Value::Int(l), Value::Int(r)) = (left, right) else {
        return unknown_of(left).or_unknown(right);
    };
    integer_binary(op, *l, *r).map_or(Value::Unknown(None), Value::Int)
}

/// glam and vek vector types whose `new` takes the extents in order.
fn is_vector(ty: &str) -> bool {
    matches!(
        ty,
        "UVec2" | "UVec3" | "IVec2" | "IVec3" | "USizeVec2" | "USizeVec3" | "Vec2" | "Vec3" | "Extent2" | "Extent3"
    )
}

/// Names assigned in an expression.
#[derive(Default)]
struct Assigned {
    names: Vec<String>,
}

impl<'ast> Visit<'ast> for Assigned {
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        if let Expr::Path(p) = &*e.left {
            if let Some(ident) = p.path.get_ident() {
                self.names.push(ident.to_string());
            }
        }
        syn::visit::visit_expr_assign(self, e);
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if let Expr::Path(p) = &*e.left {
            if let (Some(ident), true) = (p.path.get_ident(), is_compound(&e.op)) {
                self.names.push(ident.to_string());
            }
        }
        syn::visit::visit_expr_binary(self, e);
    }
}

fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// The value of a string literal argument (`"name"`, `c"name"`).
fn string_arg(expr: Option<&Expr>) -> Option<String> {
    match expr? {
        Expr::Lit(lit) => match &lit.lit {
            syn::Lit::Str(s) => Some(s.value()),
            syn::Lit::CStr(s) => s.value().into_string().ok(),
            _ => None,
        },
        Expr::Reference(r) => string_arg(Some(&r.expr)),
        _ => None,
    }
}

/// The parts of a `launch!` body: `module.name<<<config>>>(args)` or `name<<<config>>>(args)`.
struct LaunchMacro {
    module: Option<String>,
    name: String,
    config: Vec<Expr>,
    args: Vec<Expr>,
}

fn launch_macro_parts(tokens: TokenStream) -> Option<LaunchMacro> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let is_punct = |i: usize, c: char| matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let open = (0..tokens.len()).find(|&i| (i..i + 3).all(|j| is_punct(j, '<')))?;
    let close = (open + 3..tokens.len()).find(|&i| (i..i + 3).all(|j| is_punct(j, '>')))?;
    let head = tokens.get(..open)?;
    let (module, name) = match head {
        [TokenTree::Ident(name)] => (None, name.to_string()),
        [TokenTree::Ident(module), TokenTree::Punct(dot), TokenTree::Ident(name)] if dot.as_char() == '.' => {
            (Some(module.to_string()), name.to_string())
        }
        _ => return None,
    };
    let mut config = Vec::new();
    let mut part = TokenStream::new();
    for token in tokens.get(open + 3..close)? {
        if matches!(token, TokenTree::Punct(p) if p.as_char() == ',') {
            config.push(syn::parse2::<Expr>(std::mem::take(&mut part)).ok()?);
        } else {
            part.extend([token.clone()]);
        }
    }
    if !part.is_empty() {
        config.push(syn::parse2::<Expr>(part).ok()?);
    }
    let args = match tokens.get(close + 3) {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis => {
            syn::parse::Parser::parse2(Punctuated::<Expr, Token![,]>::parse_terminated, group.stream()).ok()?
        }
        _ => return None,
    };
    Some(LaunchMacro {
        module,
        name,
        config,
        args: args.into_iter().collect(),
    })
}

impl<'ast> Visit<'ast> for Walker<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        // A function sees none of its caller's bindings.
        let outer = std::mem::replace(&mut self.env, vec![BTreeMap::new()]);
        syn::visit::visit_item_fn(self, f);
        self.env = outer;
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let outer = std::mem::replace(&mut self.env, vec![BTreeMap::new()]);
        syn::visit::visit_impl_item_fn(self, f);
        self.env = outer;
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.env.push(BTreeMap::new());
        syn::visit::visit_block(self, block);
        self.env.pop();
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        syn::visit::visit_local(self, local);
        let value = match &local.init {
            Some(init) if init.diverge.is_none() => self.eval(&init.expr),
            _ => Value::Unknown(None),
        };
        self.bind_pat(&local.pat, value);
    }

    /// `const THREADS: u32 = 96;` inside a function: in scope for what follows.
    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        let value = self.eval(&c.expr);
        self.bind(c.ident.to_string(), value);
    }

    fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
        syn::visit::visit_expr_assign(self, assign);
        // A name reassigned in the block that binds it holds the new value
        // (`param = param.set_block_grid_size(..)`); one reassigned in a nested block (a
        // branch, a loop) holds a value that depends on the path taken.
        if let Expr::Path(p) = &*assign.left {
            if let Some(ident) = p.path.get_ident() {
                let name = ident.to_string();
                let value = self.eval(&assign.right);
                let depth = self.env.len();
                if let Some(at) = self.env.iter().rposition(|frame| frame.contains_key(&name)) {
                    let value = if at + 1 == depth { value } else { Value::Unknown(None) };
                    self.env[at].insert(name, value);
                }
            }
        }
    }

    /// `for bs in [64, 128, 256] { .. }` (also `&[..]`, `.iter()`, `.into_iter()`, `vec![..]`):
    /// the body once per value, so each launch in it is one launch per value. Any other loop
    /// is walked once, its variable unknown.
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let values = literal_list(&f.expr).map(|items| items.iter().map(|e| self.eval(e)).collect::<Vec<_>>());
        match values.filter(|v| !v.is_empty() && v.len() <= MAX_LISTED_VALUES) {
            Some(values) => {
                for value in values {
                    self.env.push(BTreeMap::new());
                    self.bind_pat(&f.pat, value);
                    self.visit_block(&f.body);
                    self.env.pop();
                }
            }
            None => {
                self.env.push(BTreeMap::new());
                self.bind_pat(&f.pat, Value::Unknown(None));
                self.visit_block(&f.body);
                self.env.pop();
            }
        }
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        syn::visit::visit_expr_method_call(self, m);
        self.launch_method(m);
    }

    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        syn::visit::visit_expr_call(self, call);
        self.cube_launch(call);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.launch_macro(mac);
        self.oxide_launch_macro(mac);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Found = (String, Result<Dim3, String>, Option<Dim3>, Option<Vec<Option<i64>>>);

    fn launches(code: &str) -> Vec<Found> {
        let file = SourceFile::new("host.rs", code);
        let syntax = syn::parse_file(code).expect("parses");
        scan(&file, &syntax, None)
            .into_iter()
            .map(|l| (l.kernel, l.block, l.grid, l.args))
            .collect()
    }

    #[test]
    fn a_loop_over_a_list_of_block_sizes_is_a_launch_per_size() {
        let found = launches(
            "fn bench(n: u32) {
                 for bs in [64u32, 128, 256] {
                     let grid = (n + bs - 1) / bs;
                     unsafe { launch!(module.k<<<grid, bs, 0, stream>>>(a, out)).unwrap() };
                 }
                 for bs in sizes() {
                     unsafe { launch!(module.k<<<1, bs, 0, stream>>>(a, out)).unwrap() };
                 }
             }",
        );
        let blocks: Vec<Result<Dim3, String>> = found.iter().map(|(_, block, ..)| block.clone()).collect();
        assert_eq!(blocks.len(), 4, "{found:?}");
        assert_eq!(&blocks[..3], [Ok([64, 1, 1]), Ok([128, 1, 1]), Ok([256, 1, 1])]);
        // A loop over values the host computes: the block is not known, and says so.
        assert!(blocks[3].is_err(), "{:?}", blocks[3]);
    }

    #[test]
    fn cuda_oxide_launch_macro() {
        // Shapes from NVlabs/cuda-oxide's examples and the crates that use its macro: the
        // configuration in a `let`, written in place, or `for_num_elems`.
        let found = launches(
            "use cuda_core::LaunchConfig;
            fn run(n: usize) -> Result<(), Error> {
                let n_u32 = 4096u32;
                const BLOCK_DIM: u32 = 128;
                let cfg = LaunchConfig { grid_dim: (n_u32 / BLOCK_DIM, 1, 1), block_dim: (BLOCK_DIM, 1, 1), shared_mem_bytes: 0 };
                cuda_launch! {
                    kernel: screlu_grad,
                    stream: stream,
                    module: module,
                    config: cfg,
                    args: [slice(x_dev), slice_mut(out_dev), n_u32]
                }?;
                unsafe {
                    cuda_launch! {
                        kernel: crate::kernels::tile::<4>,
                        stream: stream.clone(),
                        module: module.clone(),
                        config: LaunchConfig { grid_dim: (8, 8, 1), block_dim: (16, 16, 1), shared_mem_bytes: 0 },
                        cooperative: false,
                        args: [slice(a), 7u32]
                    }
                }?;
                cuda_launch! { kernel: vecadd, stream: s, module: m, config: LaunchConfig::for_num_elems(n as u32), args: [slice(a)] }?;
                Ok(())
            }",
        );
        assert_eq!(
            found,
            vec![
                (
                    "screlu_grad".into(),
                    Ok([128, 1, 1]),
                    Some([32, 1, 1]),
                    Some(vec![None, None, Some(4096)])
                ),
                (
                    "tile".into(),
                    Ok([16, 16, 1]),
                    Some([8, 8, 1]),
                    Some(vec![None, Some(7)])
                ),
                ("vecadd".into(), Ok([256, 1, 1]), None, Some(vec![None])),
            ]
        );
    }

    #[test]
    fn cust_launch_forms() {
        let found = launches(
            "fn main() {
                let bs = 16;
                let f = module.get_function(\"gemm\")?;
                unsafe {
                    launch!(module.naive<<<(4, 4), (1, bs), 0, stream>>>(a, 7, n as u32 / bs))?;
                    launch!(f<<<GridSize::x(8), BlockSize::xy(16, 16), 0, stream>>>(a, 2))?;
                    stream.launch(&f, 4, UVec3::new(32, 2, 1), 0, &[a.as_kernel_param(), 5.as_kernel_param()])?;
                }
            }",
        );
        assert_eq!(
            found,
            vec![
                (
                    "naive".into(),
                    Ok([1, 16, 1]),
                    Some([4, 4, 1]),
                    Some(vec![None, Some(7), None])
                ),
                (
                    "gemm".into(),
                    Ok([16, 16, 1]),
                    Some([8, 1, 1]),
                    Some(vec![None, Some(2)])
                ),
                (
                    "gemm".into(),
                    Ok([32, 2, 1]),
                    Some([4, 1, 1]),
                    Some(vec![None, Some(5)])
                ),
            ]
        );
    }

    #[test]
    fn cuda_oxide_typed_configurations_prepared_once() {
        // Shapes of NVlabs/cuda-oxide (a105afd5): `examples/gemm_views` and `examples/warp_sums`.
        let found = launches(
            "fn bench() -> Result<(), Error> {
                const BM: usize = 1024;
                const BLOCK: u32 = 16;
                let grid = ((BM as u32) / BLOCK, (BM as u32) / BLOCK);
                let config = LaunchConfig2D::new(grid, (BLOCK, BLOCK), 0);
                let (m, n, k) = (BM as u32, 512 as u32, 64u32);
                let tiled = module.prepare_sgemm_tiled(config)?;
                time_runs(&stream, || {
                    module.sgemm_tiled(&stream, &tiled, m, n, k, 1.5, &a, &b)?;
                    Ok(())
                })?;
                let sums = module.prepare_warp_sums(LaunchConfig1D::new(8, 256, 0))?;
                module.warp_sums(&stream, &sums, &input, &mut out)?;
                Ok(())
            }",
        );
        assert_eq!(
            found,
            vec![
                (
                    "sgemm_tiled".into(),
                    Ok([16, 16, 1]),
                    Some([64, 64, 1]),
                    Some(vec![Some(1024), Some(512), Some(64), None, None, None])
                ),
                (
                    "warp_sums".into(),
                    Ok([256, 1, 1]),
                    Some([8, 1, 1]),
                    Some(vec![None, None])
                ),
            ]
        );
    }

    #[test]
    fn cuda_min_parameters_carry_the_launch() {
        // Shapes of Neutron3529/cuda_min (6694f8bb): `*/src/main.rs` and `cuda_min/src/host.rs`.
        let found = launches(
            "fn main() {
                let func = module.get_function(\"mat_mul\").unwrap();
                let mut param = Param::new(&mut ret).block_size(1).push(&a).push(&b);
                param = unsafe { param.set_block_grid_size((3, 3, 1), (1, 1, 1)) };
                let res = func.call(param).unwrap();
                let add = module.get_function(\"vec_add\").unwrap();
                let wide = Param::new(&mut out).block_size(1024).len(1 << 20);
                add.call(wide).unwrap();
                let mut guessed = Param::new(&mut out).block_size(64);
                if verbose {
                    guessed = guessed.block_size(128);
                }
                add.call(guessed).unwrap();
                add.call(Param::new(&mut out)).unwrap();
            }",
        );
        assert_eq!(
            found,
            vec![
                ("mat_mul".into(), Ok([3, 3, 1]), Some([1, 1, 1]), None),
                ("vec_add".into(), Ok([1024, 1, 1]), Some([1024, 1, 1]), None),
                // `guessed` is set on one path only: no configuration is read, as for a call
                // of anything else.
                (
                    "vec_add".into(),
                    Err("takes its block from the result's length (`Param::new`)".into()),
                    None,
                    None
                ),
            ]
        );
    }

    #[test]
    fn a_function_built_in_a_lazy_cell() {
        // The shape of Rust-GPU/Rust-CUDA's gemm example (ac2674f0, examples/cuda/gemm/src/main.rs).
        let found = launches(
            "fn tiled(n: usize, m: usize) {
                const TILE: usize = 16;
                let cell = cell::LazyCell::new(|| module.get_function(\"gemm_tiled\").expect(\"found\"));
                let kernel = &*cell;
                let (gx, gy) = (n.div_ceil(TILE) as u32, m.div_ceil(TILE) as u32);
                unsafe {
                    launch!(kernel<<<(gx, gy), (TILE as u32, TILE as u32), 0, stream>>>(a, 3))?;
                }
            }",
        );
        assert_eq!(
            found,
            vec![("gemm_tiled".into(), Ok([16, 16, 1]), None, Some(vec![None, Some(3)]))]
        );
    }

    #[test]
    fn sizes_from_helpers_local_constants_and_associated_constants() {
        // Shapes of Rust-GPU/Rust-CUDA's path tracer, Gui-Yom/turbo-metrics and dimforge/sparkl.
        let found = launches(
            "struct Renderer;
            impl Renderer {
                const THREADS: u32 = 512;
                fn launch_dimensions(&self) -> (UVec2, UVec2) {
                    let threads = USizeVec2::splat(8);
                    let blocks = self.bounds / threads;
                    (blocks.into(), threads.into())
                }
                fn render(&self) {
                    let (blocks, threads) = self.launch_dimensions();
                    launch!(module.render<<<blocks, threads, 0, stream>>>(a.as_device_ptr(), 7))?;
                    launch!(module.scan<<<4, Self::THREADS, 0, stream>>>(x))?;
                }
                fn metric(&self, w: u32, h: u32) {
                    const WIDE: u32 = 3 * 32;
                    unsafe {
                        self.blur
                            .launch(&LaunchConfig { grid_dim: (w / WIDE, 5, 1), block_dim: (WIDE, 1, 1), shared_mem_bytes: 0 }, stream, kernel_params!(src, 9usize))
                            .unwrap();
                        self.tile.launch(&config_2d(w, h), stream, kernel_params!(src)).unwrap();
                    }
                }
            }
            fn config_2d(width: u32, height: u32) -> LaunchConfig {
                const SIDE: u32 = 16;
                let blocks_w = (width + SIDE - 1) / SIDE;
                LaunchConfig { grid_dim: (blocks_w, 4, 1), block_dim: (SIDE, SIDE, 1), shared_mem_bytes: 0 }
            }",
        );
        assert_eq!(found.len(), 4, "{found:?}");
        assert_eq!(found[0].0, "render");
        assert_eq!(found[0].1, Ok([8, 8, 1]));
        assert_eq!(found[0].3, Some(vec![None, Some(7)]));
        assert_eq!(found[1].1, Ok([512, 1, 1]));
        assert_eq!(found[2].0, "blur");
        assert_eq!(found[2].1, Ok([96, 1, 1]));
        assert_eq!(found[2].3, Some(vec![None, Some(9)]));
        assert_eq!(found[3].0, "tile");
        assert_eq!(found[3].1, Ok([16, 16, 1]));
        assert_eq!(found[3].2, None);
    }

    #[test]
    fn occupancy_and_unknown_blocks_say_why() {
        let found = launches(
            "fn main() {
                let (_, block_size) = f.suggested_launch_configuration(0, 0.into())?;
                let grid = (N as u32).div_ceil(block_size);
                launch!(f<<<grid, block_size, 0, stream>>>(a))?;
                launch!(g<<<1, threads, 0, stream>>>(a))?;
            }",
        );
        assert_eq!(
            found[0].1,
            Err("sizes the block at run time (`suggested_launch_configuration`)".into())
        );
        assert_eq!(found[1].1, Err("has a block not known statically: `threads`".into()));
    }

    #[test]
    fn launch_config_by_crate() {
        let cudarc = launches(
            "use cudarc::driver::{LaunchConfig, LaunchAsync};
            fn main() {
                let f = dev.get_func(\"m\", \"scale\").unwrap();
                let cfg = LaunchConfig::for_num_elems(4096);
                unsafe { f.launch(cfg, (&a, 3u32)) }?;
                let cfg = LaunchConfig { grid_dim: (2, 1, 1), block_dim: (64, 2, 1), shared_mem_bytes: 0 };
                let mut b = stream.launch_builder(&f);
                b.arg(&a);
                b.arg(&9);
                unsafe { b.launch(cfg) }?;
            }",
        );
        assert_eq!(
            cudarc,
            vec![
                (
                    "scale".into(),
                    Ok([1024, 1, 1]),
                    Some([4, 1, 1]),
                    Some(vec![None, Some(3)])
                ),
                (
                    "scale".into(),
                    Ok([64, 2, 1]),
                    Some([2, 1, 1]),
                    Some(vec![None, Some(9)])
                ),
            ]
        );
        let oxide = launches(
            "use cuda_core::{CudaContext, LaunchConfig};
            fn main() {
                unsafe { module.vecadd(&stream, LaunchConfig::for_num_elems(1000), &a, 12) }?;
            }",
        );
        assert_eq!(
            oxide,
            vec![(
                "vecadd".into(),
                Ok([256, 1, 1]),
                Some([4, 1, 1]),
                Some(vec![None, Some(12)])
            )]
        );
    }

    #[test]
    fn hint_wins_and_shared_names_are_noted() {
        let code = "// kernel-lint: block(8, 8)
            #[kernel]
            pub unsafe fn hinted(n: u32) {}
            #[kernel]
            pub unsafe fn plain(n: u32) {}";
        let file = SourceFile::new("k.rs", code);
        let syntax = syn::parse_file(code).expect("parses");
        let kernels = crate::model::kernel::find_kernels(&file, &syntax, &Default::default(), &[], &mut Vec::new());
        let host = "fn main() { launch!(m.hinted<<<1, 32, 0, s>>>(4))?; launch!(m.plain<<<1, 32, 0, s>>>(4))?; }";
        let found = scan(
            &SourceFile::new("host.rs", host),
            &syn::parse_file(host).expect("parses"),
            None,
        );
        let hinted = resolve(&kernels[0], None, &found[..1], 1);
        assert_eq!(
            (hinted[0].launch.block, hinted[0].launch.block_source),
            ([8, 8, 1], BlockSource::Hint)
        );
        let plain = resolve(&kernels[1], None, &found[1..], 2);
        assert_eq!(plain[0].launch.block, [32, 1, 1]);
        assert_eq!(plain[0].launch.params, [("n".to_string(), 4)].into());
        assert_eq!(
            plain[0].notes,
            ["2 kernels of the analyzed files are named `plain`: a launch of it may be another's"]
        );
    }
}
