//! Lane-wise vector methods: glam's `map` with a float function value, `clamp` between
//! vectors, `splat` and the `as_*vec*` conversions; nalgebra's `map` of a point or vector with
//! a closure.
//!
//! Kernels in the shape of Rust-GPU/Rust-CUDA (ac2674f03208462709f538f07b10e3f8153c93b6),
//! `examples/cuda/path_tracer/kernels/src/render_kernels.rs`, and of dimforge/sparkl
//! (29cebe6e29bae35d9cc980e04db53ebee3230ade), `src_kernels/gpu_grid.rs`.

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one};

const KERNEL: &str = r#"
use cuda_std::prelude::*;
use glam::{U8Vec3, Vec3};

#[kernel]
pub unsafe fn tone_map(hdr: *const Vec3, ldr: *mut U8Vec3, n: usize) {
    let i = thread::index_1d() as usize;
    if i >= n {
        return;
    }
    let radiance = &*hdr.add(i);
    let encoded = radiance.map(f32::sqrt);
    let pixel = &mut *ldr.add(i);
    *pixel = (encoded * 255.0).clamp(Vec3::ZERO, Vec3::splat(255.0)).as_u8vec3();
}
"#;

#[test]
fn lane_wise_glam_methods_are_lowered() {
    let emitted = emit_one(KERNEL);
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    for expected in [
        "kl::lanes::map(radiance, [](float v) { return ::sqrtf(v); })",
        "kl::glam::splat3<kl::Vec3>(255.0f)",
        "kl::glam::convert3<kl::U8Vec3>(kl::clamp(",
    ] {
        assert!(program.contains(expected), "{expected} missing:\n{program}");
    }
    check_with_gxx(program);
}

const NALGEBRA_KERNEL: &str = r#"
use cuda_std::prelude::*;
use nalgebra::{Point3, Vector3};

#[kernel]
pub unsafe fn bin_points(points: *const Point3<f32>, bins: *mut Vector3<usize>, width: f32) {
    let i = thread::index_1d() as usize;
    let p = *points.add(i);
    let cell = (p / width).map(|e| e.round() as i64);
    *bins.add(i) = cell.coords.map(|c| (c + 8) as usize / 4);
}
"#;

#[test]
fn nalgebra_map_with_a_closure_is_lowered() {
    let emitted = emit_one(NALGEBRA_KERNEL);
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    assert_eq!(program.matches("kl::lanes::map(").count(), 2, "{program}");
    assert!(program.contains("cell.coords, [&]("), "{program}");
    check_with_gxx(program);
}
