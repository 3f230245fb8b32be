//! Rust-CUDA's `cuda_std` names the launch geometry in one module, `thread`
//! (`thread_idx_x`, `block_idx_x`, `block_dim_x`, `index_1d`, ...). A call that a file
//! importing `cuda_std` makes to `block::..` or to a `thread::..` function outside that list
//! names no function of the crate, so the kernel does not build; it is refused as such.

/// The public functions of `cuda_std::thread` (0.2.2, the newest release).
const THREAD_FUNCTIONS: &[&str] = &[
    "thread_idx_x",
    "thread_idx_y",
    "thread_idx_z",
    "block_idx_x",
    "block_idx_y",
    "block_idx_z",
    "block_dim_x",
    "block_dim_y",
    "block_dim_z",
    "grid_dim_x",
    "grid_dim_y",
    "grid_dim_z",
    "thread_idx",
    "block_idx",
    "block_dim",
    "grid_dim",
    "index",
    "index_1d",
    "index_2d",
    "index_3d",
    "first",
    "warp_size",
    "sync_threads",
    "sync_threads_count",
    "sync_threads_and",
    "sync_threads_or",
    "grid_fence",
    "device_fence",
    "system_fence",
    "nanosleep",
];

/// Why the call of `path` names nothing in `cuda_std`, for a file whose text is `text`.
pub(super) fn absent(path: &syn::Path, text: &str) -> Option<String> {
    if !text.contains("cuda_std::") {
        return None;
    }
    let [module, function] = path.segments.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let (module, function) = (module.ident.to_string(), function.ident.to_string());
    match module.as_str() {
        "block" => Some(format!(
            "call to `block::{function}` names no function of `cuda_std`, which the file imports: \
             cuda_std has no module `block` (block geometry is `thread::block_idx_x` and kin)"
        )),
        "thread" if !THREAD_FUNCTIONS.contains(&function.as_str()) => Some(format!(
            "call to `thread::{function}` names no function of `cuda_std`, which the file \
             imports: its module `thread` has no `{function}`"
        )),
        _ => None,
    }
}
