// An atomic histogram reached through a cast reference, in the shape of the atomic_f16 bench
// of NVlabs/cuda-oxide (commit a105afd522b73a6712a802e30bd900cd04cc8019).
use cuda_device::atomic::{AtomicOrdering, DeviceAtomicF32};
use cuda_device::{kernel, thread};

#[kernel]
pub fn histogram(hist: &[f32], n: u32, nbins: u32) {
    let i = thread::index_1d().get();
    if i >= n as usize {
        return;
    }
    let bin = i % nbins as usize;
    let cell = unsafe { &*(hist.as_ptr().add(bin) as *const DeviceAtomicF32) };
    cell.fetch_add(1.0f32, AtomicOrdering::Relaxed);
}
