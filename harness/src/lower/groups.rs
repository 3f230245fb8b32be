//! cuda-oxide's cooperative groups (`cuda_device::cooperative_groups`): the thread block,
//! grid, cluster, warp tiles and coalesced threads as small C++ values whose methods are the
//! Rust library's, written with the same shuffles, votes and masks; the reductions and scans
//! over them; `grid::sync()` as CUDA's grid barrier (a cooperative launch); the warp
//! `match.sync` intrinsics.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::model::items::Target;
use kernel_lint_analyzer::parse::last_segment;
use syn::{Expr, Type};

/// The group handle types and their C++ values.
fn group_type_name(name: &str) -> Option<&'static str> {
    Some(match name {
        "ThreadBlock" => "kl::cg_block",
        "Grid" => "kl::cg_grid",
        "Cluster" => "kl::cg_cluster",
        "CoalescedThreads" => "kl::cg_coalesced",
        "WarpTile" => "kl::cg_tile",
        _ => return None,
    })
}

/// The methods of the group handles (`ThreadGroup`, `WarpCollective` and their own).
const GROUP_METHODS: &[&str] = &[
    "size",
    "thread_rank",
    "sync",
    "num_blocks",
    "block_rank",
    "raw_mask",
    "ballot",
    "all",
    "any",
    "shfl",
    "shfl_xor",
    "shfl_down",
    "shfl_up",
    "shfl_f32",
    "shfl_xor_f32",
    "shfl_down_f32",
    "shfl_up_f32",
    "match_any",
    "match_any_i64",
    "match_all",
    "match_all_i64",
    // `barrier::ManagedBarrier`, a handle of a shared-memory barrier.
    "init",
    "init_by",
    "as_ptr",
    "arrive",
    "arrive_expect_tx",
    "wait",
    "try_wait",
    "test_wait",
    "try_wait_parity",
    "inval",
    "inval_by",
];

/// The combiners of `cooperative_groups::ops`.
fn reduce_op(name: &str) -> Option<&'static str> {
    Some(match name {
        "Sum" => "kl::cg_sum",
        "Min" => "kl::cg_min",
        "Max" => "kl::cg_max",
        "BitAnd" => "kl::cg_bit_and",
        "BitOr" => "kl::cg_bit_or",
        "BitXor" => "kl::cg_bit_xor",
        _ => return None,
    })
}

/// `let bar = unsafe { bar.init(32) };`: a state change of the barrier handle the new name
/// shadows (its C name is the one before `name`).
fn shadowed_transition(name: &str, value: &Expr, scope: &Scope) -> bool {
    let value = match value {
        Expr::Unsafe(u) => match u.block.stmts.as_slice() {
            [syn::Stmt::Expr(inner, None)] => inner,
            _ => return false,
        },
        other => other,
    };
    let Expr::MethodCall(m) = value else { return false };
    let Expr::Path(p) = &*m.receiver else { return false };
    let Some(rust) = p.path.get_ident().map(|i| super::ident(&i.to_string())) else {
        return false;
    };
    let previous = match name
        .strip_prefix(&format!("{rust}_"))
        .and_then(|n| n.parse::<u32>().ok())
    {
        Some(1) => rust,
        Some(n) => format!("{rust}_{}", n - 1),
        None => return false,
    };
    matches!(m.method.to_string().as_str(), "init" | "init_by" | "inval" | "inval_by")
        && scope.oxide.groups.contains(&previous)
}

impl Context<'_> {
    /// The path of a `cuda_device` item below the crate (`warp::match_any_sync`), when `path`
    /// names one.
    pub(super) fn library_item(&self, path: &syn::Path) -> Option<String> {
        match self.layouts.resolve(path)? {
            Target::Item(module, name) if module.first().is_some_and(|c| c == "cuda_device") => Some(
                module[1..]
                    .iter()
                    .chain([&name])
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("::"),
            ),
            Target::Associated(module, ty, name) if module.first().is_some_and(|c| c == "cuda_device") => Some(
                module[1..]
                    .iter()
                    .chain([&ty, &name])
                    .cloned()
                    .collect::<Vec<_>>()
                    .join("::"),
            ),
            Target::External(text) => text.strip_prefix("cuda_device::").map(str::to_string),
            _ => None,
        }
    }

    /// `ThreadBlock`, `WarpTile<16>` and the other group handles as their C++ values.
    pub(super) fn group_type(&self, ty: &syn::TypePath) -> Lowered<Option<String>> {
        let name = last_segment(&ty.path);
        if self.oxide.enabled && self.is_barrier_type(&ty.path) {
            return Ok(Some(super::async_copy::BARRIER_TYPE.to_string()));
        }
        let Some(c) = group_type_name(&name) else {
            return Ok(None);
        };
        if !self.oxide.enabled || self.library_item(&ty.path).is_none() {
            return Ok(None);
        }
        if name != "WarpTile" {
            return Ok(Some(c.to_string()));
        }
        match super::oxide::generic_args(&ty.path).first() {
            Some(n) => Ok(Some(format!("{c}<{}>", self.generic_value(n)?))),
            None => self.fail(ty, "`WarpTile` without its size"),
        }
    }

    /// Whether `e` is a group handle: a name bound to one, or an expression making one.
    fn is_group(&self, e: &Expr, scope: &Scope) -> bool {
        match e {
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| scope.oxide.groups.contains(&scope.lookup(&i.to_string()))),
            Expr::Paren(p) => self.is_group(&p.expr, scope),
            Expr::Reference(r) => self.is_group(&r.expr, scope),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.is_group(&u.expr, scope),
            Expr::Unsafe(u) => {
                matches!(u.block.stmts.as_slice(), [syn::Stmt::Expr(inner, None)] if self.is_group(inner, scope))
            }
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) => self.library_item(&p.path).is_some_and(|item| {
                    matches!(
                        item.as_str(),
                        "cooperative_groups::this_thread_block"
                            | "cooperative_groups::this_grid"
                            | "cooperative_groups::this_cluster"
                            | "cooperative_groups::coalesced_threads"
                    ) || super::async_copy::is_barrier_handle(&item)
                }),
                _ => false,
            },
            Expr::MethodCall(m) => {
                matches!(
                    m.method.to_string().as_str(),
                    "tiled_partition" | "init" | "init_by" | "inval" | "inval_by"
                ) && self.is_group(&m.receiver, scope)
            }
            _ => false,
        }
    }

    /// Records that the C name `name` holds a group handle, when `value` makes one.
    pub(super) fn group_bound(&self, name: &str, value: &Expr, scope: &mut Scope) {
        if self.oxide.enabled && (self.is_group(value, scope) || shadowed_transition(name, value, scope)) {
            scope.references.remove(name);
            scope.oxide.groups.insert(name.to_string());
        }
    }

    /// Records a parameter of a group handle type (`tile: &WarpTile<32>`).
    pub(super) fn group_param(&self, name: &str, ty: &Type, scope: &mut Scope) {
        let ty = match ty {
            Type::Reference(r) => &*r.elem,
            other => other,
        };
        if let Type::Path(p) = ty {
            if group_type_name(&last_segment(&p.path)).is_some() && self.library_item(&p.path).is_some() {
                scope.references.remove(name);
                scope.oxide.groups.insert(name.to_string());
            }
        }
    }

    /// `this_thread_block()`, `warp_reduce::<u32, Sum, _>(&tile, v)`, `grid::sync()`,
    /// `warp::match_any_sync(mask, v)` and the rest of the group library.
    pub(super) fn group_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let Some(item) = self.library_item(&p.path) else {
            return Ok(None);
        };
        let args = |scope: &mut Scope| c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<Vec<_>>>();
        let text = match item.as_str() {
            "cooperative_groups::this_thread_block" => "kl::cg_block{}".to_string(),
            "cooperative_groups::this_grid" => "kl::cg_grid{}".to_string(),
            "cooperative_groups::this_cluster" => "kl::cg_cluster{}".to_string(),
            "cooperative_groups::coalesced_threads" => "kl::cg_coalesced_threads()".to_string(),
            "grid::sync" => "kl::cg_grid_sync()".to_string(),
            item if super::async_copy::is_barrier_handle(item) => match args(scope)?.as_slice() {
                [pointer] => format!("kl::managed_barrier{{{pointer}}}"),
                _ => return self.fail(c, "`ManagedBarrier::from_static` takes the barrier's pointer"),
            },
            "cooperative_groups::warp_reduce"
            | "cooperative_groups::warp_scan"
            | "cooperative_groups::block_reduce"
            | "cooperative_groups::block_scan" => {
                let generic = super::oxide::generic_args(&p.path);
                let (Some(syn::GenericArgument::Type(value)), Some(syn::GenericArgument::Type(Type::Path(op)))) =
                    (generic.first(), generic.get(1))
                else {
                    return self.fail(
                        c,
                        format!("`{}` without its value type and combiner named", self.text(&c.func)),
                    );
                };
                let Some(op) = reduce_op(&last_segment(&op.path)) else {
                    return self.fail(op, format!("combiner `{}` is not lowered", self.text(op)));
                };
                let value = self.c_type(value)?;
                let function = item.trim_start_matches("cooperative_groups::");
                let args = args(scope)?;
                let (group, rest) = args.split_first().expect("the library's signatures");
                format!("kl::cg_{function}<{value}, {op}>(kl::cg({group}), {})", rest.join(", "))
            }
            "warp::match_any_sync"
            | "warp::match_any_i64_sync"
            | "warp::match_all_sync"
            | "warp::match_all_i64_sync" => {
                let builtin = if item.contains("any") { "any" } else { "all" };
                let value = if item.contains("i64") {
                    "unsigned long long"
                } else {
                    "unsigned int"
                };
                match args(scope)?.as_slice() {
                    [mask, v] => format!("kl::cg_match_{builtin}({mask}, ({value})({v}))"),
                    _ => return self.fail(c, format!("`{}` takes a mask and a value", self.text(&c.func))),
                }
            }
            _ => return Ok(None),
        };
        Ok(Some(text))
    }

    /// `tile.ballot(p)`, `block.tiled_partition::<16>()` and the other methods of a group or
    /// of a barrier handle.
    pub(super) fn group_method(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        if !self.oxide.enabled || !self.is_group(&m.receiver, scope) {
            return Ok(None);
        }
        let method = m.method.to_string();
        if method == "tiled_partition" {
            let size = match m.turbofish.as_ref().and_then(|t| t.args.first()) {
                Some(n) => self.generic_value(n)?,
                None => return self.fail(m, "`tiled_partition` without its size named"),
            };
            return Ok(Some(format!("kl::cg_tile<{size}>{{}}")));
        }
        if !GROUP_METHODS.contains(&method.as_str()) {
            return self.fail(m, format!("group method `{method}` is not lowered"));
        }
        let receiver = self.expr(&m.receiver, scope)?;
        let args: Vec<String> = m.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        Ok(Some(format!("kl::cg({receiver}).{method}({})", args.join(", "))))
    }
}

/// C++ of the group handles, appended to the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! groups_prelude {
    () => {
        r#"#ifdef __CUDACC__
#include <cooperative_groups.h>
#endif
namespace kl {
// cuda-oxide's cooperative groups, as `cuda_device::cooperative_groups` defines them: ranks
// linearise x fastest, warp tiles work on the lanes of their own part of the warp.
__device__ inline unsigned int cg_threads_per_block() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ inline unsigned int cg_thread_in_block() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__device__ inline unsigned int cg_blocks_per_grid() { return gridDim.x * gridDim.y * gridDim.z; }
__device__ inline unsigned int cg_block_in_grid() { return (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x; }
// `grid::sync()`: the arrive-and-flip barrier on the cooperative launch's workspace, which is
// CUDA's grid barrier; it needs a cooperative launch, which the driver makes.
__device__ inline void cg_grid_sync() {
#ifdef __CUDACC__
  cooperative_groups::this_grid().sync();
#else
  __syncthreads();
#endif
}
__device__ inline unsigned int cg_match_any(unsigned int mask, unsigned int v) { return __match_any_sync(mask, v); }
__device__ inline unsigned int cg_match_any(unsigned int mask, unsigned long long v) { return __match_any_sync(mask, v); }
__device__ inline unsigned int cg_match_all(unsigned int mask, unsigned int v) { int pred; return __match_all_sync(mask, v, &pred); }
__device__ inline unsigned int cg_match_all(unsigned int mask, unsigned long long v) { int pred; return __match_all_sync(mask, v, &pred); }
struct cg_grid {
  __device__ unsigned int num_blocks() const { return cg_blocks_per_grid(); }
  __device__ unsigned int block_rank() const { return cg_block_in_grid(); }
  __device__ unsigned int size() const { return cg_blocks_per_grid() * cg_threads_per_block(); }
  __device__ unsigned int thread_rank() const { return cg_block_in_grid() * cg_threads_per_block() + cg_thread_in_block(); }
  __device__ void sync() const { cg_grid_sync(); }
};
struct cg_cluster {
#ifdef __CUDACC__
  __device__ unsigned int num_blocks() const { return cooperative_groups::this_cluster().num_blocks(); }
  __device__ unsigned int block_rank() const { return cooperative_groups::this_cluster().block_rank(); }
  __device__ void sync() const { cooperative_groups::this_cluster().sync(); }
#else
  __device__ unsigned int num_blocks() const { return 1; }
  __device__ unsigned int block_rank() const { return 0; }
  __device__ void sync() const { __syncthreads(); }
#endif
  __device__ unsigned int size() const { return num_blocks() * cg_threads_per_block(); }
  __device__ unsigned int thread_rank() const { return block_rank() * cg_threads_per_block() + cg_thread_in_block(); }
};
template <unsigned int N> struct cg_tile {
  __device__ unsigned int mask() const {
    if constexpr (N == 32) return 0xffffffffu;
    else return ((1u << N) - 1u) << ((lane() / N) * N);
  }
  __device__ unsigned int base() const { return lane() & ~(N - 1u); }
  __device__ unsigned int xor_operand(unsigned int m) const { return (N == 32 || (thread_rank() ^ (m & 31u)) < N) ? m : 0u; }
  __device__ unsigned int down_operand(unsigned int d) const { return (N == 32 || (d & 31u) < N - thread_rank()) ? d : 0u; }
  __device__ unsigned int up_operand(unsigned int d) const { return (N == 32 || (d & 31u) <= thread_rank()) ? d : 0u; }
  template <typename T> __device__ T idx(T v, unsigned int rank) const { return __shfl_sync(mask(), v, (int)(base() | (rank & (N - 1u)))); }
  template <typename T> __device__ T bfly(T v, unsigned int m) const { return __shfl_xor_sync(mask(), v, (int)xor_operand(m)); }
  template <typename T> __device__ T down(T v, unsigned int d) const { return __shfl_down_sync(mask(), v, down_operand(d)); }
  template <typename T> __device__ T up(T v, unsigned int d) const { return __shfl_up_sync(mask(), v, up_operand(d)); }
  __device__ unsigned int size() const { return N; }
  __device__ unsigned int thread_rank() const { return lane() & (N - 1u); }
  __device__ void sync() const { __syncwarp(mask()); }
  __device__ unsigned int ballot(bool p) const {
    unsigned int raw = __ballot_sync(mask(), p);
    if constexpr (N == 32) return raw;
    else return (raw >> base()) & ((1u << N) - 1u);
  }
  __device__ bool all(bool p) const { return __all_sync(mask(), p); }
  __device__ bool any(bool p) const { return __any_sync(mask(), p); }
  __device__ unsigned int shfl(unsigned int v, unsigned int rank) const { return idx(v, rank); }
  __device__ unsigned int shfl_xor(unsigned int v, unsigned int m) const { return bfly(v, m); }
  __device__ unsigned int shfl_down(unsigned int v, unsigned int d) const { return down(v, d); }
  __device__ unsigned int shfl_up(unsigned int v, unsigned int d) const { return up(v, d); }
  __device__ float shfl_f32(float v, unsigned int rank) const { return idx(v, rank); }
  __device__ float shfl_xor_f32(float v, unsigned int m) const { return bfly(v, m); }
  __device__ float shfl_down_f32(float v, unsigned int d) const { return down(v, d); }
  __device__ float shfl_up_f32(float v, unsigned int d) const { return up(v, d); }
  __device__ unsigned int match_any(unsigned int v) const { return cg_match_any(mask(), v) & mask(); }
  __device__ unsigned int match_any_i64(unsigned long long v) const { return cg_match_any(mask(), v) & mask(); }
  __device__ unsigned int match_all(unsigned int v) const { return cg_match_all(mask(), v); }
  __device__ unsigned int match_all_i64(unsigned long long v) const { return cg_match_all(mask(), v); }
};
struct cg_block {
  __device__ unsigned int size() const { return cg_threads_per_block(); }
  __device__ unsigned int thread_rank() const { return cg_thread_in_block(); }
  __device__ void sync() const { __syncthreads(); }
};
// The lanes active when it was made; shuffles whose source lane is not in it read their own.
struct cg_coalesced {
  unsigned int m;
  __device__ unsigned int raw_mask() const { return m; }
  __device__ unsigned int size() const { return (unsigned int)__popc(m); }
  __device__ unsigned int thread_rank() const { return (unsigned int)__popc(m & ((1u << lane()) - 1u)); }
  __device__ void sync() const { __syncwarp(m); }
  __device__ unsigned int xor_operand(unsigned int x) const { return (m & (1u << (lane() ^ (x & 31u)))) != 0 ? x : 0u; }
  __device__ unsigned int down_operand(unsigned int d) const {
    unsigned int l = lane(), o = d & 31u;
    return (o <= 31u - l && (m & (1u << (l + o))) != 0) ? d : 0u;
  }
  __device__ unsigned int up_operand(unsigned int d) const {
    unsigned int l = lane(), o = d & 31u;
    return (o <= l && (m & (1u << (l - o))) != 0) ? d : 0u;
  }
  __device__ unsigned int source(unsigned int rank) const {
    unsigned int bits = m;
    for (unsigned int k = rank; k > 0 && bits != 0; --k) bits &= bits - 1u;
    return bits == 0 ? lane() : (unsigned int)(__ffs((int)bits) - 1);
  }
  __device__ unsigned int ballot(bool p) const { return __ballot_sync(m, p) & m; }
  __device__ bool all(bool p) const { return __all_sync(m, p); }
  __device__ bool any(bool p) const { return __any_sync(m, p); }
  __device__ unsigned int shfl(unsigned int v, unsigned int rank) const { return __shfl_sync(m, v, (int)source(rank)); }
  __device__ unsigned int shfl_xor(unsigned int v, unsigned int x) const { return __shfl_xor_sync(m, v, (int)xor_operand(x)); }
  __device__ unsigned int shfl_down(unsigned int v, unsigned int d) const { return __shfl_down_sync(m, v, down_operand(d)); }
  __device__ unsigned int shfl_up(unsigned int v, unsigned int d) const { return __shfl_up_sync(m, v, up_operand(d)); }
  __device__ float shfl_f32(float v, unsigned int rank) const { return __shfl_sync(m, v, (int)source(rank)); }
  __device__ float shfl_xor_f32(float v, unsigned int x) const { return __shfl_xor_sync(m, v, (int)xor_operand(x)); }
  __device__ float shfl_down_f32(float v, unsigned int d) const { return __shfl_down_sync(m, v, down_operand(d)); }
  __device__ float shfl_up_f32(float v, unsigned int d) const { return __shfl_up_sync(m, v, up_operand(d)); }
  __device__ unsigned int match_any(unsigned int v) const { return cg_match_any(m, v) & m; }
  __device__ unsigned int match_any_i64(unsigned long long v) const { return cg_match_any(m, v) & m; }
  __device__ unsigned int match_all(unsigned int v) const { return cg_match_all(m, v); }
  __device__ unsigned int match_all_i64(unsigned long long v) const { return cg_match_all(m, v); }
};
__device__ inline cg_coalesced cg_coalesced_threads() { return cg_coalesced{__activemask()}; }
// A handle by value or through a reference.
template <typename G> __device__ G cg(G g) { return g; }
template <typename G> __device__ G cg(const G* g) { return *g; }
template <typename G> __device__ G cg(G* g) { return *g; }
// The combiners of `cooperative_groups::ops`: integer sums wrap.
template <typename T> __device__ T cg_wrapping_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) return (T)((std::make_unsigned_t<T>)a + (std::make_unsigned_t<T>)b);
  else return a + b;
}
struct cg_sum {
  template <typename T> static __device__ T identity() { return (T)0; }
  template <typename T> static __device__ T combine(T a, T b) { return cg_wrapping_add(a, b); }
};
struct cg_min {
  template <typename T> static __device__ T identity() {
    if constexpr (std::is_same_v<T, float>) return __int_as_float(0x7f800000);
    else if constexpr (std::is_same_v<T, int>) return 0x7fffffff;
    else return (T)~(T)0;
  }
  template <typename T> static __device__ T combine(T a, T b) { return a < b ? a : b; }
};
struct cg_max {
  template <typename T> static __device__ T identity() {
    if constexpr (std::is_same_v<T, float>) return __int_as_float((int)0xff800000u);
    else if constexpr (std::is_same_v<T, int>) return (int)0x80000000u;
    else return (T)0;
  }
  template <typename T> static __device__ T combine(T a, T b) { return a > b ? a : b; }
};
struct cg_bit_and {
  template <typename T> static __device__ T identity() { return (T)~(T)0; }
  template <typename T> static __device__ T combine(T a, T b) { return a & b; }
};
struct cg_bit_or {
  template <typename T> static __device__ T identity() { return (T)0; }
  template <typename T> static __device__ T combine(T a, T b) { return a | b; }
};
struct cg_bit_xor {
  template <typename T> static __device__ T identity() { return (T)0; }
  template <typename T> static __device__ T combine(T a, T b) { return a ^ b; }
};
// Butterfly reduction and Kogge-Stone inclusive scan over a tile, as the library's.
template <typename T, typename Op, unsigned int N> __device__ T cg_warp_reduce(cg_tile<N> tile, T value) {
  T acc = value;
  for (unsigned int delta = N >> 1; delta > 0; delta >>= 1) acc = Op::template combine<T>(acc, tile.bfly(acc, delta));
  return acc;
}
template <typename T, typename Op, unsigned int N> __device__ T cg_warp_scan(cg_tile<N> tile, T value) {
  T acc = value;
  unsigned int rank = tile.thread_rank();
  for (unsigned int delta = 1; delta < N; delta <<= 1) {
    T other = tile.up(acc, delta);
    if (rank >= delta) acc = Op::template combine<T>(acc, other);
  }
  return acc;
}
// The shared scratch of the block collectives: a `SharedArray` of one slot a warp.
template <typename T, int N> __device__ T& cg_slot(T (*smem)[N], unsigned long long i) { return (*smem)[i]; }
template <typename T> __device__ T& cg_slot(T* smem, unsigned long long i) { return smem[i]; }
template <typename T, int N> __device__ constexpr unsigned int cg_slots(T (*)[N]) { return N; }
template <typename T, typename Op, typename S> __device__ T cg_block_reduce(cg_block block, T value, S smem) {
  cg_tile<32> warp;
  unsigned int lane_rank = warp.thread_rank(), warp_id = cg_thread_in_block() / 32u;
  T warp_total = cg_warp_reduce<T, Op>(warp, value);
  if (lane_rank == 0) cg_slot(smem, warp_id) = warp_total;
  block.sync();
  if (warp_id == 0) {
    T v = lane_rank < cg_slots(smem) ? cg_slot(smem, lane_rank) : Op::template identity<T>();
    T block_total = cg_warp_reduce<T, Op>(warp, v);
    if (lane_rank == 0) cg_slot(smem, 0) = block_total;
  }
  block.sync();
  return cg_slot(smem, 0);
}
template <typename T, typename Op, typename S> __device__ T cg_block_scan(cg_block block, T value, S smem) {
  cg_tile<32> warp;
  unsigned int lane_rank = warp.thread_rank(), warp_id = cg_thread_in_block() / 32u;
  T warp_inclusive = cg_warp_scan<T, Op>(warp, value);
  if (lane_rank == 31) cg_slot(smem, warp_id) = warp_inclusive;
  block.sync();
  if (warp_id == 0) {
    T v = lane_rank < cg_slots(smem) ? cg_slot(smem, lane_rank) : Op::template identity<T>();
    T inclusive = cg_warp_scan<T, Op>(warp, v);
    T shifted = warp.up(inclusive, 1u);
    T exclusive = lane_rank == 0 ? Op::template identity<T>() : shifted;
    if (lane_rank < cg_slots(smem)) cg_slot(smem, lane_rank) = exclusive;
  }
  block.sync();
  return Op::template combine<T>(cg_slot(smem, warp_id), warp_inclusive);
}
}
"#
    };
}
