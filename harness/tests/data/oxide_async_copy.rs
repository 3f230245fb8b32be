// Kernels in the shape of cuda-oxide's barrier, cp_async_small and future_apis examples
// (NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019).
use cuda_device::async_copy::{cp_async_ca_4, cp_async_commit_group, cp_async_mbarrier_arrive, cp_async_wait_group};
use cuda_device::barrier::{mbarrier_arrive, mbarrier_init, mbarrier_inval, mbarrier_wait, Barrier, GeneralBarrier, ManagedBarrier, Uninit};
use cuda_device::{kernel, thread, DisjointSlice, SharedArray};

#[kernel]
pub fn staged_copy(input: &[u32], mut out: DisjointSlice<u32>) {
    static mut BAR: Barrier = Barrier::UNINIT;
    static mut STAGE: SharedArray<u32, 256> = SharedArray::UNINIT;
    let tid = thread::threadIdx_x() as usize;
    let gid = thread::index_1d();
    if tid == 0 {
        unsafe { mbarrier_init(&raw mut BAR, thread::blockDim_x()) };
    }
    thread::sync_threads();
    let dst = unsafe { (core::ptr::addr_of_mut!(STAGE) as *mut u32).add(tid) };
    let src = unsafe { input.as_ptr().add(gid.get()) };
    unsafe {
        cp_async_ca_4(dst, src);
        cp_async_commit_group();
        cp_async_wait_group(0);
        cp_async_mbarrier_arrive(&raw mut BAR);
    }
    let token = unsafe { mbarrier_arrive(&raw const BAR) };
    unsafe { mbarrier_wait(&raw const BAR, token) };
    let v = unsafe { STAGE[tid] };
    if let Some(o) = out.get_mut(gid) {
        *o = v;
    }
    thread::sync_threads();
    if tid == 0 {
        unsafe { mbarrier_inval(&raw mut BAR) };
    }
}

#[kernel]
pub fn handled_barrier(mut out: DisjointSlice<u32>) {
    static mut BAR: Barrier = Barrier::UNINIT;
    let bar = ManagedBarrier::<Uninit, GeneralBarrier>::from_static(&raw mut BAR);
    let bar = unsafe { bar.init(32) };
    let token = bar.arrive();
    bar.wait(token);
    if let Some(o) = out.get_mut(thread::index_1d()) {
        *o = 1;
    }
}
