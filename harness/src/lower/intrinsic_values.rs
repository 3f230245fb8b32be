//! A cuda-oxide geometry intrinsic named as a value (`invoke(thread_idx_x)`,
//! `let f: fn() -> u32 = thread_idx_x;`): CUDA's `threadIdx.x` is no function, so the value
//! is a device function of the prelude that reads the register.

use super::Context;
use kernel_lint_analyzer::parse::last_segment;

/// Prelude: one reader function per geometry register.
#[macro_export]
macro_rules! intrinsic_values_prelude {
    () => {
        r#"namespace kl {
#define KL_GEOMETRY_READER(stem, builtin) \
  __device__ inline unsigned int stem##_x() { return builtin.x; } \
  __device__ inline unsigned int stem##_y() { return builtin.y; } \
  __device__ inline unsigned int stem##_z() { return builtin.z; }
KL_GEOMETRY_READER(read_thread_idx, threadIdx)
KL_GEOMETRY_READER(read_block_idx, blockIdx)
KL_GEOMETRY_READER(read_block_dim, blockDim)
KL_GEOMETRY_READER(read_grid_dim, gridDim)
#undef KL_GEOMETRY_READER
}
"#
    };
}

impl Context<'_> {
    /// `thread_idx_x` as a function value: `kl::read_thread_idx_x`.
    pub(super) fn intrinsic_value(&self, p: &syn::ExprPath) -> Option<String> {
        let name = last_segment(&p.path);
        let (stem, axis) = name.rsplit_once('_')?;
        let known =
            matches!(axis, "x" | "y" | "z") && matches!(stem, "thread_idx" | "block_idx" | "block_dim" | "grid_dim");
        (known && self.oxide.enabled && self.names_intrinsic(&p.path, &name)).then(|| format!("kl::read_{name}"))
    }
}
