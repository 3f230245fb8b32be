// The kernel crate of sparkl's shape: the core crate under a name chosen by features.
#[cfg(feature = "dim2")]
extern crate core2d as mpm_core;
#[cfg(feature = "dim3")]
extern crate core3d as mpm_core;

pub mod grid;
pub mod reset;

pub use cust_core::DevicePointer;
