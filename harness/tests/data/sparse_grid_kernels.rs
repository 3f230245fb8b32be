// Kernels in the shape of sparkl's sparse-grid kernels (github.com/dimforge/sparkl @
// 29cebe6e29bae35d9cc980e04db53ebee3230ade, src_kernels/cuda/{sort,hashmap,reset_grid}.rs):
// derived comparisons, literal vectors, element casts, `?`, `impl Trait` parameters.
use nalgebra::{vector, Vector3};

pub type Scalar = f32;

#[derive(Copy, Clone, PartialEq, Eq)]
#[repr(transparent)]
pub struct CellKey(pub u64);

#[derive(Copy, Clone)]
#[repr(C)]
pub struct Slot {
    pub key: CellKey,
    pub value: u32,
}

#[repr(C)]
pub struct Node {
    pub weight: Scalar,
    pub flow: Vector3<Scalar>,
}

impl Node {
    pub fn empty() -> Self {
        Node {
            weight: 0.0,
            flow: Vector3::zeros(),
        }
    }
}

pub trait Accumulate {
    unsafe fn accumulate(&mut self, rhs: Self) -> Self;
}

impl Accumulate for u32 {
    unsafe fn accumulate(&mut self, rhs: Self) -> Self {
        let old = *self;
        *self += rhs;
        old
    }
}

impl Accumulate for f32 {
    unsafe fn accumulate(&mut self, rhs: Self) -> Self {
        let old = *self;
        *self += rhs;
        old
    }
}

#[derive(Copy, Clone)]
#[repr(C)]
pub struct Table {
    pub slots: *mut Slot,
    pub count: *mut u32,
    pub capacity: u32,
}

impl Table {
    pub fn lookup(&self, key: CellKey) -> Option<u32> {
        let mut i = key.0 & (self.capacity as u64 - 1);
        loop {
            let slot = unsafe { *self.slots.add(i as usize) };
            if slot.key == key {
                return Some(slot.value);
            }
            if slot.key.0 == u64::MAX {
                return None;
            }
            i = (i + 1) & (self.capacity as u64 - 1);
        }
    }

    pub fn lookup_twice(&self, key: CellKey) -> Option<u32> {
        let first = self.lookup(key)?;
        Some(first + 1)
    }

    pub fn insert_with(&mut self, key: CellKey, mut make: impl FnMut() -> u32) {
        let slot = unsafe { &mut *self.slots.add((key.0 & (self.capacity as u64 - 1)) as usize) };
        if slot.key.0 == u64::MAX {
            slot.key = key;
            slot.value = make();
        }
    }
}

pub fn pack(cell: Vector3<usize>) -> CellKey {
    CellKey((cell.x as u64) | ((cell.y as u64) << 21) | ((cell.z as u64) << 42))
}

pub fn neighbours(cell: Vector3<usize>) -> [CellKey; 2] {
    [pack(cell + vector![1, 0, 0]), pack(cell - vector![0, 1, 0])]
}

pub fn unpack(key: CellKey) -> Vector3<usize> {
    vector![key.0 & 0x1f_ffff, (key.0 >> 21) & 0x1f_ffff, key.0 >> 42].cast::<usize>()
}

pub trait Weigh {
    fn weigh(&self, v: f32) -> f32;
}

#[repr(C)]
pub struct Doubler {
    pub factor: f32,
}

impl Weigh for Doubler {
    fn weigh(&self, v: f32) -> f32 {
        v * self.factor
    }
}

fn weigh_all(weigher: &impl Weigh, values: *mut f32, i: usize) {
    unsafe { *values.add(i) = weigher.weigh(*values.add(i)) };
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn sparse_grid(table: Table, nodes: *mut Node, counts: *mut u32, values: *mut f32) {
    let i = core::arch::nvptx::_thread_idx_x() as usize;
    let keys = neighbours(unpack(CellKey(i as u64)));
    for key in &keys[1..] {
        if let Some(found) = table.lookup_twice(*key) {
            let count = &mut *counts.add(found as usize);
            count.accumulate(1);
        }
    }
    *nodes.add(i) = Node::empty();
    let mut t = table;
    t.insert_with(keys[0], || (*counts.add(i)).accumulate(1));
    let doubler = Doubler { factor: 2.0 };
    weigh_all(&doubler, values, i);
}
