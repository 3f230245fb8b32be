// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/cuda-device/src/{warp,shared,wgmma,wmma}.rs and the examples printf, redux_sum,
// elect_leader and tcgen05), written for the lowering tests of `gpu_printf!` and of the
// code-generator stubs of `cuda_device`.

use cuda_device::shared::cvta_generic_to_shared_offset;
use cuda_device::tcgen05::tcgen05_alloc;
use cuda_device::{gpu_printf, kernel, thread, warp, DisjointSlice};

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn report(data: &[f32]) {
        let tid = thread::index_1d().get();
        let count: u32 = 255;
        let wide: u64 = 7;
        let on: bool = true;
        if tid < 4 {
            gpu_printf!("t{} got {:.4f} ({:#x}) 100%\n", tid, data[tid], count);
            let n = gpu_printf!("[{:-8}] [{:08}] {}\n", wide, count as i32, on);
            gpu_printf!("{} {:e}\n", n, 2.5f32);
        }
    }

    #[kernel]
    pub fn vote(values: &[u32], mut out: DisjointSlice<u32>) {
        let lane = warp::lane_id();
        let sum = warp::redux_sync_add(0xffff_ffff, values[lane as usize]);
        let low = warp::redux_sync_min_i32(0xffff_ffff, values[lane as usize] as i32);
        let (leader, elected) = warp::elect_sync(0xffff_ffff);
        if elected {
            unsafe {
                *out.get_unchecked_mut(leader as usize) = sum + low as u32;
            }
        }
    }

    #[kernel]
    pub fn tensor_memory(mut out: DisjointSlice<u32>) {
        let slot = 0u32;
        unsafe {
            tcgen05_alloc(&slot as *const u32 as *mut u32, 32);
            *out.get_unchecked_mut(0) = slot;
        }
    }
}

const STEPS: usize = 8;

const RAMP: [f32; STEPS] = {
    let mut t = [0.0_f32; STEPS];
    let mut i = 0;
    while i < STEPS {
        t[i] = (i as f32) * 0.5 - 1.0;
        i += 1;
    }
    t
};

#[cuda_module]
mod tables {
    use super::*;

    const CODES: [(u8, u32); 4] = {
        let mut t = [(0u8, 0u32); 4];
        let mut i = 0;
        while i < 4 {
            t[i] = (i as u8, (i as u32).wrapping_mul(0x9E37_79B9).wrapping_add(1));
            i += 1;
        }
        t
    };
    #[derive(Clone, Copy)]
    pub struct Window {
        pub lo: u32,
        pub hi: u32,
    }

    #[kernel]
    pub fn windowed(keys: &[u32], mut out: DisjointSlice<u32>) {
        let i = thread::index_1d().get();
        let w = Window { lo: keys[i], hi: 7 };
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = (w.lo + w.hi).div_ceil(32);
        }
    }

    const LOCAL_RAMP: [f32; super::STEPS] = super::RAMP;

    #[kernel]
    pub fn lookup(keys: &[u32], mut out: DisjointSlice<f32>) {
        let i = thread::index_1d().get();
        let (tag, code) = CODES[(keys[i] & 3) as usize];
        if let Some(o) = out.get_mut(thread::index_1d()) {
            *o = LOCAL_RAMP[(code as usize + tag as usize) & (super::STEPS - 1)];
        }
    }
}
