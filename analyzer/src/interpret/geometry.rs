//! The thread-geometry functions of `cuda_std`, `core::arch::nvptx`, `nvptx_builtins` and
//! cuda-oxide's `cuda_device`, and rust-gpu's builtins, as index polynomials.

use crate::algebra::{Atom, Axis, OpKind, Poly};
use crate::model::launch::Dim3;

/// The launch facts geometry needs: the block extents are substituted as constants so that
/// divisibility by them is visible to the algebra.
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    /// Block extents.
    pub block: Dim3,
}

/// What a geometry call returns.
pub enum GeometryValue {
    /// One `u32`.
    Scalar(Poly),
    /// A vector of components x, y, z.
    Vector(Vec<Poly>),
    /// A call with no value that matters (`sync_threads`).
    Unit,
}

fn axis(suffix: &str) -> Option<Axis> {
    match suffix {
        "x" => Some(Axis::X),
        "y" => Some(Axis::Y),
        "z" => Some(Axis::Z),
        _ => None,
    }
}

impl Geometry {
    /// `threadIdx.axis`.
    pub fn thread(&self, a: Axis) -> Poly {
        Poly::thread_idx(a)
    }

    /// `blockIdx.axis`.
    pub fn block_idx(&self, a: Axis) -> Poly {
        Poly::atom(Atom::BlockIdx(a))
    }

    /// `blockDim.axis`, a constant of the launch.
    pub fn block_dim(&self, a: Axis) -> Poly {
        Poly::constant(i64::from(self.block[a.index()]))
    }

    /// `gridDim.axis`.
    pub fn grid_dim(&self, a: Axis) -> Poly {
        Poly::atom(Atom::GridDim(a))
    }

    /// `blockIdx.a * blockDim.a + threadIdx.a`.
    pub fn global(&self, a: Axis) -> Poly {
        self.block_idx(a).mul(&self.block_dim(a)).add(&self.thread(a))
    }

    /// The value of a call to the function named `name` (last path segment), if it is a
    /// geometry function.
    pub fn call(&self, name: &str) -> Option<GeometryValue> {
        use GeometryValue::*;
        let name = name.strip_prefix('_').unwrap_or(name);
        let name = snake_register(name);
        let name = name.as_str();
        let all = [Axis::X, Axis::Y, Axis::Z];
        let per_axis = |f: &dyn Fn(Axis) -> Poly| Vector(all.iter().map(|&a| f(a)).collect());
        Some(match name {
            "thread_idx" => per_axis(&|a| self.thread(a)),
            "block_idx" => per_axis(&|a| self.block_idx(a)),
            "block_dim" => per_axis(&|a| self.block_dim(a)),
            "grid_dim" => per_axis(&|a| self.grid_dim(a)),
            "index_1d" => Scalar(self.global(Axis::X)),
            "index_2d" => Vector(vec![self.global(Axis::X), self.global(Axis::Y)]),
            "index_3d" => per_axis(&|a| self.global(a)),
            "index" => Scalar(self.linear_index()),
            // cuda-oxide: row from the y axis, column from the x axis.
            "index_2d_row" => Scalar(self.global(Axis::Y)),
            "index_2d_col" => Scalar(self.global(Axis::X)),
            "lane_id" | "laneid" => Scalar(self.lane_id()),
            "sync_threads" | "syncthreads" | "sync_warp" | "barrier_sync" | "threadfence" | "threadfence_block" => Unit,
            _ => {
                let (stem, suffix) = name.rsplit_once('_')?;
                let a = axis(suffix)?;
                match stem {
                    "thread_idx" => Scalar(self.thread(a)),
                    "block_idx" => Scalar(self.block_idx(a)),
                    "block_dim" => Scalar(self.block_dim(a)),
                    "grid_dim" => Scalar(self.grid_dim(a)),
                    _ => return None,
                }
            }
        })
    }

    /// The thread's linear rank in its block: `tx + ty*bdx + tz*bdx*bdy`.
    pub fn rank(&self) -> Poly {
        let bdx = self.block_dim(Axis::X);
        let bdy = self.block_dim(Axis::Y);
        self.thread(Axis::X)
            .add(&self.thread(Axis::Y).mul(&bdx))
            .add(&self.thread(Axis::Z).mul(&bdx.mul(&bdy)))
    }

    /// The lane within its warp: the thread's rank in its block, modulo 32.
    pub fn lane_id(&self) -> Poly {
        Poly::op(OpKind::Rem, &self.rank(), &Poly::constant(32))
    }

    /// The warp of the thread within its block: its rank divided by 32.
    pub fn warp_id(&self) -> Poly {
        Poly::op(OpKind::Div, &self.rank(), &Poly::constant(32))
    }

    /// The warps of a block, the last one partial.
    pub fn warps(&self) -> Poly {
        let threads: u32 = self.block.iter().product();
        Poly::constant(i64::from(threads.div_ceil(32)))
    }

    /// `thread::index()`: `(bx + by*gx + gx*gy*bz) * (bdx*bdy*bdz) + tz*(bdx*bdy) + ty*bdx + tx`.
    fn linear_index(&self) -> Poly {
        let [bdx, bdy, bdz] = [Axis::X, Axis::Y, Axis::Z].map(|a| self.block_dim(a));
        let (gx, gy) = (self.grid_dim(Axis::X), self.grid_dim(Axis::Y));
        let block = self
            .block_idx(Axis::X)
            .add(&self.block_idx(Axis::Y).mul(&gx))
            .add(&gx.mul(&gy).mul(&self.block_idx(Axis::Z)));
        block
            .mul(&bdx.mul(&bdy).mul(&bdz))
            .add(&self.thread(Axis::Z).mul(&bdx.mul(&bdy)))
            .add(&self.thread(Axis::Y).mul(&bdx))
            .add(&self.thread(Axis::X))
    }
}

/// cuda-oxide's register names (`threadIdx_x`, `blockDim_y`) in the snake case of the others.
fn snake_register(name: &str) -> String {
    for (camel, snake) in [
        ("threadIdx_", "thread_idx_"),
        ("blockIdx_", "block_idx_"),
        ("blockDim_", "block_dim_"),
        ("gridDim_", "grid_dim_"),
    ] {
        if let Some(axis) = name.strip_prefix(camel) {
            return format!("{snake}{axis}");
        }
    }
    name.to_string()
}
