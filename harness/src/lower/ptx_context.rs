//! `ptx_support`'s `Context`: `Context::thread()` and `Context::block()` give the lane's
//! thread and block coordinates as vectors of `u64`, and the block's extent through `dims()`.
//! A `Thread` dereferences to its index, so `Context::thread().x` reads it too.

use super::{Context, Lowered};
use syn::Expr;

/// The coordinate vectors of `Context::thread()` and `Context::block()`.
#[macro_export]
#[doc(hidden)]
macro_rules! ptx_context_prelude {
    () => {
        r#"namespace kl {
struct ptx_dim3 {
  unsigned long long x, y, z;
};
struct ptx_thread {
  unsigned long long x, y, z;
  __device__ ptx_dim3 index() const { return {x, y, z}; }
};
struct ptx_block {
  __device__ ptx_dim3 index() const { return {blockIdx.x, blockIdx.y, blockIdx.z}; }
  __device__ ptx_dim3 dims() const { return {blockDim.x, blockDim.y, blockDim.z}; }
};
__device__ inline ptx_thread ptx_context_thread() { return {threadIdx.x, threadIdx.y, threadIdx.z}; }
__device__ inline ptx_block ptx_context_block() { return {}; }
}
"#
    };
}

impl Context<'_> {
    /// `Context::thread()` / `Context::block()` of `ptx_support`, unless the workspace defines
    /// its own `Context`.
    pub(super) fn ptx_context_call(&self, c: &syn::ExprCall) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let segments: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let [.., owner, name] = segments.as_slice() else {
            return Ok(None);
        };
        if owner != "Context" || !c.args.is_empty() || !self.file.text.contains("ptx_support") {
            return Ok(None);
        }
        let owner_path: syn::Path = syn::parse_str("Context").expect("a path");
        if self.layouts.struct_fields(&owner_path).is_some() {
            return Ok(None);
        }
        Ok(match name.as_str() {
            "thread" => Some("kl::ptx_context_thread()".to_string()),
            "block" => Some("kl::ptx_context_block()".to_string()),
            _ => None,
        })
    }

    /// `.index()` / `.dims()` on a `ptx_support` thread or block: the prelude's methods.
    pub(super) fn ptx_context_method(&self, m: &syn::ExprMethodCall, receiver: &str) -> Option<String> {
        let method = m.method.to_string();
        let is_context = receiver.starts_with("kl::ptx_context_");
        match method.as_str() {
            "index" | "dims" if m.args.is_empty() && is_context => Some(format!("{receiver}.{method}()")),
            _ => None,
        }
    }
}
