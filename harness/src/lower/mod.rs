//! Rust-CUDA kernels to CUDA C++ twins: the same element types, index arithmetic, guards,
//! loops and accesses in the same order, with a `#line` directive before every statement so
//! that `nvcc -lineinfo` attributes each instruction to the Rust line it came from.

use kernel_lint_analyzer::model::kernel::{is_kernel, Kernel};
use kernel_lint_analyzer::model::launch_sites;
use kernel_lint_analyzer::model::layout::{repr, Scope as ItemScope};
use kernel_lint_analyzer::model::rust_gpu::shader_param;
use kernel_lint_analyzer::parse::last_segment;
use kernel_lint_analyzer::{SourceFile, Span};
use quote::ToTokens;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use syn::{Expr, Item, Stmt, Type};

mod aggregate_params;
mod arm_blocks;
mod arrays;
mod asm_strings;
mod async_copy;
mod atomics;
mod byte_order;
mod closures;
mod compiled;
mod component_methods;
mod const_asserts;
mod const_eval;
mod const_impls;
mod const_reasons;
mod constant_patterns;
mod core_values;
mod cubecl;
mod cuda_std_api;
mod derived_eq;
mod device_copy;
mod device_ffi;
mod device_pointers;
mod disjoint_views;
mod diverging;
mod divisibility;
mod element_types;
mod enums;
mod excerpt;
mod expr;
mod external_crates;
mod function_items;
mod generated;
mod generated_arrays;
mod generics;
mod glam_lanes;
mod groups;
mod guarded_arms;
mod half_exchange;
mod host_closures;
mod impl_instances;
mod impl_params;
mod index_spaces;
pub use index_spaces::space_data_notes;
mod closure_methods;
mod closure_structs;
mod inferred_pointers;
mod intrinsic_values;
mod intrinsics;
mod items;
mod iterate;
mod kernel_functions;
mod launch;
mod launch_instances;
mod literal_locals;
mod literal_refs;
mod local_macros;
mod macros;
mod mapped_sums;
mod match_lets;
mod matching;
mod matrix_views;
mod nalgebra;
mod nalgebra_literals;
mod nested_fns;
mod nested_structs;
mod non_null;
mod numeric;
mod operator_impls;
mod option_maps;
mod option_transmutes;
mod option_try;
mod options;
mod ordering;
mod overflow_pairs;
mod oxide;
mod pattern_params;
mod patterns;
mod pointer_casts;
mod prelude;
mod printf;
mod promoted_consts;
mod promoted_ranges;
mod ptx_context;
mod ptx_ops;
mod qualified_calls;
mod range_extremes;
mod receiver_types;
mod receivers;
mod referent_methods;
mod register_mma;
mod rejected_examples;
mod returned_arrays;
mod run_views;
mod rust_asm;
mod rust_gpu;
mod shared_array_types;
mod simd_values;
mod slice_queries;
mod slice_splits;
mod statement_values;
mod static_addresses;
mod static_refs;
mod static_slices;
mod stmt;
mod struct_instances;
mod struct_templates;
mod sub_slices;
mod substitution;
mod tables;
mod template_methods;
mod templates;
mod thread_runs;
mod three_way;
mod trait_generics;
mod traits;
mod tuple_arms;
mod tuple_constructors;
mod tuple_lets;
mod types;
mod union_instances;
mod unions;
mod unsize;
mod vector_views;
mod vek_shapes;
mod warp_stubs;
mod warp_votes;
mod warpgroup_mma;
mod while_lets;
mod wide_constants;

pub use items::Workspace;
pub use launch::{LaunchNeeds, DEFAULT_DYNAMIC_SHARED_BYTES};
pub use launch_instances::{host_program, instantiate_kernels_launched_by};
pub use prelude::PRELUDE;

/// Why a kernel could not be lowered, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct NotLowered {
    /// The kernel.
    pub kernel: String,
    /// The construct that could not be lowered.
    pub span: Span,
    /// One lowercase sentence.
    pub reason: String,
}

/// A kernel parameter as the driver must supply it.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// `&[T]`: a device pointer and its length in elements.
    Slice {
        name: String,
        elem: String,
        elem_bytes: u64,
    },
    /// `*const T`, `*mut T` or `&T`: a device pointer.
    Pointer {
        name: String,
        elem: String,
        elem_bytes: u64,
    },
    /// A scalar passed by value.
    Scalar { name: String, c_type: String, float: bool },
    /// A struct passed by value, field by field.
    Struct {
        name: String,
        c_type: String,
        fields: Vec<Param>,
    },
}

impl Param {
    /// The parameter's (or field's) name.
    pub fn name(&self) -> &str {
        match self {
            Param::Slice { name, .. }
            | Param::Pointer { name, .. }
            | Param::Scalar { name, .. }
            | Param::Struct { name, .. } => name,
        }
    }
}

/// One lowered kernel.
#[derive(Debug, Clone)]
pub struct LoweredKernel {
    /// Function name.
    pub name: String,
    /// Parameters in order.
    pub params: Vec<Param>,
    /// Spans of the statements given a `#line`: an access is attributed to the innermost one.
    pub statements: Vec<Span>,
    /// The kernel's definition, to be placed after its file's [`LoweredFile::common`] code.
    pub code: String,
    /// What its launch must give beyond a grid and a block.
    pub needs: LaunchNeeds,
}

/// The CUDA C++ of one Rust file, in a namespace of its own.
#[derive(Debug, Clone)]
pub struct LoweredFile {
    /// Type, constant, helper and kernel definitions.
    pub code: String,
    /// What every kernel of the file needs: the namespace opened, types, constants, statics
    /// and helpers; a program of some kernels is this, their [`LoweredKernel::code`] and
    /// [`LoweredFile::close`].
    pub common: String,
    /// The line that closes the namespace.
    pub close: String,
    /// Kernels that were lowered.
    pub kernels: Vec<LoweredKernel>,
    /// Kernels that were not, with the reason.
    pub not_lowered: Vec<NotLowered>,
}

impl LoweredKernel {
    /// The line an access at `span` is attributed to: that of the innermost statement holding it.
    pub fn attributed_line(&self, span: Span) -> usize {
        self.statements
            .iter()
            .filter(|s| s.start <= span.start && span.start < s.end.max(s.start + 1))
            .min_by_key(|s| s.end - s.start)
            .map_or(span.line, |s| s.line)
    }
}

type Lowered<T> = Result<T, (Span, String)>;

/// Lowers the structs, constants, helper functions and the given kernels of file `here` of
/// the workspace, with the items of other modules and crates they need.
pub fn lower_file(
    workspace: &Workspace<'_>,
    here: usize,
    syntax: &syn::File,
    layouts: ItemScope<'_>,
    kernels: &[Kernel],
    namespace: &str,
) -> LoweredFile {
    let file = &workspace.files[here];
    let expanded = local_macros::expanded_items(&syntax.items);
    let mut items = Vec::new();
    compiled::compiled_items(&syntax.items, &layouts, &mut items);
    items.extend(expanded.iter());
    let item_set = items::ItemSet::new(items.iter().filter_map(|i| match i {
        Item::Struct(s) => Some(s.ident.to_string()),
        Item::Union(u) => Some(u.ident.to_string()),
        Item::Const(c) => Some(c.ident.to_string()),
        Item::Static(s) => Some(s.ident.to_string()),
        Item::Fn(f) => Some(ident(&f.sig.ident.to_string())),
        _ => None,
    }));
    // A kernel inside `mod kernels { .. }` names items as that module sees them.
    let inline_modules: Vec<kernel_lint_analyzer::ModulePath> = kernels
        .iter()
        .map(|k| {
            let mut module = workspace.modules.get(here).cloned().unwrap_or_default();
            module.extend(k.inline_module.iter().cloned());
            module
        })
        .collect();
    let mut cx = Context {
        file,
        layouts,
        items: &item_set,
        workspace,
        here,
        home: here,
        hoisting: false,
        oxide: oxide::OxideFile::new(syntax),
        ffi: device_ffi::DeviceFfi::new(syntax, &file.path),
        helpers_failed: HashMap::new(),
        helpers: HashSet::new(),
        helper_slices: HashMap::new(),
        instances: HashMap::new(),
        kernel_functions: HashMap::new(),
        template_types: HashMap::new(),
        structs: HashSet::new(),
        undefined: HashSet::new(),
        consts: items
            .iter()
            .filter_map(|i| match i {
                Item::Const(c) => Some(c.ident.to_string()),
                _ => None,
            })
            .collect(),
    };
    let mut code = String::new();
    let mut own_structs = Vec::new();
    for item in &items {
        if let Item::Struct(s) = item {
            match cx.lower_struct(s) {
                Ok(text) => {
                    cx.structs.insert(s.ident.to_string());
                    own_structs.push((s.ident.to_string(), text));
                }
                Err((_, reason)) => {
                    let _ = writeln!(code, "// struct {} not lowered: {reason}", s.ident);
                }
            }
        }
        if let Item::Union(u) = item {
            match cx.lower_union(u) {
                Ok(text) => {
                    cx.structs.insert(u.ident.to_string());
                    own_structs.push((u.ident.to_string(), text));
                }
                Err((_, reason)) => {
                    let _ = writeln!(code, "// union {} not lowered: {reason}", u.ident);
                }
            }
        }
    }
    for item in &items {
        if let Item::Const(c) = item {
            if let (Some(v), Ok(ty), false) = (
                layouts.const_value(&c.expr),
                cx.c_type(&c.ty),
                matches!(&*c.expr, Expr::Array(_)),
            ) {
                let _ = writeln!(code, "[[maybe_unused]] constexpr {ty} {} = {v}ll;", c.ident);
            }
        }
    }
    // Other constants (floats, arrays, expressions of constants), in an order C++ accepts: a
    // constant is defined once those it names are.
    let failed_consts = cx.lower_other_consts(&items, &mut code);
    // Shared and device statics at file level.
    for item in &items {
        if let Item::Static(s) = item {
            match cx.static_decl(s) {
                // A device static keeps its initial value; a shared one takes none.
                Ok(decl) if decl.contains("__device__ ") => match cx.static_definition(&s.ident.to_string(), s) {
                    Ok(definition) => code.push_str(&definition),
                    Err(_) => {
                        let _ = writeln!(code, "{decl}");
                    }
                },
                Ok(decl) => {
                    let _ = writeln!(code, "{decl}");
                }
                Err(_) => {
                    cx.undefined.insert(s.ident.to_string());
                }
            }
        }
    }
    for failed in cx.consts_naming_statics(&items, failed_consts, &mut code) {
        cx.consts.remove(&failed);
        cx.undefined.insert(failed);
    }
    let helpers: Vec<&syn::ItemFn> = items
        .iter()
        .filter_map(|i| match i {
            Item::Fn(f) if !is_kernel(f) && f.sig.ident != "main" => Some(f),
            _ => None,
        })
        .collect();
    let kernel_items: Vec<&syn::ItemFn> = kernels.iter().map(|k| &*k.item).collect();
    let nested = nested_fns::nested_helpers(&kernel_items, &helpers);
    let helpers: Vec<&syn::ItemFn> = helpers.into_iter().chain(&nested).collect();
    let mut taken: HashSet<String> = items
        .iter()
        .filter_map(|i| match i {
            Item::Fn(f) => Some(f.sig.ident.to_string()),
            _ => None,
        })
        .chain(kernels.iter().map(|k| k.name.clone()))
        .collect();
    let callers: Vec<&syn::ItemFn> = kernel_items.iter().chain(&helpers).copied().collect();
    let (kernel_copies, kernel_functions) = kernel_functions::device_copies(&items, &callers, &mut taken);
    cx.kernel_functions = kernel_functions;
    let helpers: Vec<&syn::ItemFn> = helpers.into_iter().chain(&kernel_copies).collect();
    let destructured = pattern_params::destructured(&helpers);
    let helpers: Vec<&syn::ItemFn> = helpers
        .into_iter()
        .map(|h| destructured.iter().find(|d| d.sig.ident == h.sig.ident).unwrap_or(h))
        .collect();
    let instances = generics::instances(&helpers, &kernel_items);
    cx.instances = instances
        .iter()
        .map(|(call, f)| (call.clone(), f.sig.ident.to_string()))
        .collect();
    let helpers: Vec<&syn::ItemFn> = helpers.into_iter().chain(instances.iter().map(|(_, f)| f)).collect();
    cx.helpers = helpers.iter().map(|h| h.sig.ident.to_string()).collect();
    cx.helper_slices = unsize::slice_parameters_of(&helpers);
    launch_instances::refuse_generic_helpers(&helpers, &mut cx.helpers_failed);
    // A helper that calls one that fails fails too: lower until no new helper fails.
    let (prototypes, definitions) = loop {
        let mut definitions = String::new();
        let mut prototypes = String::new();
        let mut new_failure = false;
        for helper in &helpers {
            let name = helper.sig.ident.to_string();
            if cx.helpers_failed.contains_key(&name) {
                continue;
            }
            match cx.lower_helper(helper) {
                Ok((prototype, body)) => {
                    let _ = writeln!(prototypes, "{prototype};");
                    definitions.push_str(&body);
                }
                Err((_, reason)) => {
                    cx.helpers_failed.insert(name, reason);
                    new_failure = true;
                }
            }
        }
        if !new_failure {
            break (prototypes, definitions);
        }
        cx.items.reset_late();
    };
    let mut lowered = Vec::new();
    let mut not_lowered = Vec::new();
    let mut kernel_code = String::new();
    let mut host_launches = None;
    for (kernel, module) in kernels.iter().zip(&inline_modules) {
        let inline_cx;
        let cx = if kernel.inline_module.is_empty() {
            &cx
        } else {
            let mut inner = cx.clone();
            inner.layouts = cx.layouts.at(module);
            inline_cx = inner;
            &inline_cx
        };
        if is_optix_program(&kernel.name) {
            not_lowered.push(NotLowered {
                kernel: kernel.name.clone(),
                span: kernel.span,
                reason: "OptiX program: launched by OptiX, not by a kernel launch".to_string(),
            });
            continue;
        }
        let cube;
        let (item, metadata) = if kernel_lint_analyzer::model::cubecl::is_launch_entry(&kernel.item) {
            let launches = host_launches.get_or_insert_with(|| launch_sites::scan(file, syntax, None));
            match cx.cubecl_kernel(kernel, launches) {
                Ok(rewritten) => {
                    cube = rewritten;
                    (&cube.item, cube.metadata.as_slice())
                }
                Err((span, reason)) => {
                    not_lowered.push(NotLowered {
                        kernel: kernel.name.clone(),
                        span,
                        reason: format!("CubeCL kernel: {reason}"),
                    });
                    continue;
                }
            }
        } else {
            (&*kernel.item, &[][..])
        };
        match cx.lower_kernel(item) {
            Ok((text, mut params, statements)) => {
                // Tensor metadata is given under the name the analysis reads it by.
                for param in &mut params {
                    if let Param::Scalar { name, .. } = param {
                        if let Some((_, key)) = metadata.iter().find(|(c, _)| c == name) {
                            *name = key.clone();
                        }
                    }
                }
                kernel_code.push_str(&text);
                let needs = cx.launch_needs(item, &[&text, &definitions, &item_set.early()]);
                lowered.push(LoweredKernel {
                    name: kernel.name.clone(),
                    params,
                    statements,
                    code: text,
                    needs,
                });
            }
            Err((span, reason)) => not_lowered.push(NotLowered {
                kernel: kernel.name.clone(),
                span,
                reason: rejected_examples::qualified(&file.path, excerpt::short_reason(&reason)),
            }),
        }
    }
    // Other files' items first, then this file's types and constants, its methods (which
    // those may use), its helpers (which may call the methods), then the kernels.
    let (late_prototypes, late) = item_set.late();
    let hoisted = item_set.hoisted();
    let own_structs: String = own_structs
        .into_iter()
        .filter(|(name, _)| !hoisted.contains(name))
        .map(|(_, text)| text)
        .collect();
    let common = format!(
        "{}namespace {namespace} {{\n{}{own_structs}{code}{late_prototypes}{prototypes}{late}{definitions}",
        cx.ffi.included_sources(),
        item_set.early()
    );
    let close = format!("}} // namespace {namespace}\n");
    let code = format!("{common}{kernel_code}{close}");
    LoweredFile {
        code,
        common,
        close,
        kernels: lowered,
        not_lowered,
    }
}

#[derive(Clone)]
struct Context<'a> {
    file: &'a SourceFile,
    layouts: ItemScope<'a>,
    /// Items of other modules lowered for the kernels of the file.
    items: &'a items::ItemSet,
    workspace: &'a Workspace<'a>,
    /// The file the code being lowered is written in.
    here: usize,
    /// The file whose kernels are lowered: its pass defines its own items.
    home: usize,
    /// Lowering an item of the kernel's file for an item of another file.
    hoisting: bool,
    /// What cuda-oxide lowering knows of the file.
    oxide: oxide::OxideFile,
    /// The file's `extern "C"` device functions and the CUDA sources defining them.
    ffi: device_ffi::DeviceFfi,
    helpers_failed: HashMap<String, String>,
    /// Names of the file's helper functions (those in `helpers_failed` are not defined).
    helpers: HashSet<String>,
    /// Which parameters of each helper are slices (by the helper's name).
    helper_slices: HashMap<String, Vec<bool>>,
    /// The C names of the copies of const-generic helpers, by the call (`blur::<8>`).
    instances: HashMap<String, String>,
    /// The device copies of kernels other kernels call as functions, by the call.
    kernel_functions: HashMap<String, kernel_functions::KernelFunction>,
    /// The C++ names of the type parameters of the function template being lowered.
    template_types: HashMap<String, String>,
    structs: HashSet<String>,
    /// File-level constants and statics that could not be defined: a kernel naming one is not
    /// lowered.
    undefined: HashSet<String>,
    /// Names of the file's constants, in any module: `consts::RADIUS` names `RADIUS`.
    consts: HashSet<String>,
}

/// Per-function state: which names are slices, references, shared arrays, and the C name of
/// each Rust binding (Rust shadows with `let`, C++ does not redeclare in one scope).
#[derive(Default)]
struct Scope {
    slices: HashSet<String>,
    references: HashSet<String>,
    statements: Vec<Span>,
    shared_counter: usize,
    names: Vec<HashMap<String, String>>,
    declared: HashMap<String, usize>,
    /// The Rust type (last path segment) of C bindings whose type the source states.
    types: HashMap<String, String>,
    /// C bindings the source declares as raw pointers: `p.write(v)` stores through them.
    raw_pointers: HashSet<String>,
    /// Whether the call lowered last returns a reference (a pointer in C).
    reference_call: bool,
    oxide: oxide::OxideScope,
}

impl Scope {
    /// A C name for a new Rust binding: the name itself the first time, `name_N` after.
    fn bind(&mut self, rust: &str) -> String {
        let count = self.declared.entry(rust.to_string()).or_insert(0);
        let c_name = if *count == 0 {
            ident(rust)
        } else {
            format!("{}_{count}", ident(rust))
        };
        *count += 1;
        if self.names.is_empty() {
            self.names.push(HashMap::new());
        }
        if let Some(top) = self.names.last_mut() {
            top.insert(rust.to_string(), c_name.clone());
        }
        c_name
    }

    /// Keeps the C name `{slice}_len` of a slice's length from a Rust binding of that name.
    fn reserve_length(&mut self, slice: &str) {
        self.declared.entry(format!("{slice}_len")).or_insert(1);
    }

    /// Whether a Rust name is bound in the function.
    fn is_bound(&self, rust: &str) -> bool {
        self.names.iter().any(|m| m.contains_key(rust))
    }

    /// The C name a Rust name refers to here.
    fn lookup(&self, rust: &str) -> String {
        self.names
            .iter()
            .rev()
            .find_map(|m| m.get(rust).cloned())
            .unwrap_or_else(|| ident(rust))
    }
}

const C_KEYWORDS: &[&str] = &[
    "auto",
    "char",
    "int",
    "float",
    "double",
    "long",
    "short",
    "signed",
    "unsigned",
    "void",
    "volatile",
    "register",
    "default",
    "case",
    "switch",
    "goto",
    "new",
    "delete",
    "this",
    "class",
    "private",
    "public",
    "protected",
    "template",
    "typename",
    "namespace",
    "operator",
    "friend",
    "inline",
    "virtual",
    "explicit",
    "sizeof",
    "typedef",
    "union",
    "extern",
    "do",
    "double",
    "bool",
    "main",
    // C++'s alternative operator spellings are reserved words too.
    "and",
    "or",
    "xor",
    "not",
    "bitand",
    "bitor",
    "compl",
    "and_eq",
    "or_eq",
    "xor_eq",
    "not_eq",
    "catch",
    "throw",
    "try",
    "mutable",
    "decltype",
    "noexcept",
    "nullptr",
    "alignas",
    "alignof",
    "typeid",
    "thread_local",
    "static_assert",
    "concept",
    "requires",
    "asm",
    "export",
];

fn ident(name: &str) -> String {
    let name = name.strip_prefix("r#").unwrap_or(name);
    if C_KEYWORDS.contains(&name) {
        format!("{name}_")
    } else {
        name.to_string()
    }
}

impl<'a> Context<'a> {
    fn span(&self, node: &impl ToTokens) -> Span {
        self.file.span_of_node(node)
    }

    fn fail<T>(&self, node: &impl ToTokens, reason: impl Into<String>) -> Lowered<T> {
        Err((self.span(node), reason.into()))
    }

    fn text(&self, node: &impl ToTokens) -> String {
        let text = self.file.snippet(self.span(node));
        // A node built here (a substituted type) has no source text: print its tokens.
        if text.trim().is_empty() {
            return node.to_token_stream().to_string();
        }
        text.to_string()
    }

    fn lower_struct(&self, s: &syn::ItemStruct) -> Lowered<String> {
        let repr = repr(&s.attrs);
        if repr.packed {
            return self.fail(s, "packed structs are not lowered");
        }
        let align = repr.align;
        let align = align.map(|a| format!("__align__({a}) ")).unwrap_or_default();
        let mut out = format!("struct {align}{} {{\n", s.ident);
        for (i, field) in s.fields.iter().enumerate() {
            // A `PhantomData` marker takes no bytes; its literals drop it too.
            if types::is_marker(&field.ty) && field.ident.is_some() {
                continue;
            }
            let name = field
                .ident
                .as_ref()
                .map_or_else(|| format!("_{i}"), |f| ident(&f.to_string()));
            // A slice is a pointer and a length, in that order; `.len()` reads `name_len`.
            if let Type::Reference(r) = &field.ty {
                if let Type::Slice(elem) = &*r.elem {
                    let elem = self.c_type(&elem.elem)?;
                    let constness = if r.mutability.is_some() { "" } else { "const " };
                    let _ = writeln!(out, "  {constness}{elem}* {name};\n  unsigned long long {name}_len;");
                    continue;
                }
            }
            let _ = writeln!(out, "  {};", self.declarator(&field.ty, &name)?);
        }
        out.push_str(&self.derived_comparisons(s));
        out.push_str("};\n");
        Ok(out)
    }

    /// Defines the constants that are not integers; returns the names of those not lowered.
    fn lower_other_consts(&self, items: &[&Item], code: &mut String) -> Vec<String> {
        let mut defined: HashSet<String> = items
            .iter()
            .filter_map(|i| match i {
                Item::Const(c) if self.layouts.const_value(&c.expr).is_some() && self.c_type(&c.ty).is_ok() => {
                    Some(c.ident.to_string())
                }
                _ => None,
            })
            .collect();
        let mut pending: Vec<&syn::ItemConst> = items
            .iter()
            .filter_map(|i| match i {
                Item::Const(c) if !defined.contains(&c.ident.to_string()) => Some(c),
                _ => None,
            })
            .collect();
        // Statics are defined after the constants: a constant naming one is not lowered.
        let statics: HashSet<String> = items
            .iter()
            .filter_map(|i| match i {
                Item::Static(s) => Some(s.ident.to_string()),
                _ => None,
            })
            .collect();
        let mut failed = Vec::new();
        let mut wide = HashMap::new();
        const_reasons::clear();
        loop {
            let before = pending.len();
            pending.retain(|c| {
                let names = expression_names(&c.expr);
                // Upper-case names that are not constants (types, variants) wait for nothing.
                let item = |n: &String| self.consts.contains(n) || statics.contains(n);
                if !names.iter().all(|n| defined.contains(n) || !item(n)) {
                    return true;
                }
                // `const R: &[Op; N] = &TABLE;` of a table a macro defines: nothing to point at.
                if let Some(target) = static_refs::referenced_name(&c.expr) {
                    if !defined.contains(&target) && !item(&target) {
                        let _ = writeln!(code, "// const {} not lowered: `{target}` is not defined here", c.ident);
                        const_reasons::record(&c.ident.to_string(), format!("`{target}` is not defined here"));
                        failed.push(c.ident.to_string());
                        return false;
                    }
                }
                if let Some(Ok(definition)) = self.referenced_array_literal(c) {
                    code.push_str(&definition);
                    defined.insert(c.ident.to_string());
                    return false;
                }
                let wide_value = wide_constants::wide_constant(&c.ty, &c.expr, &wide);
                if let Some((_, v)) = &wide_value {
                    wide.insert(c.ident.to_string(), *v);
                }
                let value = match &*c.expr {
                    _ if wide_value.is_some() => Ok(wide_value.map(|(text, _)| text).unwrap_or_default()),
                    Expr::Array(a) => a
                        .elems
                        .iter()
                        .map(|e| self.expr(e, &mut Scope::default()))
                        .collect::<Lowered<Vec<_>>>()
                        .map(|v| format!("{{{}}}", v.join(", "))),
                    Expr::Block(_) => self
                        .evaluated_constant(&c.expr)
                        .or_else(|why| self.fail(&c.ident, format!("a `const` block: {why} is not evaluated"))),
                    _ if matches!(&c.ty.as_ref(), Type::Array(_)) => self.aliased_table(c, items),
                    other => self.expr(other, &mut Scope::default()),
                };
                match (value, self.declarator(&c.ty, &ident(&c.ident.to_string()))) {
                    // A table is indexed by device code: it lives in device memory.
                    (Ok(value), Ok(decl)) if matches!(&*c.expr, Expr::Array(_)) || value.starts_with('{') => {
                        let _ = writeln!(code, "__device__ const {decl} = {value};");
                        defined.insert(c.ident.to_string());
                    }
                    (Ok(value), Ok(decl)) => {
                        code.push_str(&self.constant_definition(&c.ty, &decl, &value));
                        defined.insert(c.ident.to_string());
                    }
                    (value, decl) => {
                        let _ = writeln!(code, "// const {} not lowered", c.ident);
                        let why = value.err().or(decl.err()).map(|(_, why)| why).unwrap_or_default();
                        const_reasons::record(&c.ident.to_string(), why);
                        failed.push(c.ident.to_string());
                    }
                }
                false
            });
            if pending.len() == before {
                break;
            }
        }
        for c in &pending {
            let missing: Vec<String> = expression_names(&c.expr)
                .into_iter()
                .filter(|n| !defined.contains(n) && (self.consts.contains(n) || statics.contains(n)))
                .collect();
            const_reasons::record(&c.ident.to_string(), const_reasons::waiting(&missing));
        }
        failed.extend(pending.iter().map(|c| c.ident.to_string()));
        failed
    }

    fn static_decl(&self, s: &syn::ItemStatic) -> Lowered<String> {
        let shared = s
            .attrs
            .iter()
            .any(|a| a.to_token_stream().to_string().contains("shared"));
        let qualifier = if shared { "__shared__" } else { "__device__" };
        let qualifier = oxide::static_qualifier(&s.ty).unwrap_or(qualifier);
        let decl = self.declarator(&s.ty, &ident(&s.ident.to_string()))?;
        // The alignment leads the declaration: C++ does not take it after the qualifier.
        let (align, decl) = oxide::split_alignment(&decl);
        Ok(format!("{align}{qualifier} {decl};"))
    }

    fn lower_helper(&self, f: &syn::ItemFn) -> Lowered<(String, String)> {
        if let Some(named) = impl_params::named(f) {
            return self.lower_helper(&named);
        }
        if let Some(template) = self.template_helper(f, None) {
            return template;
        }
        self.lower_function(f, None)
    }

    /// A helper, or a method of `self_type` taking its receiver first (by C++ reference).
    fn lower_function(&self, f: &syn::ItemFn, self_type: Option<&str>) -> Lowered<(String, String)> {
        // A bare `unreachable!()` body in the kernel's own file is a dead branch's callee (a
        // hook under a `const` false): it lowers as a trap. Stubs of other files, or saying
        // why they are stubs, are the code generator's intrinsics.
        if patterns::is_intrinsic_stub(f) && (self.here != self.home || !bare_unreachable(f)) {
            return self.fail(&f.sig.ident, "a code-generator intrinsic: its Rust body is a stub");
        }
        let _bounds = trait_generics::enter(f);
        let typed = literal_locals::typed(&f.block, &f.sig.output, &|s| self.compiled(s));
        let block = typed.as_ref().unwrap_or(&f.block);
        let mut scope = Scope::default();
        let ret = match &f.sig.output {
            syn::ReturnType::Default => "void".to_string(),
            syn::ReturnType::Type(_, ty) => self.c_type(ty)?,
        };
        let mut params = Vec::new();
        for input in &f.sig.inputs {
            let typed = match (input, self_type) {
                (syn::FnArg::Typed(typed), _) => typed,
                (syn::FnArg::Receiver(receiver), Some(ty)) => {
                    let c = self.c_type(&impl_instances::receiver_type(ty))?;
                    params.push(items::receiver_param(receiver, &c));
                    let this = scope.bind("self");
                    scope.types.insert(this, impl_instances::owner_name(ty));
                    continue;
                }
                (syn::FnArg::Receiver(_), None) => return self.fail(input, "methods are not lowered"),
            };
            let syn::Pat::Ident(name) = &*typed.pat else {
                return self.fail(&typed.pat, "parameter pattern");
            };
            let name = scope.bind(&name.ident.to_string());
            if let Some(param) = self.disjoint_helper_param(&name, &typed.ty, &mut scope)? {
                params.push(param);
                continue;
            }
            self.note_type(&name, Some(&typed.ty), None, &mut scope);
            if let Type::Reference(r) = &*typed.ty {
                if let Type::Slice(s) = &*r.elem {
                    scope.slices.insert(name.clone());
                    scope.reserve_length(&name);
                    params.push(format!(
                        "{}{}* {name}, unsigned long long {name}_len",
                        if r.mutability.is_some() { "" } else { "const " },
                        self.c_type(&s.elem)?
                    ));
                    continue;
                }
                scope.references.insert(name.clone());
            }
            self.group_param(&name, &typed.ty, &mut scope);
            params.push(format!("{} {name}", self.c_type(&typed.ty)?));
        }
        let prototype = format!(
            "__device__ inline {ret} {}({})",
            ident(&f.sig.ident.to_string()),
            params.join(", ")
        );
        if patterns::is_intrinsic_stub(f) {
            // Never called: the caller's branch is dead. A trap keeps it honest if it were.
            return Ok((
                prototype.clone(),
                format!("{prototype} {{\n  __trap();\n  __builtin_unreachable();\n}}\n"),
            ));
        }
        let body = self.function_body(block, &mut scope, ret != "void")?;
        Ok((prototype.clone(), format!("{prototype} {body}\n")))
    }

    fn lower_kernel(&self, f: &syn::ItemFn) -> Lowered<(String, Vec<Param>, Vec<Span>)> {
        self.generic_kernel(f)?;
        self.refuse_blackwell(&f.block)?;
        let mut scope = Scope::default();
        let mut params = Vec::new();
        let mut c_params = Vec::new();
        let mut prologue = String::new();
        for input in &f.sig.inputs {
            let syn::FnArg::Typed(typed) = input else {
                return self.fail(input, "methods are not kernels");
            };
            let syn::Pat::Ident(name) = &*typed.pat else {
                return self.fail(&typed.pat, "parameter pattern is not a name");
            };
            let name = scope.bind(&name.ident.to_string());
            self.note_type(&name, Some(&typed.ty), None, &mut scope);
            if let Some(role) = shader_param(&typed.attrs) {
                if let Some(lowered) = self.shader_param(role, &name, &typed.ty, &mut scope)? {
                    prologue.push_str(&lowered.prologue);
                    if let Some((param, c_param)) = lowered.param {
                        params.push(param);
                        c_params.push(c_param);
                    }
                    continue;
                }
            }
            let param = self.kernel_param(&name, &typed.ty, &mut scope)?;
            c_params.push(match &param {
                Param::Slice { name, elem, .. } => {
                    let mutable = is_mut_ref(&typed.ty) || oxide::is_disjoint_slice(&typed.ty);
                    let constness = if mutable { "" } else { "const " };
                    format!("{constness}{elem}* {name}, unsigned long long {name}_len")
                }
                Param::Pointer { name, .. } => format!("{} {name}", self.c_type(&typed.ty)?),
                Param::Scalar { name, c_type, .. } | Param::Struct { name, c_type, .. } => format!("{c_type} {name}"),
            });
            params.push(param);
            if let Some(data) = self.space_data_param(&name, &typed.ty, &mut scope) {
                c_params.push(format!("unsigned int {}", data.name()));
                params.push(data);
            }
        }
        let typed = literal_locals::typed(&f.block, &f.sig.output, &|s| self.compiled(s));
        let mut body = self.function_body(typed.as_ref().unwrap_or(&f.block), &mut scope, false)?;
        // rust-gpu's builtins and workgroup arrays are declared before the body's statements.
        if !prologue.is_empty() {
            body.insert_str(1.min(body.len()), &format!("\n{prologue}"));
        }
        // The prologue is attributed to the Rust signature, so a launch's code lies in one file.
        let signature = self.span(&f.sig);
        let text = format!("#line {} \"{}\"\n", signature.line, self.line_path())
            + &format!(
                "__global__ void {}({}) {body}\n",
                ident(&f.sig.ident.to_string()),
                c_params.join(", ")
            );
        Ok((text, params, scope.statements))
    }

    fn size_of(&self, ty: &Type) -> u64 {
        if let Some(bytes) = oxide::size_of(ty) {
            return bytes;
        }
        self.layouts.layout(ty).map_or(4, |l| l.size.max(1))
    }

    fn kernel_param(&self, name: &str, ty: &Type, scope: &mut Scope) -> Lowered<Param> {
        if let Some(param) = self.oxide_param(name, ty, scope)? {
            return Ok(param);
        }
        match ty {
            Type::Reference(r) => match &*r.elem {
                Type::Slice(s) => {
                    scope.slices.insert(name.to_string());
                    scope.reserve_length(name);
                    Ok(Param::Slice {
                        name: name.to_string(),
                        elem: self.c_type(&s.elem)?,
                        elem_bytes: self.size_of(&s.elem),
                    })
                }
                elem => {
                    scope.references.insert(name.to_string());
                    Ok(Param::Pointer {
                        name: name.to_string(),
                        elem: self.c_type(elem)?,
                        elem_bytes: self.size_of(elem),
                    })
                }
            },
            Type::Ptr(p) => Ok(Param::Pointer {
                name: name.to_string(),
                elem: self.c_type(&p.elem)?,
                elem_bytes: self.size_of(&p.elem),
            }),
            Type::Path(p) => {
                let last = last_segment(&p.path);
                if let Some(c) = Self::primitive(&last) {
                    return Ok(Param::Scalar {
                        name: name.to_string(),
                        c_type: c.to_string(),
                        float: last.starts_with('f') || last == "bf16",
                    });
                }
                if let Some((c_type, elem, float, lanes)) = types::glam_lanes(&last) {
                    let fields = ["x", "y", "z", "w"][..lanes]
                        .iter()
                        .map(|lane| Param::Scalar {
                            name: lane.to_string(),
                            c_type: elem.to_string(),
                            float,
                        })
                        .collect();
                    return Ok(Param::Struct {
                        name: name.to_string(),
                        c_type: c_type.to_string(),
                        fields,
                    });
                }
                if let Some(param) = self.device_pointer_param(name, ty)? {
                    return Ok(param);
                }
                if let Some(param) = self.alias_param(name, ty, scope)? {
                    return Ok(param);
                }
                if let Some(param) = self.union_param(name, ty)? {
                    return Ok(param);
                }
                let (fields_scope, fields) = self
                    .layouts
                    .struct_fields(&p.path)
                    .ok_or_else(|| (self.span(ty), format!("unknown type `{last}`")))?;
                // Field types are written in the struct's module, maybe another file.
                let within = self.within(fields_scope.module);
                let cx = within.as_ref().unwrap_or(self);
                let mut lowered = Vec::new();
                for (field, field_ty) in fields {
                    let field_ty = self.field_type_instance(p, &field_ty);
                    if let Some(elements) = cx.array_field_params(&ident(&field), &field_ty)? {
                        lowered.extend(elements);
                        continue;
                    }
                    let mut inner = Scope::default();
                    let param = cx
                        .kernel_param(&ident(&field), &field_ty, &mut inner)
                        .map_err(|(_, reason)| (self.span(ty), format!("field `{field}` of `{last}`: {reason}")))?;
                    lowered.push(param);
                }
                if lowered.iter().any(|p| matches!(p, Param::Slice { .. })) {
                    return self.fail(ty, "slices inside a struct parameter are not lowered");
                }
                Ok(Param::Struct {
                    name: name.to_string(),
                    c_type: self.c_type(ty)?,
                    fields: lowered,
                })
            }
            _ => self.fail(ty, format!("parameter type `{}` is not lowered", self.text(ty))),
        }
    }

    fn function_body(&self, block: &syn::Block, scope: &mut Scope, returns: bool) -> Lowered<String> {
        let mut out = String::from("{\n");
        // A tail under `#[cfg(target_os = "cuda")]` is the value once the host's is left out.
        let stmts: Vec<&Stmt> = block.stmts.iter().filter(|s| self.compiled(s)).collect();
        let count = stmts.len();
        for (i, stmt) in stmts.into_iter().enumerate() {
            match stmt {
                // The function returns from inside its last `loop`.
                Stmt::Expr(e, None) if returns && i + 1 == count && guarded_arms::is_diverging_loop(e) => {
                    out.push_str(&self.stmt(stmt, scope)?);
                }
                Stmt::Expr(e, None) if returns && i + 1 == count => {
                    self.line_directive(&mut out, stmt, scope);
                    let _ = writeln!(out, "return {};", self.expr(e, scope)?);
                }
                _ => out.push_str(&self.stmt(stmt, scope)?),
            }
        }
        out.push_str("}\n");
        Ok(out)
    }

    /// The file name for `#line`, escaped for a C string.
    fn line_path(&self) -> String {
        self.file.path.replace('\\', "/").replace('"', "\\\"")
    }

    fn line_directive(&self, out: &mut String, node: &impl ToTokens, scope: &mut Scope) {
        let span = self.span(node);
        scope.statements.push(span);
        let _ = writeln!(out, "#line {} \"{}\"", span.line, self.line_path());
    }
}

/// The upper-case names an expression reads (constants, by convention), but not type names
/// after `as`.
fn expression_names(e: &Expr) -> Vec<String> {
    let mut text = e.to_token_stream().to_string();
    // `u64::MAX` is a constant of the primitive type, not one of the file.
    for primitive in [
        "u8", "u16", "u32", "u64", "usize", "i8", "i16", "i32", "i64", "isize", "f32", "f64",
    ] {
        text = text.replace(&format!("{primitive} :: "), &format!("{primitive}_"));
    }
    let words = text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    let mut out = Vec::new();
    let mut after_as = false;
    for word in words.filter(|w| !w.is_empty()) {
        if word == "as" {
            after_as = true;
            continue;
        }
        if !std::mem::take(&mut after_as) && word.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
            out.push(word.to_string());
        }
    }
    out
}

/// `&mut T`.
fn is_mut_ref(ty: &Type) -> bool {
    matches!(ty, Type::Reference(r) if r.mutability.is_some())
}

/// `__raygen__render`, `__closesthit__radiance` and the other OptiX entry points.
fn is_optix_program(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "__raygen__",
        "__closesthit__",
        "__anyhit__",
        "__miss__",
        "__intersection__",
        "__exception__",
        "__direct_callable__",
        "__continuation_callable__",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Whether a function's body is only `unreachable!()`, with no message.
fn bare_unreachable(f: &syn::ItemFn) -> bool {
    match f.block.stmts.as_slice() {
        [syn::Stmt::Macro(m)] => m.mac.path.is_ident("unreachable") && m.mac.tokens.is_empty(),
        [syn::Stmt::Expr(syn::Expr::Macro(m), _)] => m.mac.path.is_ident("unreachable") && m.mac.tokens.is_empty(),
        _ => false,
    }
}
