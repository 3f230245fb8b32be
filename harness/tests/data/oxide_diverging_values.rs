// Kernels in the shape of NVlabs/cuda-oxide (commit a105afd522b73a6712a802e30bd900cd04cc8019),
// examples `ord_cmp` and `slice_get_mut`: a value `match` whose catch-all arm returns, and
// `get_mut(i).map(|e| ..)` on a row reference.

use cuda_device::{cuda_module, kernel, thread, DisjointSlice};

const WIDTH: usize = 4;

#[cuda_module]
mod kernels {
    use super::*;

    fn parity(x: u32) -> i32 {
        (x % 2) as i32
    }

    #[kernel]
    pub fn classify(mut out: DisjointSlice<i32>) {
        let idx = thread::index_1d();
        let lane = idx.get();
        let code = match lane {
            0 | 1 => 7,
            2 | 3 => parity(lane as u32) + 10,
            _ => return,
        };
        if let Some(slot) = out.get_mut(idx) {
            *slot = code;
        }
    }

    #[kernel]
    pub fn fill_rows(mut rows: DisjointSlice<[f32; WIDTH]>) {
        let idx = thread::index_1d();
        let row = match rows.get_mut(idx) {
            Some(row) => row,
            None => return,
        };
        for i in 0..WIDTH {
            row.get_mut(i).map(|e| *e = 3.0);
        }
    }
}

// A second `get_mut`, so that the name alone does not say which one a call means.
struct Ring {
    cells: [u32; 4],
}

impl Ring {
    fn get_mut(&mut self, i: usize) -> Option<&mut u32> {
        self.cells.get_mut(i % 4)
    }
}

struct Pair {
    halves: [u32; 2],
}

impl Pair {
    fn get_mut(&mut self, i: usize) -> Option<&mut u32> {
        self.halves.get_mut(i % 2)
    }
}
