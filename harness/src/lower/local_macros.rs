//! Items a file's own `macro_rules!` writes (`build_tables!(N16, OPS16, CODES16);` defining
//! `const OPS16` and `const CODES16`): the invocation is expanded here, so that kernels naming
//! the items it defines lower like those naming hand-written ones. Arms of literal tokens and
//! `$x:frag` fragments are matched; a fragment spans the tokens up to the matcher's next
//! literal token, and repetitions `$(...),*` of such arms are matched too. An invocation no
//! arm matches is left as it is.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use std::collections::HashMap;
use syn::Item;

/// Nested expansions allowed (a macro expanding to another invocation).
const DEPTH_LIMIT: usize = 8;

/// One `(matcher) => { transcriber }` arm.
struct Arm {
    matcher: Vec<TokenTree>,
    transcriber: TokenStream,
}

/// What a fragment or repetition captured.
#[derive(Clone, Debug)]
enum Capture {
    Tokens(Vec<TokenTree>),
    Repeated(Vec<HashMap<String, Capture>>),
}

/// The items the file's local macros expand to, from invocations at any module depth.
pub(super) fn expanded_items(items: &[Item]) -> Vec<Item> {
    let mut macros = HashMap::new();
    definitions(items, &mut macros);
    let mut out = Vec::new();
    if !macros.is_empty() {
        invocations(items, &macros, 0, &mut out);
    }
    out
}

fn definitions(items: &[Item], macros: &mut HashMap<String, Vec<Arm>>) {
    for item in items {
        match item {
            Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                if let (Some(name), Some(arms)) = (&m.ident, arms(m.mac.tokens.clone())) {
                    macros.insert(name.to_string(), arms);
                }
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    definitions(inner, macros);
                }
            }
            _ => {}
        }
    }
}

fn invocations(items: &[Item], macros: &HashMap<String, Vec<Arm>>, depth: usize, out: &mut Vec<Item>) {
    for item in items {
        match item {
            Item::Macro(m) if m.ident.is_none() => {
                let Some(arms) = m.mac.path.get_ident().and_then(|i| macros.get(&i.to_string())) else {
                    continue;
                };
                let input: Vec<TokenTree> = m.mac.tokens.clone().into_iter().collect();
                let Some(expansion) = arms.iter().find_map(|arm| {
                    let mut captures = HashMap::new();
                    matches(&arm.matcher, &input, &mut captures).then(|| transcribe(&arm.transcriber, &captures))
                }) else {
                    continue;
                };
                let Ok(file) = syn::parse2::<syn::File>(expansion) else {
                    continue;
                };
                if depth < DEPTH_LIMIT {
                    invocations(&file.items, macros, depth + 1, out);
                }
                out.extend(file.items.into_iter().filter(|i| !matches!(i, Item::Macro(_))));
            }
            Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    invocations(inner, macros, depth, out);
                }
            }
            _ => {}
        }
    }
}

/// The arms of a `macro_rules!` body.
fn arms(body: TokenStream) -> Option<Vec<Arm>> {
    let tokens: Vec<TokenTree> = body.into_iter().collect();
    let mut arms = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (TokenTree::Group(m), Some(TokenTree::Punct(eq)), Some(TokenTree::Punct(gt)), Some(TokenTree::Group(t))) =
            (&tokens[i], tokens.get(i + 1), tokens.get(i + 2), tokens.get(i + 3))
        else {
            return None;
        };
        if eq.as_char() != '=' || gt.as_char() != '>' {
            return None;
        }
        arms.push(Arm {
            matcher: m.stream().into_iter().collect(),
            transcriber: t.stream(),
        });
        i += 4;
        if matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            i += 1;
        }
    }
    Some(arms)
}

/// A `$( ... ) sep? op` repetition at `matcher[at]`: its inner matcher, separator and the
/// index after it.
fn repetition(matcher: &[TokenTree], at: usize) -> Option<(Vec<TokenTree>, Option<TokenTree>, usize)> {
    let TokenTree::Group(g) = matcher.get(at + 1)? else {
        return None;
    };
    if g.delimiter() != Delimiter::Parenthesis {
        return None;
    }
    let inner = g.stream().into_iter().collect();
    let op = |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if matches!(p.as_char(), '*' | '+' | '?'));
    if op(matcher.get(at + 2)) {
        return Some((inner, None, at + 3));
    }
    if op(matcher.get(at + 3)) {
        return Some((inner, matcher.get(at + 2).cloned(), at + 4));
    }
    None
}

fn same(a: &TokenTree, b: &TokenTree) -> bool {
    match (a, b) {
        (TokenTree::Ident(x), TokenTree::Ident(y)) => x == y,
        (TokenTree::Punct(x), TokenTree::Punct(y)) => x.as_char() == y.as_char(),
        (TokenTree::Literal(x), TokenTree::Literal(y)) => x.to_string() == y.to_string(),
        (TokenTree::Group(x), TokenTree::Group(y)) => {
            x.delimiter() == y.delimiter() && x.stream().to_string() == y.stream().to_string()
        }
        _ => false,
    }
}

/// Whether `input` matches `matcher` exactly, recording the captures.
fn matches(matcher: &[TokenTree], input: &[TokenTree], captures: &mut HashMap<String, Capture>) -> bool {
    match_prefix(matcher, input, captures) == Some(input.len())
}

/// Matches all of `matcher` against the start of `input`: the number of input tokens used.
fn match_prefix(matcher: &[TokenTree], input: &[TokenTree], captures: &mut HashMap<String, Capture>) -> Option<usize> {
    let (mut m, mut i) = (0, 0);
    while m < matcher.len() {
        match &matcher[m] {
            TokenTree::Punct(p) if p.as_char() == '$' => match matcher.get(m + 1)? {
                TokenTree::Ident(name) => {
                    let (TokenTree::Punct(colon), TokenTree::Ident(kind)) = (matcher.get(m + 2)?, matcher.get(m + 3)?)
                    else {
                        return None;
                    };
                    if colon.as_char() != ':' {
                        return None;
                    }
                    let stop = matcher.get(m + 4);
                    let taken = match kind.to_string().as_str() {
                        "ident" => matches!(input.get(i)?, TokenTree::Ident(_)).then_some(1)?,
                        "literal" => matches!(input.get(i)?, TokenTree::Literal(_)).then_some(1)?,
                        "tt" | "lifetime" => input.get(i).map(|_| 1)?,
                        "expr" | "ty" | "path" | "pat" => {
                            let n = input[i..]
                                .iter()
                                .take_while(|t| stop.is_none_or(|s| !same(s, t)))
                                .count();
                            (n > 0).then_some(n)?
                        }
                        _ => return None,
                    };
                    captures.insert(name.to_string(), Capture::Tokens(input[i..i + taken].to_vec()));
                    i += taken;
                    m += 4;
                }
                TokenTree::Group(_) => {
                    let (inner, sep, next) = repetition(matcher, m)?;
                    let mut rounds = Vec::new();
                    loop {
                        if !rounds.is_empty() {
                            if let Some(s) = &sep {
                                if !input.get(i).is_some_and(|t| same(s, t)) {
                                    break;
                                }
                            }
                        }
                        let mut round = HashMap::new();
                        let skip = usize::from(!rounds.is_empty() && sep.is_some());
                        let Some(n) = match_prefix(&inner, &input[i + skip..], &mut round) else {
                            break;
                        };
                        if n == 0 {
                            break;
                        }
                        i += skip + n;
                        rounds.push(round);
                    }
                    let names: Vec<String> = rounds.first().map(|r| r.keys().cloned().collect()).unwrap_or_default();
                    for name in names {
                        // A name bound in some rounds only (a nested optional part) is not
                        // expanded: the macro is not matched.
                        let each = rounds
                            .iter()
                            .map(|r| Some(HashMap::from([(name.clone(), r.get(&name)?.clone())])))
                            .collect::<Option<Vec<_>>>()?;
                        captures.insert(name, Capture::Repeated(each));
                    }
                    m = next;
                }
                _ => return None,
            },
            TokenTree::Group(g) => {
                let TokenTree::Group(h) = input.get(i)? else {
                    return None;
                };
                if g.delimiter() != h.delimiter() {
                    return None;
                }
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                let given: Vec<TokenTree> = h.stream().into_iter().collect();
                if !matches(&inner, &given, captures) {
                    return None;
                }
                i += 1;
                m += 1;
            }
            literal => {
                if !same(literal, input.get(i)?) {
                    return None;
                }
                i += 1;
                m += 1;
            }
        }
    }
    Some(i)
}

/// The transcriber with the captures substituted; an expression of several tokens stays one
/// operand (an invisible group), as in the compiler.
fn transcribe(body: &TokenStream, captures: &HashMap<String, Capture>) -> TokenStream {
    let tokens: Vec<TokenTree> = body.clone().into_iter().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < tokens.len() {
        match (&tokens[k], tokens.get(k + 1)) {
            (TokenTree::Punct(p), Some(TokenTree::Ident(name))) if p.as_char() == '$' => {
                match captures.get(&name.to_string()) {
                    Some(Capture::Tokens(t)) if t.len() == 1 => out.push(t[0].clone()),
                    Some(Capture::Tokens(t)) => out.push(TokenTree::Group(Group::new(
                        Delimiter::None,
                        t.iter().cloned().collect(),
                    ))),
                    _ => out.extend(tokens[k..k + 2].iter().cloned()),
                }
                k += 2;
            }
            (TokenTree::Punct(p), Some(TokenTree::Group(_))) if p.as_char() == '$' => {
                let Some((inner, sep, next)) = repetition(&tokens, k) else {
                    out.push(tokens[k].clone());
                    k += 1;
                    continue;
                };
                let inner: TokenStream = inner.into_iter().collect();
                let rounds = captures
                    .values()
                    .find_map(|c| match c {
                        Capture::Repeated(r) if mentions(&inner, captures, c) => Some(r.len()),
                        _ => None,
                    })
                    .unwrap_or(0);
                for round in 0..rounds {
                    if round > 0 {
                        out.extend(sep.clone());
                    }
                    let mut scope = captures.clone();
                    for (name, c) in captures {
                        if let Capture::Repeated(r) = c {
                            if let Some(v) = r.get(round).and_then(|m| m.get(name)) {
                                scope.insert(name.clone(), v.clone());
                            }
                        }
                    }
                    out.extend(transcribe(&inner, &scope));
                }
                k = next;
            }
            (TokenTree::Group(g), _) => {
                let mut group = Group::new(g.delimiter(), transcribe(&g.stream(), captures));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
                k += 1;
            }
            (other, _) => {
                out.push(other.clone());
                k += 1;
            }
        }
    }
    out.into_iter().collect()
}

/// Whether the repetition body names the repeated capture `c`.
fn mentions(inner: &TokenStream, captures: &HashMap<String, Capture>, c: &Capture) -> bool {
    let text = inner.to_string();
    captures
        .iter()
        .any(|(name, other)| std::ptr::eq(other, c) && text.contains(&format!("$ {name}")))
}
