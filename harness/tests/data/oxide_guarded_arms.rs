// Kernels in the shape of NVlabs/cuda-oxide (commit a105afd522b73a6712a802e30bd900cd04cc8019),
// examples `hashmap`, `hashmap_v3` and `switchint_128bit`: probing tables with compare-exchange
// arms that bind the observed value, and `match` on 128-bit constants.

use cuda_device::atomic::{AtomicOrdering, DeviceAtomicU64};
use cuda_device::{cuda_module, kernel, thread, DisjointSlice};

const VACANT: u64 = 0;
const WIDE_A: u128 = 1 << 100;
const WIDE_B: u128 = u128::MAX;
const NEG: i128 = -(1 << 90);

fn owner(word: u64) -> u32 {
    (word >> 32) as u32
}

fn overwrite(cell: &DeviceAtomicU64, mut seen: u64, word: u64) {
    loop {
        match cell.compare_exchange(seen, word, AtomicOrdering::AcqRel, AtomicOrdering::Relaxed) {
            Ok(_) => return,
            Err(now) => seen = now,
        }
    }
}

fn claim(cells: &[DeviceAtomicU64], start: usize, tag: u32, fresh: bool) -> bool {
    let last = cells.len() - 1;
    let mut at = start & last;
    loop {
        let cell = &cells[at];
        match cell.compare_exchange(VACANT, ((tag as u64) << 32) | 1, AtomicOrdering::AcqRel, AtomicOrdering::Relaxed) {
            Ok(_) => return true,
            Err(seen) if owner(seen) == tag && !fresh => {
                overwrite(cell, seen, ((tag as u64) << 32) | 2);
                return false;
            }
            Err(_) => at = (at + 1) & last,
        }
    }
}

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn place_tags(cells: &[DeviceAtomicU64], tags: &[u32], mut out: DisjointSlice<u32>) {
        let tid = thread::index_1d();
        let i = tid.get();
        if i >= tags.len() {
            return;
        }
        let mut fresh: bool = false;
        if !fresh {
            fresh = tags[i] == 0;
        }
        let placed = claim(cells, i, tags[i], fresh);
        if let Some(o) = out.get_mut(tid) {
            *o = placed as u32;
        }
    }

    #[kernel]
    pub fn sort_wide(lo: &[u64], hi: &[u64], mut out: DisjointSlice<u32>) {
        if let Some((slot, idx)) = out.get_mut_indexed() {
            let i = idx.get();
            let wide = (u128::from(hi[i]) << 64) | u128::from(lo[i]);
            let signed = wide as i128;
            let base = match signed {
                NEG => 10,
                _ => 0,
            };
            *slot = base + match wide {
                WIDE_A => 1,
                WIDE_B => 2,
                _ => 0,
            };
        }
    }
}
