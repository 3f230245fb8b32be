//! Rust-CUDA kernels to CUDA C++ twins: the same element types, index arithmetic, guards,
//! loops and accesses in the same order, with a `#line` directive before every statement so
//! that `nvcc -lineinfo` attributes each instruction to the Rust line it came from.

use kernel_lint_analyzer::model::kernel::{is_kernel, Kernel};
use kernel_lint_analyzer::model::layout::{repr, Layouts};
use kernel_lint_analyzer::{SourceFile, Span};
use quote::ToTokens;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use syn::{BinOp, Expr, Item, Stmt, Type, UnOp};

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
}

/// The CUDA C++ of one Rust file, in a namespace of its own.
#[derive(Debug, Clone)]
pub struct LoweredFile {
    /// The namespace holding the file's types and kernels.
    pub namespace: String,
    /// Type, constant, helper and kernel definitions.
    pub code: String,
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

/// Lowers the structs, constants, helper functions and the given kernels of a file.
pub fn lower_file(file: &SourceFile, syntax: &syn::File, kernels: &[Kernel], namespace: &str) -> LoweredFile {
    let layouts = Layouts::collect(syntax);
    let mut items = Vec::new();
    flatten(&syntax.items, &mut items);
    let mut cx = Context {
        file,
        layouts: &layouts,
        helpers_failed: HashMap::new(),
        structs: HashSet::new(),
    };
    let mut code = String::new();
    let _ = writeln!(code, "namespace {namespace} {{");
    for item in &items {
        if let Item::Struct(s) = item {
            match cx.lower_struct(s) {
                Ok(text) => {
                    cx.structs.insert(s.ident.to_string());
                    code.push_str(&text);
                }
                Err((_, reason)) => {
                    let _ = writeln!(code, "// struct {} not lowered: {reason}", s.ident);
                }
            }
        }
    }
    for item in &items {
        if let Item::Const(c) = item {
            if let (Some(v), Ok(ty)) = (layouts.const_value(&c.expr), cx.c_type(&c.ty)) {
                let _ = writeln!(code, "constexpr {ty} {} = {v}ll;", c.ident);
            }
        }
    }
    // Shared and device statics at file level.
    for item in &items {
        if let Item::Static(s) = item {
            if let Ok(decl) = cx.static_decl(s) {
                let _ = writeln!(code, "{decl}");
            }
        }
    }
    let helpers: Vec<&syn::ItemFn> = items
        .iter()
        .filter_map(|i| match i {
            Item::Fn(f) if !is_kernel(f) && f.sig.ident != "main" => Some(f),
            _ => None,
        })
        .collect();
    let mut definitions = String::new();
    let mut prototypes = String::new();
    for helper in &helpers {
        match cx.lower_helper(helper) {
            Ok((prototype, body)) => {
                let _ = writeln!(prototypes, "{prototype};");
                definitions.push_str(&body);
            }
            Err((_, reason)) => {
                cx.helpers_failed.insert(helper.sig.ident.to_string(), reason);
            }
        }
    }
    code.push_str(&prototypes);
    code.push_str(&definitions);
    let mut lowered = Vec::new();
    let mut not_lowered = Vec::new();
    for kernel in kernels {
        match cx.lower_kernel(&kernel.item) {
            Ok((text, params, statements)) => {
                code.push_str(&text);
                lowered.push(LoweredKernel {
                    name: kernel.name.clone(),
                    params,
                    statements,
                });
            }
            Err((span, reason)) => not_lowered.push(NotLowered {
                kernel: kernel.name.clone(),
                span,
                reason,
            }),
        }
    }
    let _ = writeln!(code, "}} // namespace {namespace}");
    LoweredFile {
        namespace: namespace.to_string(),
        code,
        kernels: lowered,
        not_lowered,
    }
}

fn flatten<'a>(items: &'a [Item], out: &mut Vec<&'a Item>) {
    for item in items {
        match item {
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    flatten(inner, out);
                }
            }
            other => out.push(other),
        }
    }
}

struct Context<'a> {
    file: &'a SourceFile,
    layouts: &'a Layouts,
    helpers_failed: HashMap<String, String>,
    structs: HashSet<String>,
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
        self.file.snippet(self.span(node)).to_string()
    }

    fn primitive(name: &str) -> Option<&'static str> {
        Some(match name {
            "u8" => "unsigned char",
            "i8" => "signed char",
            "u16" => "unsigned short",
            "i16" => "short",
            "u32" => "unsigned int",
            "i32" => "int",
            "u64" | "usize" => "unsigned long long",
            "i64" | "isize" => "long long",
            "f32" => "float",
            "f64" => "double",
            "bool" => "bool",
            _ => return None,
        })
    }

    /// The C type of a non-array type.
    fn c_type(&self, ty: &Type) -> Lowered<String> {
        match ty {
            Type::Paren(p) => self.c_type(&p.elem),
            Type::Group(g) => self.c_type(&g.elem),
            Type::Ptr(p) => {
                let inner = self.c_type(&p.elem)?;
                Ok(if p.mutability.is_some() {
                    format!("{inner}*")
                } else {
                    format!("const {inner}*")
                })
            }
            Type::Reference(r) => Ok(format!("const {}*", self.c_type(&r.elem)?)),
            Type::Path(p) => {
                let segment = p
                    .path
                    .segments
                    .last()
                    .ok_or_else(|| (self.span(ty), "empty type path".to_string()))?;
                let name = segment.ident.to_string();
                if let Some(c) = Self::primitive(&name) {
                    return Ok(c.to_string());
                }
                if name == "MaybeUninit" {
                    if let syn::PathArguments::AngleBracketed(args) = &segment.arguments {
                        if let Some(syn::GenericArgument::Type(inner)) = args.args.first() {
                            return self.c_type(inner);
                        }
                    }
                }
                if self.structs.contains(&name) {
                    return Ok(name);
                }
                if let Some(vector) = glam_vector(&name) {
                    return Ok(vector.to_string());
                }
                self.fail(ty, format!("type `{}` has no CUDA C equivalent here", self.text(ty)))
            }
            _ => self.fail(ty, format!("type `{}` has no CUDA C equivalent here", self.text(ty))),
        }
    }

    /// `float TILE[32][33]` for `TILE: [[f32; 33]; 32]`.
    fn declarator(&self, ty: &Type, name: &str) -> Lowered<String> {
        match ty {
            Type::Array(a) => {
                let len = self
                    .layouts
                    .const_value(&a.len)
                    .ok_or_else(|| (self.span(&a.len), "array length is not a constant".to_string()))?;
                self.declarator(&a.elem, &format!("{name}[{len}]"))
            }
            Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "MaybeUninit") => {
                let inner = p.path.segments.last().and_then(|s| match &s.arguments {
                    syn::PathArguments::AngleBracketed(args) => match args.args.first() {
                        Some(syn::GenericArgument::Type(inner)) => Some(inner),
                        _ => None,
                    },
                    _ => None,
                });
                match inner {
                    Some(inner) => self.declarator(inner, name),
                    None => self.fail(ty, "MaybeUninit without a type"),
                }
            }
            other => Ok(format!("{} {name}", self.c_type(other)?)),
        }
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
            let name = field
                .ident
                .as_ref()
                .map_or_else(|| format!("_{i}"), |f| ident(&f.to_string()));
            let _ = writeln!(out, "  {};", self.declarator(&field.ty, &name)?);
        }
        out.push_str("};\n");
        Ok(out)
    }

    fn static_decl(&self, s: &syn::ItemStatic) -> Lowered<String> {
        let shared = s
            .attrs
            .iter()
            .any(|a| a.to_token_stream().to_string().contains("shared"));
        let qualifier = if shared { "__shared__" } else { "__device__" };
        Ok(format!(
            "{qualifier} {};",
            self.declarator(&s.ty, &ident(&s.ident.to_string()))?
        ))
    }

    fn lower_helper(&self, f: &syn::ItemFn) -> Lowered<(String, String)> {
        let mut scope = Scope::default();
        let ret = match &f.sig.output {
            syn::ReturnType::Default => "void".to_string(),
            syn::ReturnType::Type(_, ty) => self.c_type(ty)?,
        };
        let mut params = Vec::new();
        for input in &f.sig.inputs {
            let syn::FnArg::Typed(typed) = input else {
                return self.fail(input, "methods are not lowered");
            };
            let syn::Pat::Ident(name) = &*typed.pat else {
                return self.fail(&typed.pat, "parameter pattern");
            };
            let name = scope.bind(&name.ident.to_string());
            if let Type::Reference(r) = &*typed.ty {
                if let Type::Slice(s) = &*r.elem {
                    scope.slices.insert(name.clone());
                    params.push(format!(
                        "const {}* {name}, unsigned long long {name}_len",
                        self.c_type(&s.elem)?
                    ));
                    continue;
                }
                scope.references.insert(name.clone());
            }
            params.push(format!("{} {name}", self.c_type(&typed.ty)?));
        }
        let prototype = format!(
            "__device__ inline {ret} {}({})",
            ident(&f.sig.ident.to_string()),
            params.join(", ")
        );
        let body = self.function_body(&f.block, &mut scope, ret != "void")?;
        Ok((prototype.clone(), format!("{prototype} {body}\n")))
    }

    fn lower_kernel(&self, f: &syn::ItemFn) -> Lowered<(String, Vec<Param>, Vec<Span>)> {
        let mut scope = Scope::default();
        let mut params = Vec::new();
        let mut c_params = Vec::new();
        for input in &f.sig.inputs {
            let syn::FnArg::Typed(typed) = input else {
                return self.fail(input, "methods are not kernels");
            };
            let syn::Pat::Ident(name) = &*typed.pat else {
                return self.fail(&typed.pat, "parameter pattern is not a name");
            };
            let name = scope.bind(&name.ident.to_string());
            let param = self.kernel_param(&name, &typed.ty, &mut scope)?;
            c_params.push(match &param {
                Param::Slice { name, elem, .. } => format!("const {elem}* {name}, unsigned long long {name}_len"),
                Param::Pointer { name, .. } => format!("{} {name}", self.c_type(&typed.ty)?),
                Param::Scalar { name, c_type, .. } | Param::Struct { name, c_type, .. } => format!("{c_type} {name}"),
            });
            params.push(param);
        }
        let body = self.function_body(&f.block, &mut scope, false)?;
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
        self.layouts.layout(ty).map_or(4, |l| l.size.max(1))
    }

    fn kernel_param(&self, name: &str, ty: &Type, scope: &mut Scope) -> Lowered<Param> {
        match ty {
            Type::Reference(r) => match &*r.elem {
                Type::Slice(s) => {
                    scope.slices.insert(name.to_string());
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
                let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
                if let Some(c) = Self::primitive(&last) {
                    return Ok(Param::Scalar {
                        name: name.to_string(),
                        c_type: c.to_string(),
                        float: last.starts_with('f'),
                    });
                }
                let fields = self
                    .layouts
                    .struct_fields(&last)
                    .ok_or_else(|| (self.span(ty), format!("unknown type `{last}`")))?;
                let mut lowered = Vec::new();
                for (field, field_ty) in fields {
                    let mut inner = Scope::default();
                    lowered.push(self.kernel_param(&ident(&field), &field_ty, &mut inner)?);
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
        let count = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            match stmt {
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

    fn block(&self, block: &syn::Block, scope: &mut Scope) -> Lowered<String> {
        let mut out = String::from("{\n");
        scope.names.push(HashMap::new());
        for stmt in &block.stmts {
            match self.stmt(stmt, scope) {
                Ok(text) => out.push_str(&text),
                Err(e) => {
                    scope.names.pop();
                    return Err(e);
                }
            }
        }
        scope.names.pop();
        out.push_str("}\n");
        Ok(out)
    }

    fn stmt(&self, stmt: &Stmt, scope: &mut Scope) -> Lowered<String> {
        let mut out = String::new();
        match stmt {
            Stmt::Local(local) => {
                self.line_directive(&mut out, stmt, scope);
                out.push_str(&self.local(local, scope)?);
            }
            Stmt::Item(Item::Static(s)) => {
                self.line_directive(&mut out, stmt, scope);
                let _ = writeln!(out, "{}", self.static_decl(s)?);
            }
            Stmt::Item(Item::Const(c)) => {
                let v = self
                    .layouts
                    .const_value(&c.expr)
                    .ok_or_else(|| (self.span(c), "constant is not an integer".to_string()))?;
                let _ = writeln!(
                    out,
                    "constexpr {} {} = {v}ll;",
                    self.c_type(&c.ty)?,
                    ident(&c.ident.to_string())
                );
            }
            Stmt::Item(_) => {}
            Stmt::Expr(e, _) => {
                self.line_directive(&mut out, stmt, scope);
                out.push_str(&self.expr_stmt(e, scope)?);
            }
            Stmt::Macro(m) => return self.fail(m, format!("macro `{}!` is not lowered", self.text(&m.mac.path))),
        }
        Ok(out)
    }

    fn local(&self, local: &syn::Local, scope: &mut Scope) -> Lowered<String> {
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
            other => (other, None),
        };
        if let (syn::Pat::Tuple(names), Some(init)) = (pat, &local.init) {
            return self.tuple_local(names, &init.expr, scope);
        }
        let syn::Pat::Ident(binding) = pat else {
            return self.fail(pat, "only `let name = ..` and `let (a, b) = (x, y)` are lowered");
        };
        let rust_name = binding.ident.to_string();
        let Some(init) = &local.init else {
            let name = scope.bind(&rust_name);
            let ty = ty.ok_or_else(|| (self.span(local), "`let` without a value needs a type".to_string()))?;
            return Ok(format!("{};\n", self.declarator(ty, &name)?));
        };
        if let Expr::Macro(m) = &*init.expr {
            if m.mac.path.segments.last().is_some_and(|s| s.ident == "shared_array") {
                let (elem, len): (Type, Expr) = m
                    .mac
                    .parse_body_with(|input: syn::parse::ParseStream| {
                        let ty: Type = input.parse()?;
                        let _: syn::Token![;] = input.parse()?;
                        Ok((ty, input.parse()?))
                    })
                    .map_err(|e| (self.span(m), format!("shared_array! not understood: {e}")))?;
                let len = self.expr(&len, scope)?;
                let name = scope.bind(&rust_name);
                scope.shared_counter += 1;
                let storage = format!("{name}_shared_{}", scope.shared_counter);
                return Ok(format!(
                    "__shared__ {} {storage}[{len}];\nauto {name} = {storage};\n",
                    self.c_type(&elem)?
                ));
            }
        }
        // The value is lowered before the new name exists: `let x = x + 1` reads the old `x`.
        let value = self.expr(&init.expr, scope)?;
        let sub_slice = self.sub_slice_length(&init.expr, scope)?;
        let name = scope.bind(&rust_name);
        if let Some(Type::Reference(r)) = ty {
            if matches!(&*r.elem, Type::Slice(_)) {
                scope.slices.insert(name.clone());
            }
        }
        if let Some(length) = sub_slice {
            scope.slices.insert(name.clone());
            return Ok(format!("auto {name} = {value};\nauto {name}_len = {length};\n"));
        }
        match ty {
            Some(ty) if !matches!(ty, Type::Infer(_) | Type::Reference(_)) => {
                Ok(format!("{} = {value};\n", self.declarator(ty, &name)?))
            }
            _ => Ok(format!("auto {name} = {value};\n")),
        }
    }

    /// The length of `&base[start..end]` when `base` is a slice, so that `.len()` works on it.
    fn sub_slice_length(&self, init: &Expr, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Reference(r) = init else { return Ok(None) };
        let Expr::Index(index) = &*r.expr else { return Ok(None) };
        let Expr::Range(range) = &*index.index else {
            return Ok(None);
        };
        let Expr::Path(base) = &*index.expr else {
            return Ok(None);
        };
        let Some(base) = base.path.get_ident().map(|i| scope.lookup(&i.to_string())) else {
            return Ok(None);
        };
        if !scope.slices.contains(&base) {
            return Ok(None);
        }
        let start = match &range.start {
            Some(s) => self.expr(s, scope)?,
            None => "0".to_string(),
        };
        let end = match &range.end {
            Some(e) => self.expr(e, scope)?,
            None => format!("{base}_len"),
        };
        Ok(Some(format!("(unsigned long long)(({end}) - ({start}))")))
    }

    /// `let (a, b) = (x, y);`: every value first (they may read the old names), then the names.
    fn tuple_local(&self, names: &syn::PatTuple, init: &Expr, scope: &mut Scope) -> Lowered<String> {
        let Expr::Tuple(values) = init else {
            return self.fail(init, "a tuple pattern is lowered only from a tuple of values");
        };
        if values.elems.len() != names.elems.len() {
            return self.fail(init, "tuple sizes differ");
        }
        scope.shared_counter += 1;
        let mut out = String::new();
        let mut temporaries = Vec::new();
        for (i, value) in values.elems.iter().enumerate() {
            let temporary = format!("kl_tuple_{}_{i}", scope.shared_counter);
            let _ = writeln!(out, "auto {temporary} = {};", self.expr(value, scope)?);
            temporaries.push(temporary);
        }
        for (name, temporary) in names.elems.iter().zip(temporaries) {
            match name {
                syn::Pat::Ident(binding) => {
                    let _ = writeln!(out, "auto {} = {temporary};", scope.bind(&binding.ident.to_string()));
                }
                syn::Pat::Wild(_) => {}
                other => return self.fail(other, "only names are bound from a tuple"),
            }
        }
        Ok(out)
    }

    fn expr_stmt(&self, e: &Expr, scope: &mut Scope) -> Lowered<String> {
        match e {
            Expr::If(i) => self.if_stmt(i, scope),
            Expr::While(w) => Ok(format!(
                "while ({}) {}",
                self.expr(&w.cond, scope)?,
                self.block(&w.body, scope)?
            )),
            Expr::Loop(l) => Ok(format!("while (true) {}", self.block(&l.body, scope)?)),
            Expr::ForLoop(f) => self.for_loop(f, scope),
            Expr::Block(b) => self.block(&b.block, scope),
            Expr::Unsafe(u) => self.block(&u.block, scope),
            Expr::Return(r) => match &r.expr {
                Some(v) => Ok(format!("return {};\n", self.expr(v, scope)?)),
                None => Ok("return;\n".to_string()),
            },
            Expr::Break(_) => Ok("break;\n".to_string()),
            Expr::Continue(_) => Ok("continue;\n".to_string()),
            other => Ok(format!("{};\n", self.expr(other, scope)?)),
        }
    }

    fn if_stmt(&self, i: &syn::ExprIf, scope: &mut Scope) -> Lowered<String> {
        if matches!(&*i.cond, Expr::Let(_)) {
            return self.fail(&i.cond, "`if let` is not lowered");
        }
        let mut out = format!(
            "if ({}) {}",
            self.expr(&i.cond, scope)?,
            self.block(&i.then_branch, scope)?
        );
        if let Some((_, else_branch)) = &i.else_branch {
            out.push_str("else ");
            out.push_str(&self.expr_stmt(else_branch, scope)?);
        }
        Ok(out)
    }

    fn for_loop(&self, f: &syn::ExprForLoop, scope: &mut Scope) -> Lowered<String> {
        let syn::Pat::Ident(var) = &*f.pat else {
            return self.fail(&f.pat, "loop pattern is not a name");
        };
        let rust_var = var.ident.to_string();
        let (range, step) = match &*f.expr {
            Expr::MethodCall(m) if m.method == "step_by" => {
                let step = m
                    .args
                    .first()
                    .ok_or_else(|| (self.span(m), "step_by without a step".to_string()))?;
                (&*m.receiver, self.expr(step, scope)?)
            }
            other => (other, "1".to_string()),
        };
        let range = match range {
            Expr::Paren(p) => &*p.expr,
            other => other,
        };
        let Expr::Range(r) = range else {
            return self.fail(range, "only ranges are iterated");
        };
        let start = r.start.as_ref().map_or(Ok("0".to_string()), |s| self.expr(s, scope))?;
        let end = r.end.as_ref().ok_or_else(|| (self.span(r), "open range".to_string()))?;
        let end = self.expr(end, scope)?;
        let cmp = if matches!(r.limits, syn::RangeLimits::Closed(_)) {
            "<="
        } else {
            "<"
        };
        scope.names.push(HashMap::new());
        let var = scope.bind(&rust_var);
        let body = self.block(&f.body, scope);
        scope.names.pop();
        Ok(format!(
            "for (auto {var} = static_cast<std::decay<decltype({end})>::type>({start}); {var} {cmp} {end}; {var} += {step}) {}",
            body?
        ))
    }

    /// An expression as C++.
    fn expr(&self, e: &Expr, scope: &mut Scope) -> Lowered<String> {
        Ok(match e {
            Expr::Lit(lit) => self.literal(&lit.lit)?,
            Expr::Paren(p) => format!("({})", self.expr(&p.expr, scope)?),
            Expr::Group(g) => self.expr(&g.expr, scope)?,
            Expr::Path(p) => {
                let Some(last) = p.path.segments.last() else {
                    return self.fail(p, "empty path");
                };
                let name = last.ident.to_string();
                if p.path.segments.len() > 1 && !self.layouts.consts.contains_key(&name) {
                    return self.fail(p, format!("path `{}` is not lowered", self.text(p)));
                }
                if p.path.segments.len() > 1 {
                    ident(&name)
                } else {
                    scope.lookup(&name)
                }
            }
            Expr::Binary(b) => {
                let op = binary_op(&b.op).ok_or_else(|| (self.span(b), "operator".to_string()))?;
                format!("({} {op} {})", self.expr(&b.left, scope)?, self.expr(&b.right, scope)?)
            }
            Expr::Assign(a) => format!("{} = {}", self.expr(&a.left, scope)?, self.expr(&a.right, scope)?),
            Expr::Unary(u) => {
                let inner = self.expr(&u.expr, scope)?;
                match u.op {
                    UnOp::Deref(_) => format!("(*{inner})"),
                    UnOp::Neg(_) => format!("(-{inner})"),
                    UnOp::Not(_) if is_boolean(&u.expr) => format!("(!{inner})"),
                    UnOp::Not(_) => format!("(~{inner})"),
                    _ => return self.fail(u, "operator"),
                }
            }
            Expr::Cast(c) => match &*c.ty {
                Type::Ptr(_) => format!("(({})({}))", self.c_type(&c.ty)?, self.expr(&c.expr, scope)?),
                ty => format!("(({})({}))", self.c_type(ty)?, self.expr(&c.expr, scope)?),
            },
            Expr::Index(i) => match &*i.index {
                Expr::Range(r) => {
                    let base = self.expr(&i.expr, scope)?;
                    match (&r.start, &r.end) {
                        (Some(s), _) => format!("({base} + {})", self.expr(s, scope)?),
                        (None, _) => base,
                    }
                }
                index => format!("{}[{}]", self.expr(&i.expr, scope)?, self.expr(index, scope)?),
            },
            Expr::Field(f) => {
                let member = match &f.member {
                    syn::Member::Named(n) => ident(&n.to_string()),
                    syn::Member::Unnamed(i) => format!("_{}", i.index),
                };
                if let Some(geometry) = self.geometry_field(&f.base, &member) {
                    return Ok(geometry);
                }
                let base_is_reference = matches!(&*f.base, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.references.contains(&i.to_string())));
                let base = self.expr(&f.base, scope)?;
                if base_is_reference {
                    format!("{base}->{member}")
                } else {
                    format!("{base}.{member}")
                }
            }
            // `&a[offset..]` is already a pointer.
            Expr::Reference(r) if matches!(&*r.expr, Expr::Index(i) if matches!(&*i.index, Expr::Range(_))) => {
                self.expr(&r.expr, scope)?
            }
            Expr::Reference(r) => format!("(&{})", self.expr(&r.expr, scope)?),
            Expr::MethodCall(m) => self.method(m, scope)?,
            Expr::Call(c) => self.call(c, scope)?,
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                Stmt::Expr(inner, None) => self.expr(inner, scope)?,
                _ => return self.fail(b, "block expression is not lowered"),
            },
            Expr::Unsafe(u) if u.block.stmts.len() == 1 => match &u.block.stmts[0] {
                Stmt::Expr(inner, None) => self.expr(inner, scope)?,
                _ => return self.fail(u, "block expression is not lowered"),
            },
            Expr::If(i) => {
                let tail = |b: &syn::Block| match b.stmts.as_slice() {
                    [Stmt::Expr(e, None)] => Some(e.clone()),
                    _ => None,
                };
                let else_expr = match &i.else_branch {
                    Some((_, e)) => match &**e {
                        Expr::Block(b) => tail(&b.block),
                        other => Some(other.clone()),
                    },
                    None => None,
                };
                match (tail(&i.then_branch), else_expr) {
                    (Some(a), Some(b)) => format!(
                        "(({}) ? ({}) : ({}))",
                        self.expr(&i.cond, scope)?,
                        self.expr(&a, scope)?,
                        self.expr(&b, scope)?
                    ),
                    _ => return self.fail(i, "`if` used as a value with statements inside is not lowered"),
                }
            }
            Expr::Macro(m) => return self.fail(m, format!("macro `{}!` is not lowered", self.text(&m.mac.path))),
            other => return self.fail(other, format!("`{}` is not lowered", self.text(other))),
        })
    }

    fn literal(&self, lit: &syn::Lit) -> Lowered<String> {
        Ok(match lit {
            syn::Lit::Int(i) => {
                let digits = i.base10_digits();
                match i.suffix() {
                    "u32" | "u16" | "u8" => format!("{digits}u"),
                    "u64" | "usize" => format!("{digits}ull"),
                    "i64" | "isize" => format!("{digits}ll"),
                    _ => digits.to_string(),
                }
            }
            syn::Lit::Float(f) => {
                let digits = f.base10_digits();
                let digits = if digits.contains(['.', 'e', 'E']) {
                    digits.to_string()
                } else {
                    format!("{digits}.0")
                };
                if f.suffix() == "f64" {
                    digits
                } else {
                    format!("{digits}f")
                }
            }
            syn::Lit::Bool(b) => b.value.to_string(),
            other => return self.fail(other, "literal is not lowered"),
        })
    }

    /// `thread::thread_idx().x` and friends.
    fn geometry_field(&self, base: &Expr, member: &str) -> Option<String> {
        let Expr::Call(call) = base else { return None };
        let Expr::Path(p) = &*call.func else { return None };
        let name = p.path.segments.last()?.ident.to_string();
        let builtin = match name.as_str() {
            "thread_idx" => "threadIdx",
            "block_idx" => "blockIdx",
            "block_dim" => "blockDim",
            "grid_dim" => "gridDim",
            _ => return None,
        };
        matches!(member, "x" | "y" | "z").then(|| format!("{builtin}.{member}"))
    }

    fn call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<String> {
        let Expr::Path(p) = &*c.func else {
            return self.fail(c, "call through an expression");
        };
        let name = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        let bare = name.strip_prefix('_').unwrap_or(&name);
        if c.args.is_empty() {
            if let Some(g) = geometry_call(bare) {
                return Ok(g);
            }
        }
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        match name.as_str() {
            "from_raw_parts" | "from_raw_parts_mut" => return Ok(args[0].clone()),
            "min" | "max" if args.len() == 2 => return Ok(format!("{name}({}, {})", args[0], args[1])),
            _ => {}
        }
        if let Some(reason) = self.helpers_failed.get(&name) {
            return self.fail(c, format!("helper `{name}` is not lowered: {reason}"));
        }
        if p.path.segments.len() <= 2 && self.layouts.struct_fields(&name).is_none() {
            // Slices passed to helpers travel with their length.
            let mut with_lengths = Vec::new();
            for (arg, text) in c.args.iter().zip(args) {
                let slice = matches!(arg, Expr::Path(ap) if ap.path.get_ident().is_some_and(|i| scope.slices.contains(&i.to_string())));
                with_lengths.push(if slice { format!("{text}, {text}_len") } else { text });
            }
            return Ok(format!("{}({})", ident(&name), with_lengths.join(", ")));
        }
        self.fail(c, format!("call to `{}` is not lowered", self.text(&c.func)))
    }

    fn method(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<String> {
        let method = m.method.to_string();
        let receiver = self.expr(&m.receiver, scope)?;
        let args: Vec<String> = m.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        let arg = |i: usize| {
            args.get(i)
                .cloned()
                .ok_or_else(|| (self.span(m), format!("`{method}` needs an argument")))
        };
        Ok(match method.as_str() {
            "add" | "offset" | "wrapping_add" | "wrapping_offset" if !args.is_empty() => {
                format!("({receiver} + {})", arg(0)?)
            }
            "sub" | "wrapping_sub" => format!("({receiver} - {})", arg(0)?),
            "wrapping_mul" => format!("({receiver} * {})", arg(0)?),
            // A Rust reference reads through itself in arithmetic: `kl::ref` converts likewise.
            "get_unchecked" | "get_unchecked_mut" => format!("kl::make_ref(&{receiver}[{}])", arg(0)?),
            "write" | "write_volatile" | "write_unaligned" => {
                if receiver_is_pointer(&m.receiver) {
                    format!("(*{receiver} = {})", arg(0)?)
                } else {
                    format!("({receiver} = {})", arg(0)?)
                }
            }
            "read" | "read_volatile" | "read_unaligned" => format!("(*{receiver})"),
            "assume_init" | "assume_init_read" | "clone" | "unwrap" | "into" | "as_ptr" | "as_mut_ptr" => receiver,
            "len" => format!("{receiver}_len"),
            "min" | "max" => format!("{method}({receiver}, {})", arg(0)?),
            "sqrt" => format!("sqrtf({receiver})"),
            "abs" => format!("fabsf({receiver})"),
            "mul_add" => format!("fmaf({receiver}, {}, {})", arg(0)?, arg(1)?),
            "pow" | "powi" => format!("powf({receiver}, {})", arg(0)?),
            _ => return self.fail(m, format!("method `{method}` is not lowered")),
        })
    }
}

fn receiver_is_pointer(e: &Expr) -> bool {
    matches!(e, Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "add" | "offset" | "wrapping_add" | "sub"))
}

fn is_boolean(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => is_boolean(&p.expr),
        Expr::Binary(b) => matches!(
            b.op,
            BinOp::And(_)
                | BinOp::Or(_)
                | BinOp::Lt(_)
                | BinOp::Le(_)
                | BinOp::Gt(_)
                | BinOp::Ge(_)
                | BinOp::Eq(_)
                | BinOp::Ne(_)
        ),
        Expr::Lit(l) => matches!(l.lit, syn::Lit::Bool(_)),
        Expr::Unary(u) => matches!(u.op, UnOp::Not(_)) && is_boolean(&u.expr),
        _ => false,
    }
}

fn binary_op(op: &BinOp) -> Option<&'static str> {
    use BinOp::*;
    Some(match op {
        Add(_) => "+",
        Sub(_) => "-",
        Mul(_) => "*",
        Div(_) => "/",
        Rem(_) => "%",
        And(_) => "&&",
        Or(_) => "||",
        BitXor(_) => "^",
        BitAnd(_) => "&",
        BitOr(_) => "|",
        Shl(_) => "<<",
        Shr(_) => ">>",
        Eq(_) => "==",
        Lt(_) => "<",
        Le(_) => "<=",
        Ne(_) => "!=",
        Ge(_) => ">=",
        Gt(_) => ">",
        AddAssign(_) => "+=",
        SubAssign(_) => "-=",
        MulAssign(_) => "*=",
        DivAssign(_) => "/=",
        RemAssign(_) => "%=",
        BitXorAssign(_) => "^=",
        BitAndAssign(_) => "&=",
        BitOrAssign(_) => "|=",
        ShlAssign(_) => "<<=",
        ShrAssign(_) => ">>=",
        _ => return None,
    })
}

/// CUDA builtins for the geometry functions of `cuda_std::thread` and NVPTX intrinsics.
fn geometry_call(name: &str) -> Option<String> {
    let vector = |b: &str| format!("kl::uvec3{{{b}.x, {b}.y, {b}.z}}");
    Some(match name {
        "thread_idx" => vector("threadIdx"),
        "block_idx" => vector("blockIdx"),
        "block_dim" => vector("blockDim"),
        "grid_dim" => vector("gridDim"),
        "index_1d" => "(blockIdx.x * blockDim.x + threadIdx.x)".to_string(),
        "index_2d" => "kl::uvec3{blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y, 0u}".to_string(),
        "index_3d" => "kl::uvec3{blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y, blockIdx.z * blockDim.z + threadIdx.z}".to_string(),
        "index" => "((blockIdx.x + blockIdx.y * gridDim.x + gridDim.x * gridDim.y * blockIdx.z) * (blockDim.x * blockDim.y * blockDim.z) + threadIdx.z * (blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x)".to_string(),
        "sync_threads" | "syncthreads" => "__syncthreads()".to_string(),
        "threadfence" => "__threadfence()".to_string(),
        "threadfence_block" => "__threadfence_block()".to_string(),
        _ => {
            let (stem, axis) = name.rsplit_once('_')?;
            if !matches!(axis, "x" | "y" | "z") {
                return None;
            }
            let builtin = match stem {
                "thread_idx" => "threadIdx",
                "block_idx" => "blockIdx",
                "block_dim" => "blockDim",
                "grid_dim" => "gridDim",
                _ => return None,
            };
            format!("{builtin}.{axis}")
        }
    })
}

/// glam's vector types as compiled for CUDA, defined in [`PRELUDE`] with the same layout.
fn glam_vector(name: &str) -> Option<&'static str> {
    Some(match name {
        "Vec2" => "kl::Vec2",
        "Vec3" => "kl::Vec3",
        "Vec4" => "kl::Vec4",
        "Vec3A" => "kl::Vec3A",
        "UVec2" => "kl::UVec2",
        "UVec3" => "kl::UVec3",
        "UVec4" => "kl::UVec4",
        "IVec2" => "kl::IVec2",
        "IVec3" => "kl::IVec3",
        "IVec4" => "kl::IVec4",
        _ => return None,
    })
}

/// Definitions every generated file starts with.
pub const PRELUDE: &str = r#"#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <type_traits>
#include <cuda_runtime.h>
namespace kl {
struct uvec3 {
  unsigned int x, y, z;
  __device__ unsigned int operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};
template <typename T> struct ref {
  T* p;
  __device__ operator T&() const { return *p; }
  __device__ T& operator*() const { return *p; }
};
template <typename T> __device__ ref<T> make_ref(T* p) { return ref<T>{p}; }
struct __align__(8) Vec2 { float x, y; };
struct Vec3 { float x, y, z; };
struct __align__(16) Vec4 { float x, y, z, w; };
struct __align__(16) Vec3A { float x, y, z; };
struct __align__(8) UVec2 { unsigned int x, y; };
struct UVec3 { unsigned int x, y, z; };
struct __align__(16) UVec4 { unsigned int x, y, z, w; };
struct __align__(8) IVec2 { int x, y; };
struct IVec3 { int x, y, z; };
struct __align__(16) IVec4 { int x, y, z, w; };
}
"#;
