//! Source text to syntax tree, item by item, refusing input that would exhaust the parser's
//! stack and explaining input that cannot be tokenized.

pub(crate) mod depth;
mod items;
mod lex;
pub mod scan;

use crate::source::{FileError, SourceFile, Span};
use proc_macro2::TokenTree;
use std::borrow::Cow;
use syn::parse::{ParseStream, Parser};

/// The name a path ends with: `kernel` for `cuda_std::kernel`, `add` for `thread::add`.
pub fn last_segment(path: &syn::Path) -> String {
    path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default()
}

/// A parsed file: the items that could be parsed, and a located error for each top-level item
/// that could not, so one bad item costs only itself.
#[derive(Debug, Clone)]
pub struct ParsedFile {
    /// The file's inner attributes and every item that parsed, in source order; shared with
    /// the drafts of rewrites, which read the same files.
    pub syntax: std::rc::Rc<syn::File>,
    /// One error per top-level item left out of `syntax`: a syntax error, or nesting beyond
    /// the limits the parser can follow.
    pub skipped: Vec<FileError>,
}

/// Parses a file with syn, one top-level item at a time, after checking that each item's
/// nesting stays within what the parser and the analysis can recurse through.
///
/// An item that breaks a limit or does not parse is left out and reported in
/// [`ParsedFile::skipped`]; the file as a whole fails only when it cannot be split into tokens
/// or when no item at all could be parsed (the error is then the first item's).
pub fn parse_file(file: &SourceFile) -> Result<ParsedFile, FileError> {
    let error = |message: String, span: Span| FileError {
        path: file.path.clone(),
        message,
        span: Some(span),
    };
    let (text, shebang) = tokenizable(&file.text);
    let tokens: proc_macro2::TokenStream = text.parse().map_err(|e: proc_macro2::LexError| {
        let (cause, span) =
            lex::diagnose(&text).unwrap_or_else(|| ("unexpected input".to_string(), file.span_of(e.span())));
        error(format!("cannot tokenize: {cause}"), span)
    })?;
    let split = items::split(const_blocks_as_blocks(tokens));
    let mut skipped = Vec::new();
    let mut attrs = Vec::new();
    if !split.inner_attrs.is_empty() {
        let parse_inner = |input: ParseStream| input.call(syn::Attribute::parse_inner);
        match check_then_parse(file, &split.inner_attrs, parse_inner) {
            Ok(parsed) => attrs = parsed,
            Err((message, span)) => skipped.push(error(message, span)),
        }
    }
    let mut parsed_items = Vec::new();
    for chunk in &split.items {
        let parse_items = |input: ParseStream| {
            let mut found = Vec::new();
            while !input.is_empty() {
                found.push(input.parse::<syn::Item>()?);
            }
            Ok(found)
        };
        // Syntax newer than the parser is rewritten only for an item that fails to parse:
        // nothing is rebuilt for the others.
        // An item the parser keeps only as tokens (`impl const Trait`) is rewritten too.
        let rewrite = || -> Vec<TokenTree> {
            let tokens: proc_macro2::TokenStream = chunk.iter().cloned().collect();
            // Past the nesting limits its error stands: the rewrite would recurse as deep.
            if depth::check(file, tokens.clone()).is_err() {
                return Vec::new();
            }
            newer_syntax(tokens, true).into_iter().collect()
        };
        let parsed = match check_then_parse(file, chunk, parse_items) {
            Ok(found) if found.iter().any(|item| matches!(item, syn::Item::Verbatim(_))) => {
                let rewritten = rewrite();
                let reparsed = (!rewritten.is_empty()).then(|| check_then_parse(file, &rewritten, parse_items));
                Ok(reparsed.and_then(Result::ok).unwrap_or(found))
            }
            Ok(found) => Ok(found),
            Err(first) => {
                let rewritten = rewrite();
                if rewritten.is_empty() {
                    Err(first)
                } else {
                    check_then_parse(file, &rewritten, parse_items).map_err(|_| first)
                }
            }
        };
        match parsed {
            Ok(mut found) => parsed_items.append(&mut found),
            Err((message, span)) => skipped.push(error(message, span)),
        }
    }
    if parsed_items.is_empty() && !skipped.is_empty() {
        return Err(skipped.swap_remove(0));
    }
    Ok(ParsedFile {
        syntax: std::rc::Rc::new(syn::File {
            shebang,
            attrs,
            items: parsed_items,
        }),
        skipped,
    })
}

/// `f::<_, const { N as u32 }>(..)`: an inline `const` block as a generic argument, which the
/// parser does not take, is read as the block it holds (the same value), after a `<` or `,`.
/// Every other token keeps its place in the file.
fn const_blocks_as_blocks(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        let opens_argument =
            |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == '<' || p.as_char() == ',');
        let before_brace =
            matches!(tokens.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == proc_macro2::Delimiter::Brace);
        match token {
            TokenTree::Ident(ident)
                if ident == "const" && before_brace && opens_argument(i.checked_sub(1).and_then(|j| tokens.get(j))) => {
            }
            TokenTree::Group(group) => {
                let mut inner = proc_macro2::Group::new(group.delimiter(), const_blocks_as_blocks(group.stream()));
                inner.set_span(group.span());
                out.push(TokenTree::Group(inner));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

/// Syntax newer than the parser, which nightly toolchains (the usual ones for GPU crates)
/// accept, read as the syntax it stands for: a `const { .. }` item is `const _: () = { .. };`;
/// `const trait`, `const impl`, `impl const Trait`, `[const] Bound` and `~const Bound` lose their `const`;
/// `pub impl(self) trait` loses its restriction. Every other token keeps its place.
fn newer_syntax(tokens: proc_macro2::TokenStream, items: bool) -> proc_macro2::TokenStream {
    use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing};
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let ident = |t: Option<&TokenTree>, word: &str| matches!(t, Some(TokenTree::Ident(i)) if i == word);
    let punct = |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    let group = |t: Option<&TokenTree>, d: Delimiter| matches!(t, Some(TokenTree::Group(g)) if g.delimiter() == d);
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        let next = tokens.get(i + 1);
        let previous = out.last();
        // An item starts after `;`, after a block or an attribute, or at the start of a file
        // or block (not inside brackets or parentheses: `[const { None }; N]` is an expression).
        let item_start = items
            && (previous.is_none()
                || punct(previous, ';')
                || group(previous, Delimiter::Brace)
                || (group(previous, Delimiter::Bracket) && punct(out.get(out.len().wrapping_sub(2)), '#')));
        match token {
            TokenTree::Ident(word) if word == "const" && group(next, Delimiter::Brace) && item_start => {
                let span = word.span();
                let mut colon = Punct::new(':', Spacing::Alone);
                colon.set_span(span);
                let mut unit = Group::new(Delimiter::Parenthesis, proc_macro2::TokenStream::new());
                unit.set_span(span);
                let mut eq = Punct::new('=', Spacing::Alone);
                eq.set_span(span);
                let mut semi = Punct::new(';', Spacing::Alone);
                semi.set_span(span);
                out.push(TokenTree::Ident(word.clone()));
                out.push(TokenTree::Ident(Ident::new("_", span)));
                out.extend([TokenTree::Punct(colon), TokenTree::Group(unit), TokenTree::Punct(eq)]);
                if let Some(TokenTree::Group(body)) = next {
                    let mut inner = Group::new(Delimiter::Brace, newer_syntax(body.stream(), true));
                    inner.set_span(body.span());
                    out.push(TokenTree::Group(inner));
                }
                out.push(TokenTree::Punct(semi));
                i += 2;
                continue;
            }
            // `const trait`, `const impl Trait for T`, `impl const Trait`, `const unsafe impl`.
            TokenTree::Ident(word)
                if word == "const"
                    && (ident(next, "trait")
                        || ident(next, "impl")
                        || ident(previous, "impl")
                        || (ident(next, "unsafe")
                            && (ident(tokens.get(i + 2), "impl") || ident(tokens.get(i + 2), "trait")))) => {}
            // `~const Bound`.
            TokenTree::Punct(p) if p.as_char() == '~' && ident(next, "const") => i += 1,
            // `T: [const] Bound`, `+ [const] Bound`.
            TokenTree::Group(g)
                if g.delimiter() == Delimiter::Bracket
                    && g.stream().to_string() == "const"
                    && (punct(previous, ':') || punct(previous, '+'))
                    && matches!(next, Some(TokenTree::Ident(_)) | Some(TokenTree::Punct(_))) => {}
            // `pub impl(self) trait`: a restriction on who may implement it.
            TokenTree::Ident(word)
                if word == "impl"
                    && group(next, Delimiter::Parenthesis)
                    && ["trait", "unsafe", "auto"].iter().any(|w| ident(tokens.get(i + 2), w)) =>
            {
                i += 1;
            }
            TokenTree::Group(g) => {
                let mut stream = newer_syntax(g.stream(), g.delimiter() == Delimiter::Brace);
                if g.delimiter() == Delimiter::Brace && declares_fields(&out) {
                    stream = without_field_defaults(stream);
                }
                let mut inner = Group::new(g.delimiter(), stream);
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// Whether a brace group after `before` holds a struct's or union's fields: `struct` or `union`
/// is the item's keyword (looking back to the previous item's end).
fn declares_fields(before: &[TokenTree]) -> bool {
    for token in before.iter().rev() {
        match token {
            TokenTree::Ident(i) if i == "struct" || i == "union" => return true,
            TokenTree::Punct(p) if p.as_char() == ';' => return false,
            TokenTree::Group(g) if g.delimiter() == proc_macro2::Delimiter::Brace => return false,
            _ => {}
        }
    }
    false
}

/// A struct's fields without their default values (`pub size: usize = 5,`, nightly's
/// `default_field_values`): each `= value` up to the field's end goes.
fn without_field_defaults(fields: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let mut out = Vec::new();
    let mut angles = 0i32;
    let mut skipping = false;
    // The previous token when it is a punctuation joined to the next (`-` of `->`, `>` of `>=`).
    let mut joined: Option<char> = None;
    for token in fields {
        if let TokenTree::Punct(p) = &token {
            match p.as_char() {
                ',' if angles == 0 => skipping = false,
                '<' => angles += 1,
                '>' if joined != Some('-') => angles -= 1,
                '=' if angles == 0 && !skipping && joined.is_none() && p.spacing() == proc_macro2::Spacing::Alone => {
                    skipping = true;
                }
                _ => {}
            }
            joined = (p.spacing() == proc_macro2::Spacing::Joint).then_some(p.as_char());
        } else {
            joined = None;
        }
        if !skipping {
            out.push(token);
        }
    }
    out.into_iter().collect()
}

/// Checks one chunk of top-level tokens against the nesting limits, then parses it; the error
/// says what is wrong and points at it.
fn check_then_parse<T>(
    file: &SourceFile,
    chunk: &[TokenTree],
    parser: impl Parser<Output = T>,
) -> Result<T, (String, Span)> {
    let tokens: proc_macro2::TokenStream = chunk.iter().cloned().collect();
    if let Err((reason, span)) = depth::check(file, tokens.clone()) {
        let what = items::label(chunk).unwrap_or_else(|| {
            let start = chunk.first().map(|t| file.span_of(t.span())).unwrap_or(span);
            format!("the item at {}:{}", start.line, start.column)
        });
        return Err((format!("{reason}; {what} is not analyzed"), span));
    }
    parser.parse2(tokens).map_err(|e| {
        let (start, end) = (e.span().start(), e.span().end());
        // syn reports running out of tokens at a zero-width placeholder span: point at the
        // chunk's last token instead.
        let span = match chunk.last() {
            Some(last) if start == end => file.span_of(last.span()),
            _ => file.span_of(e.span()),
        };
        (format!("syntax error: {e}"), span)
    })
}

/// The text handed to the tokenizer, and the interpreter line (`#!/usr/bin/env ...`) it
/// starts with, if any. That line is blanked byte for byte, so every offset, line and
/// column after it is unchanged.
fn tokenizable(text: &str) -> (Cow<'_, str>, Option<String>) {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let is_shebang = body
        .strip_prefix("#!")
        .is_some_and(|rest| !rest.trim_start().starts_with('['));
    if !is_shebang {
        return (Cow::Borrowed(text), None);
    }
    let end = text.find('\n').unwrap_or(text.len());
    let line = &text[text.len() - body.len()..end];
    let blanked = format!("{}{}", " ".repeat(end), &text[end..]);
    (Cow::Owned(blanked), Some(line.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<ParsedFile, FileError> {
        parse_file(&SourceFile::new("t.rs", text))
    }

    #[test]
    fn interpreter_line_and_inner_attributes_are_kept() {
        let parsed =
            parse("#!/usr/bin/env run-cargo-script\n#![allow(dead_code)]\n//! docs\nfn f() {}\n").expect("parsed");
        assert_eq!(
            parsed.syntax.shebang.as_deref(),
            Some("#!/usr/bin/env run-cargo-script")
        );
        assert_eq!((parsed.syntax.attrs.len(), parsed.syntax.items.len()), (2, 1));
        assert_eq!(parsed.skipped, []);

        let err = parse("#!/usr/bin/env run-cargo-script\nfn f() { let = 1; }\n").unwrap_err();
        assert_eq!(err.span.map(|s| (s.line, s.column)), Some((2, 14)));
    }

    #[test]
    fn a_semicolon_after_a_braced_item_is_ignored() {
        let parsed = parse("macro_rules! m { () => {} };\nfn f() {}\n").expect("parsed");
        assert_eq!((parsed.syntax.items.len(), parsed.skipped.len()), (2, 0));
    }

    #[test]
    fn skipped_items_without_a_name_are_named_by_position() {
        let deep = format!(
            "fn f() {{}}\n  impl S {{ fn g() {{ {}{} }} }}\n",
            "[".repeat(200),
            "]".repeat(200)
        );
        let parsed = parse(&deep).expect("parsed");
        assert_eq!(parsed.syntax.items.len(), 1);
        let messages: Vec<_> = parsed.skipped.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            messages,
            ["t.rs:2:147: brackets nested deeper than 128 levels; the item at 2:3 is not analyzed"]
        );
    }

    #[test]
    fn every_item_failing_fails_the_file_with_the_first_error() {
        let err = parse("fn f() { let = 1; }\nfn g() { let = 2; }\n").unwrap_err();
        assert_eq!(err.span.map(|s| s.line), Some(1));
        assert!(err.message.starts_with("syntax error: "), "{}", err.message);
    }

    #[test]
    fn syntax_of_nightly_toolchains_is_read_as_what_it_stands_for() {
        // Item `const` blocks, const traits and impls, `[const]` and `~const` bounds, impl
        // restrictions and field defaults; inline `const` blocks in expressions and
        // `Token![const]` are left as they are.
        let text = "const { assert!(size_of::<u32>() == 4); }\n\
                    pub const trait Reg: Copy {}\n\
                    const impl Reg for u32 {}\n\
                    impl const Reg for u64 {}\n\
                    pub const unsafe trait Raw {}\n\
                    pub impl(self) trait Sealed: Sized {}\n\
                    pub fn f<R: [const] Reg + ~const Copy>(r: R) -> R { r }\n\
                    pub struct Options { pub size: usize = 5, pub map: Vec<(u8, u8)> = Vec::new(), pub flag: bool }\n\
                    pub fn g() -> [Option<u8>; 4] { let t: Option<Token![const]> = None; [const { None }; 4] }\n";
        let parsed = parse(text).expect("parsed");
        assert!(parsed.skipped.is_empty(), "{:?}", parsed.skipped);
        let names: Vec<String> = parsed
            .syntax
            .items
            .iter()
            .map(|item| match item {
                syn::Item::Const(c) => c.ident.to_string(),
                syn::Item::Trait(t) => t.ident.to_string(),
                syn::Item::Impl(i) => quote::ToTokens::to_token_stream(&i.self_ty).to_string(),
                syn::Item::Fn(f) => f.sig.ident.to_string(),
                syn::Item::Struct(s) => s
                    .fields
                    .iter()
                    .map(|f| f.ident.as_ref().unwrap().to_string())
                    .collect::<Vec<_>>()
                    .join(","),
                _ => "?".to_string(),
            })
            .collect();
        assert_eq!(
            names,
            ["_", "Reg", "u32", "u64", "Raw", "Sealed", "f", "size,map,flag", "g"]
        );
    }
}
