//! The kernel model: which functions are kernels, what their parameters are, which items of
//! which modules they use, how the types they touch are laid out in memory, and the launch they
//! run under.

pub mod cfg;
pub mod comments;
pub mod cubecl;
pub mod items;
pub mod kernel;
pub mod launch;
pub mod launch_sites;
pub mod layout;
pub mod rust_gpu;
pub mod semantics;
