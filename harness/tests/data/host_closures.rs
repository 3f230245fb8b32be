// Kernels generic over a closure built by the host, in the shape of NVlabs/cuda-oxide
// (a105afd522b73a6712a802e30bd900cd04cc8019), examples host_closure and cuda_module_contract.
use cuda_device::{kernel, thread, DisjointSlice};
use cuda_host::cuda_launch;

#[derive(Clone, Copy)]
struct Weights {
    gain: f32,
}

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn apply<T: Copy, F: Fn(T) -> T + Copy>(f: F, src: &[T], mut dst: DisjointSlice<T>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(d) = dst.get_mut(idx) {
            *d = f(src[i]);
        }
    }

    #[kernel]
    pub fn apply_plus<F, const BIAS: u32>(mut f: F, src: &[u32], mut dst: DisjointSlice<u32>)
    where
        F: FnMut(u32) -> u32 + Copy,
    {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(d) = dst.get_mut(idx) {
            *d = f(src[i]) + BIAS;
        }
    }

    #[kernel]
    pub fn only_closure<F: Fn(u32) -> u32 + Copy>(op: F, mut dst: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(d) = dst.get_mut(idx) {
            *d = op(i as u32);
        }
    }

    #[kernel]
    pub fn borrowed<T: Copy, F: Fn(T) -> T + Copy>(f: F, src: &[T], mut dst: DisjointSlice<T>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(d) = dst.get_mut(idx) {
            *d = f(src[i]);
        }
    }

    #[kernel]
    pub fn weighted<T: Copy, F: Fn(T) -> T + Copy>(f: F, src: &[T], mut dst: DisjointSlice<T>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(d) = dst.get_mut(idx) {
            *d = f(src[i]);
        }
    }
}

macro_rules! launch_both {
    ($kernel:path, $closure:expr, $check:expr) => {{
        unsafe {
            cuda_launch! {
                kernel: $kernel,
                stream: stream,
                module: module,
                config: LaunchConfig::for_num_elems(N as u32),
                args: [$closure, slice(src), slice_mut(dst)]
            }
        }?;
    }};
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    const N: usize = 1024;
    {
        let gain = 1.5f32;
        let shift = -2.0f32;
        launch_both!(apply::<f32, _>, move |x: f32| x * gain + shift, |x| x * gain + shift);
    }
    {
        launch_both!(apply::<f32, _>, |x: f32| x * 2.0, |x| x * 2.0);
    }
    {
        let step: u32 = 3;
        unsafe {
            cuda_launch! {
                kernel: kernels::apply_plus::<_, 4>,
                stream: stream,
                module: module,
                config: LaunchConfig::for_num_elems(N as u32),
                args: [move |x: u32| x * step, slice(src_u32), slice_mut(dst_u32)]
            }
        }?;
    }
    let add_two = |v: u32| v + 2;
    module.only_closure(&stream, &config, add_two, &mut dst_u32)?;
    {
        let gain = 0.5f32;
        launch_both!(borrowed::<f32, _>, |x: f32| x * gain, |x| x * gain);
    }
    {
        let w = Weights { gain: 2.0 };
        launch_both!(weighted::<f32, _>, move |x: f32| x * w.gain, |x| x * w.gain);
    }
    Ok(())
}
