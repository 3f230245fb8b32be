//! The symbols an index is built from.

use super::Poly;
use std::fmt;
use std::rc::Rc;

/// A dimension of the thread hierarchy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Axis {
    /// Fastest varying.
    X,
    /// Second.
    Y,
    /// Slowest.
    Z,
}

impl Axis {
    /// 0, 1 or 2.
    pub fn index(self) -> usize {
        self as usize
    }

    /// `x`, `y` or `z`.
    pub fn name(self) -> &'static str {
        ["x", "y", "z"][self as usize]
    }
}

/// A non-polynomial operation kept as one symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    /// Floor division.
    Div,
    /// Remainder.
    Rem,
    /// Right shift.
    Shr,
    /// Left shift by a non-constant amount.
    Shl,
    /// Bitwise and.
    And,
    /// Bitwise or.
    Or,
    /// Bitwise xor.
    Xor,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// 1 when `lhs < rhs`, else 0: how a value chosen by a condition is written as a sum.
    Lt,
    /// 1 when `lhs <= rhs`, else 0.
    Le,
    /// 1 when `lhs == rhs`, else 0.
    Eq,
    /// 1 when `lhs != rhs`, else 0.
    Ne,
}

impl OpKind {
    fn symbol(self) -> &'static str {
        match self {
            OpKind::Div => "/",
            OpKind::Rem => "%",
            OpKind::Shr => ">>",
            OpKind::Shl => "<<",
            OpKind::And => "&",
            OpKind::Or => "|",
            OpKind::Xor => "^",
            OpKind::Min => "min",
            OpKind::Max => "max",
            OpKind::Lt => "<",
            OpKind::Le => "<=",
            OpKind::Eq => "==",
            OpKind::Ne => "!=",
        }
    }

    /// Applies the operation to concrete values; `None` where it is undefined.
    pub fn apply(self, a: i64, b: i64) -> Option<i64> {
        match self {
            OpKind::Div => (b != 0).then(|| a.div_euclid(b)),
            OpKind::Rem => (b != 0).then(|| a.rem_euclid(b)),
            OpKind::Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
            OpKind::Shl => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
            OpKind::And => Some(a & b),
            OpKind::Or => Some(a | b),
            OpKind::Xor => Some(a ^ b),
            OpKind::Min => Some(a.min(b)),
            OpKind::Max => Some(a.max(b)),
            OpKind::Lt => Some(i64::from(a < b)),
            OpKind::Le => Some(i64::from(a <= b)),
            OpKind::Eq => Some(i64::from(a == b)),
            OpKind::Ne => Some(i64::from(a != b)),
        }
    }
}

/// `lhs op rhs`, where the operands are polynomials themselves.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OpNode {
    /// The operation.
    pub kind: OpKind,
    /// Left operand.
    pub lhs: Poly,
    /// Right operand.
    pub rhs: Poly,
}

/// One symbol of an index polynomial.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Atom {
    /// `threadIdx`: differs between the lanes of a warp.
    ThreadIdx(Axis),
    /// `blockIdx`: the same in a warp, different between blocks.
    BlockIdx(Axis),
    /// `blockDim`, when the block size is not substituted.
    BlockDim(Axis),
    /// `gridDim`.
    GridDim(Axis),
    /// A scalar kernel parameter.
    Param(String),
    /// The length of a slice parameter.
    Len(String),
    /// The iteration count of a loop (0, 1, 2, ...), named after its variable.
    Iter(u32, String),
    /// A non-polynomial operation.
    Op(Rc<OpNode>),
    /// A value read from memory; `lane` says whether lanes may read different values, `text`
    /// is how the value is written (the variable it was read into, or the read itself).
    Load {
        id: u32,
        array: String,
        lane: bool,
        text: String,
    },
    /// A value the analyzer cannot follow; `lane` says whether it may differ between lanes,
    /// `why` completes "the index depends on `text`, which ...".
    Opaque {
        id: u32,
        text: String,
        lane: bool,
        why: &'static str,
    },
}

/// Why an opaque value is opaque, when nothing more specific is known.
pub const CANNOT_FOLLOW: &str = "the analysis cannot follow";

/// Why an opaque value stands for arithmetic too large to carry out.
pub const OVERFLOWS: &str = "overflows 64-bit arithmetic";

/// Why an opaque value is opaque when it is made from values read from memory (a loop
/// variable or a variable set on some paths, starting from or set to a loaded value): an
/// address made from it differs between lanes as the data does, a gather.
pub const READ_FROM_MEMORY: &str = "is made from values read from memory";

impl Atom {
    /// Whether the value is read from memory at an address that differs between lanes, or is
    /// made from such values.
    pub fn is_loaded_per_lane(&self) -> bool {
        match self {
            Atom::Load { lane, .. } => *lane,
            Atom::Opaque { lane, why, .. } => *lane && *why == READ_FROM_MEMORY,
            Atom::Op(node) => node.lhs.is_loaded_per_lane() || node.rhs.is_loaded_per_lane(),
            _ => false,
        }
    }

    /// Whether the value may differ between the lanes of one warp.
    pub fn is_lane_dependent(&self) -> bool {
        match self {
            Atom::ThreadIdx(_) => true,
            Atom::Op(node) => node.lhs.is_lane_dependent() || node.rhs.is_lane_dependent(),
            Atom::Load { lane, .. } | Atom::Opaque { lane, .. } => *lane,
            _ => false,
        }
    }

    /// Whether the value changes from block to block or from iteration to iteration within one
    /// launch (as opposed to a fixed, possibly unknown, value).
    pub fn is_varying(&self) -> bool {
        match self {
            Atom::BlockIdx(_) | Atom::Iter(..) => true,
            Atom::Op(node) => node.lhs.is_varying() || node.rhs.is_varying(),
            _ => false,
        }
    }

    /// Calls `f` on this atom and every atom inside it.
    pub fn visit(&self, f: &mut dyn FnMut(&Atom)) {
        f(self);
        if let Atom::Op(node) = self {
            node.lhs.visit_atoms(f);
            node.rhs.visit_atoms(f);
        }
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::ThreadIdx(a) => write!(f, "t{}", a.name()),
            Atom::BlockIdx(a) => write!(f, "b{}", a.name()),
            Atom::BlockDim(a) => write!(f, "bd{}", a.name()),
            Atom::GridDim(a) => write!(f, "gd{}", a.name()),
            Atom::Param(name) => f.write_str(name),
            Atom::Len(name) => write!(f, "{name}.len()"),
            Atom::Iter(_, name) => write!(f, "{name}"),
            Atom::Op(node) => match node.kind {
                OpKind::Min | OpKind::Max => write!(f, "{}({}, {})", node.kind.symbol(), node.lhs, node.rhs),
                // A sum or difference as an operand keeps its own parentheses: `(n + 7) / 8`.
                kind => {
                    let operand = |p: &Poly| match p.terms().count() {
                        0 | 1 => p.to_string(),
                        _ => format!("({p})"),
                    };
                    write!(f, "({} {} {})", operand(&node.lhs), kind.symbol(), operand(&node.rhs))
                }
            },
            Atom::Load { text, .. } => f.write_str(text),
            Atom::Opaque { text, .. } => f.write_str(text),
        }
    }
}
