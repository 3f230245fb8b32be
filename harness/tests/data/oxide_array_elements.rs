// A kernel in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (crates/rustc-codegen-cuda/examples/slice_get_mut), written for the lowering tests: each
// thread takes its array element of a `DisjointSlice` and writes it through `get_mut`.

use cuda_device::{kernel, thread, DisjointSlice};

const WIDTH: usize = 4;

#[derive(Clone, Copy)]
pub struct Span {
    pub lo: f32,
    pub hi: f32,
}

impl Span {
    pub fn get_mut(&mut self, i: usize) -> Option<&mut f32> {
        if i == 0 { Some(&mut self.lo) } else { None }
    }
}

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn fill_rows(mut out: DisjointSlice<[f32; WIDTH]>) {
        let idx = thread::index_1d();
        let row = match out.get_mut(idx) {
            Some(r) => r,
            None => return,
        };
        for i in 0..WIDTH {
            if let Some(e) = row.get_mut(i) {
                *e = 2.0 + i as f32;
            }
        }
    }

    #[kernel]
    pub fn fill_spans(mut out: DisjointSlice<[Span; 2]>) {
        let idx = thread::index_1d();
        let spans = match out.get_mut(idx) {
            Some(s) => s,
            None => return,
        };
        for i in 0..2 {
            if let Some(s) = spans.get_mut(i) {
                s.lo = 1.0;
                s.hi = 3.0;
            }
        }
    }
}
