// Kernels in the shape of NVlabs/cuda-oxide (commit a105afd522b73a6712a802e30bd900cd04cc8019,
// crates/rustc-codegen-cuda/examples): core-library values built in kernels.
use core::mem::MaybeUninit;
use cuda_device::{kernel, thread, DisjointSlice};

static WEIGHTS: [[f32; 2]; 3] = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]];
static RAMP: [f32; 4] = [0.5, 1.5, 2.5, 3.5];

const MIDDLE: &[f32] = &WEIGHTS[1];
const FRONT: &[f32] = {
    let s: &[f32] = &RAMP;
    s.split_at(3).0
};

fn middle() -> &'static [f32] {
    MIDDLE
}

fn front() -> &'static [f32] {
    FRONT
}

#[derive(Clone, Copy)]
struct Pair {
    a: f32,
    b: f32,
}

impl core::ops::Mul for Pair {
    type Output = Pair;
    fn mul(self, rhs: Pair) -> Pair {
        Pair { a: self.a * rhs.a, b: self.b * rhs.b }
    }
}

fn first_of(args: (u32,)) -> u32 {
    args.0 + 3
}

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn single_tuple(mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let raw = idx.get() as u32;
        if let Some(slot) = out.get_mut(idx) {
            *slot = first_of((raw,));
        }
    }

    #[kernel]
    pub fn empty_read(mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        if let Some(slot) = out.get_mut(idx) {
            let none: [u32; 0] = [];
            *slot = none[0];
        }
    }

    #[kernel]
    pub fn staged_write(mut out: DisjointSlice<f32>) {
        let idx = thread::index_1d();
        let t = idx.get() as f32;
        if let Some(slot) = out.get_mut(idx) {
            let mut staged: MaybeUninit<Pair> = MaybeUninit::uninit();
            staged.write(Pair { a: t, b: t + 1.0 });
            let p = unsafe { staged.assume_init() };
            *slot = p.a + p.b;
        }
    }

    #[kernel]
    pub fn never_inhabited(flag: u32, mut out: DisjointSlice<u32>) {
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            if flag != 0 {
                unsafe { core::mem::MaybeUninit::<core::convert::Infallible>::uninit().assume_init() };
            }
            *slot = 1;
        }
    }

    #[kernel]
    pub unsafe fn static_rows(out: *mut f32) {
        let row = middle();
        let head = front();
        unsafe {
            *out = row[0] + row[1] + head[2];
            *out.add(1) = (row.len() + head.len()) as f32;
        }
    }

    #[kernel]
    pub fn pair_square(x: f32, y: f32, mut out: DisjointSlice<f32>) {
        let idx = thread::index_1d();
        if let Some(slot) = out.get_mut(idx) {
            let p = Pair { a: x, b: y };
            let q = p * p;
            *slot = q.a + q.b * 2.0;
        }
    }
}
