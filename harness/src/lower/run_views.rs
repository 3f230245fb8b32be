//! What a kernel's scope knows of the run views of `DisjointSlice`s (`thread_run32`,
//! `grid_stride_runs32`): kept apart from their lowering, which the scope's owner does not need.

use std::collections::{HashMap, HashSet};

/// What a kernel's scope knows of run views.
#[derive(Debug, Clone, Default)]
pub(super) struct RunViews {
    /// `LinearTiles<N>` slices, by C name: `N` as C++.
    pub(super) widths: HashMap<String, String>,
    /// `RowMajorTiles<ROWS, COLS, ROW_STRIDE>` slices, by C name: the three as C++.
    pub(super) grids: HashMap<String, [String; 3]>,
    /// Names holding a whole 2D tile, by C name: its row stride as C++.
    pub(super) strides: HashMap<String, String>,
    /// Names holding a run (`ThreadRunMut32`).
    pub(super) runs: HashSet<String>,
    /// Names holding a grid-stride walk over runs (`GridStrideRuns32`).
    pub(super) walks: HashSet<String>,
    /// Names holding one element of a run (`InBoundsMut32`), as a reference.
    pub(super) elements: HashSet<String>,
    /// `MatrixView32`s, their strips and `RuntimeRowMajorTiles` slices.
    pub(super) matrices: MatrixViews,
}

/// What a kernel's scope knows of matrix views, by C name.
#[derive(Debug, Clone, Default)]
pub(super) struct MatrixViews {
    /// Names holding a `MatrixView32`.
    pub(super) matrices: HashSet<String>,
    /// Names holding a `RowView32` or `ColView32`.
    pub(super) strips: HashSet<String>,
    /// Names holding a `ZipView32`.
    pub(super) zips: HashSet<String>,
    /// Names holding a `ThreadCoord2D32` (`thread::coord_2d_u32`).
    pub(super) coords: HashSet<String>,
    /// `DisjointSlice`s over `RuntimeRowMajorTiles<R, C>`: `R` and `C` as C++.
    pub(super) runtime_grids: HashMap<String, [String; 2]>,
}
