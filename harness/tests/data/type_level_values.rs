// Type-level constructs in the shape of NVlabs/cuda-oxide
// (a105afd522b73a6712a802e30bd900cd04cc8019), examples ord_cmp, function_item_call and
// host_closure, transmute_scalar_struct: integer `cmp` beside a struct's own `Ord::cmp`, functions passed as values,
// a closure capturing a struct the host builds from literals.
use cuda_device::{kernel, thread, DisjointSlice};
use cuda_host::cuda_launch;

#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    rank: u32,
}

impl Ord for Key {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.rank.cmp(&other.rank)
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Clone, Copy)]
struct Blend {
    bias: u8,
    weight: f32,
}

fn offset_by<const K: u32>(x: u32) -> u32 {
    x + K
}

fn echo<T: Copy>(x: T) -> T {
    x
}

fn spread_sum((a, (b, c)): (u32, (u32, u32))) -> u32 {
    a + b + c
}

fn as_handle(addr: usize) -> core::ptr::NonNull<u8> {
    unsafe { core::mem::transmute::<usize, core::ptr::NonNull<u8>>(addr) }
}

fn from_handle(p: core::ptr::NonNull<u8>) -> usize {
    unsafe { core::mem::transmute::<core::ptr::NonNull<u8>, usize>(p) }
}

fn call_with<F: FnOnce(u32) -> u32>(f: F, x: u32) -> u32 {
    f(x)
}

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn signed_order(mut out: DisjointSlice<i32>) {
        let idx = thread::index_1d();
        let lane = idx.get() as i32;
        let next = lane - 4;
        if let Some(slot) = out.get_mut(idx) {
            *slot = lane.cmp(&next) as i8 as i32;
        }
    }

    #[kernel]
    pub fn passed_functions(mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let raw = idx.get() as u32;
        if let Some(slot) = out.get_mut(idx) {
            *slot = call_with(offset_by::<9>, raw) + call_with(echo::<u32>, raw) + spread_sum((raw, (2, 3)));
        }
    }

    #[kernel]
    pub fn handles(addrs: &[u64], mut out: DisjointSlice<u64>) {
        let t = thread::index_1d();
        let back = from_handle(as_handle(addrs[t.get()] as usize));
        if let Some(slot) = out.get_mut(t) {
            *slot = back as u64;
        }
    }

    #[kernel]
    pub fn blend<T: Copy, F: Fn(T) -> T + Copy>(f: F, src: &[T], mut dst: DisjointSlice<T>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(d) = dst.get_mut(idx) {
            *d = f(src[i]);
        }
    }
}

fn main() {
    let mix = Blend { bias: 3, weight: 0.5 };
    cuda_launch! {
        kernel: blend::<f32, _>,
        args: [move |x: f32| x * mix.weight + mix.bias as f32, slice(src), slice_mut(dst)]
    };
}
