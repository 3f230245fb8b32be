//! Pair benchmarks.
