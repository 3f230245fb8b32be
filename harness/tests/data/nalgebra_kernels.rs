// Kernels in the shape of cuda_min's `pseudo_mat_mul_with_nalgebra` (github.com/kumagi/cuda_min)
// and of sparkl's grid code (github.com/dimforge/sparkl @ 29cebe6e29bae35d9cc980e04db53ebee3230ade):
// nalgebra's fixed-size types behind pointers and in structs.
use nalgebra::{Matrix3, Point3, Vector3};

#[repr(C)]
pub struct Cell {
    pub mass: f32,
    pub momentum: Vector3<f32>,
    pub at: Point3<f32>,
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn products(a: *const Matrix3<u8>, b: *const Matrix3<u8>, c: *mut Matrix3<u8>) {
    let i = core::arch::nvptx::_thread_idx_x();
    let j = core::arch::nvptx::_thread_idx_y();
    let a = &*a;
    let b = &*b;
    let c = &mut *c;
    c[(i as usize, j as usize)] = (a.row(i as usize) * b.column(j as usize)).sum();
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn momenta(cells: *mut Cell, n: u32, dt: f32) {
    let i = core::arch::nvptx::_thread_idx_x() as usize;
    if (i as u32) < n {
        let cell = &mut *cells.add(i);
        let v = cell.momentum / cell.mass;
        let shift = vector![1.0f32, 2.0f32, 3.0f32];
        let moved = v.component_mul(&shift) * dt + v;
        cell.momentum = moved.transpose().transpose() * v.norm() + shift * v.dot(&moved);
        cell.at.coords.x = cell.at.coords.x + moved[0] + moved.y;
    }
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn constructors(out: *mut Matrix3<f32>, at: *mut Point3<f32>) {
    let i = core::arch::nvptx::_thread_idx_x() as usize;
    let base = Matrix3::<f32>::identity() + Matrix3::<f32>::zeros() * 2.0f32;
    *out.add(i) = base + Matrix3::<f32>::repeat(0.5f32);
    *at.add(i) = Point3::new(1.0f32, 2.0f32, 3.0f32) + Vector3::new(0.5f32, 0.5f32, 0.5f32);
}
