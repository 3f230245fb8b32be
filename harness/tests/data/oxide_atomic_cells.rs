// A kernel in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/rustc-codegen-cuda/examples/hashmap_v2), written for the lowering tests: a helper
// taking one atomic cell by reference retries a compare-exchange on it.

use cuda_device::atomic::{AtomicOrdering, DeviceAtomicU32, DeviceAtomicU64};
use cuda_device::{kernel, thread};

fn bump_until_stored(cell: &DeviceAtomicU64, mut seen: u64, add: u64) {
    loop {
        match cell.compare_exchange(seen, seen + add, AtomicOrdering::AcqRel, AtomicOrdering::Relaxed) {
            Ok(_) => return,
            Err(actual) => seen = actual,
        }
    }
}

fn mark(word: &DeviceAtomicU32, bit: u32) -> u32 {
    word.fetch_or(1u32 << bit, AtomicOrdering::Relaxed)
}

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn bump(slots: &[DeviceAtomicU64], flags: &[DeviceAtomicU32]) {
        let idx = thread::index_1d().get();
        if idx < slots.len() {
            let slot = &slots[idx];
            let seen = slot.load(AtomicOrdering::Acquire);
            bump_until_stored(slot, seen, 3);
            mark(&flags[idx / 32], (idx % 32) as u32);
        }
    }
}
