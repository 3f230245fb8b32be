//! Kernels generic over types or constants, lowered once per instantiation that the file's
//! host code launches (`module.scale::<f32>(..)`, `cuda_launch! { kernel: add_const::<4>, .. }`):
//! each instantiation is a kernel of its own, `scale_f32`, whose parameters name the concrete
//! types, so that it is analyzed, lowered and launched as any other.

use kernel_lint_analyzer::model::kernel::{Kernel, KernelParam};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::HashSet;
use syn::{Expr, GenericArgument, GenericParam, Type};

/// `kernels` with each generic kernel replaced by its instantiations that the file launches,
/// and those that `host` launches (the program of a library crate's generic kernels
/// instantiates them: `module.scale::<f32>(..)` in a sibling crate); a generic kernel that is
/// never instantiated stays, to be refused with the reason.
pub fn instantiate_kernels_launched_by(
    syntax: &syn::File,
    host: Option<&syn::File>,
    kernels: Vec<Kernel>,
) -> Vec<Kernel> {
    if kernels.iter().all(|k| !is_generic(&k.item)) {
        return kernels;
    }
    let mut tokens = syntax.to_token_stream();
    let mut placeholders = generic_names(syntax);
    if let Some(host) = host {
        tokens.extend(host.to_token_stream());
        placeholders.extend(generic_names(host));
    }
    let mut taken: HashSet<String> = kernels.iter().map(|k| k.name.clone()).collect();
    let mut out = Vec::new();
    for kernel in kernels {
        if !is_generic(&kernel.item) {
            out.push(kernel);
            continue;
        }
        if let Some(instances) = super::host_closures::instances(syntax, &tokens, &kernel, &mut taken) {
            out.extend(instances);
            continue;
        }
        let found = launches(syntax, &tokens, &kernel.name, &placeholders);
        let concrete: Vec<&Vec<String>> = found.iter().filter_map(|i| i.as_ref().ok()).collect();
        if concrete.is_empty() {
            out.push(kernel);
            continue;
        }
        for arguments in concrete {
            let Some(copy) = instance(&kernel, arguments, &mut taken) else {
                continue;
            };
            out.push(copy);
        }
    }
    out
}

/// Why a generic kernel has no instantiation to lower.
pub(super) fn why_not(syntax: &syn::File, kernel: &str) -> String {
    let tokens = syntax.to_token_stream();
    if let Some(why) = generic_kernel(syntax, kernel).and_then(|f| super::host_closures::why_not(syntax, &tokens, &f)) {
        return why;
    }
    let found = launches(syntax, &tokens, kernel, &generic_names(syntax));
    match found.iter().find_map(|i| i.as_ref().err()) {
        Some(open) => format!("its launches leave an argument to inference (`{kernel}::<{open}>`)"),
        None if inferred_launch(tokens, kernel) => {
            format!("its launches leave its arguments to inference (`.{kernel}(..)`)")
        }
        None => "no launch in this file instantiates it".to_string(),
    }
}

/// The generic kernel `name` of the file, at any module depth.
fn generic_kernel(syntax: &syn::File, name: &str) -> Option<syn::ItemFn> {
    fn find(items: &[syn::Item], name: &str) -> Option<syn::ItemFn> {
        items.iter().find_map(|item| match item {
            syn::Item::Fn(f) if f.sig.ident == name && is_generic(f) => Some(f.clone()),
            syn::Item::Mod(m) => find(&m.content.as_ref()?.1, name),
            _ => None,
        })
    }
    find(&syntax.items, name)
}

/// Whether the file calls `.name(..)` with no turbofish.
fn inferred_launch(tokens: TokenStream, name: &str) -> bool {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    trees.iter().enumerate().any(|(i, t)| match t {
        TokenTree::Group(g) => inferred_launch(g.stream(), name),
        TokenTree::Ident(id) if id == name => {
            i > 0
                && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '.')
                && matches!(trees.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
        }
        _ => false,
    })
}

/// Whether a function has parameters other than lifetimes.
pub(super) fn is_generic(f: &syn::ItemFn) -> bool {
    f.sig
        .generics
        .params
        .iter()
        .any(|p| !matches!(p, GenericParam::Lifetime(_)))
}

/// The generic parameters named anywhere in the file: `launch::<T>` inside a generic host
/// function instantiates nothing by itself.
fn generic_names(syntax: &syn::File) -> HashSet<String> {
    struct Names(HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Names {
        fn visit_generic_param(&mut self, p: &'ast GenericParam) {
            match p {
                GenericParam::Type(t) => {
                    self.0.insert(t.ident.to_string());
                }
                GenericParam::Const(c) => {
                    self.0.insert(c.ident.to_string());
                }
                GenericParam::Lifetime(_) => {}
            }
            syn::visit::visit_generic_param(self, p);
        }
    }
    let mut names = Names(HashSet::new());
    syn::visit::visit_file(&mut names, syntax);
    names.0
}

/// Every `name::<..>` of the file, in order, distinct: its arguments as source text, or the
/// text when one is inferred (`_`) or names a generic parameter.
fn launches(
    syntax: &syn::File,
    tokens: &TokenStream,
    name: &str,
    placeholders: &HashSet<String>,
) -> Vec<Result<Vec<String>, String>> {
    let mut found = Vec::new();
    scan(tokens.clone(), name, &mut found);
    // `kernels::name_ptx_name::<4>()` names the entry point of that instantiation.
    scan(tokens.clone(), &format!("{name}_ptx_name"), &mut found);
    let mut seen = HashSet::new();
    found
        .into_iter()
        .map(|mut args| {
            // `{ Eight::VALUE }`: the integer the file's impl gives the constant.
            for arg in args.args.iter_mut() {
                if let GenericArgument::Const(e) = arg {
                    if let Some(value) = block_constant(syntax, e) {
                        *e = value;
                    }
                }
            }
            args
        })
        .filter_map(|args| {
            let text: Vec<String> = args.args.iter().map(|a| a.to_token_stream().to_string()).collect();
            if !seen.insert(text.clone()) {
                return None;
            }
            let open = args.args.iter().any(|a| match a {
                GenericArgument::Type(t) => mentions(t.to_token_stream(), placeholders),
                GenericArgument::Const(c) => !matches!(c, Expr::Lit(_)),
                _ => true,
            });
            Some(if open { Err(text.join(", ")) } else { Ok(text) })
        })
        .collect()
}

/// Whether a type is `_` or names one of `placeholders`.
fn mentions(tokens: TokenStream, placeholders: &HashSet<String>) -> bool {
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == "_" || placeholders.contains(&i.to_string()),
        TokenTree::Punct(p) => p.as_char() == '_',
        TokenTree::Group(g) => mentions(g.stream(), placeholders),
        TokenTree::Literal(_) => false,
    })
}

/// The turbofish arguments following each `name ::` in `tokens`, macro bodies included.
fn scan(tokens: TokenStream, name: &str, found: &mut Vec<syn::AngleBracketedGenericArguments>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tree) in trees.iter().enumerate() {
        match tree {
            TokenTree::Group(g) => scan(g.stream(), name, found),
            TokenTree::Ident(id) if id == name => {
                let colons = trees
                    .get(i + 1..i + 3)
                    .is_some_and(|t| t.iter().all(|c| matches!(c, TokenTree::Punct(p) if p.as_char() == ':')));
                if !colons || !matches!(trees.get(i + 3), Some(TokenTree::Punct(p)) if p.as_char() == '<') {
                    continue;
                }
                // The arguments end at the `>` that closes the `<`.
                let mut depth = 0usize;
                let mut end = None;
                for (j, t) in trees.iter().enumerate().skip(i + 3) {
                    if let TokenTree::Punct(p) = t {
                        match p.as_char() {
                            '<' => depth += 1,
                            '>' if !matches!(trees.get(j - 1), Some(TokenTree::Punct(q)) if q.as_char() == '-') => {
                                depth -= 1;
                                if depth == 0 {
                                    end = Some(j);
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                }
                let Some(end) = end else { continue };
                let args: TokenStream = trees[i + 1..=end].iter().cloned().collect();
                if let Ok(parsed) = syn::parse2::<syn::AngleBracketedGenericArguments>(args) {
                    found.push(parsed);
                }
            }
            _ => {}
        }
    }
}

/// The kernel for one instantiation: its generic parameters replaced by `arguments`, named
/// after them (`scale_f32`, `write_value_4`), with the concrete parameter types.
fn instance(kernel: &Kernel, arguments: &[String], taken: &mut HashSet<String>) -> Option<Kernel> {
    let params = super::substitution::generic_names(&kernel.item.sig.generics);
    if params.len() != arguments.len() {
        return None;
    }
    let values: Vec<TokenStream> = arguments.iter().map(|a| a.parse().ok()).collect::<Option<_>>()?;
    let suffix: String = arguments
        .join("_")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let suffix: Vec<&str> = suffix.split('_').filter(|s| !s.is_empty()).collect();
    let mut name = format!("{}_{}", kernel.name, suffix.join("_"));
    while !taken.insert(name.clone()) {
        name.push('_');
    }
    let mut plain = (*kernel.item).clone();
    plain.sig.generics = syn::Generics::default();
    plain.sig.ident = syn::Ident::new(&name, kernel.item.sig.ident.span());
    let item: syn::ItemFn = syn::parse2(super::substitution::substitute(
        plain.to_token_stream(),
        &params,
        &values,
    ))
    .ok()?;
    Some(Kernel {
        name,
        params: params_of(&item),
        item: item.into(),
        ..kernel.clone()
    })
}

/// The named parameters of an instantiated kernel, with their kinds.
pub(super) fn params_of(item: &syn::ItemFn) -> Vec<KernelParam> {
    KernelParam::named(item, |ty| ty.to_token_stream().to_string())
}

/// A helper still generic is lowered only as the copies its calls with explicit arguments
/// instantiate; a call that leaves them to inference is refused with this reason.
pub(super) fn refuse_generic_helpers(helpers: &[&syn::ItemFn], failed: &mut std::collections::HashMap<String, String>) {
    // Those generic over types only are function templates, which C++ instantiates.
    for f in helpers
        .iter()
        .filter(|f| is_generic(f) && super::templates::type_params(f).is_none())
    {
        let params: Vec<String> = f
            .sig
            .generics
            .params
            .iter()
            .filter(|p| !matches!(p, GenericParam::Lifetime(_)))
            .map(|p| p.to_token_stream().to_string())
            .collect();
        failed.insert(
            f.sig.ident.to_string(),
            format!(
                "it is generic over `{}` and this call leaves the arguments to inference",
                params.join(", ")
            ),
        );
    }
}

/// `{ Eight::VALUE }` as the integer literal of `const VALUE` in an impl of `Eight` in the file.
fn block_constant(syntax: &syn::File, e: &Expr) -> Option<Expr> {
    let Expr::Block(b) = e else { return None };
    let [syn::Stmt::Expr(Expr::Path(p), None)] = b.block.stmts.as_slice() else {
        return None;
    };
    let [ty, constant] = p.path.segments.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    fn find(items: &[syn::Item], ty: &syn::Ident, constant: &syn::Ident) -> Option<Expr> {
        items.iter().find_map(|item| match item {
            syn::Item::Mod(m) => find(&m.content.as_ref()?.1, ty, constant),
            syn::Item::Impl(i) if matches!(&*i.self_ty, Type::Path(t) if t.path.is_ident(ty)) => {
                i.items.iter().find_map(|member| match member {
                    syn::ImplItem::Const(c) if c.ident == *constant => match &c.expr {
                        Expr::Lit(l) if matches!(l.lit, syn::Lit::Int(_)) => Some(c.expr.clone()),
                        _ => None,
                    },
                    _ => None,
                })
            }
            _ => None,
        })
    }
    find(&syntax.items, &ty.ident, &constant.ident)
}

/// The host program of the example a library crate's file belongs to: for
/// `ex/kernel-lib/src/lib.rs`, `ex/src/main.rs`, parsed; `None` when there is none.
pub fn host_program(path: &str) -> Option<syn::File> {
    let path = std::path::Path::new(path);
    let src = path.ancestors().find(|a| a.file_name().is_some_and(|n| n == "src"))?;
    let example = src.parent()?.parent()?;
    let host = example.join("src").join("main.rs");
    if host == path {
        return None;
    }
    syn::parse_file(&std::fs::read_to_string(host).ok()?).ok()
}
