// Kernels in the shape of NVlabs/cuda-oxide a105afd522b73a6712a802e30bd900cd04cc8019
// (examples/const_bool_dead_branch, examples/proof_carrying_views): a marked value built by a
// generic struct's constructor, a mode whose hook is dead under a `const` false, and a plain
// struct carrying a zero-sized marker.
use core::marker::PhantomData;
use cuda_device::{kernel, thread, DisjointSlice};

#[repr(transparent)]
struct Marked<T, K> {
    inner: T,
    kind: PhantomData<K>,
}

impl<T: Copy, K> Clone for Marked<T, K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Copy, K> Copy for Marked<T, K> {}

impl<T, K> Marked<T, K> {
    const fn wrap(inner: T) -> Self {
        Self { inner, kind: PhantomData }
    }
}

trait Scaling: Sized + 'static {
    const ACTIVE: bool;
    fn scale(x: u32) -> u32;
}

struct Doubling;
struct Idle;

impl Scaling for Doubling {
    const ACTIVE: bool = true;
    #[inline(never)]
    fn scale(x: u32) -> u32 {
        x * 2
    }
}

impl Scaling for Idle {
    const ACTIVE: bool = false;
    #[inline(never)]
    fn scale(_x: u32) -> u32 {
        unreachable!()
    }
}

struct Pair {
    row: u32,
    col: u32,
    scope: PhantomData<fn(&mut ()) -> &mut ()>,
}

#[cuda_module]
mod kernels {
    use super::*;

    #[inline(never)]
    fn pick<S: Scaling>(x: u32) -> u32 {
        if S::ACTIVE { S::scale(x) } else { x }
    }

    #[kernel]
    pub fn rescale<S: Scaling>(src: &[Marked<u32, S>], mut dst: DisjointSlice<Marked<u32, S>>) {
        let i = thread::index_1d();
        if let (Some(v), Some(out)) = (src.get(i.get()), dst.get_mut(i)) {
            *out = Marked::wrap(pick::<S>(v.inner));
        }
    }

    #[kernel]
    pub fn pair_sum(mut dst: DisjointSlice<u32>) {
        let i = thread::index_1d();
        let p = Pair { row: 3, col: i.get() as u32, scope: PhantomData };
        if let Some(out) = dst.get_mut(i) {
            *out = p.row + p.col;
        }
    }
}

fn main() {
    let m = kernels::load(&ctx).unwrap();
    m.rescale::<Doubling>(&stream, cfg, &a, &mut b).unwrap();
    m.rescale::<Idle>(&stream, cfg, &a, &mut b).unwrap();
    m.pair_sum(&stream, cfg, &mut b).unwrap();
}
