//! cuda-oxide's shared-memory barriers (`cuda_device::barrier`: `Barrier` statics and the
//! `mbarrier_*` intrinsics) and asynchronous copies (`cuda_device::async_copy`: `cp.async`
//! with its groups and barrier bridges), as the PTX instructions the library documents each to
//! lower to. The copies read global memory as the Rust kernel does: same address, same width.

use super::{Context, Lowered, Scope};
use syn::Expr;

/// `cuda_device::barrier::Barrier`: an eight-byte barrier word in shared memory.
pub(super) const BARRIER_TYPE: &str = "kl::mbarrier";

/// The C++ function of a `barrier` or `async_copy` intrinsic taking its arguments as they are.
pub(super) fn intrinsic(item: &str) -> Option<&'static str> {
    Some(match item {
        "barrier::mbarrier_init" => "kl::mbarrier_init",
        "barrier::mbarrier_arrive" => "kl::mbarrier_arrive",
        "barrier::mbarrier_arrive_expect_tx" => "kl::mbarrier_arrive_expect_tx",
        "barrier::mbarrier_test_wait" => "kl::mbarrier_test_wait",
        "barrier::mbarrier_try_wait" => "kl::mbarrier_try_wait",
        "barrier::mbarrier_try_wait_parity" => "kl::mbarrier_try_wait_parity",
        "barrier::mbarrier_wait" => "kl::mbarrier_wait",
        "barrier::mbarrier_arrive_and_wait" => "kl::mbarrier_arrive_and_wait",
        "barrier::mbarrier_inval" => "kl::mbarrier_inval",
        "barrier::mbarrier_arrive_cluster" => "kl::mbarrier_arrive_cluster",
        "barrier::fence_mbarrier_init_release_cluster" => "kl::fence_mbarrier_init_release_cluster",
        "barrier::fence_proxy_async_shared_cta" => "kl::fence_proxy_async_shared_cta",
        "barrier::nanosleep" => "kl::nanosleep",
        "async_copy::cp_async_ca_4" => "kl::cp_async_ca<4>",
        "async_copy::cp_async_ca_8" => "kl::cp_async_ca<8>",
        "async_copy::cp_async_ca_16" => "kl::cp_async_ca<16>",
        "async_copy::cp_async_cg_16" => "kl::cp_async_cg16",
        "async_copy::cp_async_ca_zfill_4" => "kl::cp_async_ca_zfill<4>",
        "async_copy::cp_async_ca_zfill_8" => "kl::cp_async_ca_zfill<8>",
        "async_copy::cp_async_ca_zfill_16" => "kl::cp_async_ca_zfill<16>",
        "async_copy::cp_async_cg_zfill_16" => "kl::cp_async_cg_zfill16",
        "async_copy::cp_async_commit_group" => "kl::cp_async_commit_group",
        "async_copy::cp_async_wait_all" => "kl::cp_async_wait_all",
        "async_copy::cp_async_mbarrier_arrive" => "kl::cp_async_mbarrier_arrive",
        "async_copy::cp_async_mbarrier_arrive_shared" => "kl::cp_async_mbarrier_arrive",
        "async_copy::cp_async_mbarrier_arrive_noinc" => "kl::cp_async_mbarrier_arrive_noinc",
        "async_copy::cp_async_mbarrier_arrive_noinc_shared" => "kl::cp_async_mbarrier_arrive_noinc",
        _ => return None,
    })
}

/// Whether a `barrier` or `async_copy` path names an intrinsic this module does not lower.
fn unlowered(item: &str) -> bool {
    item.starts_with("barrier::") || item.starts_with("async_copy::")
}

impl Context<'_> {
    /// `mbarrier_init(&raw mut BAR, n)`, `cp_async_ca_4(dst, src)` and the other intrinsics.
    pub(super) fn async_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let Some(item) = self.library_item(&p.path) else {
            return Ok(None);
        };
        let item = item.replace("barrier::barrier::", "barrier::");
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        if item == "async_copy::cp_async_wait_group" {
            // PTX takes the count of pending groups as an immediate.
            return match (c.args.first(), args.first()) {
                (Some(Expr::Lit(_)), Some(n)) => Ok(Some(format!("kl::cp_async_wait_group<{n}>()"))),
                _ => self.fail(
                    c,
                    "`cp_async_wait_group` of a count that is not a literal is not lowered",
                ),
            };
        }
        match intrinsic(&item) {
            Some(function) => Ok(Some(format!("{function}({})", args.join(", ")))),
            None if unlowered(&item) => self.fail(
                c,
                format!(
                    "`{}` is not lowered: no PTX for it here",
                    item.rsplit("::").next().unwrap_or(&item)
                ),
            ),
            None => Ok(None),
        }
    }

    /// `Barrier` of `cuda_device::barrier`.
    pub(super) fn is_barrier_type(&self, path: &syn::Path) -> bool {
        kernel_lint_analyzer::parse::last_segment(path) == "Barrier"
            && self
                .library_item(path)
                .is_some_and(|i| i.starts_with("barrier::") && i.ends_with("Barrier"))
    }
}

/// `ManagedBarrier::<State, Kind>::from_static` and its aliases' (`TmaBarrierHandle`).
pub(super) fn is_barrier_handle(item: &str) -> bool {
    item.starts_with("barrier::") && item.ends_with("::from_static")
}

/// Whether a static's type is a shared-memory barrier, which cuda-oxide places in shared memory.
pub(super) fn is_barrier_static(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if kernel_lint_analyzer::parse::last_segment(&p.path) == "Barrier")
}

/// C++ of the barriers and asynchronous copies, appended to the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! async_copy_prelude {
    () => {
        r#"namespace kl {
struct alignas(8) mbarrier { unsigned long long state; };
#ifdef __CUDACC__
__device__ inline unsigned int shared_address(const void* p) { return (unsigned int)__cvta_generic_to_shared(p); }
__device__ inline void mbarrier_init(const void* bar, unsigned int count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(shared_address(bar)), "r"(count) : "memory");
}
__device__ inline void mbarrier_inval(const void* bar) {
  asm volatile("mbarrier.inval.shared.b64 [%0];" :: "r"(shared_address(bar)) : "memory");
}
__device__ inline unsigned long long mbarrier_arrive(const void* bar) {
  unsigned long long token;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(token) : "r"(shared_address(bar)) : "memory");
  return token;
}
__device__ inline unsigned long long mbarrier_arrive_expect_tx(const void* bar, unsigned int, unsigned int bytes) {
  unsigned long long token;
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %0, [%1], %2;"
               : "=l"(token) : "r"(shared_address(bar)), "r"(bytes) : "memory");
  return token;
}
__device__ inline bool mbarrier_test_wait(const void* bar, unsigned long long token) {
  unsigned int done;
  asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
               : "=r"(done) : "r"(shared_address(bar)), "l"(token) : "memory");
  return done != 0;
}
__device__ inline bool mbarrier_try_wait(const void* bar, unsigned long long token) {
  unsigned int done;
  asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
               : "=r"(done) : "r"(shared_address(bar)), "l"(token) : "memory");
  return done != 0;
}
__device__ inline bool mbarrier_try_wait_parity(const void* bar, unsigned int parity) {
  unsigned int done;
  asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
               : "=r"(done) : "r"(shared_address(bar)), "r"(parity) : "memory");
  return done != 0;
}
__device__ inline void fence_proxy_async_shared_cta() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
__device__ inline void nanosleep(unsigned int ns) { __nanosleep(ns); }
template <int N> __device__ void cp_async_ca(void* dst, const void* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" :: "r"(shared_address(dst)), "l"(src), "n"(N) : "memory");
}
template <int N> __device__ void cp_async_ca_zfill(void* dst, const void* src, unsigned int src_size) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;"
               :: "r"(shared_address(dst)), "l"(src), "n"(N), "r"(src_size) : "memory");
}
__device__ inline void cp_async_cg16(void* dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(shared_address(dst)), "l"(src) : "memory");
}
__device__ inline void cp_async_cg_zfill16(void* dst, const void* src, unsigned int src_size) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(shared_address(dst)), "l"(src), "r"(src_size) : "memory");
}
__device__ inline void cp_async_commit_group() { asm volatile("cp.async.commit_group;" ::: "memory"); }
__device__ inline void cp_async_wait_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }
template <int N> __device__ void cp_async_wait_group() { asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory"); }
__device__ inline void cp_async_mbarrier_arrive(const void* bar) {
  asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" :: "r"(shared_address(bar)) : "memory");
}
__device__ inline void cp_async_mbarrier_arrive_noinc(const void* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(shared_address(bar)) : "memory");
}
#else
// Without nvcc (a syntax check) the instructions stand in as declarations.
void mbarrier_init(const void*, unsigned int);
void mbarrier_inval(const void*);
unsigned long long mbarrier_arrive(const void*);
unsigned long long mbarrier_arrive_expect_tx(const void*, unsigned int, unsigned int);
bool mbarrier_test_wait(const void*, unsigned long long);
bool mbarrier_try_wait(const void*, unsigned long long);
bool mbarrier_try_wait_parity(const void*, unsigned int);
void fence_proxy_async_shared_cta();
void nanosleep(unsigned int);
template <int N> void cp_async_ca(void*, const void*) {}
template <int N> void cp_async_ca_zfill(void*, const void*, unsigned int) {}
void cp_async_cg16(void*, const void*);
void cp_async_cg_zfill16(void*, const void*, unsigned int);
void cp_async_commit_group();
void cp_async_wait_all();
template <int N> void cp_async_wait_group() {}
void cp_async_mbarrier_arrive(const void*);
void cp_async_mbarrier_arrive_noinc(const void*);
#endif
// `mbarrier_wait`: spins on `test_wait`, as the library does.
__device__ inline void mbarrier_wait(const void* bar, unsigned long long token) {
  while (!mbarrier_test_wait(bar, token)) {
  }
}
__device__ inline void mbarrier_arrive_and_wait(const void* bar) { mbarrier_wait(bar, mbarrier_arrive(bar)); }
// `ManagedBarrier`: the barrier's pointer; its state is the Rust type's, checked there.
struct managed_barrier {
  mbarrier* ptr;
  __device__ managed_barrier init_by(unsigned int count, unsigned int init_thread) const {
    if (threadIdx.x == init_thread) {
      mbarrier_init(ptr, count);
      fence_proxy_async_shared_cta();
    }
    __syncthreads();
    return *this;
  }
  __device__ managed_barrier init(unsigned int count) const { return init_by(count, 0); }
  __device__ const mbarrier* as_ptr() const { return ptr; }
  __device__ unsigned long long arrive() const { return mbarrier_arrive(ptr); }
  __device__ unsigned long long arrive_expect_tx(unsigned int bytes) const { return mbarrier_arrive_expect_tx(ptr, 1, bytes); }
  __device__ void wait(unsigned long long token) const { mbarrier_wait(ptr, token); }
  __device__ bool try_wait(unsigned long long token) const { return mbarrier_try_wait(ptr, token); }
  __device__ bool test_wait(unsigned long long token) const { return mbarrier_test_wait(ptr, token); }
  __device__ bool try_wait_parity(unsigned int parity) const { return mbarrier_try_wait_parity(ptr, parity); }
  __device__ managed_barrier inval_by(unsigned int inval_thread) const {
    __syncthreads();
    if (threadIdx.x == inval_thread) mbarrier_inval(ptr);
    __syncthreads();
    return *this;
  }
  __device__ managed_barrier inval() const { return inval_by(0); }
};
}
"#
    };
}
