// Colour conversion kernels in the shape of Gui-Yom/turbo-metrics
// (1c6a196210cc85f00a9f3735d2c09adb80d00b08, crates/cuda-colorspace-kernel): trait functions
// generic over a range type and a bit depth, whose depth rustc infers from the caller's bound.
#![no_std]

extern "C" {
    #[link_name = "__nv_fmaf"]
    pub fn fmaf(x: f32, y: f32, z: f32) -> f32;
}

trait Sample {
    const MAX: u32;
}
struct Depth<const N: usize>;
impl Sample for Depth<8> {
    const MAX: u32 = 255;
}
impl Sample for Depth<10> {
    const MAX: u32 = 1023;
}

trait Range {
    fn floor<const N: usize>() -> u32
    where
        Depth<N>: Sample;
    fn ceil<const N: usize>() -> u32
    where
        Depth<N>: Sample;
    fn span<const N: usize>() -> u32
    where
        Depth<N>: Sample,
    {
        Self::ceil() - Self::floor()
    }
}
struct Studio;
impl Range for Studio {
    fn floor<const N: usize>() -> u32
    where
        Depth<N>: Sample,
    {
        16 << (N - 8)
    }
    fn ceil<const N: usize>() -> u32
    where
        Depth<N>: Sample,
    {
        235 << (N - 8)
    }
}

#[derive(Clone, Copy)]
struct Pair {
    a: f32,
    b: f32,
}
impl Pair {
    const fn new(a: f32, b: f32) -> Self {
        Pair { a, b }
    }
    const fn swapped(self) -> Self {
        Pair::new(self.b, self.a)
    }
    const fn total(self) -> f32 {
        self.a + self.b
    }
}
const fn weights_of(p: Pair) -> Pair {
    let q = p.swapped();
    Pair::new(q.total(), q.a)
}

trait Matrix {
    const WEIGHTS: Pair;
    fn gains<R: Range, const N: usize>() -> (f32, f32, f32, f32, f32)
    where
        Depth<N>: Sample,
    {
        let Pair { a, b } = Self::WEIGHTS;
        let s = 1.0 / R::span() as f32;
        (s, a * s, b * s, a + b, a - b)
    }
}
struct Hd;
impl Matrix for Hd {
    const WEIGHTS: Pair = weights_of(Pair::new(0.2126, 0.0722));
}

unsafe fn convert<const DEPTH: usize, R, M>(src: *const u8, dst: *mut f32, n: usize)
where
    Depth<DEPTH>: Sample,
    R: Range,
    M: Matrix,
{
    let i = (core::arch::nvptx::_block_idx_x() * core::arch::nvptx::_block_dim_x()
        + core::arch::nvptx::_thread_idx_x()) as usize;
    if i >= n {
        return;
    }
    let (s, ra, rb, g1, g2) = M::gains::<R, DEPTH>();
    let v = (*src.add(i) as u32).max(R::floor()) - R::floor();
    *dst.add(i) = fmaf(v as f32, s, ra + rb + g1 + g2);
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn convert_8_studio_hd(src: *const u8, dst: *mut f32, n: usize) {
    convert::<8, Studio, Hd>(src, dst, n)
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn convert_10_studio_hd(src: *const u8, dst: *mut f32, n: usize) {
    convert::<10, Studio, Hd>(src, dst, n)
}
