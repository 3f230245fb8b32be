//! Source text to syntax tree, refusing input that would exhaust the parser's stack.

mod depth;

use crate::source::{FileError, SourceFile, Span};

/// The name a path ends with: `kernel` for `cuda_std::kernel`, `add` for `thread::add`.
pub fn last_segment(path: &syn::Path) -> String {
    path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default()
}

/// Parses a file with syn after checking that its nesting stays within what the parser and the
/// analysis can recurse through.
pub fn parse_file(file: &SourceFile) -> Result<syn::File, FileError> {
    let error = |message: String, span: Option<Span>| FileError {
        path: file.path.clone(),
        message,
        span,
    };
    let tokens: proc_macro2::TokenStream = file
        .text
        .parse()
        .map_err(|e: proc_macro2::LexError| error(format!("cannot tokenize: {e}"), Some(file.span_of(e.span()))))?;
    depth::check(file, tokens.clone()).map_err(|(message, span)| error(message, Some(span)))?;
    syn::parse2::<syn::File>(tokens).map_err(|e| {
        let span = file.span_of(e.span());
        error(format!("syntax error: {e}"), Some(span))
    })
}
