//! `ptx_asm!`'s `in("C") NAME` operand: a constant byte string whose text is spliced into the
//! instruction at compile time (`"mul%1.u32"` with `b".wide\0"` is `mul.wide.u32`). The text
//! is spliced into the template here, and the later operands are numbered one less.

use quote::ToTokens;
use syn::visit::Visit;
use syn::{Expr, Lit};

/// The text of a byte, C or UTF-8 string literal (`&` allowed), without its trailing NULs;
/// none unless it is printable ASCII.
fn literal_text(e: &Expr) -> Option<String> {
    let e = match e {
        Expr::Reference(r) => &*r.expr,
        other => other,
    };
    let Expr::Lit(lit) = e else { return None };
    let bytes = match &lit.lit {
        Lit::ByteStr(b) => b.value(),
        Lit::CStr(c) => c.value().to_bytes().to_vec(),
        Lit::Str(s) => s.value().into_bytes(),
        _ => return None,
    };
    let end = bytes.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
    let text = &bytes[..end];
    text.iter()
        .all(|b| b.is_ascii_graphic() || *b == b' ')
        .then(|| String::from_utf8_lossy(text).into_owned())
}

struct FindConst<'a> {
    name: &'a str,
    found: Vec<Expr>,
}

impl<'ast> Visit<'ast> for FindConst<'_> {
    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        if c.ident == self.name {
            self.found.push((*c.expr).clone());
        }
        syn::visit::visit_item_const(self, c);
    }
}

/// The text of a `C` operand: a string literal, or the one constant of the file of that name.
pub(super) fn operand_text(value: &Expr, file: Option<&syn::File>) -> Option<String> {
    if let Some(text) = literal_text(value) {
        return Some(text);
    }
    let Expr::Path(p) = value else { return None };
    let name = p.path.get_ident()?.to_string();
    let mut finder = FindConst {
        name: &name,
        found: Vec::new(),
    };
    finder.visit_file(file?);
    match finder.found.as_slice() {
        [one] => literal_text(one),
        _ => None,
    }
}

/// Whether a constant is a string that the file names only as `in("C")` operands: it has no
/// value at run time, so it needs no C++ definition.
pub(super) fn asm_text_const(c: &syn::ItemConst, file_text: &str) -> bool {
    if literal_text(&c.expr).is_none() {
        return false;
    }
    let name = c.ident.to_string();
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = file_text.as_bytes();
    let mut uses = 0;
    for (at, _) in file_text.match_indices(&name) {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let after = bytes.get(at + name.len()).copied();
        if before.is_some_and(is_word) || after.is_some_and(is_word) {
            continue;
        }
        let head = file_text[..at].trim_end();
        if head.ends_with("const") {
            continue;
        }
        if !head.ends_with("in(\"C\")") {
            return false;
        }
        uses += 1;
    }
    uses > 0
}

/// `template` with operand `index` replaced by `text` and the later operands renumbered.
pub(super) fn splice(template: &str, index: usize, text: &str) -> String {
    let mut out = String::new();
    let mut chars = template.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        if chars.peek() == Some(&'%') {
            out.push_str("%%");
            chars.next();
            continue;
        }
        let mut digits = String::new();
        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            digits.push(*d);
            chars.next();
        }
        match digits.parse::<usize>() {
            Ok(n) if n == index => out.push_str(text),
            Ok(n) if n > index => out.push_str(&format!("%{}", n - 1)),
            _ => {
                out.push('%');
                out.push_str(&digits);
            }
        }
    }
    out
}

/// The value's source, for a refusal.
pub(super) fn source(value: &Expr) -> String {
    value.to_token_stream().to_string()
}
