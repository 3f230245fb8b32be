//! `const V1: u128 = 1 << 100;`: C++ has no 128-bit literal and evaluates `1 << 100` in
//! `int`, so a 128-bit constant is evaluated here, in two's complement, and built from its two
//! 64-bit halves.

use std::collections::HashMap;

use syn::{BinOp, Expr, UnOp};

/// The C++ value of a `u128`/`i128` constant; `None` when `ty` is narrower or the expression
/// is not one of literals, other 128-bit constants and integer operators.
pub(super) fn wide_constant(ty: &syn::Type, e: &Expr, known: &HashMap<String, u128>) -> Option<(String, u128)> {
    let signed = match ty {
        syn::Type::Path(p) if p.path.is_ident("u128") => false,
        syn::Type::Path(p) if p.path.is_ident("i128") => true,
        _ => return None,
    };
    let v = eval(e, signed, known)?;
    Some((halves(v, signed), v))
}

/// `(T)(((unsigned __int128)HI << 64) | LO)`.
fn halves(v: u128, signed: bool) -> String {
    let ty = if signed { "__int128" } else { "unsigned __int128" };
    let (hi, lo) = ((v >> 64) as u64, v as u64);
    format!("(({ty})(((unsigned __int128){hi:#x}ull << 64) | {lo:#x}ull))")
}

fn eval(e: &Expr, signed: bool, known: &HashMap<String, u128>) -> Option<u128> {
    Some(match e {
        Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse::<u128>().ok()?,
            _ => return None,
        },
        Expr::Paren(p) => eval(&p.expr, signed, known)?,
        Expr::Group(g) => eval(&g.expr, signed, known)?,
        Expr::Cast(c) => eval(&c.expr, signed, known)?,
        Expr::Unary(u) => match u.op {
            UnOp::Neg(_) => eval(&u.expr, signed, known)?.wrapping_neg(),
            UnOp::Not(_) => !eval(&u.expr, signed, known)?,
            _ => return None,
        },
        Expr::Path(p) => {
            let segments: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
            match segments.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
                ["u128", "MAX"] => u128::MAX,
                ["u128", "MIN"] => 0,
                ["i128", "MAX"] => i128::MAX as u128,
                ["i128", "MIN"] => i128::MIN as u128,
                [.., name] => *known.get(*name)?,
                [] => return None,
            }
        }
        Expr::Binary(b) => {
            let l = eval(&b.left, signed, known)?;
            let r = eval(&b.right, signed, known)?;
            match b.op {
                BinOp::Add(_) => l.wrapping_add(r),
                BinOp::Sub(_) => l.wrapping_sub(r),
                BinOp::Mul(_) => l.wrapping_mul(r),
                BinOp::BitOr(_) => l | r,
                BinOp::BitAnd(_) => l & r,
                BinOp::BitXor(_) => l ^ r,
                BinOp::Shl(_) if r < 128 => l << r,
                BinOp::Shr(_) if r < 128 && signed => ((l as i128) >> r) as u128,
                BinOp::Shr(_) if r < 128 => l >> r,
                _ => return None,
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_from_halves() {
        let known = HashMap::new();
        let e: Expr = syn::parse_str("(1 << 127) - 1").unwrap();
        let ty: syn::Type = syn::parse_str("u128").unwrap();
        let (text, v) = wide_constant(&ty, &e, &known).unwrap();
        assert_eq!(v, i128::MAX as u128);
        assert_eq!(
            text,
            "((unsigned __int128)(((unsigned __int128)0x7fffffffffffffffull << 64) | 0xffffffffffffffffull))"
        );
        let e: Expr = syn::parse_str("-(1 << 100)").unwrap();
        let ty: syn::Type = syn::parse_str("i128").unwrap();
        assert_eq!(wide_constant(&ty, &e, &known).unwrap().1 as i128, -(1i128 << 100));
    }
}
