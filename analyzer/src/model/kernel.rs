//! Finding kernels in a file, their parameters, and the launch each runs under.

use crate::model::comments::{comments, Comment};
use crate::model::launch::{
    hint_text, is_launch_hint, parse_hint_body, BlockSource, Dim3, LaunchPlan, ResolvedLaunch, DEFAULT_BLOCK,
};
use crate::model::{cfg, rust_gpu};
use crate::source::Unsupported;
use crate::source::{SourceFile, Span};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use syn::{Attribute, FnArg, Item, ItemFn, Pat, Type, Visibility};

/// A kernel entry point.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// Function name.
    pub name: String,
    /// Span of the name.
    pub span: Span,
    /// The function itself, shared by the copies of the kernel made for each launch.
    pub item: std::rc::Rc<ItemFn>,
    /// The launch its predictions assume.
    pub launch: ResolvedLaunch,
    /// Its parameters, in order.
    pub params: Vec<KernelParam>,
    /// The inline modules it is written in, from the file's own module (`["kernels"]` for a
    /// kernel inside `mod kernels { .. }`): its names resolve there.
    pub inline_module: Vec<String>,
    /// The workgroup sizes its attribute may declare in the build it is analyzed as, when
    /// several may (`cfg_attr`s under features that are not known): each with the condition
    /// that selects it, the one `launch` holds first. Empty otherwise.
    pub build_blocks: Vec<(Dim3, String)>,
}

/// A crate that compiles a kernel's file, with the features it is compiled with when known:
/// they decide which of the kernel's `cfg_attr`s apply.
#[derive(Debug, Clone, Copy)]
pub struct Build<'a> {
    pub krate: &'a str,
    pub features: Option<&'a BTreeSet<String>>,
}

/// A parameter of a kernel, as the configuration names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelParam {
    /// The parameter's name.
    pub name: String,
    /// Its type as written.
    pub ty: String,
    /// What kind of value it holds.
    pub kind: ParamKind,
}

/// The kinds of kernel parameter the configuration's values are checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ParamKind {
    /// `u8` to `u128`, `usize`: no negative value fits.
    Unsigned,
    /// `i8` to `i128`, `isize`.
    Signed,
    /// `f32`, `f64`.
    Float,
    /// Anything else: a pointer, a slice, a struct.
    Other,
}

impl ParamKind {
    /// The kind of a parameter of type `ty`, by its last path segment.
    pub fn of_type(ty: &Type) -> ParamKind {
        let primitive = match ty {
            Type::Path(path) if path.qself.is_none() => path.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        match primitive.as_deref() {
            Some("u8" | "u16" | "u32" | "u64" | "u128" | "usize") => ParamKind::Unsigned,
            Some("i8" | "i16" | "i32" | "i64" | "i128" | "isize") => ParamKind::Signed,
            Some("f32" | "f64") => ParamKind::Float,
            _ => ParamKind::Other,
        }
    }
}

impl Kernel {
    /// The span of the kernel's whole item in `file`, attributes and doc comments included:
    /// the one [`SourceFile::span_of_node`] gives, read from the first outer attribute (else
    /// the visibility, else the signature) and the body's closing brace, without printing
    /// the item.
    pub fn item_span(&self, file: &SourceFile) -> Span {
        let item = &self.item;
        let first = match (
            item.attrs.iter().find(|a| matches!(a.style, syn::AttrStyle::Outer)),
            &item.vis,
        ) {
            (Some(attr), _) => file.span_of_node(attr),
            (None, Visibility::Inherited) => file.span_of_node(&item.sig),
            (None, vis) => file.span_of_node(vis),
        };
        let end = file.span_of(item.block.brace_token.span.close()).end;
        Span {
            end: end.max(first.end),
            ..first
        }
    }
}

impl KernelParam {
    /// The parameters of a function that have a plain name (`n: u32`, `mut n: u32`), with each
    /// type written as `type_text` gives it.
    pub fn named(item: &ItemFn, type_text: impl Fn(&Type) -> String) -> Vec<KernelParam> {
        item.sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                FnArg::Typed(typed) => Some(typed),
                FnArg::Receiver(_) => None,
            })
            .filter_map(|typed| {
                let Pat::Ident(ident) = &*typed.pat else {
                    return None;
                };
                Some(KernelParam {
                    name: ident.ident.to_string(),
                    ty: type_text(&typed.ty),
                    kind: ParamKind::of_type(&typed.ty),
                })
            })
            .collect()
    }
}

/// A GPU dialect whose entry points are recognized but not analyzed yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Dialect {
    /// AMD GPU kernels: `extern "gpu-kernel"`, `extern "amdgpu-kernel"`.
    #[serde(rename = "amdgpu")]
    AmdGpu,
}

impl Dialect {
    /// The dialect's name as reports write it.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::AmdGpu => "amdgpu",
        }
    }
}

/// An entry point of a recognized dialect that is not analyzed: reported so that its kernels
/// are not silently taken for free of findings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnanalyzedKernel {
    /// Function name.
    pub name: String,
    /// Span of the name.
    pub span: Span,
    /// Which dialect it is written in.
    pub dialect: Dialect,
}

/// The entry points of a file (also inside inline modules) written in a dialect that is
/// recognized but not analyzed, in source order.
pub fn find_unanalyzed(file: &SourceFile, syntax: &syn::File) -> Vec<UnanalyzedKernel> {
    let mut found = Vec::new();
    collect_unanalyzed(file, &syntax.items, &mut found);
    found
}

fn collect_unanalyzed(file: &SourceFile, items: &[Item], out: &mut Vec<UnanalyzedKernel>) {
    for item in items {
        match item {
            Item::Fn(f) => {
                if let Some(dialect) = dialect_of(f) {
                    out.push(UnanalyzedKernel {
                        name: f.sig.ident.to_string(),
                        span: file.span_of(f.sig.ident.span()),
                        dialect,
                    });
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_unanalyzed(file, items, out);
                }
            }
            _ => {}
        }
    }
}

/// The dialect of an entry point kernel-lint does not analyze, if `f` is one.
fn dialect_of(f: &ItemFn) -> Option<Dialect> {
    let abi = f
        .sig
        .abi
        .as_ref()
        .and_then(|abi| abi.name.as_ref())
        .map(syn::LitStr::value);
    matches!(abi.as_deref(), Some("gpu-kernel" | "amdgpu-kernel")).then_some(Dialect::AmdGpu)
}

/// A `kernel-lint:` hint comment of a file.
#[derive(Debug, Clone, Copy)]
struct Hint {
    comment: Comment,
    /// Whether a kernel took it (or reported it).
    used: bool,
}

/// Finds the kernels of a file (also inside inline modules), in source order.
///
/// Problems with the file's launch hints (malformed, out of range, not above a kernel) go to
/// `unsupported`, each at the hint comment.
pub fn find_kernels(
    file: &SourceFile,
    syntax: &syn::File,
    plan: &LaunchPlan,
    builds: &[Build<'_>],
    unsupported: &mut Vec<Unsupported>,
) -> Vec<Kernel> {
    find_kernels_where(file, syntax, plan, builds, unsupported, |_| true)
}

/// Like [`find_kernels`], keeping only the kernels whose name is `wanted`; the problems of
/// every hint are still reported. `builds` are the crates that compile the file, the one it is
/// analyzed as first (none: a file of its own, its features unknown).
pub fn find_kernels_where(
    file: &SourceFile,
    syntax: &syn::File,
    plan: &LaunchPlan,
    builds: &[Build<'_>],
    unsupported: &mut Vec<Unsupported>,
    wanted: impl Fn(&str) -> bool,
) -> Vec<Kernel> {
    let mut found = Vec::new();
    collect(&syntax.items, &mut Vec::new(), &mut found);
    let all_comments = comments(&file.text);
    let mut hints: Vec<Hint> = all_comments
        .iter()
        .filter(|c| !c.is_inner_doc(&file.text) && is_launch_hint(c.body(&file.text)))
        .map(|&comment| Hint { comment, used: false })
        .collect();
    let kernels = found
        .into_iter()
        .filter_map(|(inline_module, item)| {
            let name = item.sig.ident.to_string();
            let span = file.span_of(item.sig.ident.span());
            let spec = plan.find(&file.path, &name);
            let hint = hint_of(file, item, &all_comments, &mut hints, unsupported);
            let mut build_blocks = Vec::new();
            let (block, block_source) = match (spec.and_then(|s| s.block), hint) {
                (Some(block), _) => (block, BlockSource::Config),
                (None, Some(block)) => (block, BlockSource::Hint),
                (None, None) => match attribute_block(file, item, builds, unsupported) {
                    Some(blocks) => {
                        let block = blocks[0].0;
                        if blocks.len() > 1 {
                            build_blocks = blocks;
                        }
                        (block, BlockSource::Attribute)
                    }
                    None => (DEFAULT_BLOCK, BlockSource::Default),
                },
            };
            let launch = ResolvedLaunch {
                block,
                grid: spec.and_then(|s| s.grid),
                block_source,
                params: spec.map(|s| s.params.clone()).unwrap_or_default(),
                float_params: spec.map(|s| s.float_params.clone()).unwrap_or_default(),
                unknown_block: [false; 3],
            };
            // Only a kept kernel's syntax is copied.
            wanted(&name).then(|| Kernel {
                name,
                span,
                item: std::rc::Rc::new(item.clone()),
                launch,
                params: params_of(file, item),
                inline_module,
                build_blocks,
            })
        })
        .collect();
    for hint in hints.iter().filter(|h| !h.used) {
        let message = "no kernel follows it: a hint goes directly above a kernel or among its attributes";
        unsupported.push(hint_problem(file, &hint.comment, message));
    }
    unsupported.sort_by_key(|u| u.span.start);
    kernels
}

/// The blocks a kernel's own attribute fixes (rust-gpu's `threads(..)`) in the build it is
/// analyzed as (the first of `builds`), each with the `cfg_attr` condition that selects it:
/// one entry when the build's features decide, several when they are not known. Other crates
/// compiling the file build other code under other features; the sizes they select are named
/// in a note, not analyzed under this build's code. An attribute whose size cannot be read is
/// reported at the attribute.
fn attribute_block(
    file: &SourceFile,
    item: &ItemFn,
    builds: &[Build<'_>],
    unsupported: &mut Vec<Unsupported>,
) -> Option<Vec<(Dim3, String)>> {
    let declared = rust_gpu::declared_sizes(item);
    let attr_span = || {
        let attr = item.attrs.iter().find(|a| {
            let text = quote::ToTokens::to_token_stream(a).to_string();
            text.contains("spirv") && text.contains("compute")
        });
        attr.map_or_else(|| file.span_of(item.sig.ident.span()), |a| file.span_of_node(a))
    };
    let selected = |features: Option<&BTreeSet<String>>| -> Vec<&rust_gpu::DeclaredSize> {
        let holds = |d: &&rust_gpu::DeclaredSize| {
            d.predicate
                .as_ref()
                .is_none_or(|p| cfg::eval_on(p, features, Some(cfg::SPIRV)) != Some(false))
        };
        declared.iter().filter(holds).collect()
    };
    let mut primary = selected(builds.first().and_then(|b| b.features));
    if primary.is_empty() {
        // The build rules every size out: the kernel is no shader there; its first size
        // stands for the others'.
        primary = declared.iter().take(1).collect();
    }
    let condition = |d: &rust_gpu::DeclaredSize| {
        d.predicate.as_ref().map_or_else(
            || "every build".to_string(),
            |p| format!("cfg({})", quote::ToTokens::to_token_stream(p)),
        )
    };
    let mut blocks: Vec<(Dim3, String)> = Vec::new();
    for declared in primary {
        match &declared.size {
            Ok(block) if blocks.iter().any(|(b, _)| b == block) => {}
            Ok(block) => blocks.push((*block, condition(declared))),
            Err(message) => {
                unsupported.push(Unsupported {
                    span: attr_span(),
                    file: None,
                    message: format!("workgroup size not read: {message}; the default block is assumed"),
                });
                return None;
            }
        }
    }
    let mut elsewhere: Vec<String> = Vec::new();
    for build in builds.iter().skip(1) {
        for other in selected(build.features) {
            let Ok([x, y, z]) = other.size else { continue };
            if blocks.iter().all(|(b, _)| *b != [x, y, z]) {
                elsewhere.push(format!(
                    "`{}` builds it with ({x}, {y}, {z}) under {}",
                    build.krate,
                    condition(other)
                ));
            }
        }
    }
    if let (false, Some(krate)) = (elsewhere.is_empty(), builds.first()) {
        unsupported.push(Unsupported {
            span: attr_span(),
            file: None,
            message: format!(
                "`{}` is analyzed as `{}` builds it; {}: those builds, with their own features, are not analyzed",
                item.sig.ident,
                krate.krate,
                elsewhere.join("; ")
            ),
        });
    }
    (!blocks.is_empty()).then_some(blocks)
}

/// The parameters of a kernel that have a plain name, with their types as written.
fn params_of(file: &SourceFile, item: &ItemFn) -> Vec<KernelParam> {
    KernelParam::named(item, |ty| file.snippet(file.span_of_node(ty)).to_string())
}

/// The block of a kernel's launch hint: the first `kernel-lint:` comment directly above the
/// kernel (comment lines with no blank line between them and the kernel) or among its
/// attributes. Hints it takes are marked used; malformed ones and extra ones are reported.
fn hint_of(
    file: &SourceFile,
    item: &ItemFn,
    all_comments: &[Comment],
    hints: &mut [Hint],
    unsupported: &mut Vec<Unsupported>,
) -> Option<Dim3> {
    let sig_start = file.span_of_node(&item.sig).start;
    let end = match &item.vis {
        Visibility::Inherited => sig_start,
        vis => file.span_of_node(vis).start.min(sig_start),
    };
    let first = item
        .attrs
        .iter()
        .map(|a| file.span_of_node(a).start)
        .chain([end])
        .min()
        .unwrap_or(end);
    let start = directly_above(&file.text, first, all_comments);
    let mut block = None;
    for hint in hints
        .iter_mut()
        .filter(|h| h.comment.start >= start && h.comment.end <= end)
    {
        hint.used = true;
        let body = hint_text(hint.comment.body(&file.text)).unwrap_or_default();
        match (parse_hint_body(body), block) {
            (Ok(dims), None) => block = Some(dims),
            (Ok(_), Some(_)) => {
                let message = format!("`{}` already has a hint above this one", item.sig.ident);
                unsupported.push(hint_problem(file, &hint.comment, &message));
            }
            (Err(message), _) => unsupported.push(hint_problem(file, &hint.comment, &message)),
        }
    }
    block
}

/// The start of the comments directly above `offset`: each on a line of its own, with no blank
/// line between it and what follows.
fn directly_above(text: &str, mut offset: usize, all_comments: &[Comment]) -> usize {
    let mut index = all_comments.partition_point(|c| c.end <= offset);
    while let Some(comment) = index.checked_sub(1).and_then(|i| all_comments.get(i)) {
        let gap = text.get(comment.end..offset).unwrap_or("x");
        let line_start = text[..comment.start].rfind('\n').map_or(0, |i| i + 1);
        let alone = text[line_start..comment.start].trim().is_empty();
        if !(gap.trim().is_empty() && gap.matches('\n').count() <= 1 && alone) {
            break;
        }
        offset = comment.start;
        index -= 1;
    }
    offset
}

/// A located problem with a hint, at the start of its comment.
fn hint_problem(file: &SourceFile, comment: &Comment, message: &str) -> Unsupported {
    let (line, column) = file.line_column(comment.start);
    Unsupported {
        span: Span {
            start: comment.start,
            end: comment.end,
            line,
            column,
        },
        file: None,
        message: format!("ignored launch hint: {message}"),
    }
}

/// The names of the kernels among `items` (inline modules included), in source order: what
/// counting kernels of one name needs, without building each kernel.
pub fn kernel_names(items: &[Item]) -> Vec<String> {
    let mut found = Vec::new();
    collect(items, &mut Vec::new(), &mut found);
    found.into_iter().map(|(_, f)| f.sig.ident.to_string()).collect()
}

fn collect<'a>(items: &'a [Item], path: &mut Vec<String>, out: &mut Vec<(Vec<String>, &'a ItemFn)>) {
    for item in items {
        match item {
            Item::Fn(f) if is_kernel(f) && compiled_for_device(f) => out.push((path.clone(), f)),
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    path.push(m.ident.to_string());
                    collect(items, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
}

/// Kernels declared without a body (`#[kernel] fn k(..);`, also in an `extern` block): the
/// name and its place of each, so that they are reported rather than silently left out.
pub fn find_bodiless(file: &SourceFile, items: &[Item]) -> Vec<(String, Span)> {
    let note = |f: syn::ForeignItemFn| {
        let span = file.span_of(f.sig.ident.span());
        let as_fn = ItemFn {
            attrs: f.attrs,
            vis: f.vis,
            sig: f.sig,
            block: Box::new(syn::parse_quote!({})),
        };
        is_kernel(&as_fn).then(|| (as_fn.sig.ident.to_string(), span))
    };
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Verbatim(tokens) => {
                out.extend(syn::parse2::<syn::ForeignItemFn>(tokens.clone()).ok().and_then(note));
            }
            Item::ForeignMod(block) => {
                for foreign in &block.items {
                    if let syn::ForeignItem::Fn(f) = foreign {
                        out.extend(note(f.clone()));
                    }
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    out.extend(find_bodiless(file, items));
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether a function is a kernel: `#[kernel]`, `#[cuda_std::kernel]`,
/// `#[cfg_attr(.., kernel)]`, `extern "ptx-kernel"`, CubeCL's `#[cube(launch)]` or a rust-gpu
/// compute shader.
/// Whether a kernel's own `#[cfg]` may hold on the device it is compiled for: the host half
/// of a kernel written twice (`#[cfg(not(target_arch = "nvptx64"))]`, an empty stub so that
/// host code links) is no kernel. CubeCL kernels are expanded on the host: no device decides.
fn compiled_for_device(f: &ItemFn) -> bool {
    if crate::model::cubecl::is_launch_entry(f) {
        return true;
    }
    let target = if rust_gpu::is_compute_shader(f) {
        cfg::SPIRV
    } else {
        cfg::NVPTX
    };
    cfg::active_on(&f.attrs, None, Some(target))
}

pub fn is_kernel(f: &ItemFn) -> bool {
    if crate::model::cubecl::is_launch_entry(f) {
        return true;
    }
    let ptx_abi = f
        .sig
        .abi
        .as_ref()
        .and_then(|abi| abi.name.as_ref())
        .is_some_and(|name| name.value() == "ptx-kernel");
    ptx_abi || f.attrs.iter().any(is_kernel_attr) || rust_gpu::is_compute_shader(f)
}

fn is_kernel_attr(attr: &Attribute) -> bool {
    let last = |path: &syn::Path| path.segments.last().is_some_and(|s| s.ident == "kernel");
    if last(attr.path()) {
        return true;
    }
    if !attr.path().is_ident("cfg_attr") {
        return false;
    }
    let Ok(list) = attr.meta.require_list() else {
        return false;
    };
    let Ok(metas) = list.parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
    else {
        return false;
    };
    metas.iter().skip(1).any(|m| last(m.path()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::launch::LaunchSpec;

    fn kernels(src: &str, plan: &LaunchPlan) -> (Vec<Kernel>, Vec<Unsupported>) {
        let file = SourceFile::new("k.rs", src);
        let syntax = syn::parse_file(src).unwrap();
        let mut unsupported = Vec::new();
        (find_kernels(&file, &syntax, plan, &[], &mut unsupported), unsupported)
    }

    #[test]
    fn an_item_span_is_the_span_of_the_whole_item() {
        let src = r#"
/// Doc.
// kernel-lint: block(64)
#[kernel]
#[allow(unused)]
pub unsafe fn a(x: &[f32]) { let _ = x[0]; }
fn helper() {}
#[kernel] pub unsafe fn b() { { } }
unsafe extern "ptx-kernel" fn c() {
    #![allow(unused)]
}
mod inner {
    #[cfg_attr(target_os = "cuda", kernel)]
    pub(crate) unsafe fn d() {}
}
"#;
        let file = SourceFile::new("k.rs", src);
        let (found, _) = kernels(src, &LaunchPlan::default());
        assert_eq!(found.len(), 4);
        for kernel in &found {
            assert_eq!(
                kernel.item_span(&file),
                file.span_of_node(&kernel.item),
                "{}",
                kernel.name
            );
        }
        let a = found[0].item_span(&file);
        assert_eq!(&src[a.start..a.end], &src[1..src.find("\nfn helper").expect("there")]);
    }

    #[test]
    fn every_kernel_spelling_is_found() {
        let src = r#"
#[kernel]
pub unsafe fn a() {}
#[cuda_std::kernel]
pub unsafe fn b() {}
#[cfg_attr(target_os = "cuda", kernel)]
pub unsafe fn c() {}
#[no_mangle]
pub unsafe extern "ptx-kernel" fn d() {}
pub fn not_a_kernel() {}
mod inner { #[kernel] pub unsafe fn e() {} }
"#;
        let (found, _) = kernels(src, &LaunchPlan::default());
        let names: Vec<_> = found.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e"]);
        assert_eq!(found[0].span.line, 3);
        assert_eq!(found[0].launch.block_source, BlockSource::Default);
    }

    #[test]
    fn other_dialects_are_recognized_cubecl_analyzed() {
        let src = r#"
#[spirv(compute(threads(64)))]
pub fn a() {}
#[cube(launch)]
fn b() {}
#[cube(launch_unchecked)]
fn c() {}
#[cube]
fn helper() {}
#[spirv(fragment)]
pub fn frag() {}
mod inner { pub extern "gpu-kernel" fn d() {} }
#[kernel]
pub unsafe fn e() {}
"#;
        let file = SourceFile::new("k.rs", src);
        let syntax = syn::parse_file(src).unwrap();
        let found: Vec<(String, &str)> = find_unanalyzed(&file, &syntax)
            .into_iter()
            .map(|k| (k.name, k.dialect.name()))
            .collect();
        let expected = [("d", "amdgpu")];
        assert_eq!(found, expected.map(|(n, d)| (n.to_string(), d)));
        // CubeCL entry points and rust-gpu compute shaders are analyzed, the shader with the
        // block its attribute declares; CubeCL's `#[cube]` helpers and a fragment shader are no
        // kernels.
        let (kernels, _) = kernels(src, &LaunchPlan::default());
        let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "e"]);
        assert_eq!(
            blocks(src),
            [
                ([64, 1, 1], BlockSource::Attribute),
                (DEFAULT_BLOCK, BlockSource::Default),
                (DEFAULT_BLOCK, BlockSource::Default),
                (DEFAULT_BLOCK, BlockSource::Default)
            ]
        );
    }

    #[test]
    fn config_beats_hint_beats_default() {
        let src = "// kernel-lint: block(16, 16)\n#[kernel]\npub unsafe fn t() {}\n// kernel-lint: block(32)\n#[kernel]\npub unsafe fn u() {}\n";
        let plan = LaunchPlan {
            specs: vec![LaunchSpec {
                kernel: "u".into(),
                block: Some([64, 2, 1]),
                ..Default::default()
            }],
        };
        let (found, _) = kernels(src, &plan);
        assert_eq!(
            (found[0].launch.block, found[0].launch.block_source),
            ([16, 16, 1], BlockSource::Hint)
        );
        assert_eq!(
            (found[1].launch.block, found[1].launch.block_source),
            ([64, 2, 1], BlockSource::Config)
        );
    }

    #[test]
    fn malformed_hint_is_reported_and_ignored() {
        let src = "\n  // kernel-lint: block(16, x)\n#[kernel]\npub unsafe fn t() {}\n";
        let (found, unsupported) = kernels(src, &LaunchPlan::default());
        assert_eq!(found[0].launch.block_source, BlockSource::Default);
        assert_eq!(unsupported.len(), 1);
        assert_eq!((unsupported[0].span.line, unsupported[0].span.column), (2, 3));
        assert!(
            unsupported[0].message.contains("`x` is not a block extent"),
            "{}",
            unsupported[0].message
        );
    }

    /// Each problem as `line:column: message`.
    fn problems(src: &str) -> Vec<String> {
        let (_, unsupported) = kernels(src, &LaunchPlan::default());
        unsupported
            .iter()
            .map(|u| format!("{}:{}: {}", u.span.line, u.span.column, u.message))
            .collect()
    }

    fn blocks(src: &str) -> Vec<(Dim3, BlockSource)> {
        let (found, _) = kernels(src, &LaunchPlan::default());
        found.iter().map(|k| (k.launch.block, k.launch.block_source)).collect()
    }

    #[test]
    fn hints_after_attributes_and_in_block_comments() {
        let src = "#[kernel]\n// kernel-lint: block(16, 16)\npub unsafe fn a() {}\n\
                   /* kernel-lint: block(32, 8) */\n#[kernel]\npub unsafe fn b() {}\n\
                   #[no_mangle]\n/* kernel-lint: block(64) */\n#[kernel]\nunsafe fn c() {}\n\
                   /*\n * kernel-lint: block(8, 8)\n */\n// more words\n#[cfg_attr(\n    target_os = \"cuda\",\n    kernel\n)]\npub unsafe fn d() {}\n\
                   #[kernel] // kernel-lint: block(128)\npub unsafe fn e() {}\n";
        assert_eq!(
            blocks(src),
            [
                ([16, 16, 1], BlockSource::Hint),
                ([32, 8, 1], BlockSource::Hint),
                ([64, 1, 1], BlockSource::Hint),
                ([8, 8, 1], BlockSource::Hint),
                ([128, 1, 1], BlockSource::Hint),
            ]
        );
        assert_eq!(problems(src), Vec::<String>::new());
    }

    #[test]
    fn every_malformed_hint_is_located_at_its_comment() {
        let src = "// kernel-lint: block(0)\n#[kernel]\npub unsafe fn a() {}\n\
                   #[kernel]\n    /* kernel-lint: block(2048) */\npub unsafe fn b() {}\n\
                   // kernel-lint: blok(32)\n#[kernel]\npub unsafe fn c() {}\n\
                   #[kernel]\n// kernel-lint: block(32, )\npub unsafe fn d() {}\n\
                   // kernel-lint: block(one)\n#[kernel]\npub unsafe fn e() {}\n";
        assert_eq!(
            problems(src),
            [
                "1:1: ignored launch hint: block extent 0 is out of range (1 to 1024)",
                "5:5: ignored launch hint: block extent 2048 is out of range (1 to 1024)",
                "7:1: ignored launch hint: unknown hint key `blok`: did you mean `block`?",
                "11:1: ignored launch hint: missing block extent in `block(32, )`",
                "13:1: ignored launch hint: `one` is not a block extent (1 to 1024)",
            ]
        );
        assert!(blocks(src).iter().all(|b| *b == (DEFAULT_BLOCK, BlockSource::Default)));
    }

    #[test]
    fn hints_above_nothing_and_second_hints_are_reported() {
        let src = "// kernel-lint: block(32)\n\n#[kernel]\npub unsafe fn a() {}\n\
                   fn helper() {} // kernel-lint: block(16)\n#[kernel]\npub unsafe fn b() {\n    // kernel-lint: block(8)\n}\n\
                   // kernel-lint: block(64)\n// kernel-lint: block(128)\n#[kernel]\npub unsafe fn c() {}\n\
                   // kernel-lint: block(4)\nfn not_a_kernel() {}\n";
        let after =
            "ignored launch hint: no kernel follows it: a hint goes directly above a kernel or among its attributes";
        assert_eq!(
            problems(src),
            [
                format!("1:1: {after}"),
                format!("5:16: {after}"),
                format!("8:5: {after}"),
                "11:1: ignored launch hint: `c` already has a hint above this one".to_string(),
                format!("14:1: {after}"),
            ]
        );
        let found = blocks(src);
        assert_eq!(found[0].1, BlockSource::Default);
        assert_eq!(found[2], ([64, 1, 1], BlockSource::Hint));
    }

    #[test]
    fn parameters_with_their_types() {
        let src = "#[kernel]\npub unsafe fn k(a: &[f32], n: usize, mut off: i32, alpha: f32, p: Params, (x, y): (u32, u32)) {}\n";
        let (found, _) = kernels(src, &LaunchPlan::default());
        let params: Vec<(&str, &str, ParamKind)> = found[0]
            .params
            .iter()
            .map(|p| (p.name.as_str(), p.ty.as_str(), p.kind))
            .collect();
        assert_eq!(
            params,
            [
                ("a", "&[f32]", ParamKind::Other),
                ("n", "usize", ParamKind::Unsigned),
                ("off", "i32", ParamKind::Signed),
                ("alpha", "f32", ParamKind::Float),
                ("p", "Params", ParamKind::Other),
            ]
        );
    }

    #[test]
    fn float_parameters_are_recorded_not_index_values() {
        let plan = LaunchPlan {
            specs: vec![LaunchSpec {
                kernel: "k".into(),
                params: [("n".to_string(), 64)].into(),
                float_params: [("alpha".to_string(), 2.0)].into(),
                ..Default::default()
            }],
        };
        let (found, _) = kernels("#[kernel]\npub unsafe fn k(n: u32, alpha: f32) {}\n", &plan);
        assert_eq!(found[0].launch.params, [("n".to_string(), 64)].into());
        assert_eq!(found[0].launch.float_params, [("alpha".to_string(), 2.0)].into());
    }
}
