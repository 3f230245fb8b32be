//! How many files are analyzed at once.

/// `--jobs N`, else one per core the process may use (one when that cannot be told).
pub fn count(flag: Option<u16>) -> usize {
    flag.map(usize::from)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
}
