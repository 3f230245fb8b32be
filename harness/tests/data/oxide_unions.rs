// Kernels in the shape of NVlabs/cuda-oxide (a105afd522b73a6712a802e30bd900cd04cc8019),
// example `union_aggregate`.
use cuda_device::{DisjointSlice, kernel, thread};

#[derive(Clone, Copy)]
#[repr(C)]
union Lanes {
    packed: u32,
    parts: [u8; 4],
}

#[derive(Clone, Copy)]
struct Vec2 {
    x: u32,
    y: u32,
}

struct Boxed<T> {
    inner: T,
}

fn pack(packed: u32) -> Lanes {
    Lanes { packed }
}

#[kernel]
pub fn union_views(mut out: DisjointSlice<u32>) {
    let idx = thread::index_1d();
    let lane = idx.get() as u32;
    if let Some(slot) = out.get_mut(idx) {
        let split = Lanes { parts: [1, 2, 3, 4] };
        let low = unsafe { pack(lane).parts[0] as u32 };
        *slot = unsafe { split.packed } + low;
    }
}

#[kernel]
pub fn union_by_value(lanes: Lanes, mut out: DisjointSlice<u32>) {
    let idx = thread::index_1d();
    if let Some(slot) = out.get_mut(idx) {
        *slot = unsafe { lanes.packed };
    }
}

#[kernel]
pub fn boxed_own_struct(mut out: DisjointSlice<u32>) {
    let idx = thread::index_1d();
    let lane = idx.get() as u32;
    if let Some(slot) = out.get_mut(idx) {
        let boxed: Boxed<Vec2> = Boxed::<Vec2> { inner: Vec2 { x: lane, y: 1 } };
        *slot = boxed.inner.x + boxed.inner.y;
    }
}
