//! Kernels generic over a closure type that host code builds: `map::<f32, _>` launched with
//! `move |x: f32| x * factor`. Each distinct closure makes a kernel of its own, `map_f32_c1`,
//! whose closure parameter is gone and whose body starts by binding the closure, with each
//! captured host variable as the literal the host binds it to:
//! `let factor = 2.5f32; let f = move |x: f32| x * factor;`.

use kernel_lint_analyzer::model::kernel::{Kernel, KernelParam};
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::{HashMap, HashSet};
use syn::{Expr, GenericArgument, GenericParam, Type, TypeParamBound};

/// The generic parameter a kernel takes a closure of: its position among the non-lifetime
/// parameters, and the kernel parameter (`f: F`) holding it.
struct ClosureParam {
    position: usize,
    name: String,
    mutable: bool,
}

fn closure_param(f: &syn::ItemFn) -> Option<ClosureParam> {
    let params: Vec<&GenericParam> = f
        .sig
        .generics
        .params
        .iter()
        .filter(|p| !matches!(p, GenericParam::Lifetime(_)))
        .collect();
    fn is_fn<'a>(mut bounds: impl Iterator<Item = &'a TypeParamBound>) -> bool {
        bounds.any(|b| {
            matches!(b, TypeParamBound::Trait(t) if t.path.segments.last().is_some_and(|s| ["Fn", "FnMut", "FnOnce"].contains(&s.ident.to_string().as_str())))
        })
    }
    let (position, ident) = params.iter().enumerate().find_map(|(i, p)| {
        let GenericParam::Type(t) = p else { return None };
        let in_where = f.sig.generics.where_clause.iter().flat_map(|w| &w.predicates).any(|w| {
            matches!(w, syn::WherePredicate::Type(pt)
                if matches!(&pt.bounded_ty, Type::Path(tp) if tp.path.is_ident(&t.ident))
                    && is_fn(pt.bounds.iter()))
        });
        (is_fn(t.bounds.iter()) || in_where).then(|| (i, t.ident.clone()))
    })?;
    f.sig.inputs.iter().find_map(|input| {
        let syn::FnArg::Typed(pt) = input else { return None };
        let Type::Path(tp) = &*pt.ty else { return None };
        let syn::Pat::Ident(pi) = &*pt.pat else { return None };
        tp.path.is_ident(&ident).then(|| ClosureParam {
            position,
            name: pi.ident.to_string(),
            mutable: pi.mutability.is_some(),
        })
    })
}

/// One launch's instantiation: the turbofish arguments, and the closure with the host
/// bindings of its captures, or why it is not lowered.
type Launch = Result<(Vec<String>, String), String>;

/// The instantiations of a closure-generic kernel that `tokens` launch, in order; `None` when
/// the kernel takes no closure.
fn closure_launches(syntax: &syn::File, tokens: &TokenStream, kernel: &syn::ItemFn) -> Option<Vec<Launch>> {
    let param = closure_param(kernel)?;
    let items = item_names(syntax);
    let mut scan = Scan {
        name: kernel.sig.ident.to_string(),
        position: param.position,
        arity: kernel
            .sig
            .generics
            .params
            .iter()
            .filter(|p| !matches!(p, GenericParam::Lifetime(_)))
            .count(),
        lets: HashMap::new(),
        found: Vec::new(),
        items,
    };
    scan.walk(tokens.clone());
    Some(scan.found)
}

/// The kernels for the closures launched, each named `kernel_<args>_c<k>`, or `None` when the
/// kernel takes no closure; the kernel itself stays when one of its launches is refused, to
/// be reported with [`why_not`].
pub(super) fn instances(
    syntax: &syn::File,
    tokens: &TokenStream,
    kernel: &Kernel,
    taken: &mut HashSet<String>,
) -> Option<Vec<Kernel>> {
    let param = closure_param(&kernel.item)?;
    let found = closure_launches(syntax, tokens, &kernel.item)?;
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut refused = false;
    for launch in found {
        let Ok((args, prefix)) = launch else {
            refused = true;
            continue;
        };
        if !seen.insert((args.clone(), prefix.clone())) {
            continue;
        }
        match instance(kernel, &param, &args, &prefix, seen.len(), taken) {
            Some(k) => out.push(k),
            None => refused = true,
        }
    }
    if refused || out.is_empty() {
        out.push(kernel.clone());
    }
    Some(out)
}

/// Why a closure-generic kernel keeps a launch unlowered; `None` when it takes no closure.
pub(super) fn why_not(syntax: &syn::File, tokens: &TokenStream, kernel: &syn::ItemFn) -> Option<String> {
    let found = closure_launches(syntax, tokens, kernel)?;
    found.into_iter().find_map(|l| l.err())
}

fn instance(
    kernel: &Kernel,
    param: &ClosureParam,
    args: &[String],
    prefix: &str,
    k: usize,
    taken: &mut HashSet<String>,
) -> Option<Kernel> {
    let params = super::substitution::generic_names(&kernel.item.sig.generics);
    if params.len() != args.len() {
        return None;
    }
    let mut names = Vec::new();
    let mut values = Vec::new();
    for (i, (p, a)) in params.iter().zip(args).enumerate() {
        if i != param.position {
            names.push(p.clone());
            values.push(a.parse::<TokenStream>().ok()?);
        }
    }
    let mut suffix: Vec<String> = args
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != param.position)
        .map(|(_, a)| {
            a.chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect()
        })
        .collect();
    suffix.push(format!("c{k}"));
    let suffix: Vec<String> = suffix
        .join("_")
        .split('_')
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect();
    let mut name = format!("{}_{}", kernel.name, suffix.join("_"));
    while !taken.insert(name.clone()) {
        name.push('_');
    }
    let mut plain = (*kernel.item).clone();
    plain.sig.generics = syn::Generics::default();
    plain.sig.ident = syn::Ident::new(&name, kernel.item.sig.ident.span());
    plain.sig.inputs = plain
        .sig
        .inputs
        .into_iter()
        .filter(|input| {
            !matches!(input, syn::FnArg::Typed(pt) if matches!(&*pt.pat, syn::Pat::Ident(pi) if pi.ident == param.name))
        })
        .collect();
    let binding = if param.mutable { "let mut" } else { "let" };
    // The bindings of the captures, a tab, the closure.
    let (captures, closure) = prefix.split_once('\t')?;
    let head: syn::Block = syn::parse_str(&format!("{{ {captures} {binding} {} = {closure}; }}", param.name)).ok()?;
    let mut stmts = head.stmts;
    stmts.extend(plain.block.stmts);
    plain.block.stmts = stmts;
    let item: syn::ItemFn = syn::parse2(super::substitution::substitute(
        plain.to_token_stream(),
        &names,
        &values,
    ))
    .ok()?;
    Some(Kernel {
        name,
        params: KernelParam::named(&item, |ty| ty.to_token_stream().to_string()),
        item: item.into(),
        ..kernel.clone()
    })
}

/// The names the file defines as items (constants, statics, functions, at any depth): a
/// closure naming one does not capture it.
fn item_names(syntax: &syn::File) -> HashSet<String> {
    fn walk(items: &[syn::Item], out: &mut HashSet<String>) {
        for item in items {
            match item {
                syn::Item::Const(c) => {
                    out.insert(c.ident.to_string());
                }
                syn::Item::Static(s) => {
                    out.insert(s.ident.to_string());
                }
                syn::Item::Fn(f) => {
                    out.insert(f.sig.ident.to_string());
                }
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        walk(items, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = HashSet::new();
    walk(&syntax.items, &mut out);
    out
}

struct Scan {
    name: String,
    position: usize,
    /// How many generic parameters, lifetimes aside, the kernel has.
    arity: usize,
    /// Each host `let` seen so far, by name: its type as written, and its value.
    lets: HashMap<String, (Option<Type>, Expr)>,
    found: Vec<Launch>,
    items: HashSet<String>,
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

impl Scan {
    fn walk(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => self.walk(g.stream()),
                TokenTree::Ident(id) if id == "let" => self.binding(&trees[i + 1..]),
                TokenTree::Ident(id)
                    if *id == self.name
                        && is_punct(trees.get(i + 1), ':')
                        && is_punct(trees.get(i + 2), ':')
                        && is_punct(trees.get(i + 3), '<') =>
                {
                    if let Some(end) = closing_angle(&trees, i + 3) {
                        let args: TokenStream = trees[i + 1..=end].iter().cloned().collect();
                        if let Ok(parsed) = syn::parse2::<syn::AngleBracketedGenericArguments>(args) {
                            self.launch(&parsed, &trees[end + 1..]);
                        }
                        i = end;
                    }
                }
                // `module.generic_aligned(.., add_three, ..)`: a kernel generic over its
                // closure alone infers it.
                TokenTree::Ident(id)
                    if *id == self.name
                        && self.arity == 1
                        && i > 0
                        && is_punct(trees.get(i - 1), '.')
                        && matches!(trees.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Parenthesis) =>
                {
                    if let Ok(parsed) = syn::parse_str::<syn::AngleBracketedGenericArguments>("::<_>") {
                        self.launch(&parsed, &trees[i + 1..]);
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// `let [mut] name [: T] = value;`: remembered, to bind a later capture of `name`.
    fn binding(&mut self, rest: &[TokenTree]) {
        let mut j = 0;
        if matches!(rest.first(), Some(TokenTree::Ident(m)) if m == "mut") {
            j = 1;
        }
        let Some(TokenTree::Ident(name)) = rest.get(j) else {
            return;
        };
        let name = name.to_string();
        let Some(eq) = rest.iter().position(|t| is_punct(Some(t), '=')) else {
            return;
        };
        let end = rest.iter().position(|t| is_punct(Some(t), ';')).unwrap_or(rest.len());
        if eq > end {
            return;
        }
        let ty: Option<Type> = if is_punct(rest.get(j + 1), ':') {
            syn::parse2(rest[j + 2..eq].iter().cloned().collect()).ok()
        } else {
            None
        };
        match syn::parse2::<Expr>(rest[eq + 1..end].iter().cloned().collect()) {
            Ok(value) => {
                self.lets.insert(name, (ty, value));
            }
            Err(_) => {
                self.lets.remove(&name);
            }
        }
    }

    /// A launch `name::<args>`: when the closure's argument is inferred, the first closure
    /// after it, in its token group, is the one launched.
    fn launch(&mut self, args: &syn::AngleBracketedGenericArguments, after: &[TokenTree]) {
        let text: Vec<String> = args.args.iter().map(|a| a.to_token_stream().to_string()).collect();
        let inferred = matches!(
            args.args.iter().nth(self.position),
            Some(GenericArgument::Type(Type::Infer(_)))
        );
        if !inferred {
            return;
        }
        let shown = format!("`{}::<{}>`", self.name, text.join(", "));
        let Some(closure) = first_closure(after, &self.lets) else {
            self.found.push(Err(format!("no closure follows its launch {shown}")));
            return;
        };
        self.found
            .push(self.bind(&closure, &shown).map(|prefix| (text, prefix)));
    }

    /// The host bindings of the closure's captures, then the closure, as Rust statements.
    fn bind(&self, closure: &syn::ExprClosure, shown: &str) -> Result<String, String> {
        let mut names = Names::default();
        syn::visit::visit_expr_closure(&mut names, closure);
        let mut captures: Vec<String> = names
            .used
            .into_iter()
            .filter(|n| !names.bound.contains(n) && !self.items.contains(n))
            .collect();
        captures.sort();
        captures.dedup();
        if closure.capture.is_none() {
            if let Some(c) = captures.first() {
                return Err(format!(
                    "the closure launched by {shown} borrows `{c}`, which the device reads from host memory"
                ));
            }
        }
        let mut prefix = String::new();
        for c in &captures {
            match self.lets.get(c) {
                Some((ty, value)) if constant(value) => {
                    let ty = ty
                        .as_ref()
                        .map(|t| format!(": {}", t.to_token_stream()))
                        .unwrap_or_default();
                    prefix.push_str(&format!("let {c}{ty} = {};\n", value.to_token_stream()));
                }
                Some((_, value)) => {
                    let value = value.to_token_stream();
                    return Err(format!(
                        "the closure launched by {shown} captures `{c}`, which the host binds to `{value}`, not a literal"
                    ));
                }
                None => {
                    return Err(format!(
                        "the closure launched by {shown} captures `{c}`, which no host `let` before it binds"
                    ))
                }
            }
        }
        prefix.push('\t');
        prefix.push_str(&closure.to_token_stream().to_string());
        Ok(prefix)
    }
}

/// Whether a host value is a literal, arithmetic and casts of literals, or a struct of them.
fn constant(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && constant(&u.expr),
        Expr::Cast(c) => constant(&c.expr),
        Expr::Paren(p) => constant(&p.expr),
        Expr::Binary(b) => constant(&b.left) && constant(&b.right),
        // `MixedCapture { small: 9, wide: 2.25 }`: a struct of literals, copied whole.
        Expr::Struct(s) => s.rest.is_none() && s.fields.iter().all(|f| constant(&f.expr)),
        _ => false,
    }
}

/// The index of the `>` closing the `<` at `open`.
fn closing_angle(trees: &[TokenTree], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, t) in trees.iter().enumerate().skip(open) {
        if let TokenTree::Punct(p) = t {
            match p.as_char() {
                '<' => depth += 1,
                '>' if !is_punct(trees.get(j - 1), '-') => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// The first closure in `trees` (nested groups included), up to the `,` that ends it.
/// A name that a host `let` binds to a closure stands for that closure.
fn first_closure(trees: &[TokenTree], lets: &HashMap<String, (Option<Type>, Expr)>) -> Option<syn::ExprClosure> {
    for (i, t) in trees.iter().enumerate() {
        let start = match t {
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                if let Some(c) = first_closure(&inner, lets) {
                    return Some(c);
                }
                continue;
            }
            TokenTree::Ident(name) => match lets.get(&name.to_string()) {
                Some((_, Expr::Closure(c))) => return Some(c.clone()),
                _ => continue,
            },
            TokenTree::Punct(p) if p.as_char() == '|' => match trees.get(i.wrapping_sub(1)) {
                Some(TokenTree::Ident(m)) if m == "move" => i - 1,
                _ => i,
            },
            _ => continue,
        };
        let end = trees[start..]
            .iter()
            .position(|t| is_punct(Some(t), ','))
            .map_or(trees.len(), |e| start + e);
        return syn::parse2(trees[start..end].iter().cloned().collect()).ok();
    }
    None
}

/// The single names a closure reads, and those it binds itself.
#[derive(Default)]
struct Names {
    used: Vec<String>,
    bound: HashSet<String>,
}

impl<'ast> syn::visit::Visit<'ast> for Names {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(i) = p.path.get_ident() {
            self.used.push(i.to_string());
        }
        syn::visit::visit_expr_path(self, p);
    }
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.bound.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
}
