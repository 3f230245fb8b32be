// Generic kernels launched with explicit instantiations, in the shape of cuda-oxide's
// `generic`, `const_generic` and `policy_config` examples (NVlabs/cuda-oxide @
// a105afd522b73a6712a802e30bd900cd04cc8019).
use cuda_device::{kernel, thread, DisjointSlice};
use cuda_host::cuda_launch;

trait Tiling {
    const STRIDE: usize;
}

struct Narrow;
struct Wide;

impl Tiling for Narrow {
    const STRIDE: usize = 1;
}

impl Tiling for Wide {
    const STRIDE: usize = 4;
}

#[cuda_module]
mod kernels {
    use super::*;

    #[device]
    fn offset<const K: usize>(value: u32) -> u32 {
        value + K as u32
    }

    #[kernel]
    pub fn scale<T: Copy + core::ops::Mul<Output = T>>(factor: T, input: &[T], mut out: DisjointSlice<T>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(slot) = out.get_mut(idx) {
            *slot = input[i] * factor;
        }
    }

    #[kernel]
    pub unsafe fn shifted<const K: usize>(out: *mut u32) {
        let i = thread::index_1d().get();
        unsafe { out.add(i).write(offset::<K>(i as u32)) }
    }

    #[kernel]
    pub unsafe fn strided<P: Tiling>(input: *const u32, out: *mut u32) {
        let i = thread::index_1d().get();
        unsafe { out.add(i).write(input.add(i * P::STRIDE).read()) }
    }

    #[kernel]
    pub fn never_launched<T: Copy>(value: T, mut out: DisjointSlice<T>) {
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = value;
        }
    }

    #[kernel]
    pub fn apply<F: Fn(u32) -> u32 + Copy>(f: F, mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get() as u32;
        if let Some(slot) = out.get_mut(idx) {
            *slot = f(i);
        }
    }

    #[kernel]
    pub unsafe fn tagged<P: Tiling>(out: *mut Tag<u32, P>) {
        let i = thread::index_1d().get();
        unsafe { (*out.add(i)).value = 1 }
    }

    #[kernel]
    pub fn filled<T: Copy>(value: T, mut out: DisjointSlice<T>) {
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = value;
        }
    }
}

fn main() {
    let module = kernels::load(&ctx).unwrap();
    module.scale::<f32>(&stream, config, 2.0, &a, &mut b).unwrap();
    module.scale::<i32>(&stream, config, 3, &c, &mut d).unwrap();
    cuda_launch! { kernel: shifted::<4>, stream: stream, module: module, config: config, args: [out] }.unwrap();
    module.strided::<Narrow>(&stream, config, input, out).unwrap();
    module.strided::<Wide>(&stream, config, input, out).unwrap();
    module.apply::<_>(&stream, config, move |x| x + 1, &mut e).unwrap();
    module.shifted::<{ Eight::VALUE }>(&stream, config, out).unwrap();
    module.filled(&stream, config, 1u32, &mut f).unwrap();
    module.tagged::<Wide>(&stream, config, tags).unwrap();
}

struct Eight;

impl Eight {
    const VALUE: usize = 8;
}

struct Tag<T, P> {
    value: T,
    policy: core::marker::PhantomData<P>,
}
