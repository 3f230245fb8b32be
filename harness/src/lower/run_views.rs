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
    pub(super) matrices: super::matrix_views::MatrixViews,
}
