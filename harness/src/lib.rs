//! The GPU harness: every prediction checked against the hardware.
//!
//! `lower` turns analyzed kernels into CUDA C twins with `#line` directives pointing at the
//! Rust source; [`bounds`] sizes their buffers from the index algebra; [`driver`] writes the
//! program that launches them and the [`manifest`] of predictions; [`reduce`] turns an Nsight
//! Compute source-counter export into measured rows; [`compare`] scores predictions against
//! them, [`shared`] the wavefronts of shared-memory accesses; [`bench`] times pairs of kernels (original and rewritten) and records speedups.

pub mod bench;
pub mod bounds;
pub mod compare;
pub mod driver;
pub(crate) mod lower;
pub mod manifest;
pub mod reduce;
pub mod shared;
