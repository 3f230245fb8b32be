// Tables defined by a file's own `macro_rules!` and built by `const fn` calls, in the shape of
// the table-lookup example of NVlabs/cuda-oxide (commit a105afd522b73a6712a802e30bd900cd04cc8019).
use cuda_device::{kernel, thread, DisjointSlice};

const SMALL: usize = 4;
const LARGE: usize = 8;

#[derive(Clone, Copy)]
#[repr(u32)]
pub enum Shade {
    Dark = 2,
    Light = 9,
}

const fn shade_of(k: usize) -> Shade {
    match k % 2 {
        0 => Shade::Dark,
        _ => Shade::Light,
    }
}

const fn weight_of(k: usize) -> u32 {
    match k % 3 {
        0 | 1 => 4,
        _ => 6,
    }
}

macro_rules! make_tables {
    ($len:expr, $shades:ident, $weights:ident) => {
        const $shades: [Shade; $len] = {
            let mut t = [Shade::Dark; $len];
            let mut k = 0;
            while k < $len {
                t[k] = shade_of(k);
                k += 1;
            }
            t
        };
        const $weights: [u32; $len] = {
            let mut t = [0u32; $len];
            let mut k = 0;
            while k < $len {
                t[k] = weight_of(k);
                k += 1;
            }
            t
        };
    };
}

make_tables!(SMALL, SHADES4, WEIGHTS4);
make_tables!(LARGE, SHADES8, WEIGHTS8);

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn shade_lookup(input: &[u32], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if i >= input.len() {
            return;
        }
        let v = super::SHADES8[input[i] as usize & (super::LARGE - 1)] as u32;
        if let Some(o) = out.get_mut(idx) {
            *o = v + super::WEIGHTS4[input[i] as usize & (super::SMALL - 1)];
        }
    }
}
