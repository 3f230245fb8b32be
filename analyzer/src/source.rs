//! Source files, the spans that point into them, and the problems located by those spans.

use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// One source file as given by the user: its path as written and its text.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// The path as the user gave it (printed back unchanged).
    pub path: String,
    /// The whole text of the file.
    pub text: String,
    line_starts: Vec<usize>,
    /// The names written after the word `struct`, found when first asked.
    struct_names: OnceLock<Option<Arc<HashSet<String>>>>,
}

/// A region of a source file: byte offsets plus 1-based line and column of its start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
pub struct Span {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset one past the last character.
    pub end: usize,
    /// 1-based line of the first character.
    pub line: usize,
    /// 1-based column (in characters) of the first character.
    pub column: usize,
}

impl SourceFile {
    /// Wraps a file's text, indexing its line starts.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self {
            path: path.into(),
            text,
            line_starts,
            struct_names: OnceLock::new(),
        }
    }

    /// Every name the text writes right after the word `struct` (comments and strings
    /// included): a superset of the structs it defines, found once. `None` when a comment
    /// follows the word, so that any name may be defined there.
    pub fn struct_names(&self) -> Option<&HashSet<String>> {
        let is_name = |c: char| c.is_alphanumeric() || c == '_';
        self.struct_names
            .get_or_init(|| {
                let text = self.text.as_str();
                let mut names = HashSet::new();
                for (at, word) in text.match_indices("struct") {
                    let after = &text[at + word.len()..];
                    if text[..at].chars().next_back().is_some_and(is_name) || after.starts_with(is_name) {
                        continue;
                    }
                    let after = after.trim_start();
                    if after.starts_with('/') {
                        return None;
                    }
                    let end = after.find(|c: char| !is_name(c)).unwrap_or(after.len());
                    names.insert(after[..end].to_string());
                }
                Some(Arc::new(names))
            })
            .as_deref()
    }

    /// Byte offset of a 1-based line and 0-based character column, as proc-macro2 reports them.
    pub fn offset(&self, line: usize, column: usize) -> usize {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1)) else {
            return self.text.len();
        };
        let rest = &self.text[start..];
        let within = rest.char_indices().nth(column).map(|(i, _)| i).unwrap_or(rest.len());
        start + within
    }

    /// The span of a syntax node's tokens.
    pub fn span_of(&self, span: proc_macro2::Span) -> Span {
        let (start, end) = (span.start(), span.end());
        let start_byte = self.offset(start.line, start.column);
        let end_byte = self.offset(end.line, end.column).max(start_byte);
        Span {
            start: start_byte,
            end: end_byte,
            line: start.line.max(1),
            column: start.column + 1,
        }
    }

    /// The span of a syntax node, from its first to its last token.
    pub fn span_of_node(&self, node: &impl quote::ToTokens) -> Span {
        let mut tokens = node.to_token_stream().into_iter();
        let Some(first) = tokens.next() else {
            return self.span_of(proc_macro2::Span::call_site());
        };
        let first = self.span_of(first.span());
        let last = tokens.last().map(|t| self.span_of(t.span())).unwrap_or(first);
        Span {
            end: last.end.max(first.end),
            ..first
        }
    }

    /// The source text of a span.
    pub fn snippet(&self, span: Span) -> &str {
        self.text.get(span.start..span.end).unwrap_or("")
    }

    /// The text of a 1-based line, without its line break.
    pub fn line_text(&self, line: usize) -> Option<&str> {
        let start = *self.line_starts.get(line.checked_sub(1)?)?;
        let end = self.line_starts.get(line).map_or(self.text.len(), |&next| next);
        Some(self.text[start..end].trim_end_matches(['\n', '\r']))
    }

    /// The byte offset where a 1-based line starts; the end of the text past the last line.
    pub fn line_start(&self, line: usize) -> usize {
        line.checked_sub(1)
            .and_then(|index| self.line_starts.get(index))
            .copied()
            .unwrap_or(self.text.len())
    }

    /// The 1-based line and column of a byte offset.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let start = self.line_starts[line.saturating_sub(1)];
        let column = self.text.get(start..offset).map_or(0, |s| s.chars().count());
        (line, column + 1)
    }
}

/// Why a file, or an item of it, could not be read or analyzed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileError {
    /// The path as given.
    pub path: String,
    /// What went wrong, one lowercase sentence.
    pub message: String,
    /// Where, when known.
    pub span: Option<Span>,
}

impl FileError {
    /// An error about a whole file (it could not be read, say).
    pub fn without_span(path: &str, message: impl Into<String>) -> FileError {
        FileError {
            path: path.to_string(),
            message: message.into(),
            span: None,
        }
    }
}

impl FileError {
    /// An error at a place in the file.
    pub fn at(path: &str, message: impl Into<String>, span: Span) -> FileError {
        FileError {
            path: path.to_string(),
            message: message.into(),
            span: Some(span),
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.span {
            Some(span) => write!(f, "{}:{}:{}: {}", self.path, span.line, span.column, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

impl std::error::Error for FileError {}

impl SourceFile {
    /// Decodes a file's bytes as UTF-8, pointing at the first invalid byte otherwise.
    pub fn from_bytes(path: impl Into<String>, bytes: Vec<u8>) -> Result<SourceFile, FileError> {
        let path = path.into();
        match String::from_utf8(bytes) {
            Ok(text) => Ok(SourceFile::new(path, text)),
            Err(err) => {
                let valid = err.utf8_error().valid_up_to();
                let bytes = err.into_bytes();
                let prefix = SourceFile::new(path.clone(), String::from_utf8_lossy(&bytes[..valid]));
                let (line, column) = prefix.line_column(valid);
                Err(FileError {
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

/// Code the analyzer could not see into, at a place in a file.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Unsupported {
    /// Where.
    pub span: Span,
    /// The file, when not the one reported on (a helper of another module).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// What and why, as one lowercase sentence.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_names_are_the_words_after_struct_or_unknown_behind_a_comment() {
        let file = SourceFile::new(
            "a.rs",
            "pub struct Body { x: f32 }\n/// A struct of `Cell`.\nstruct\n  Cell(u32);\nfn destructure() {}\n",
        );
        let names = file.struct_names().expect("no comment after `struct`");
        let mut names: Vec<&str> = names.iter().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, ["Body", "Cell", "of"]);
        let hidden = SourceFile::new("b.rs", "struct /* kept */ Hidden;\n");
        assert!(hidden.struct_names().is_none());
    }
}
