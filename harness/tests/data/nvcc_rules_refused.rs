// A kernel in the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
// (example enum_table_lookup): a reference constant to a table that a local macro defines.

use cuda_device::{kernel, thread, DisjointSlice};

macro_rules! table {
    ($name:ident) => {
        const $name: [u32; 4] = [1, 2, 3, 4];
    };
}

table!(CODES);

const CODES_REF: &[u32; 4] = &CODES;

#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn through_ref(mut out: DisjointSlice<u32>) {
        let v = super::CODES_REF[thread::index_1d().get() & 3];
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = v;
        }
    }
}
