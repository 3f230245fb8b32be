// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/rustc-codegen-cuda/examples/{device_closures,function_item_call,fn_ptr_naming}),
// written for the lowering tests: helpers generic over callables, function pointers, calls
// through references.

use cuda_device::{device, kernel, thread, DisjointSlice};

fn twice(v: u32) -> u32 {
    v * 2
}

fn halve(v: u32) -> u32 {
    v / 2
}

#[device]
fn run_once<G: FnOnce(u32) -> u32>(g: G, v: u32) -> u32 {
    g(v)
}

#[device]
fn run_by_ref<G: Fn(u32) -> u32>(g: &G, v: u32) -> u32 {
    g(v)
}

#[device]
fn map_value<A, B, G>(g: G, a: A) -> B
where
    G: FnOnce(A) -> B,
{
    g(a)
}

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn callables(gain: u32, src: &[u32], mut dst: DisjointSlice<u32>) {
        let i = thread::index_1d();
        let at = i.get();
        if let Some(d) = dst.get_mut(i) {
            let scaled = |v: u32| v * gain;
            let by_closure = run_once(scaled, src[at]);
            let by_item = run_by_ref(&twice, src[at]);
            let inferred = map_value(halve, src[at]);
            let picked: fn(u32) -> u32 = twice;
            let same = core::ptr::fn_addr_eq(picked, picked) as u32;
            let r = &scaled;
            let rr = &r;
            *d = by_closure + by_item + inferred + same + (**rr)(1);
        }
    }
}
