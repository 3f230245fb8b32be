//! Symbolic index algebra: integer expressions as polynomials over symbols (lane indices,
//! block indices, parameters, loop iterations) with non-polynomial operations kept as atoms and
//! simplified where divisibility makes them exact (Triton's AxisInfo idea).

pub mod interval;
pub mod poly;
pub mod predicate;

pub use poly::{Atom, Axis, OpKind, OpNode, Poly, CANNOT_FOLLOW, OVERFLOWS, READ_FROM_MEMORY};
pub use predicate::{both, either, CmpOp, Predicate};
