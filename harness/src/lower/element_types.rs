//! The element type of a local array written without one: `let a = [x, y, z];`,
//! `let w = [v.to_bits(); 4];`, `let c = ['a', 'b'];`.

/// A `char` is a Unicode scalar value of four bytes, as `u32`.
pub(super) fn of_literal(lit: &syn::Lit) -> Option<&'static str> {
    match lit {
        syn::Lit::Char(_) => Some("unsigned int"),
        _ => None,
    }
}

/// Rust gives every element one type, so the type of the first lowered element is the type of
/// all of them.
pub(super) fn of_value(first: &str) -> String {
    format!("std::decay_t<decltype({first})>")
}

/// `'A'` is the scalar value `65u`.
pub(super) fn char_literal(c: &syn::LitChar) -> String {
    format!("{}u", c.value() as u32)
}
