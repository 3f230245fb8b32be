// Helpers generic over a bit depth whose sample type and maximum come from trait impls for a
// const-generic marker, in the shape of turbo-metrics' cuda-colorspace-kernel
// (Gui-Yom/turbo-metrics @ 1c6a196210cc85f00a9f3735d2c09adb80d00b08).
#![no_std]
#![feature(abi_ptx)]

trait Depth {
    type Sample;
    const PEAK: u32;

    fn normalize(v: Self::Sample) -> f32 {
        v as f32 / Self::PEAK as f32
    }
}

struct Bits<const N: usize>;

impl Depth for Bits<8> {
    type Sample = u8;
    const PEAK: u32 = (1 << 8) - 1;
}

impl Depth for Bits<16> {
    type Sample = u16;
    const PEAK: u32 = (1 << 16) - 1;

    fn normalize(v: u16) -> f32 {
        v as f32 * (1.0 / Self::PEAK as f32)
    }
}

trait Curve {
    fn apply(x: f32) -> f32;
}

struct Square;

impl Curve for Square {
    fn apply(x: f32) -> f32 {
        x * x
    }
}

unsafe fn to_linear<const D: usize, C>(src: *const <Bits<D> as Depth>::Sample, dst: *mut f32, n: usize)
where
    Bits<D>: Depth,
    C: Curve,
{
    let i = core::arch::nvptx::_thread_idx_x() as usize;
    if i >= n {
        return;
    }
    let v = src.add(i).read();
    *dst.add(i) = C::apply(Bits::<D>::normalize(v)) + <Bits<D>>::PEAK as f32;
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn to_linear_8(src: *const u8, dst: *mut f32, n: usize) {
    to_linear::<8, Square>(src, dst, n)
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn to_linear_16(src: *const u16, dst: *mut f32, n: usize) {
    to_linear::<16, Square>(src, dst, n)
}

trait RoundFromf32 {
    fn round(v: f32) -> Self;
}

unsafe fn quantize<const D: usize>(src: *const f32, dst: *mut <Bits<D> as Depth>::Sample, n: usize)
where
    Bits<D>: Depth,
{
    let i = core::arch::nvptx::_thread_idx_x() as usize;
    if i < n {
        *dst.add(i) = RoundFromf32::round(src.add(i).read() * <Bits<D>>::PEAK as f32);
    }
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn quantize_8(src: *const f32, dst: *mut u8, n: usize) {
    quantize::<8>(src, dst, n)
}

mod taps {
    include!(concat!(env!("OUT_DIR"), "/taps.rs"));
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn tapped(src: *const f32, dst: *mut f32) {
    let i = core::arch::nvptx::_thread_idx_x() as usize;
    *dst.add(i) = *src.add(i + taps::COUNT);
}
