//! The comments of a source text, found by a small lexer that steps over string and character
//! literals (syn drops comments, and launch hints live in them).

/// A comment: `// ...` to the end of its line, or `/* ... */` (nested ones included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Comment {
    /// Byte offset of the `//` or `/*`.
    pub start: usize,
    /// Byte offset one past the comment (the line break is not part of a line comment).
    pub end: usize,
    /// Byte range of the text between the markers.
    pub body: (usize, usize),
}

impl Comment {
    /// The text between the markers.
    pub fn body<'a>(&self, text: &'a str) -> &'a str {
        text.get(self.body.0..self.body.1).unwrap_or("")
    }

    /// Whether the comment is an inner doc comment (`//!`, `/*!`), which documents the enclosing
    /// module rather than the item below.
    pub fn is_inner_doc(&self, text: &str) -> bool {
        self.body(text).starts_with('!')
    }
}

/// Every comment of a text, in order.
pub fn comments(text: &str) -> Vec<Comment> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1).copied()) {
            (b'/', Some(b'/')) => {
                let end = text[i..].find('\n').map_or(bytes.len(), |n| i + n);
                let end_of_body = if bytes.get(end.wrapping_sub(1)) == Some(&b'\r') && end > i + 2 {
                    end - 1
                } else {
                    end
                };
                out.push(Comment {
                    start: i,
                    end,
                    body: (i + 2, end_of_body),
                });
                i = end;
            }
            (b'/', Some(b'*')) => {
                let end = block_comment_end(bytes, i);
                let closed = end >= i + 4 && bytes.get(end - 2..end) == Some(b"*/");
                out.push(Comment {
                    start: i,
                    end,
                    body: (i + 2, if closed { end - 2 } else { end }),
                });
                i = end;
            }
            (b'"', _) => i = string_end(bytes, i + 1),
            (b'r', Some(b'"' | b'#')) if starts_literal(bytes, i) => i = raw_string_end(bytes, i + 1),
            (b'\'', _) => i = quote_end(text, i),
            _ => i += 1,
        }
    }
    out
}

/// One past the `*/` that closes the block comment opened at `start`, counting nested ones.
fn block_comment_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1).copied()) {
            (b'/', Some(b'*')) => {
                depth += 1;
                i += 2;
            }
            (b'*', Some(b'/')) => {
                depth = depth.saturating_sub(1);
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            _ => i += 1,
        }
    }
    bytes.len()
}

/// One past the closing `"` of a string whose body starts at `i`.
fn string_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Whether the `r` at `i` starts a raw string (`r"`, `r#"`, `br"`, `cr"`), not an identifier
/// such as `bar` or a raw identifier such as `r#type`.
fn starts_literal(bytes: &[u8], i: usize) -> bool {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let before = |k: usize| i.checked_sub(k).and_then(|j| bytes.get(j)).copied();
    let prefix_ok = match before(1) {
        None => true,
        Some(b'b' | b'c') => !before(2).is_some_and(ident),
        Some(b) => !ident(b),
    };
    let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
    prefix_ok && bytes.get(i + 1 + hashes) == Some(&b'"')
}

/// One past a raw string whose hashes start at `i` (just after the `r`).
fn raw_string_end(bytes: &[u8], i: usize) -> usize {
    let hashes = bytes[i..].iter().take_while(|&&b| b == b'#').count();
    let body = i + hashes + 1;
    let mut j = body;
    while j < bytes.len() {
        if bytes[j] == b'"' && bytes[j + 1..].iter().take(hashes).filter(|&&b| b == b'#').count() == hashes {
            return j + 1 + hashes;
        }
        j += 1;
    }
    bytes.len()
}

/// One past a character literal (`'a'`, `'\n'`, `'"'`) at `i`, or past the `'` of a lifetime.
fn quote_end(text: &str, i: usize) -> usize {
    let bytes = text.as_bytes();
    if bytes.get(i + 1) == Some(&b'\\') {
        let close = bytes[i + 2..].iter().skip(1).position(|&b| b == b'\'');
        return close.map_or(i + 1, |p| i + 3 + p + 1);
    }
    let Some(c) = text.get(i + 1..).and_then(|rest| rest.chars().next()) else {
        return i + 1;
    };
    let after = i + 1 + c.len_utf8();
    if bytes.get(after) == Some(&b'\'') {
        after + 1
    } else {
        i + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bodies(text: &str) -> Vec<&str> {
        comments(text).iter().map(|c| c.body(text)).collect()
    }

    #[test]
    fn line_and_block_comments() {
        let text = "a // one\n/* two /* nested */ still */ b\r\n// three\r\n";
        assert_eq!(bodies(text), [" one", " two /* nested */ still ", " three"]);
        let first = comments(text)[0];
        assert_eq!((first.start, first.end), (2, 8));
    }

    #[test]
    fn literals_are_stepped_over() {
        let text = r####"let s = "// no"; let r = r#"/* no "# "#; let c = '"'; let e = '\''; fn f<'a>(x: &'a u8) {} // yes"####;
        assert_eq!(bodies(text), [" yes"]);
        let text = "let u = \"a\\\"// no\"; let b = br\"/* no */\"; let bar = 1; // yes";
        assert_eq!(bodies(text), [" yes"]);
    }

    #[test]
    fn unterminated_input_does_not_panic() {
        for text in ["/* open", "\"open", "r#\"open", "'", "'\\", "//", "/*/"] {
            let _ = comments(text);
        }
        assert_eq!(bodies("/* open"), [" open"]);
    }

    #[test]
    fn every_prefix_of_tricky_text_is_lexed() {
        let text = "a /* b /* c */ d */ 'x' '\\'' r##\"e\"# \"##  \"f\\\"\" // é g\n'h";
        for end in (0..=text.len()).filter(|&e| text.is_char_boundary(e)) {
            for c in comments(&text[..end]) {
                assert!(c.start < c.end && c.end <= end);
                let _ = c.body(&text[..end]);
            }
        }
    }
}
