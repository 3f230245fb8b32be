// Kernels in the shape of NVlabs/cuda-oxide (a105afd522b73a6712a802e30bd900cd04cc8019),
// crates/rustc-codegen-cuda/examples/unchecked_indexing: a kernel that runs another
// (generic) kernel's body by calling it as a function, passing its launch context.
use cuda_device::{kernel, thread, DisjointSlice};

#[kernel]
pub fn offset_copy<T: Copy + core::ops::Add<Output = T>>(src: &[T], bias: &[T], mut dst: DisjointSlice<T>) {
    let i = thread::index_1d();
    let raw = i.get();
    if let Some(slot) = dst.get_mut(i) {
        *slot = src[raw] + bias[raw];
    }
}

#[kernel]
pub fn clear(mut dst: DisjointSlice<u32>) {
    let i = thread::index_1d();
    if let Some(slot) = dst.get_mut(i) {
        *slot = 0;
    }
}

#[kernel(launch_context = ctx)]
pub fn copy_then_stride(src: &[f32], bias: &[f32], dst: DisjointSlice<f32>, mut wide: DisjointSlice<f32>, flags: DisjointSlice<u32>) {
    offset_copy::<f32>(src, bias, dst, ctx);
    clear(flags);
    let i = thread::index_1d();
    let raw = i.get();
    if let Some(slot) = wide.get_mut(i) {
        *slot = src[3 * raw + 2];
    }
}
