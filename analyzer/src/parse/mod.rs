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
        match check_then_parse(file, chunk, parse_items) {
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
}
