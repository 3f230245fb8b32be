//! The `mod` items of one source file: what the module tree walk needs from its syntax.

use super::FileProblem;
use crate::source::{SourceFile, Span};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::ext::IdentExt;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, Item, Lit, Meta, Token};

/// One `mod` item, out-of-line (`mod x;`) or inline (`mod x { ... }`).
#[derive(Debug, Clone)]
pub struct ModItem {
    /// The name as written, `r#` kept: the module path segment.
    pub ident: String,
    /// The name without `r#`: the file name segment.
    pub name: String,
    /// The `mod name` tokens, for warnings.
    pub span: Span,
    /// `#[cfg(...)]` predicates on it (and on the `cfg_if!` branch holding it).
    pub cfg: Vec<String>,
    /// The first `#[path = "..."]`.
    pub path: Option<String>,
    /// `#[cfg_attr(pred, path = "...")]` alternatives: predicate and path.
    pub cfg_paths: Vec<(String, String)>,
    /// The items of an inline module; `None` for `mod x;`.
    pub body: Option<Vec<ModItem>>,
    /// For `include!("kernels.rs");` among the items: the file, relative to the including
    /// file's folder, whose items join the including module (no module of its own).
    pub include: Option<String>,
}

/// The `mod` items of a file, or why it could not be parsed (then no items). A file whose
/// text has neither the word `mod` nor `include` holds no `mod` item and no `include!`: it is
/// not parsed here, and its syntax errors are the analysis's to report.
pub fn extract(file: &SourceFile) -> (Vec<ModItem>, Option<FileProblem>) {
    if !has_word(&file.text, "mod") && !has_word(&file.text, "include") {
        return (Vec::new(), None);
    }
    // Nesting syn would recurse through until the stack overflows: the analyzer's parser
    // leaves out only the items beyond its limits.
    if let Ok(tokens) = file.text.parse::<proc_macro2::TokenStream>() {
        if let Err((reason, span)) = crate::parse::depth::check(file, tokens) {
            let problem = FileProblem {
                message: reason,
                span: Some(span),
            };
            let items =
                crate::parse::parse_file(file).map_or_else(|_| Vec::new(), |p| collect(file, &p.syntax.items, &[]));
            return (items, Some(problem));
        }
    }
    match syn::parse_file(&file.text) {
        Ok(syntax) => (collect(file, &syntax.items, &[]), None),
        Err(err) => {
            let problem = FileProblem {
                message: err.to_string(),
                span: Some(file.span_of(err.span())),
            };
            (Vec::new(), Some(problem))
        }
    }
}

/// Whether `word` stands in `text` on its own, not inside a longer identifier.
fn has_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(is_word)
            && !text[at + word.len()..].chars().next().is_some_and(is_word)
    })
}

fn collect(file: &SourceFile, items: &[Item], outer_cfg: &[String]) -> Vec<ModItem> {
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Mod(module) => {
                let start = file.span_of(module.mod_token.span);
                let end = file.span_of(module.ident.span());
                let mut cfg = outer_cfg.to_vec();
                let mut path = None;
                let mut cfg_paths = Vec::new();
                for attr in &module.attrs {
                    read_attr(attr, &mut cfg, &mut path, &mut cfg_paths);
                }
                let body = module.content.as_ref().map(|(_, items)| collect(file, items, &[]));
                out.push(ModItem {
                    ident: module.ident.to_string(),
                    name: module.ident.unraw().to_string(),
                    span: Span {
                        end: end.end.max(start.start),
                        ..start
                    },
                    cfg,
                    path,
                    cfg_paths,
                    body,
                    include: None,
                });
            }
            Item::Macro(mac) if mac.mac.path.is_ident("include") => {
                // Only a literal path names a file in the source; `concat!(env!("OUT_DIR"), ..)`
                // is a build script's output.
                let Ok(Lit::Str(path)) = syn::parse2::<Lit>(mac.mac.tokens.clone()) else {
                    continue;
                };
                let span = file.span_of(mac.mac.path.segments[0].ident.span());
                out.push(ModItem {
                    ident: "include".to_string(),
                    name: "include".to_string(),
                    span,
                    cfg: outer_cfg.to_vec(),
                    path: None,
                    cfg_paths: Vec::new(),
                    body: None,
                    include: Some(path.value()),
                });
            }
            Item::Macro(mac) if mac.mac.path.segments.last().is_some_and(|s| s.ident == "cfg_if") => {
                for (predicate, branch) in cfg_if_branches(mac.mac.tokens.clone()) {
                    let mut cfg = outer_cfg.to_vec();
                    cfg.push(predicate);
                    out.extend(collect(file, &branch, &cfg));
                }
            }
            _ => {}
        }
    }
    out
}

fn read_attr(
    attr: &Attribute,
    cfg: &mut Vec<String>,
    path: &mut Option<String>,
    cfg_paths: &mut Vec<(String, String)>,
) {
    if attr.path().is_ident("cfg") {
        if let Meta::List(list) = &attr.meta {
            cfg.push(list.tokens.to_string());
        }
    } else if attr.path().is_ident("path") {
        // Rust takes the first `path` attribute.
        if path.is_none() {
            *path = string_value(&attr.meta);
        }
    } else if attr.path().is_ident("cfg_attr") {
        if let Meta::List(list) = &attr.meta {
            cfg_attr_paths(list.tokens.clone(), None, cfg_paths);
        }
    }
}

/// `path` alternatives inside `cfg_attr(pred, attr, ...)`, nested `cfg_attr`s included.
fn cfg_attr_paths(tokens: TokenStream, outer: Option<&str>, out: &mut Vec<(String, String)>) {
    // The predicate is everything before the first top-level comma.
    let mut trees = tokens.into_iter();
    let predicate: TokenStream = trees
        .by_ref()
        .take_while(|tree| !matches!(tree, TokenTree::Punct(p) if p.as_char() == ','))
        .collect();
    let Ok(metas) = syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, trees.collect()) else {
        return;
    };
    let predicate = predicate.to_string();
    let predicate = match outer {
        Some(outer) => format!("all({outer}, {predicate})"),
        None => predicate,
    };
    for meta in metas {
        if meta.path().is_ident("path") {
            if let Some(value) = string_value(&meta) {
                out.push((predicate.clone(), value));
            }
        } else if meta.path().is_ident("cfg_attr") {
            if let Meta::List(list) = meta {
                cfg_attr_paths(list.tokens, Some(&predicate), out);
            }
        }
    }
}

fn string_value(meta: &Meta) -> Option<String> {
    match meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Str(s) => Some(s.value()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The branches of `cfg_if! { if #[cfg(a)] { .. } else if #[cfg(b)] { .. } else { .. } }`, each
/// with the predicate under which it is compiled. A branch that does not parse as items is skipped.
fn cfg_if_branches(tokens: TokenStream) -> Vec<(String, Vec<Item>)> {
    let mut out = Vec::new();
    let mut earlier: Vec<String> = Vec::new();
    let mut pending: Option<String> = None;
    for tree in tokens {
        let TokenTree::Group(group) = tree else {
            continue;
        };
        match group.delimiter() {
            Delimiter::Bracket => {
                if let Ok(Meta::List(list)) = syn::parse2::<Meta>(group.stream()) {
                    if list.path.is_ident("cfg") {
                        pending = Some(list.tokens.to_string());
                    }
                }
            }
            Delimiter::Brace => {
                let own = pending.take();
                let predicate = match (&own, earlier.is_empty()) {
                    (Some(own), true) => own.clone(),
                    (Some(own), false) => format!("all(not(any({})), {own})", earlier.join(", ")),
                    (None, _) => format!("not(any({}))", earlier.join(", ")),
                };
                if let Ok(file) = syn::parse2::<syn::File>(group.stream()) {
                    out.push((predicate, file.items));
                }
                match own {
                    Some(own) => earlier.push(own),
                    None => break,
                }
            }
            _ => {}
        }
    }
    out
}
