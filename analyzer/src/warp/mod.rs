//! The warp and sector model: which lanes a warp holds, which 32-byte sectors their byte ranges
//! touch, and the verdict for an access; for shared memory, the banks its lanes meet.

pub mod banks;
pub mod classify;
mod compiled;
pub mod footprint;
mod guards;
pub mod lanes;
pub mod outcome;
pub mod points;
pub mod predict;
pub mod sectors;
pub mod shared;
pub mod unknowns;
pub mod variants;
pub mod verdict;
