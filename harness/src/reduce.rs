//! Nsight Compute source-counter exports to measured rows.
