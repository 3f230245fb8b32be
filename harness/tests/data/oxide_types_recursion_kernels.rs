// Kernels in the shape of NVlabs/cuda-oxide (a105afd522b73a6712a802e30bd900cd04cc8019),
// `crates/rustc-codegen-cuda/examples/{cross_crate_recursion,extern_crate_closure,
// function_item_call,toolchain_pairing_smoke,tcgen05}`.
use cuda_device::{gpu_printf, kernel, thread, DisjointSlice};
use cuda_device::tcgen05::tcgen05_fence_before_thread_sync;
use crate::support::{doubled_even, pick, total};

#[kernel]
pub fn sum_tail(inp: &[u64], mut out: DisjointSlice<u64>) {
    let idx = thread::index_1d();
    let r = total(inp);
    if let Some(slot) = out.get_mut(idx) {
        *slot = r;
    }
}

#[kernel]
pub fn picked(input: &[i32], mut out: DisjointSlice<i32>) {
    let idx = thread::index_1d();
    let i = idx.get();
    if let Some(o) = out.get_mut(idx) {
        *o = doubled_even(pick(input, i));
    }
}

fn never<F: FnOnce(u32) -> !>(f: F, v: u32) -> ! {
    f(v)
}

#[kernel]
pub fn stop_on_flag(flag: u32, mut out: DisjointSlice<u32>) {
    let idx = thread::index_1d();
    if flag == 2 {
        never(|_| loop {}, flag);
    }
    if let Some(slot) = out.get_mut(idx) {
        *slot = 7;
    }
}

fn show_borrow() {
    let (r, borrow) = 0x10u32.overflowing_sub(0x20);
    gpu_printf!("{:x}, {}\n", r, borrow);
}

#[kernel]
pub fn report_borrow(mut dst: DisjointSlice<i32>) {
    let idx = thread::index_1d();
    if let Some(_) = dst.get_mut(idx) {
        show_borrow();
    }
}

struct Plain;
struct Swizzled;
impl Plain {
    fn address(&self, a: u64) -> u64 { a }
}
impl Swizzled {
    fn address(&self, a: u64) -> u64 { a + 1 }
}
fn maker() -> Plain { Plain }

#[kernel]
pub unsafe fn fence_after_descriptor(mut out: DisjointSlice<u64>) {
    let idx = thread::index_1d();
    let desc = maker().address(128);
    tcgen05_fence_before_thread_sync();
    if let Some(slot) = out.get_mut(idx) {
        *slot = desc;
    }
}
