//! CubeCL kernels to the Rust-CUDA forms the rest of the lowering reads, under the one
//! launch their file gives them: the element types and line sizes the launch names replace
//! the generics (`Line<f32>` of 4 becomes glam's 16-byte `Vec4`), literal `#[comptime]`
//! arguments become constants, `Array<T>` and `Tensor<T>` become slices (a tensor with one
//! scalar per `shape(d)` and `stride(d)` it reads, named as the analysis names them, so the
//! driver gives both the same value), the topology constants become the CUDA builtins,
//! `SharedMemory` becomes `shared_array!` and `terminate!()` a return.

use super::{Context, Lowered};
use kernel_lint_analyzer::model::cubecl;
use kernel_lint_analyzer::model::kernel::Kernel;
use kernel_lint_analyzer::model::launch_sites::HostLaunch;
use kernel_lint_analyzer::parse::last_segment;
use quote::ToTokens;
use std::collections::{BTreeSet, HashMap, HashSet};
use syn::visit_mut::VisitMut;
use syn::{parse_quote, parse_quote_spanned, Expr, FnArg, Pat, Stmt, Type};

/// A CubeCL kernel as a Rust-CUDA kernel, with the scalar parameters it gained for tensor
/// metadata: (parameter name, the name the analysis gives the value).
pub(super) struct CubeKernel {
    pub(super) item: syn::ItemFn,
    pub(super) metadata: Vec<(String, String)>,
}

impl Context<'_> {
    /// `kernel` rewritten under the launches of it in `launches`; a construct with no CUDA
    /// form, or a value its launches do not fix, is the reason it is not lowered.
    pub(super) fn cubecl_kernel(&self, kernel: &Kernel, launches: &[HostLaunch]) -> Lowered<CubeKernel> {
        let f = &kernel.item;
        let ours: Vec<&HostLaunch> = launches
            .iter()
            .filter(|l| l.kernel == kernel.name && l.cube.is_some())
            .collect();
        let no_launch = || {
            (
                kernel.span,
                "no CubeCL launch in its file gives its element types, line sizes and comptime values".to_string(),
            )
        };
        // The generics as the launches name them: they must agree.
        let mut types: HashMap<String, String> = HashMap::new();
        let generics: Vec<String> = f.sig.generics.type_params().map(|p| p.ident.to_string()).collect();
        for (i, generic) in generics.iter().enumerate() {
            let named: BTreeSet<String> = ours
                .iter()
                .filter_map(|l| l.cube.as_ref()?.types.get(i).cloned())
                .collect();
            let ty = match named.len() {
                0 => return Err(no_launch()),
                1 => named.into_iter().next().unwrap_or_default(),
                _ => return Err((kernel.span, format!("its launches give `{generic}` different types"))),
            };
            let ty = ty.rsplit("::").next().unwrap_or(&ty).to_string();
            if Self::primitive(&ty).is_none() {
                return Err((
                    kernel.span,
                    format!("`{generic}` is launched as `{ty}`, not a primitive"),
                ));
            }
            types.insert(generic.clone(), ty);
        }
        if f.sig.generics.const_params().next().is_some() {
            return Err((self.span(&f.sig.generics), "const generic parameters".to_string()));
        }
        let mut rewriter = Rewriter {
            types,
            ..Rewriter::default()
        };
        let mut inputs = syn::punctuated::Punctuated::<FnArg, syn::Token![,]>::new();
        let mut constants: Vec<Stmt> = Vec::new();
        let mut lines = BTreeSet::new();
        for (position, input) in f.sig.inputs.iter().enumerate() {
            let FnArg::Typed(typed) = input else {
                return self.fail(input, "methods are not kernels");
            };
            let Pat::Ident(binding) = &*typed.pat else {
                return self.fail(&typed.pat, "parameter pattern is not a name");
            };
            let name = binding.ident.to_string();
            let comptime = typed.attrs.iter().any(|a| a.path().is_ident("comptime"));
            let mut ty = (*typed.ty).clone();
            rewriter.visit_type_mut(&mut ty);
            if comptime {
                let values: BTreeSet<i64> = ours
                    .iter()
                    .filter_map(|l| {
                        let args = l.args.as_ref()?;
                        cubecl::kernel_arguments(&kernel.item.sig, args)
                            .1
                            .get(position)
                            .copied()
                            .flatten()
                    })
                    .collect();
                let [value] = values.into_iter().collect::<Vec<_>>()[..] else {
                    return self.fail(typed, format!("comptime `{name}` is not one literal at its launches"));
                };
                let ident = &binding.ident;
                let value = syn::LitInt::new(&value.to_string(), proc_macro2::Span::call_site());
                constants.push(parse_quote!(let #ident: #ty = #value;));
                continue;
            }
            let param = match buffer(&ty) {
                Some((mutable, container, elem)) => {
                    let elem = match line_element(elem) {
                        Some(lane) => {
                            let sizes: BTreeSet<Option<i64>> = ours
                                .iter()
                                .filter_map(|l| {
                                    let cube = l.cube.as_ref()?;
                                    cubecl::kernel_arguments(&kernel.item.sig, &cube.line_sizes)
                                        .1
                                        .get(position)
                                        .cloned()
                                        .flatten()
                                })
                                .collect();
                            let size = match sizes.into_iter().collect::<Vec<_>>()[..] {
                                [Some(size)] => size,
                                [] => return Err(no_launch()),
                                _ => {
                                    return self.fail(
                                        typed,
                                        format!("the line size of `{name}` is not one literal at its launches"),
                                    )
                                }
                            };
                            let line = line_type(lane, size).ok_or_else(|| {
                                (
                                    self.span(typed),
                                    format!("no CUDA vector type for a line of {size} `{}`", lane.to_token_stream()),
                                )
                            })?;
                            lines.insert(line.to_token_stream().to_string());
                            line
                        }
                        None => elem.clone(),
                    };
                    if container == "Tensor" {
                        rewriter.tensors.insert(name.clone());
                    }
                    if mutable {
                        parse_quote!(#binding: &mut [#elem])
                    } else {
                        parse_quote!(#binding: &[#elem])
                    }
                }
                None if matches!(ty, Type::Path(_)) => parse_quote!(#binding: #ty),
                None => return self.fail(&typed.ty, "a CubeCL parameter of this type"),
            };
            inputs.push(param);
        }
        // `Line::new(x)` fills a line of the kernel's one line type.
        if let [line] = &lines.into_iter().collect::<Vec<_>>()[..] {
            rewriter.line = syn::parse_str(line.rsplit(":: ").next().unwrap_or(line)).ok();
        }
        let mut block = (*f.block).clone();
        rewriter.visit_block_mut(&mut block);
        if let Some((span, reason)) = rewriter.refused {
            return Err((self.span(&span), reason));
        }
        for (tensor, method, dim) in &rewriter.metadata {
            let ident = syn::Ident::new(&format!("{tensor}_{method}_{dim}"), proc_macro2::Span::call_site());
            inputs.push(parse_quote!(#ident: u32));
        }
        block.stmts.splice(0..0, constants);
        let ident = &f.sig.ident;
        let item: syn::ItemFn = parse_quote! {
            #[kernel]
            pub unsafe fn #ident(#inputs) #block
        };
        let metadata = rewriter
            .metadata
            .iter()
            .map(|(tensor, method, dim)| (format!("{tensor}_{method}_{dim}"), format!("{tensor}.{method}({dim})")))
            .collect();
        Ok(CubeKernel { item, metadata })
    }
}

/// `&Array<T>`, `&mut Tensor<T>`, `&Slice<T>`: whether it is mutable, the container and `T`.
fn buffer(ty: &Type) -> Option<(bool, String, &Type)> {
    let Type::Reference(r) = ty else {
        return None;
    };
    let Type::Path(p) = &*r.elem else {
        return None;
    };
    let last = p.path.segments.last()?;
    let container = last.ident.to_string();
    if !matches!(container.as_str(), "Array" | "Tensor" | "Slice" | "SliceMut") {
        return None;
    }
    Some((
        r.mutability.is_some() || container == "SliceMut",
        container,
        only_type_argument(&last.arguments)?,
    ))
}

/// `Line<T>`: `T`.
fn line_element(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    (last.ident == "Line").then(|| only_type_argument(&last.arguments))?
}

fn only_type_argument(arguments: &syn::PathArguments) -> Option<&Type> {
    let syn::PathArguments::AngleBracketed(a) = arguments else {
        return None;
    };
    match a.args.first()? {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

/// A line of `size` lanes of `lane` as the glam vector of the same size and alignment.
fn line_type(lane: &Type, size: i64) -> Option<Type> {
    let lane = lane.to_token_stream().to_string();
    if size == 1 {
        return syn::parse_str(&lane).ok();
    }
    let prefix = match lane.as_str() {
        "f32" => "",
        "f64" => "D",
        "u32" => "U",
        "i32" => "I",
        _ => return None,
    };
    if !matches!(size, 2 | 4) {
        return None;
    }
    syn::parse_str(&format!("glam::{prefix}Vec{size}")).ok()
}

/// The topology constants as `cuda_std` geometry.
fn builtin(name: &str) -> Option<Expr> {
    let unit_pos = "(thread::thread_idx_x() + thread::thread_idx_y() * thread::block_dim_x() + thread::thread_idx_z() * thread::block_dim_x() * thread::block_dim_y())";
    let text = match name {
        "ABSOLUTE_POS" => "thread::index()".to_string(),
        "ABSOLUTE_POS_X" | "ABSOLUTE_POS_Y" | "ABSOLUTE_POS_Z" => {
            let axis = name.chars().last()?.to_ascii_lowercase();
            format!("(thread::block_idx_{axis}() * thread::block_dim_{axis}() + thread::thread_idx_{axis}())")
        }
        "UNIT_POS" => unit_pos.to_string(),
        "UNIT_POS_X" | "UNIT_POS_Y" | "UNIT_POS_Z" => {
            format!("thread::thread_idx_{}()", name.chars().last()?.to_ascii_lowercase())
        }
        "CUBE_POS" => "(thread::block_idx_x() + thread::block_idx_y() * thread::grid_dim_x() + thread::block_idx_z() * thread::grid_dim_x() * thread::grid_dim_y())".to_string(),
        "CUBE_POS_X" | "CUBE_POS_Y" | "CUBE_POS_Z" => {
            format!("thread::block_idx_{}()", name.chars().last()?.to_ascii_lowercase())
        }
        "CUBE_DIM" => "(thread::block_dim_x() * thread::block_dim_y() * thread::block_dim_z())".to_string(),
        "CUBE_DIM_X" | "CUBE_DIM_Y" | "CUBE_DIM_Z" => {
            format!("thread::block_dim_{}()", name.chars().last()?.to_ascii_lowercase())
        }
        "CUBE_COUNT" => "(thread::grid_dim_x() * thread::grid_dim_y() * thread::grid_dim_z())".to_string(),
        "CUBE_COUNT_X" | "CUBE_COUNT_Y" | "CUBE_COUNT_Z" => {
            format!("thread::grid_dim_{}()", name.chars().last()?.to_ascii_lowercase())
        }
        "PLANE_DIM" => "32u32".to_string(),
        "UNIT_POS_PLANE" => format!("({unit_pos} % 32)"),
        _ => return None,
    };
    syn::parse_str(&text).ok()
}

/// Rewrites a kernel body; the first construct it cannot rewrite is kept in `refused`.
#[derive(Default)]
struct Rewriter {
    /// The generics and the primitive types the launch gives them.
    types: HashMap<String, String>,
    /// Tensor parameters.
    tensors: HashSet<String>,
    /// `(tensor, "shape" or "stride", dim)` the body reads, in order.
    metadata: Vec<(String, String, u32)>,
    /// The glam type of the kernel's lines, when they are all of one type.
    line: Option<syn::Path>,
    refused: Option<(proc_macro2::TokenStream, String)>,
}

impl Rewriter {
    fn refuse(&mut self, node: &impl ToTokens, reason: &str) {
        if self.refused.is_none() {
            self.refused = Some((node.to_token_stream(), reason.to_string()));
        }
    }

    fn primitive(&self, path: &syn::Path) -> Option<Type> {
        let [segment] = &path.segments.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        syn::parse_str(self.types.get(&segment.ident.to_string())?).ok()
    }
}

impl VisitMut for Rewriter {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = ty {
            if p.qself.is_none() {
                if let Some(primitive) = self.primitive(&p.path) {
                    *ty = primitive;
                    return;
                }
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        if let Stmt::Macro(m) = stmt {
            if m.mac.path.is_ident("terminate") {
                let span = m.mac.path.segments[0].ident.span();
                *stmt = parse_quote_spanned!(span=> return;);
                return;
            }
        }
        syn::visit_mut::visit_stmt_mut(self, stmt);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                if let Some(geometry) = builtin(&p.path.segments[0].ident.to_string()) {
                    *e = geometry;
                    return;
                }
            }
            Expr::Macro(m) if m.mac.path.is_ident("terminate") => {
                *e = parse_quote!(return);
                return;
            }
            Expr::Macro(m) if m.mac.path.is_ident("comptime") => match m.mac.parse_body::<Expr>() {
                Ok(inner) => {
                    *e = parse_quote!((#inner));
                    self.visit_expr_mut(e);
                    return;
                }
                Err(_) => self.refuse(m, "`comptime!` of no expression"),
            },
            Expr::MethodCall(m) if matches!(m.method.to_string().as_str(), "shape" | "stride") => {
                let tensor = m.receiver.to_token_stream().to_string();
                let dim = match m.args.first() {
                    Some(Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(dim),
                        ..
                    })) => dim.base10_parse::<u32>().ok(),
                    _ => None,
                };
                match (self.tensors.contains(&tensor), dim) {
                    (true, Some(dim)) => {
                        let method = m.method.to_string();
                        let key = (tensor.clone(), method.clone(), dim);
                        if !self.metadata.contains(&key) {
                            self.metadata.push(key);
                        }
                        let ident = syn::Ident::new(&format!("{tensor}_{method}_{dim}"), m.method.span());
                        *e = parse_quote!(#ident);
                    }
                    (true, None) => {
                        self.refuse(m, "a tensor's shape or stride of a dimension not written as a literal")
                    }
                    (false, _) => {}
                }
                return;
            }
            Expr::Call(c) => {
                if let Expr::Path(f) = &*c.func {
                    let name = last_segment(&f.path);
                    let segments: Vec<String> = f.path.segments.iter().map(|s| s.ident.to_string()).collect();
                    match (segments.first().map(String::as_str), name.as_str(), c.args.len()) {
                        (_, "sync_cube" | "sync_units", 0) => {
                            *e = parse_quote!(thread::sync_threads());
                            return;
                        }
                        (Some("SharedMemory"), "new", 1) => {
                            let Some(elem) = only_type_argument(&f.path.segments[0].arguments).cloned() else {
                                self.refuse(c, "`SharedMemory::new` without its element type");
                                return;
                            };
                            let mut elem = elem;
                            self.visit_type_mut(&mut elem);
                            let len = &c.args[0];
                            *e = parse_quote!(shared_array![#elem; #len]);
                            return;
                        }
                        (Some("SharedMemory"), _, _) => {
                            self.refuse(c, "`SharedMemory` of lines (`new_lined`)");
                            return;
                        }
                        (Some(generic), "cast_from", 1)
                            if self.types.contains_key(generic) || Context::primitive(generic).is_some() =>
                        {
                            let ty: Type = self
                                .types
                                .get(generic)
                                .and_then(|t| syn::parse_str(t).ok())
                                .unwrap_or_else(|| syn::parse_str(generic).unwrap_or(parse_quote!(u32)));
                            let mut inner = c.args[0].clone();
                            self.visit_expr_mut(&mut inner);
                            *e = parse_quote!(((#inner) as #ty));
                            return;
                        }
                        (Some(generic), "new", 1) if self.types.contains_key(generic) => {
                            let ty: Type = syn::parse_str(&self.types[generic]).unwrap_or(parse_quote!(f32));
                            let mut inner = c.args[0].clone();
                            self.visit_expr_mut(&mut inner);
                            *e = parse_quote!(((#inner) as #ty));
                            return;
                        }
                        (Some("Line"), "new", 1) if self.line.is_some() => {
                            let line = self.line.clone();
                            let mut inner = c.args[0].clone();
                            self.visit_expr_mut(&mut inner);
                            *e = parse_quote!(#line::splat(#inner));
                            return;
                        }
                        (Some("Line"), _, _) => {
                            self.refuse(c, "a `Line` built or mapped in the kernel (`Line::new`, `Line::abs`)");
                            return;
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}
