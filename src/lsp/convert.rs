//! Between kernel-lint's byte spans and paths and the protocol's positions and URIs.

use kernel_lint_analyzer::{FileError, Span};
use kernel_lint_lints::{Diagnostic, Level};
use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Position, Range, Uri,
};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// How the client counts the characters of a line, as negotiated at initialize.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Bytes of UTF-8.
    Utf8,
    /// Code units of UTF-16 (the protocol's default).
    Utf16,
}

/// The protocol position of byte `offset` of `text` (clamped to the text, and back to the
/// start of a character), counting lines from `from`, a byte offset at or before `offset` and
/// the 0-based line it is on: a span's end is found from its start without reading the text
/// above it.
fn position_from(text: &str, from: (usize, usize), offset: usize, encoding: Encoding) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let (mut from, mut line) = from;
    if from > offset || !text.is_char_boundary(from) {
        (from, line) = (0, 0);
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    line += text[from..offset].matches('\n').count();
    let within = &text[line_start..offset];
    let character = match encoding {
        Encoding::Utf8 => within.len(),
        Encoding::Utf16 => within.encode_utf16().count(),
    };
    Position::new(to_u32(line), to_u32(character))
}

/// The byte offset of a protocol position of `text`: past the end of a line is its end, past
/// the last line is the end of the text, inside a character is its start.
pub fn offset(text: &str, at: Position, encoding: Encoding) -> usize {
    let mut line_start = 0;
    for _ in 0..at.line {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let line_end = text[line_start..].find('\n').map_or(text.len(), |i| line_start + i);
    let line = text[line_start..line_end].trim_end_matches('\r');
    let wanted = at.character as usize;
    let mut counted = 0;
    for (i, c) in line.char_indices() {
        if counted >= wanted {
            return line_start + i;
        }
        counted += match encoding {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
        };
        if counted > wanted {
            return line_start + i;
        }
    }
    line_start + line.len()
}

/// The protocol range of a span of `text`.
pub fn range(text: &str, span: Span, encoding: Encoding) -> Range {
    // The span knows its first line; the text above it is not read again for each finding.
    let line_start = text
        .get(..span.start)
        .map(|before| before.rfind('\n').map_or(0, |i| i + 1));
    let known = match line_start {
        Some(line_start) if span.line >= 1 => (line_start, span.line - 1),
        _ => (0, 0),
    };
    let start = position_from(text, known, span.start, encoding);
    let end = position_from(text, (known.0, start.line as usize), span.end.max(span.start), encoding);
    Range::new(start, end)
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The `file://` URI of an absolute path, with the bytes URIs do not allow escaped.
pub fn uri_of(path: &Path) -> Option<Uri> {
    let mut text = String::from("file://");
    let path = path.to_string_lossy();
    if !path.starts_with('/') {
        text.push('/');
    }
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'.' | b'_' | b'~' => text.push(char::from(byte)),
            _ => text.push_str(&format!("%{byte:02X}")),
        }
    }
    Uri::from_str(&text).ok()
}

/// The path of a `file://` URI; `None` for any other scheme.
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file://host/path` names a host; only the local one is a path here.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes = percent_decode(path)?;
    let text = String::from_utf8(bytes).ok()?;
    text.starts_with('/').then(|| PathBuf::from(text))
}

fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// Where the lints are documented online, when the package names its page.
fn code_description() -> Option<CodeDescription> {
    let repository = env!("CARGO_PKG_REPOSITORY");
    if repository.is_empty() {
        return None;
    }
    let href = Uri::from_str(&format!("{}#lints", repository.trim_end_matches('/'))).ok()?;
    Some(CodeDescription { href })
}

/// The severity a lint level is shown with; `allow` is never reported.
pub fn severity(level: Level) -> DiagnosticSeverity {
    match level {
        Level::Deny => DiagnosticSeverity::ERROR,
        Level::Warn => DiagnosticSeverity::WARNING,
        Level::Note | Level::Allow => DiagnosticSeverity::INFORMATION,
    }
}

/// A finding as the protocol shows it, in the file `text` is the text of; its secondary labels
/// become related information at `uri`.
pub fn diagnostic(finding: &Diagnostic, text: &str, uri: &Uri, encoding: Encoding) -> lsp_types::Diagnostic {
    let mut message = finding.message.clone();
    if let Some(help) = &finding.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    for note in &finding.notes {
        message.push_str("\nnote: ");
        message.push_str(note);
    }
    let related: Vec<DiagnosticRelatedInformation> = finding
        .secondary
        .iter()
        .map(|label| DiagnosticRelatedInformation {
            location: Location::new(uri.clone(), range(text, label.span, encoding)),
            message: label.message.clone(),
        })
        .collect();
    lsp_types::Diagnostic {
        range: range(text, finding.primary.span, encoding),
        severity: Some(severity(finding.level)),
        code: Some(NumberOrString::String(finding.code.to_string())),
        code_description: code_description(),
        source: Some("kernel-lint".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

/// A file or item that could not be analyzed (a syntax error, say), as one error at its
/// location, or at the file's start when it has none.
pub fn error(err: &FileError, text: &str, encoding: Encoding) -> lsp_types::Diagnostic {
    let range = err.span.map_or_else(Range::default, |span| range(text, span, encoding));
    lsp_types::Diagnostic {
        range,
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("kernel-lint".into()),
        message: err.message.clone(),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(text: &str, offset: usize, encoding: Encoding) -> Position {
        position_from(text, (0, 0), offset, encoding)
    }

    #[test]
    fn positions_count_what_the_client_counts() {
        // `é` is 2 bytes of UTF-8 and 1 unit of UTF-16; `𝛼` is 4 bytes and 2 units.
        let text = "a\nlet é𝛼 = x[i];\n";
        let x = text.find("x[").expect("present");
        assert_eq!(position(text, x, Encoding::Utf8), Position::new(1, 13));
        assert_eq!(position(text, x, Encoding::Utf16), Position::new(1, 10));
        assert_eq!(offset(text, Position::new(1, 13), Encoding::Utf8), x);
        assert_eq!(offset(text, Position::new(1, 10), Encoding::Utf16), x);
        // Past the line's end is its end; past the text, the text's end.
        assert_eq!(offset(text, Position::new(0, 40), Encoding::Utf16), 1);
        assert_eq!(offset(text, Position::new(9, 0), Encoding::Utf16), text.len());
        // Inside a surrogate pair is the character's start.
        let alpha = text.find('𝛼').expect("present");
        assert_eq!(offset(text, Position::new(1, 6), Encoding::Utf16), alpha);
        assert_eq!(position(text, alpha + 1, Encoding::Utf8), Position::new(1, 6));
    }

    #[test]
    fn a_range_from_its_span_s_line_is_the_range_counted_from_the_start() {
        let source = kernel_lint_analyzer::SourceFile::new("k.rs", "fn k() {\n    let é = a[i\n        + 1];\n}\n");
        let text = &source.text;
        let start = text.find("a[").expect("present");
        let end = text.find("];").expect("present") + 1;
        let (line, column) = source.line_column(start);
        let span = Span {
            start,
            end,
            line,
            column,
        };
        assert_eq!(span.line, 2);
        for encoding in [Encoding::Utf8, Encoding::Utf16] {
            let expected = Range::new(position(text, start, encoding), position(text, end, encoding));
            assert_eq!(range(text, span, encoding), expected);
        }
        assert_eq!(
            range(text, span, Encoding::Utf16),
            Range::new(Position::new(1, 12), Position::new(2, 12))
        );
    }

    #[test]
    fn paths_and_uris_round_trip() {
        let path = Path::new("/tmp/a b/ké.rs");
        let uri = uri_of(path).expect("a uri");
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/k%C3%A9.rs");
        assert_eq!(path_of(&uri).as_deref(), Some(path));
        assert_eq!(path_of(&Uri::from_str("untitled:Untitled-1").expect("a uri")), None);
    }
}
