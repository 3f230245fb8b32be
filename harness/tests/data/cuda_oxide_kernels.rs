// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/cuda-device/src/{thread,disjoint,shared,warp}.rs and the examples under
// crates/rustc-codegen-cuda/examples), written for the lowering tests.

use cuda_device::atomic::{AtomicOrdering, BlockAtomicF16, BlockAtomicU64, DeviceAtomicF32, DeviceAtomicU32};
use cuda_device::{kernel, ConstantMemory, thread, warp, DisjointSlice, DynamicSharedArray, SharedArray};

const ROW: usize = 64;

struct Unit;

static FLAGS: Option<fn() -> u32> = None;

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn scale(k: f32, src: &[f32], mut dst: DisjointSlice<f32>) {
        let i = thread::index_1d();
        let at = i.get();
        if let Some(d) = dst.get_mut(i) {
            *d = k * src[at];
        }
    }

    #[kernel]
    pub fn rows(src: &[u32], mut dst: DisjointSlice<u32, thread::Index2D<ROW>>) {
        let Some(idx) = thread::index_2d::<ROW>() else {
            return;
        };
        let flat = idx.get();
        if let Some(d) = dst.get_mut(idx) {
            *d = src[flat] + 1;
        }
    }

    #[kernel]
    pub fn staged(src: &[f32], mut dst: DisjointSlice<f32>) {
        static mut STAGE: SharedArray<f32, 256, 16> = SharedArray::UNINIT;
        let t = thread::threadIdx_x() as usize;
        let g = thread::index_1d().get();
        unsafe {
            STAGE[t] = src[g];
        }
        thread::sync_threads();
        let v: f32 = unsafe { STAGE[255 - t] };
        let total = warp::shuffle_xor_f32(v, 1) + v;
        unsafe {
            *dst.get_unchecked_mut(g) = total;
        }
    }

    #[kernel]
    pub fn halves(src: &[f16], mut dst: DisjointSlice<f32>) {
        let i = thread::index_1d();
        let n = i.get();
        if let Some(d) = dst.get_mut(i) {
            *d = src[n] as f32;
        }
    }

    #[kernel]
    pub fn chained(n: u32, src: &[u32], mut dst: DisjointSlice<u32>) {
        let i = thread::index_1d();
        let at = i.get();
        if at < n as usize
            && let Some(d) = dst.get_mut(i)
        {
            let mut acc = 0u32;
            for _ in 0..4 {
                acc += src[at];
            }
            *d = acc;
        }
    }

    #[kernel]
    pub fn indexed(src: &[u64], mut dst: DisjointSlice<u64>) {
        if let Some((slot, idx)) = dst.get_mut_indexed() {
            *slot = src[idx.get()];
        }
    }

    #[kernel]
    pub fn histogram(bins: &[f32], keys: &[u32], mut old: DisjointSlice<f32>) {
        let i = thread::index_1d();
        let key = keys[i.get()] as usize;
        let cell = unsafe { &*(bins.as_ptr().add(key) as *const DeviceAtomicF32) };
        let before = cell.fetch_add(1.0, AtomicOrdering::Relaxed);
        if let Some(o) = old.get_mut(i) {
            *o = before;
        }
    }

    #[kernel]
    pub fn counters(table: &[BlockAtomicU64], hits: &[u32]) {
        let i = thread::index_1d().get();
        let spent = table[0].fetch_sub(hits[i] as u64, AtomicOrdering::Relaxed);
        table[1].store(spent, AtomicOrdering::Relaxed);
    }

    #[kernel]
    pub fn acquire(flags: &[u32], mut out: DisjointSlice<u32>) {
        let flag = unsafe { DeviceAtomicU32::from_ptr(flags.as_ptr() as *mut u32) };
        let seen = flag.load(AtomicOrdering::Acquire);
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = seen;
        }
    }

    #[kernel]
    pub fn half_minimum(cells: &[f16]) {
        let cell = unsafe { &*(cells.as_ptr() as *const BlockAtomicF16) };
        cell.fetch_add(1.0f16, AtomicOrdering::Relaxed);
    }

    #[constant]
    static TAPS: ConstantMemory<[f32; 4]> = ConstantMemory::UNINIT;

    #[kernel]
    pub fn filter(src: &[f32], mut dst: DisjointSlice<f32>) {
        static mut WORDS: SharedArray<u32, 64> = SharedArray::UNINIT;
        let taps = TAPS.get();
        let i = thread::index_1d();
        let first = unsafe { *(&raw const WORDS as *const u32) };
        let base = core::ptr::addr_of_mut!(WORDS) as *mut u32;
        if let Some(d) = dst.get_mut(i) {
            *d = taps[0] * src[i.get()] + TAPS.get_ref()[1] + first as f32;
        }
        unsafe {
            *base = 0;
        }
    }

    #[kernel]
    pub fn generic<T: Copy>(src: &[T], mut dst: DisjointSlice<T>) {
        let i = thread::index_1d();
        if let Some(d) = dst.get_mut(i) {
            *d = src[0];
        }
    }

    #[kernel]
    pub fn copy_one(src: &[i32], mut dst: DisjointSlice<u32>) {
        if let Some((slot, idx)) = dst.get_mut_indexed() {
            let bits = src[idx.get()].cast_unsigned();
            unsafe {
                core::ptr::copy_nonoverlapping(&bits, slot as *mut u32, 1);
            }
        }
    }

    #[kernel]
    pub fn lengths(data: &[u32], mut out: DisjointSlice<u32>) {
        let data_len = data.len() as u32;
        let _unit = Unit;
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = data_len;
        }
    }

    #[kernel]
    pub fn reads_missing(mut out: DisjointSlice<u32>) {
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = FLAGS.map_or(0, |f| f());
        }
    }

    #[kernel]
    pub unsafe fn bump(values: *mut u32, n: u32) {
        let index = thread::index_1d().get();
        if index < n as usize {
            let element = values.add(index);
            let value = element.read();
            element.write(value + 1);
        }
    }

    #[kernel]
    pub fn table(mut out: DisjointSlice<f32>) {
        let i = thread::index_1d();
        let weights: [f32; 4] = [1.0, 2.0, 3.0, 4.0];
        let view: &[f32] = &weights;
        if let Some(o) = out.get_mut(i) {
            *o = view[i.get() % view.len()];
        }
    }

    #[kernel]
    pub fn dynamic(mut dst: DisjointSlice<f32>) {
        let smem = DynamicSharedArray::<f32>::get();
        let i = thread::index_1d();
        if let Some(d) = dst.get_mut(i) {
            *d = unsafe { *smem };
        }
    }

    #[kernel]
    pub fn runtime_rows(mut dst: DisjointSlice<f32, cuda_device::view::RuntimeRowMajorTiles<1, 2>>) {
        if let Some(idx) = thread::index_2d_runtime(&dst) {
            if let Some(d) = dst.get_mut(idx) {
                *d = 1.0;
            }
        }
    }
}
