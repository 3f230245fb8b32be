// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/cuda-device/src/disjoint.rs and the examples disjoint_from_raw_parts,
// error_missing_device_attr and const_bool_dead_branch), written for the lowering tests.

use core::marker::PhantomData;
use cuda_device::atomic::{AtomicOrdering, DeviceAtomicU32};
use cuda_device::{device, kernel, thread, DisjointSlice};

struct Marked<T, M> {
    payload: T,
    tag: PhantomData<M>,
}

struct Fast;

#[device]
fn bump<'a>(cells: &mut DisjointSlice<'a, f32>) {
    if let Some(cell) = cells.get_mut(thread::index_1d()) {
        *cell += 2.0;
    }
}

fn fill(mut cells: DisjointSlice<u32>, counters: &[DeviceAtomicU32], at: usize) {
    let seen = counters[at].load(AtomicOrdering::Relaxed);
    unsafe {
        *cells.get_unchecked_mut(at) = seen;
    }
}

#[kernel]
pub unsafe fn bump_raw(base: *mut f32, count: usize) {
    let mut cells = unsafe { DisjointSlice::from_raw_parts(base, count) };
    bump(&mut cells);
}

#[kernel]
pub fn bump_rebound(cells: DisjointSlice<f32>) {
    let mut cells = cells;
    bump(&mut cells);
}

#[kernel]
pub fn fill_counts(cells: DisjointSlice<u32>, counters: &[DeviceAtomicU32]) {
    let at = thread::index_1d().get();
    fill(cells, counters, at);
}

#[kernel]
pub fn copy_marked(input: &[Marked<u32, Fast>], mut output: DisjointSlice<Marked<u32, Fast>>) {
    let index = thread::index_1d();
    if let (Some(value), Some(slot)) = (input.get(index.get()), output.get_mut(index)) {
        slot.payload = value.payload + 1;
    }
}
