// Kernels in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (examples ref_index_projections, device_closures, array_for_loop, const_table_lookup,
// compiler_features, coop_groups_demo and cuda-device's warp.rs), written for the lowering
// tests of arrays, closures, patterns, loops over collections and constant tables.

use cuda_device::{kernel, thread, DisjointSlice};

const TABLE: [f32; 4] = [1.5, -2.0, 4.0, 0.25];

pub struct Wrap(pub [f32; 2]);

impl Wrap {
    pub fn node(&self, k: usize) -> &f32 {
        &self.0[k]
    }
}

pub struct Other(pub [f32; 2]);

impl Other {
    pub fn node(&self, k: usize) -> &f32 {
        &self.0[k]
    }
}

pub struct Handle {
    _priv: (),
}

pub fn handle() -> Handle {
    Handle { _priv: () }
}

pub struct Rgb(pub u32, pub u32, pub u32);

fn swapped(p: [f32; 2]) -> [f32; 2] {
    [p[1], p[0]]
}

pub fn lane_sum(value: u32) -> u32 {
    let _ = value;
    unreachable!("lane_sum called outside CUDA kernel context")
}

#[cuda_module]
mod kernels {
    use super::*;

    const LUT: [f32; 4] = super::TABLE;

    #[kernel]
    pub fn pair_closure(input: &[[f32; 2]], mut out: DisjointSlice<f32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        let pair: [f32; 2] = input[i];
        let compute = |k: usize| -> f32 { pair[k] + 1.0 };
        let w = Wrap(swapped(pair));
        if let Some(slot) = out.get_mut(idx) {
            *slot = compute(1) - compute(0) + *w.node(0);
        }
    }

    #[kernel]
    pub fn destructure(px: &[Rgb], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        let Rgb(r, g, _) = px[i];
        let [a, b] = [r, g];
        let _ = handle();
        if let Some(slot) = out.get_mut(idx) {
            *slot = a + b;
        }
    }

    #[kernel]
    pub fn walks(data: &[u32], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let arr = [1u32, 2, 3, 4];
        let mut acc = 0u32;
        for x in arr {
            acc += x;
        }
        for (k, v) in data.iter().enumerate() {
            acc += (k as u32) * *v;
        }
        let total: u32 = data.iter().sum();
        if let Some(slot) = out.get_mut(idx) {
            *slot = acc + total;
        }
    }

    #[kernel]
    pub fn lookup(input: &[u32], mut out: DisjointSlice<f32>) {
        let idx = thread::index_1d();
        let h = input[idx.get()];
        let v = match h % 3 {
            0 => LUT[(h as usize) & 3],
            _ => 0.0,
        };
        if let Some(slot) = out.get_mut(idx) {
            *slot = v;
        }
    }

    #[kernel]
    pub fn maybe(input: &[u32], mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let v = input[idx.get()];
        let m: Option<u32> = if v > 0 { Some(v) } else { None };
        if let Some(slot) = out.get_mut(idx) {
            *slot = m.unwrap_or_default() + m.is_some() as u32;
        }
    }

    #[kernel]
    pub fn stubbed(mut out: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        if let Some(slot) = out.get_mut(idx) {
            *slot = lane_sum(1);
        }
    }
}
