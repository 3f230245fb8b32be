// Device FFI kernels in the shape of cuda-oxide's device_ffi_test and mathdx_ffi_test
// examples (github.com/NVlabs/cuda-oxide, commit a105afd522b73a6712a802e30bd900cd04cc8019).
use cuda_device::{kernel, thread};

unsafe extern "C" {
    fn length_squared(x: f32, y: f32) -> f32;
    fn sum_of(values: *const f32, n: i32) -> f32;
    fn declared_only(x: f32) -> f32;
    fn fft_forward(data: *mut f32);
}

#[kernel]
pub fn lengths(xs: *const f32, out: *mut f32) {
    let i = thread::index_1d().get();
    unsafe {
        *out.add(i) = length_squared(*xs.add(i), 4.0) + sum_of(xs, 4);
    }
}

#[kernel]
pub fn undefined(out: *mut f32) {
    unsafe {
        *out = declared_only(1.0);
    }
}

#[kernel]
pub fn fft(data: *mut f32) {
    unsafe {
        fft_forward(data);
    }
}
