//! The integration tests, one binary: each module was a test file of its own.

mod align;
mod banks;
mod interchange;
mod regressions;
mod soa;
mod support;
mod tile;
mod widen;
