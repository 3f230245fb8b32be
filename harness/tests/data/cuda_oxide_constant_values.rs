// Kernels in the shape of NVlabs/cuda-oxide (a105afd522b73a6712a802e30bd900cd04cc8019)
// examples const_aggregate, device_global, array_for_loop, inline_ptx and option_ref_transmute.
use core::mem;
use core::ptr;
use cuda_device::{kernel, thread, DisjointSlice};

static TABLE: [[u32; 2]; 3] = [[1, 2], [3, 4], [5, 6]];

const TABLE_END: *const [u32; 2] = unsafe { (&raw const TABLE as *const [u32; 2]).add(3) };

#[inline(never)]
fn table_end() -> *const [u32; 2] {
    TABLE_END
}

#[cuda_module]
mod kernels {
    use super::*;

    #[derive(Clone, Copy)]
    pub struct Tag(pub ());

    const TAG: Tag = Tag(());

    #[inline(never)]
    fn tag_weight(_t: Tag) -> f32 {
        2.0
    }

    #[kernel]
    pub fn tagged(mut out: DisjointSlice<f32>) {
        let t = thread::index_1d();
        if let Some(slot) = out.get_mut(t) {
            *slot = tag_weight(TAG);
        }
    }

    #[kernel]
    pub unsafe fn table_span(out: *mut u32) {
        let base = &raw const TABLE as usize;
        let end = table_end() as usize;
        unsafe {
            *out = (end - base) as u32;
        }
    }

    #[kernel]
    pub fn generated(mut out: DisjointSlice<u32>) {
        let tid = thread::index_1d();
        let t = tid.get() as u32;
        if let Some(o) = out.get_mut(tid) {
            let made: [u32; 3] = core::array::from_fn(|k| t * 2 + k as u32);
            let mapped = made.map(|v| v * 3 + 1);
            *o = mapped.into_iter().sum();
        }
    }

    #[kernel]
    pub fn widened(mut out: DisjointSlice<u64>) {
        if let Some((slot, idx)) = out.get_mut_indexed() {
            const SUFFIX: &[u8; 4] = b".hi\0";
            let a = idx.get() as u32;
            let hi: u32;
            unsafe {
                ptx_asm!(
                    "mul%1.u32 %0, %2, %2;",
                    out("=r") hi,
                    in("C") SUFFIX,
                    in("r") a,
                );
            }
            *slot = hi as u64;
        }
    }

    #[kernel]
    pub fn maybe_read(src: &[u32], mut out: DisjointSlice<u32>) {
        let tid = thread::index_1d();
        let i = tid.get();
        if let Some(o) = out.get_mut(tid) {
            let p: *const u32 = if i < src.len() {
                unsafe { src.as_ptr().add(i) }
            } else {
                ptr::null()
            };
            let r: Option<&u32> = unsafe { mem::transmute(p) };
            *o = match r {
                Some(v) => *v,
                None => 0,
            };
        }
    }
}
