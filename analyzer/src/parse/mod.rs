//! Source text to syntax tree, refusing input that would exhaust the parser's stack.

mod depth;

use crate::source::{SourceFile, Span};
use serde::Serialize;
use std::fmt;

/// Why a file could not be analyzed at all.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParseError {
    /// The path as given.
    pub path: String,
    /// What went wrong, one lowercase sentence.
    pub message: String,
    /// Where, when known.
    pub span: Option<Span>,
}

impl ParseError {
    /// An error about a whole file (it could not be read, say).
    pub fn without_span(path: &str, message: impl Into<String>) -> ParseError {
        ParseError {
            path: path.to_string(),
            message: message.into(),
            span: None,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.span {
            Some(span) => write!(f, "{}:{}:{}: {}", self.path, span.line, span.column, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl std::error::Error for ParseError {}

impl SourceFile {
    /// Decodes a file's bytes as UTF-8, pointing at the first invalid byte otherwise.
    pub fn from_bytes(path: impl Into<String>, bytes: Vec<u8>) -> Result<SourceFile, ParseError> {
        let path = path.into();
        match String::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile::new(path, text)),
            Err(err) => {
                let valid = err.utf8_error().valid_up_to();
                let bytes = err.into_bytes();
                let prefix = SourceFile::new(path.clone(), String::from_utf8_lossy(&bytes[..valid]));
                let (line, column) = prefix.line_column(valid);
                Err(ParseError {
                    message: format!("file is not valid UTF-8 (invalid byte 0x{:02x})", bytes[valid]),
                    span: Some(Span {
                        start: valid,
                        end: valid + 1,
                        line,
                        column,
                    }),
                    path,
                })
            }
        }
    }
}

/// The name a path ends with: `kernel` for `cuda_std::kernel`, `add` for `thread::add`.
pub fn last_segment(path: &syn::Path) -> String {
    path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default()
}

/// Parses a file with syn after checking that its nesting stays within what the parser and the
/// analysis can recurse through.
pub fn parse_file(file: &SourceFile) -> Result<syn::File, ParseError> {
    let error = |message: String, span: Option<Span>| ParseError {
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
