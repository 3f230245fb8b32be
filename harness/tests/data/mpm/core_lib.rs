// A core crate in the shape of sparkl's `src_core` (github.com/dimforge/sparkl @
// 29cebe6e29bae35d9cc980e04db53ebee3230ade): the scalar and vector types chosen by features.
pub extern crate nalgebra as na;

mod real {
    #[cfg(feature = "f32")]
    pub type Real = f32;
    #[cfg(feature = "f64")]
    pub type Real = f64;
}

#[cfg(feature = "dim3")]
pub mod math {
    pub use super::real::*;
    pub const DIM: usize = 3;
    pub type Vector<N> = na::Vector3<N>;
}

#[cfg(feature = "dim2")]
pub mod math {
    pub use super::real::*;
    pub const DIM: usize = 2;
    pub type Vector<N> = na::Vector2<N>;
}
