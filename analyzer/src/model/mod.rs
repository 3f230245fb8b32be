//! The kernel model: which functions are kernels, what their parameters are, how the types they
//! touch are laid out in memory, and the launch they run under.

pub mod calls;
pub mod kernel;
pub mod launch;
pub mod layout;
