// Shaped after the GEMM view kernels of NVlabs/cuda-oxide
// (a105afd522b73a6712a802e30bd900cd04cc8019, examples/gemm_views): read strips of a flat
// matrix checked once, and one write tile of a slice whose row width is bound on the host.
use cuda_device::{ColView32, DisjointSlice, MatrixView32, RowView32, RuntimeRowMajorTiles, kernel, thread};

#[kernel(launch_context = lc)]
pub fn dot_rows(width: u32, depth: u32, lhs: &[f32], rhs: &[f32], mut dst: DisjointSlice<f32, RuntimeRowMajorTiles<1, 1>>) {
    let at = thread::coord_2d_u32(lc);
    let lhs_m = MatrixView32::new(lhs, depth);
    let rhs_m = MatrixView32::new(rhs, width);
    if let Some(r) = lhs_m.row(at.row(), depth)
        && let Some(c) = rhs_m.col(at.col(), depth)
        && let Some(both) = r.zip_exact(c)
    {
        let mut acc = 0.0f32;
        for (p, q) in both {
            acc += p * q;
        }
        if let Some(mut out) = dst.tile_2d32_rt(at) {
            out.at_const::<0, 0>().write(acc);
        }
    }
}

#[kernel(launch_context = lc)]
pub fn staged_pick(width: u32, depth: u32, lhs: &[f32], rhs: &[f32], mut dst: DisjointSlice<f32, RuntimeRowMajorTiles<1, 1>>) {
    let at = thread::coord_2d_u32(lc);
    let lhs_m = MatrixView32::new(lhs, depth);
    let rhs_m = MatrixView32::new(rhs, width);
    let r = lhs_m.row(at.row(), depth).unwrap_or(RowView32::empty());
    let c = rhs_m.col(at.col(), depth).unwrap_or(ColView32::empty());
    let first = r.get(thread::threadIdx_x()).unwrap_or(0.0);
    let second = c.get(thread::threadIdx_y()).unwrap_or(0.0);
    if let Some(mut out) = dst.tile_2d32_rt(at) {
        let old = out.at_const::<0, 0>().read();
        out.at_const::<0, 0>().write(old + first * second);
    }
}
