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
    match of_asm_macro(first) {
        Some(ty) => ty,
        None => format!("std::decay_t<decltype({first})>"),
    }
}

/// The prelude's inline-PTX macros expand to a lambda, which `decltype` may not hold: their
/// result type, from the macro's name or its type argument.
fn of_asm_macro(value: &str) -> Option<String> {
    let (name, rest) = value.split_once('(')?;
    match name {
        "KL_PACK_F32X2_16" => Some("unsigned short".to_string()),
        "KL_PACK_F32X2" | "KL_CONVERT_TF32" | "KL_PACKED_HALF1" | "KL_PACKED_HALF2" | "KL_PACKED_HALF3" => {
            Some("unsigned int".to_string())
        }
        "KL_PTX_VALUE" => rest.split_once(',').map(|(ty, _)| ty.trim().to_string()),
        _ => None,
    }
}

/// `'A'` is the scalar value `65u`.
pub(super) fn char_literal(c: &syn::LitChar) -> String {
    format!("{}u", c.value() as u32)
}
