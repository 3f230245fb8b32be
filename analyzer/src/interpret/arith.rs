//! Integer arithmetic on index polynomials: binary operators, compound assignment and the
//! integer methods share one table from operator to operation.

use super::value::{why, Operand};
use super::{Interpreter, Op, Place, Value};
use crate::algebra::{CmpOp, OpKind, Poly, Predicate, READ_FROM_MEMORY};
use syn::{BinOp, Expr};

/// An integer operation, whether written `a + b`, `a += b` or `a.wrapping_add(b)`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arith {
    Add,
    Sub,
    Mul,
    /// An operation kept as an atom where it is not exact (`/`, `%`, shifts, masks, min, max).
    Op(OpKind),
}

impl Arith {
    /// The operation of a binary operator, plain or compound; `None` for comparisons and logic.
    pub(crate) fn of(op: &BinOp) -> Option<Arith> {
        Some(match op {
            BinOp::Add(_) | BinOp::AddAssign(_) => Arith::Add,
            BinOp::Sub(_) | BinOp::SubAssign(_) => Arith::Sub,
            BinOp::Mul(_) | BinOp::MulAssign(_) => Arith::Mul,
            BinOp::Div(_) | BinOp::DivAssign(_) => Arith::Op(OpKind::Div),
            BinOp::Rem(_) | BinOp::RemAssign(_) => Arith::Op(OpKind::Rem),
            BinOp::Shl(_) | BinOp::ShlAssign(_) => Arith::Op(OpKind::Shl),
            BinOp::Shr(_) | BinOp::ShrAssign(_) => Arith::Op(OpKind::Shr),
            BinOp::BitAnd(_) | BinOp::BitAndAssign(_) => Arith::Op(OpKind::And),
            BinOp::BitOr(_) | BinOp::BitOrAssign(_) => Arith::Op(OpKind::Or),
            BinOp::BitXor(_) | BinOp::BitXorAssign(_) => Arith::Op(OpKind::Xor),
            _ => return None,
        })
    }

    /// The operation of an integer method (`wrapping_add`, `min`, ...).
    fn of_method(method: &str) -> Option<Arith> {
        Some(match method {
            "wrapping_add" | "saturating_add" | "checked_add" => Arith::Add,
            "wrapping_sub" | "saturating_sub" | "checked_sub" => Arith::Sub,
            "wrapping_mul" | "saturating_mul" | "checked_mul" => Arith::Mul,
            "min" => Arith::Op(OpKind::Min),
            "max" => Arith::Op(OpKind::Max),
            _ => return None,
        })
    }

    /// Applies the operation.
    pub(crate) fn apply(self, l: &Poly, r: &Poly) -> Poly {
        match self {
            Arith::Add => l.add(r),
            Arith::Sub => l.sub(r),
            Arith::Mul => l.mul(r),
            Arith::Op(kind) => Poly::op(kind, l, r),
        }
    }
}

fn comparison(op: &BinOp) -> Option<CmpOp> {
    Some(match op {
        BinOp::Lt(_) => CmpOp::Lt,
        BinOp::Le(_) => CmpOp::Le,
        BinOp::Gt(_) => CmpOp::Gt,
        BinOp::Ge(_) => CmpOp::Ge,
        BinOp::Eq(_) => CmpOp::Eq,
        BinOp::Ne(_) => CmpOp::Ne,
        _ => return None,
    })
}

/// Whether the operator is `op=`.
pub(crate) fn is_compound_assign(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

impl Interpreter<'_> {
    /// A binary expression: logic on conditions, comparisons, arithmetic, or `op=`.
    pub(crate) fn binary(&mut self, b: &syn::ExprBinary) -> Value {
        if is_compound_assign(&b.op) {
            return self.compound_assign(b);
        }
        if matches!(b.op, BinOp::And(_) | BinOp::Or(_)) {
            let l = Box::new(self.condition(&b.left));
            // The right side runs only where the left one lets it: `i < n && flags[i] == 0`
            // reads `flags` in the lanes with `i < n`.
            let short_circuit = if matches!(b.op, BinOp::And(_)) {
                (*l).clone()
            } else {
                Predicate::Not(l.clone())
            };
            self.guards.push(short_circuit);
            let r = Box::new(self.condition(&b.right));
            self.guards.pop();
            return Value::Bool(if matches!(b.op, BinOp::And(_)) {
                Predicate::And(l, r)
            } else {
                Predicate::Or(l, r)
            });
        }
        if let Some(op) = comparison(&b.op) {
            let (l, r) = (self.int(&b.left), self.int(&b.right));
            return Value::Bool(Predicate::Cmp(op, l, r));
        }
        let (l, r) = (self.value(&b.left), self.value(&b.right));
        let Some(op) = Arith::of(&b.op) else {
            return Value::Unknown;
        };
        // Vectors (glam's `UVec2`, a swizzle) combine component by component, a number with
        // each component.
        if let Some(n) = [&l, &r].iter().find_map(|v| match v {
            Value::Vector(c) => Some(c.len()),
            _ => None,
        }) {
            let lanes = |v: &Value| -> Option<Vec<Poly>> {
                match v {
                    Value::Vector(c) if c.len() == n => Some(c.clone()),
                    Value::Int(p) => Some(vec![p.clone(); n]),
                    _ => None,
                }
            };
            return match (lanes(&l), lanes(&r)) {
                (Some(a), Some(b)) => Value::Vector(a.iter().zip(&b).map(|(a, b)| op.apply(a, b)).collect()),
                _ => Value::Unknown,
            };
        }
        let (l, r) = (self.int_operand(l, &b.left), self.int_operand(r, &b.right));
        Value::Int(op.apply(&l, &r))
    }

    /// An operand of arithmetic: a reference to a number (`n * scale` with `scale: &u32`) is
    /// read through, as the operator traits for references do.
    fn int_operand(&mut self, value: Value, expr: &Expr) -> Poly {
        let value = match value {
            Value::Pointer(p) if p.elem.as_ref().is_some_and(|l| l.primitive && l.name != "pointer") => {
                Value::Place(Place::at(&p))
            }
            other => other,
        };
        self.read_int(value, expr)
    }

    /// `target op= value`: on a variable, new arithmetic; on a place, a load then a store.
    fn compound_assign(&mut self, b: &syn::ExprBinary) -> Value {
        if let (Some(name), Some(op)) = (local_name(&b.left), Arith::of(&b.op)) {
            if self.lookup(&name).is_some() {
                let current = self.int(&b.left);
                let rhs = self.int(&b.right);
                self.assign(&name, Value::Int(op.apply(&current, &rhs)));
                return Value::Unknown;
            }
        }
        self.value(&b.right);
        let span = self.span(&b.left);
        let place = match self.operand(&b.left) {
            Operand::Place(p) | Operand::Value(Value::Place(p)) => p,
            Operand::Value(_) => return Value::Unknown,
        };
        self.access(&place, Op::Load, span);
        self.access(&place, Op::Store, span);
        Value::Unknown
    }

    /// A method on an integer: arithmetic where it is exact, an opaque value otherwise (one
    /// that differs between lanes when any operand does).
    pub(crate) fn int_method(&mut self, call: &syn::ExprMethodCall, method: &str, a: Poly, args: &[Value]) -> Value {
        let arg = match args.first() {
            Some(Value::Int(p)) => Some(p.clone()),
            Some(_) => Some(self.opaque(self.text(&call.args[0]), true)),
            None => None,
        };
        if let (Some(op), Some(b)) = (Arith::of_method(method), &arg) {
            return Value::Int(op.apply(&a, b));
        }
        match (method, arg.as_ref().and_then(Poly::as_constant), &arg) {
            ("pow", Some(k @ 0..=8), _) => Value::Int((0..k).fold(Poly::constant(1), |acc, _| acc.mul(&a))),
            ("div_ceil", _, Some(b)) => Value::Int(Poly::op(OpKind::Div, &a.add(b).sub(&Poly::constant(1)), b)),
            // A function of values read from memory per lane is such a value too.
            _ if a.is_loaded_per_lane() || args.iter().any(Value::is_loaded_per_lane) => {
                let id = self.fresh_id();
                Value::Int(Poly::opaque_because(id, self.text(call), true, READ_FROM_MEMORY))
            }
            _ if PURE_METHODS.contains(&method) => {
                let lane = a.is_lane_dependent()
                    || args
                        .iter()
                        .any(|v| !matches!(v, Value::Int(p) if !p.is_lane_dependent()));
                Value::Int(self.opaque(self.text(call), lane))
            }
            // Not a method of a number: the receiver is a value of some other type (a
            // generator's state, say) whose method may read the thread index itself.
            _ => {
                let id = self.fresh_id();
                Value::Int(Poly::opaque_because(id, self.text(call), true, why::INVISIBLE_CALL))
            }
        }
    }
}

/// Methods of the standard integer and float types (and `Option`'s defaults): functions of the
/// receiver and the arguments only, the same for every lane when those are.
const PURE_METHODS: &[&str] = &[
    "abs",
    "abs_diff",
    "ceil",
    "checked_div",
    "checked_neg",
    "checked_pow",
    "checked_rem",
    "checked_shl",
    "checked_shr",
    "clamp",
    "copysign",
    "cos",
    "count_ones",
    "count_zeros",
    "div_euclid",
    "exp",
    "exp2",
    "floor",
    "fract",
    "ilog",
    "ilog10",
    "ilog2",
    "is_finite",
    "is_infinite",
    "is_nan",
    "is_power_of_two",
    "is_sign_negative",
    "is_sign_positive",
    "isqrt",
    "leading_ones",
    "leading_zeros",
    "ln",
    "log10",
    "log2",
    "mul_add",
    "next_multiple_of",
    "next_power_of_two",
    "overflowing_add",
    "overflowing_mul",
    "overflowing_sub",
    "pow",
    "powf",
    "powi",
    "recip",
    "rem_euclid",
    "reverse_bits",
    "rotate_left",
    "rotate_right",
    "round",
    "rsqrt",
    "saturating_pow",
    "signum",
    "sin",
    "sqrt",
    "swap_bytes",
    "tan",
    "to_be",
    "to_bits",
    "to_le",
    "trailing_ones",
    "trailing_zeros",
    "trunc",
    "unsigned_abs",
    "unwrap_or",
    "unwrap_or_default",
    "wrapping_div",
    "wrapping_neg",
    "wrapping_pow",
    "wrapping_rem",
    "wrapping_shl",
    "wrapping_shr",
];

/// The variable an expression names, when it is a plain name.
pub(crate) fn local_name(expr: &Expr) -> Option<String> {
    match expr {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}
