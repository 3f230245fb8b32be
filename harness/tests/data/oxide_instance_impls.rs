// Kernels in the shape of NVlabs/cuda-oxide a105afd522b73a6712a802e30bd900cd04cc8019
// (examples/export_name_policy): a method of an impl of one instance of a generic tuple
// struct, called on a turbofish literal from a kernel of an inline module and from a helper
// of the file's root; (examples/union_aggregate) a generic union's turbofish literal.
use cuda_device::{cuda_module, kernel, thread, DisjointSlice};

#[derive(Clone, Copy)]
struct Cell2 {
    lo: u32,
    hi: u32,
}

struct Boxed<T>(T);

impl Boxed<Cell2> {
    fn folded(self) -> u32 {
        self.0.lo * 5 + self.0.hi
    }

    fn swapped(&self) -> Self {
        Self(Cell2 { lo: self.0.hi, hi: self.0.lo })
    }
}

#[allow(dead_code)]
union Lanes<T: Copy> {
    value: T,
    bytes: [u8; 8],
}

fn host_side(v: u32) -> u32 {
    Boxed::<Cell2>(Cell2 { lo: v, hi: 1 }).folded()
}

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn fold_cells(input: &[u32], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(slot) = out.get_mut(idx) {
            let cell = Cell2 { lo: input[i], hi: 9 };
            let wrapped = Boxed::<Cell2>(cell);
            *slot = wrapped.swapped().folded() + host_side(input[i]);
        }
    }

    #[kernel]
    pub fn union_bits(mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get() as u8;
        if let Some(slot) = out.get_mut(idx) {
            *slot = unsafe { Lanes::<u32> { bytes: [i, 0, 0, 1, 2, 3, 4, 5] }.value };
        }
    }
}
