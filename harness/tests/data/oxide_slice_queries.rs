// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (examples map_sum, option_ref_unwrap_or, option_unwrap_trap, ptr_offset_from, cluster,
// cp_async_small), written for the lowering tests.

use cuda_device::{kernel, thread, DisjointSlice};

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn doubled_total(weights: &[i64], mut out: DisjointSlice<i64>) {
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = weights.iter().map(|&w| w.wrapping_mul(3)).sum();
        }
    }

    #[kernel]
    pub fn fallback_reads(mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        if let Some(slot) = out.get_mut(idx) {
            let local: u32 = 9;
            let present: Option<&u32> = Some(&local);
            let absent: Option<&u32> = None;
            *slot = *present.unwrap_or(&41) + *absent.unwrap_or(&41);
        }
    }

    #[kernel]
    pub fn checked_pick(table: &[f32], at: usize, mut out: DisjointSlice<f32>) {
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            if !table.is_empty() {
                *slot = table.get(at).copied().unwrap();
            }
        }
    }

    #[kernel]
    pub fn pointer_distances(words: &[u32], lo: usize, hi: usize, mut out: DisjointSlice<u64>) {
        if thread::index_1d().get() == 0 {
            let base = words.as_ptr();
            unsafe {
                let a = base.add(lo);
                let b = base.add(hi);
                *out.get_unchecked_mut(0) = b.offset_from_unsigned(a) as u64;
                *out.get_unchecked_mut(1) = *base.cast::<[u32; 2]>().add(1).cast::<u32>() as u64;
                *out.get_unchecked_mut(2) = load_word(base.add(3).cast()) as u64;
            }
        }
    }
}

unsafe fn load_word(p: *const u32) -> u32 {
    unsafe { *p }
}
