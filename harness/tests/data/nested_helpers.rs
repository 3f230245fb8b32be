// A kernel defining a generic helper in its body, in the shape of cuda-oxide's helper_fn
// example (github.com/NVlabs/cuda-oxide, commit a105afd522b73a6712a802e30bd900cd04cc8019).
use cuda_device::{kernel, thread, DisjointSlice};

#[kernel]
pub fn copy_through(a: &[f32], mut out: DisjointSlice<f32>) {
    fn pass<T: Copy>(value: T) -> T {
        value
    }
    let idx = thread::index_1d();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = pass::<f32>(a[i]) + pass::<u32>(1) as f32;
    }
}
