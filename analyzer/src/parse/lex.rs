//! A lexical scan that names why a file could not be split into tokens.
//!
//! proc-macro2 only reports that tokenizing failed, at a place that is often far from the
//! cause. This scan runs after such a failure, walks the text once more without recursion,
//! and returns the first problem with its exact line and column: an unclosed, mismatched or
//! unexpected delimiter, an unterminated literal or block comment, or a character that starts
//! no token.

use crate::source::Span;

/// Where the scan stands: a character index plus its byte offset, line and column.
#[derive(Debug, Clone, Copy)]
struct Position {
    index: usize,
    byte: usize,
    line: usize,
    column: usize,
}

/// A lexical problem: what is wrong, and the span it points at.
type Problem = (String, Span);

/// The first lexical problem of `text`, or `None` when the scan finds nothing wrong.
pub fn diagnose(text: &str) -> Option<Problem> {
    Scanner::new(text).run().err()
}

struct Scanner<'a> {
    text: &'a str,
    chars: Vec<(usize, char)>,
    at: Position,
    open: Vec<(char, Position)>,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Self {
        Scanner {
            text,
            chars: text.char_indices().collect(),
            at: Position {
                index: 0,
                byte: 0,
                line: 1,
                column: 1,
            },
            open: Vec::new(),
        }
    }

    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at.index + ahead).map(|&(_, c)| c)
    }

    fn bump(&mut self) {
        let Some(&(_, c)) = self.chars.get(self.at.index) else {
            return;
        };
        self.at.index += 1;
        self.at.byte = self.chars.get(self.at.index).map_or(self.text.len(), |&(b, _)| b);
        if c == '\n' {
            self.at.line += 1;
            self.at.column = 1;
        } else {
            self.at.column += 1;
        }
    }

    fn bump_n(&mut self, n: usize) {
        for _ in 0..n {
            self.bump();
        }
    }

    /// The span from `from` covering `chars` characters.
    fn span(&self, from: Position, chars: usize) -> Span {
        let end_index = (from.index + chars).min(self.chars.len());
        let end = self.chars.get(end_index).map_or(self.text.len(), |&(b, _)| b);
        Span {
            start: from.byte,
            end,
            line: from.line,
            column: from.column,
        }
    }

    fn problem(&self, message: impl Into<String>, from: Position, chars: usize) -> Result<(), Problem> {
        Err((message.into(), self.span(from, chars)))
    }

    fn run(mut self) -> Result<(), Problem> {
        while let Some(c) = self.peek(0) {
            let start = self.at;
            match c {
                '/' if self.peek(1) == Some('/') => self.line_comment(),
                '/' if self.peek(1) == Some('*') => self.block_comment()?,
                '"' => self.quoted(start, 0, "string literal")?,
                '\'' => self.quote(start, "character literal")?,
                '(' | '[' | '{' => {
                    self.open.push((c, start));
                    self.bump();
                }
                ')' | ']' | '}' => self.close(c, start)?,
                c if is_whitespace(c) => self.bump(),
                c if is_ident_start(c) => self.word(start)?,
                c if c.is_ascii_digit() => self.number(),
                c if is_punct(c) => self.bump(),
                other => {
                    return self.problem(
                        format!(
                            "unexpected character `{}` (U+{:04X})",
                            other.escape_debug(),
                            other as u32
                        ),
                        start,
                        1,
                    )
                }
            }
        }
        match self.open.last() {
            Some(&(c, at)) => self.problem(format!("unclosed `{c}`"), at, 1),
            None => Ok(()),
        }
    }

    fn close(&mut self, c: char, start: Position) -> Result<(), Problem> {
        let opener = match c {
            ')' => '(',
            ']' => '[',
            _ => '{',
        };
        match self.open.last() {
            None => self.problem(format!("unexpected closing `{c}`"), start, 1),
            Some(&(open, at)) if open != opener => self.problem(
                format!(
                    "mismatched closing `{c}`; `{open}` opened at {}:{} is still open",
                    at.line, at.column
                ),
                start,
                1,
            ),
            Some(_) => {
                self.open.pop();
                self.bump();
                Ok(())
            }
        }
    }

    fn line_comment(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.bump();
        }
    }

    /// A block comment, nested ones counted; unterminated ones point at their outermost `/*`.
    fn block_comment(&mut self) -> Result<(), Problem> {
        let start = self.at;
        self.bump_n(2);
        let mut depth = 1usize;
        while depth > 0 {
            match (self.peek(0), self.peek(1)) {
                (None, _) => return self.problem("unterminated block comment", start, 2),
                (Some('/'), Some('*')) => {
                    depth += 1;
                    self.bump_n(2);
                }
                (Some('*'), Some('/')) => {
                    depth -= 1;
                    self.bump_n(2);
                }
                _ => self.bump(),
            }
        }
        Ok(())
    }

    /// An identifier or keyword, or the prefix of a byte, C or raw literal (`b"`, `br#"`,
    /// `b'`, `c"`, `r#ident`).
    fn word(&mut self, start: Position) -> Result<(), Problem> {
        let mut word = String::new();
        while let Some(c) = self.peek(0).filter(|&c| is_ident_continue(c)) {
            word.push(c);
            self.bump();
        }
        let prefix = word.chars().count();
        match (word.as_str(), self.peek(0)) {
            ("b", Some('"')) => self.quoted(start, prefix, "byte string literal"),
            ("c", Some('"')) => self.quoted(start, prefix, "C string literal"),
            ("b", Some('\'')) => self.quote(start, "byte literal"),
            ("r", Some('#')) if self.peek(1).is_some_and(is_ident_start) => {
                self.bump();
                while self.peek(0).is_some_and(is_ident_continue) {
                    self.bump();
                }
                Ok(())
            }
            ("r", Some('"' | '#')) => self.raw(start, prefix, "raw string literal"),
            ("br", Some('"' | '#')) => self.raw(start, prefix, "raw byte string literal"),
            ("cr", Some('"' | '#')) => self.raw(start, prefix, "raw C string literal"),
            _ => Ok(()),
        }
    }

    /// Digits, with any suffix, base prefix or digit separators.
    fn number(&mut self) {
        while self.peek(0).is_some_and(is_ident_continue) {
            self.bump();
        }
    }

    /// A string literal whose `"` is at the scanner's position, `prefix` characters after
    /// `start`.
    fn quoted(&mut self, start: Position, prefix: usize, what: &str) -> Result<(), Problem> {
        self.bump();
        loop {
            match self.peek(0) {
                None => return self.problem(format!("unterminated {what}"), start, prefix + 1),
                Some('"') => {
                    self.bump();
                    return Ok(());
                }
                Some('\\') => self.escape(what, true)?,
                Some(_) => self.bump(),
            }
        }
    }

    /// A raw string: `#`s, then `"`, up to a `"` followed by as many `#`s.
    fn raw(&mut self, start: Position, prefix: usize, what: &str) -> Result<(), Problem> {
        let mut hashes = 0usize;
        while self.peek(0) == Some('#') {
            hashes += 1;
            self.bump();
        }
        if self.peek(0) != Some('"') {
            return self.problem(format!("expected `\"` to start the {what}"), start, prefix + hashes);
        }
        self.bump();
        loop {
            match self.peek(0) {
                None => return self.problem(format!("unterminated {what}"), start, prefix + hashes + 1),
                Some('"') if (1..=hashes).all(|i| self.peek(i) == Some('#')) => {
                    self.bump_n(hashes + 1);
                    return Ok(());
                }
                Some(_) => self.bump(),
            }
        }
    }

    /// A `'` at the scanner's position: a character or byte literal, or a lifetime or label.
    fn quote(&mut self, start: Position, what: &str) -> Result<(), Problem> {
        let prefix = self.at.index - start.index;
        let unterminated = |s: &Self| s.problem(format!("unterminated {what}"), start, prefix + 1);
        match (self.peek(1), self.peek(2)) {
            (Some('\\'), _) => {
                self.bump();
                self.escape(what, false)?;
                if self.peek(0) != Some('\'') {
                    return unterminated(self);
                }
                self.bump();
                Ok(())
            }
            (Some(c), Some('\'')) if c != '\n' => {
                self.bump_n(3);
                Ok(())
            }
            (Some(c), _) if prefix == 0 && is_ident_start(c) => {
                self.bump();
                while self.peek(0).is_some_and(is_ident_continue) {
                    self.bump();
                }
                if self.peek(0) == Some('\'') {
                    let length = self.at.index - start.index + 1;
                    return self.problem("a character literal holds exactly one character", start, length);
                }
                Ok(())
            }
            _ => unterminated(self),
        }
    }

    /// A backslash escape inside a literal; `in_string` allows a line continuation.
    fn escape(&mut self, what: &str, in_string: bool) -> Result<(), Problem> {
        let start = self.at;
        self.bump();
        let Some(c) = self.peek(0) else {
            // The literal's own check reports the missing end.
            return Ok(());
        };
        match c {
            'n' | 'r' | 't' | '\\' | '0' | '\'' | '"' => self.bump(),
            '\n' if in_string => self.bump(),
            'x' => {
                self.bump();
                for _ in 0..2 {
                    if !self.peek(0).is_some_and(|d| d.is_ascii_hexdigit()) {
                        return self.problem(format!("invalid `\\x` escape in {what}"), start, 2);
                    }
                    self.bump();
                }
            }
            'u' => {
                self.bump();
                if self.peek(0) != Some('{') {
                    return self.problem(format!("invalid `\\u` escape in {what}: expected `{{`"), start, 2);
                }
                self.bump();
                while self.peek(0).is_some_and(|d| d.is_ascii_hexdigit() || d == '_') {
                    self.bump();
                }
                if self.peek(0) != Some('}') {
                    return self.problem(format!("invalid `\\u` escape in {what}: expected `}}`"), start, 2);
                }
                self.bump();
            }
            other => {
                return self.problem(
                    format!("unknown escape `\\{}` in {what}", other.escape_debug()),
                    start,
                    2,
                )
            }
        }
        Ok(())
    }
}

/// Whitespace as the tokenizer sees it, the left-to-right and right-to-left marks included.
fn is_whitespace(c: char) -> bool {
    c.is_whitespace() || c == '\u{200e}' || c == '\u{200f}'
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_continue(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

fn is_punct(c: char) -> bool {
    "~!@#$%^&*-=+|;:,<.>/?".contains(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message and 1-based line:column of the problem found.
    fn found(text: &str) -> Option<(String, usize, usize)> {
        diagnose(text).map(|(message, span)| (message, span.line, span.column))
    }

    fn at(message: &str, line: usize, column: usize) -> Option<(String, usize, usize)> {
        Some((message.to_string(), line, column))
    }

    #[test]
    fn well_formed_text_has_no_problem() {
        let text = "fn f<'a>(x: &'a [u8]) -> char {\n    let c = 'x'; let q = '\\''; let b = b'\\n';\n    \
                    let s = \"a \\\" } b\"; let r = r#\"raw \" ( \"#; let br = br\"[\"; let u = '\\u{1F600}';\n    \
                    /* block /* nested ( */ [ */ // line {\n    /// doc (\n    'label: loop { break 'label; }\n    \
                    let e = '😀'; let n = 1_000u32 + 0x1F + 1.5e3 as u32; let r#type = 1;\n    c\n}\n";
        assert_eq!(found(text), None);
    }

    #[test]
    fn unclosed_delimiter_points_at_the_opening() {
        assert_eq!(
            found("fn f() {\n    let v = [1.0,\n        2.0,\n"),
            at("unclosed `[`", 2, 13)
        );
        assert_eq!(found("fn f() {\n"), at("unclosed `{`", 1, 8));
    }

    #[test]
    fn mismatched_closing_names_the_open_delimiter() {
        assert_eq!(
            found("fn f() {\n    g(a[0);\n}\n"),
            at("mismatched closing `)`; `[` opened at 2:8 is still open", 2, 10)
        );
    }

    #[test]
    fn unexpected_closing_is_located() {
        assert_eq!(found("fn f() {}\n}\n"), at("unexpected closing `}`", 2, 1));
    }

    #[test]
    fn unterminated_literals_point_at_their_start() {
        assert_eq!(
            found("fn f() {\n    let s = \"abc;\n}\n"),
            at("unterminated string literal", 2, 13)
        );
        assert_eq!(found("let s = b\"abc"), at("unterminated byte string literal", 1, 9));
        assert_eq!(
            found("let s = r##\"abc\"# ) \n"),
            at("unterminated raw string literal", 1, 9)
        );
        assert_eq!(found("let c = '\\n;"), at("unterminated character literal", 1, 9));
        assert_eq!(found("let c = b'\\n;"), at("unterminated byte literal", 1, 9));
    }

    #[test]
    fn unterminated_block_comment_points_at_the_outermost_opening() {
        assert_eq!(
            found("fn f() {}\n  /* a /* b */ c\n fn g() {}\n"),
            at("unterminated block comment", 2, 3)
        );
    }

    #[test]
    fn delimiters_inside_comments_and_literals_are_ignored() {
        assert_eq!(found("fn f() { /* ( */ let s = \"[\"; let c = '{'; } // )"), None);
        assert_eq!(found("/* /* */ ( */ fn f() {}"), None);
    }

    #[test]
    fn lifetimes_are_not_character_literals() {
        assert_eq!(
            found("struct S<'a, 'b>(&'a u8, &'b u8);\nfn f<'x>(v: &'x [u8]) -> u8 { let c = 'c'; v[0] }\n("),
            at("unclosed `(`", 3, 1)
        );
        assert_eq!(
            found("let c = 'ab';"),
            at("a character literal holds exactly one character", 1, 9)
        );
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        assert_eq!(found("// é\nlet s = \"é\"; let t = (é"), at("unclosed `(`", 2, 22));
        let (_, span) = diagnose("é(").expect("unclosed");
        assert_eq!((span.start, span.end), (2, 3));
    }

    #[test]
    fn stray_characters_are_named() {
        assert_eq!(
            found("fn f() {\n    let x = \u{201c}a\u{201d};\n}\n"),
            at("unexpected character `\u{201c}` (U+201C)", 2, 13)
        );
        assert_eq!(
            found("let s = \"\\q\";"),
            at("unknown escape `\\q` in string literal", 1, 10)
        );
    }
}
