// Kernels in the shape of sparkl's halo merge (github.com/dimforge/sparkl @
// 29cebe6e29bae35d9cc980e04db53ebee3230ade, src_kernels/cuda/{atomic,sort}.rs): an atomic trait
// implemented for the scalar with inline PTX and for a nalgebra vector through `zip_apply`.
use core::arch::asm;
use nalgebra::Vector3;

pub type Real = f32;
pub type Vector<N> = Vector3<N>;

pub trait AtomicAdd {
    unsafe fn global_red_add(&mut self, rhs: Self);
}

impl AtomicAdd for f32 {
    unsafe fn global_red_add(&mut self, rhs: Self) {
        let float_addr = self as *mut _;
        let mut global_addr: *mut f32 = core::ptr::null_mut();
        asm!(
            "cvta.to.global.u64 {g}, {o};red.global.add.f32 [{g}], {v};",
            g = out(reg64) global_addr,
            o = in(reg64) float_addr,
            v = in(reg32) rhs
        );
    }
}

impl<T: nalgebra::Scalar + AtomicAdd> AtomicAdd for Vector<T> {
    unsafe fn global_red_add(&mut self, rhs: Self) {
        self.zip_apply(&rhs, |a, b| a.global_red_add(b))
    }
}

#[repr(C)]
pub struct Node {
    pub mass: Real,
    pub momentum: Vector<Real>,
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn merge_nodes(nodes: *mut Node, incoming: *const Node) {
    let i = core::arch::nvptx::_thread_idx_x() as usize;
    let node = &mut *nodes.add(i);
    let other = &*incoming.add(i);
    node.mass.global_red_add(other.mass);
    node.momentum.global_red_add(other.momentum);
}
