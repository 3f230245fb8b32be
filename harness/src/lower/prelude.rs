//! The C++ every generated program starts with.

/// Definitions every generated file starts with.
pub const PRELUDE: &str = concat!(
    r#"#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <type_traits>
#include <cuda_runtime.h>
namespace kl {
struct uvec3 {
  unsigned int x, y, z;
  __device__ unsigned int operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};
template <typename T> struct ref {
  T* p;
  __device__ operator T&() const { return *p; }
  __device__ T& operator*() const { return *p; }
  __device__ T* operator->() const { return p; }
};
template <typename T> __device__ ref<T> make_ref(T* p) { return ref<T>{p}; }
struct __align__(8) Vec2 { float x, y; };
struct Vec3 { float x, y, z; };
struct __align__(16) Vec4 { float x, y, z, w; };
struct __align__(16) Vec3A { float x, y, z; };
struct __align__(8) UVec2 { unsigned int x, y; };
struct UVec3 { unsigned int x, y, z; };
struct __align__(16) UVec4 { unsigned int x, y, z, w; };
struct __align__(8) IVec2 { int x, y; };
struct IVec3 { int x, y, z; };
struct __align__(16) IVec4 { int x, y, z, w; };
// The rest of glam's vector family; with its `cuda` feature 2- and 4-lane vectors of 4- and
// 8-byte elements are aligned to 8 and 16 bytes, the others keep their elements' alignment.
#define KL_GLAM(P, T, A2, A4) \
  struct __align__(A2) P##Vec2 { T x, y; }; \
  struct P##Vec3 { T x, y, z; }; \
  struct __align__(A4) P##Vec4 { T x, y, z, w; };
KL_GLAM(D, double, 16, 16)
KL_GLAM(I8, signed char, 1, 1)
KL_GLAM(U8, unsigned char, 1, 1)
KL_GLAM(I16, short, 2, 2)
KL_GLAM(U16, unsigned short, 2, 2)
KL_GLAM(I64, long long, 16, 16)
KL_GLAM(U64, unsigned long long, 16, 16)
KL_GLAM(USize, unsigned long long, 16, 16)
#undef KL_GLAM
// glam's arithmetic on float vectors, lane by lane.
#define KL_LANES2(e) e(x) e(y)
#define KL_LANES3(e) e(x) e(y) e(z)
#define KL_LANES4(e) e(x) e(y) e(z) e(w)
#define KL_VEC_OPS(V, T, LANES) \
  __device__ inline V operator+(V a, V b) { V r; LANES(KL_OP_ADD) return r; } \
  __device__ inline V operator-(V a, V b) { V r; LANES(KL_OP_SUB) return r; } \
  __device__ inline V operator*(V a, V b) { V r; LANES(KL_OP_MUL) return r; } \
  __device__ inline V operator/(V a, V b) { V r; LANES(KL_OP_DIV) return r; } \
  __device__ inline V operator*(V a, T s) { V r; LANES(KL_OP_MULS) return r; } \
  __device__ inline V operator*(T s, V a) { V r; LANES(KL_OP_MULS) return r; } \
  __device__ inline V operator/(V a, T s) { V r; LANES(KL_OP_DIVS) return r; } \
  __device__ inline V operator-(V a) { V r; LANES(KL_OP_NEG) return r; }
#define KL_OP_ADD(l) r.l = a.l + b.l;
#define KL_OP_SUB(l) r.l = a.l - b.l;
#define KL_OP_MUL(l) r.l = a.l * b.l;
#define KL_OP_DIV(l) r.l = a.l / b.l;
#define KL_OP_MULS(l) r.l = a.l * s;
#define KL_OP_DIVS(l) r.l = a.l / s;
#define KL_OP_NEG(l) r.l = -a.l;
KL_VEC_OPS(Vec2, float, KL_LANES2)
KL_VEC_OPS(Vec3, float, KL_LANES3)
KL_VEC_OPS(Vec3A, float, KL_LANES3)
KL_VEC_OPS(Vec4, float, KL_LANES4)
KL_VEC_OPS(DVec2, double, KL_LANES2)
KL_VEC_OPS(DVec3, double, KL_LANES3)
KL_VEC_OPS(DVec4, double, KL_LANES4)
#define KL_MATH1(name, f32, f64) \
  __device__ inline float name(float x) { return ::f32(x); } \
  __device__ inline double name(double x) { return ::f64(x); }
KL_MATH1(floor, floorf, floor)
KL_MATH1(ceil, ceilf, ceil)
KL_MATH1(round, roundf, round)
KL_MATH1(trunc, truncf, trunc)
KL_MATH1(exp, expf, exp)
KL_MATH1(exp2, exp2f, exp2)
KL_MATH1(ln, logf, log)
KL_MATH1(log2, log2f, log2)
KL_MATH1(log10, log10f, log10)
KL_MATH1(sin, sinf, sin)
KL_MATH1(cos, cosf, cos)
KL_MATH1(tan, tanf, tan)
KL_MATH1(tanh, tanhf, tanh)
KL_MATH1(sqrt, sqrtf, sqrt)
KL_MATH1(cbrt, cbrtf, cbrt)
KL_MATH1(fabs, fabsf, fabs)
#undef KL_MATH1
__device__ inline float powf(float x, float y) { return ::powf(x, y); }
__device__ inline double powf(double x, double y) { return ::pow(x, y); }
// `pow` of an integer: exact, in the receiver's type, wrapping as release builds do.
template <typename T, typename U> __device__ T ipow(T base, U exp) {
  T out = 1;
  for (U i = 0; i < exp; ++i) out = out * base;
  return out;
}
__device__ inline float powi(float x, int n) { return ::powf(x, (float)n); }
__device__ inline double powi(double x, int n) { return ::pow(x, (double)n); }
__device__ inline float mul_add(float a, float b, float c) { return ::fmaf(a, b, c); }
__device__ inline double mul_add(double a, double b, double c) { return ::fma(a, b, c); }
__device__ inline float abs(float x) { return ::fabsf(x); }
__device__ inline double abs(double x) { return ::fabs(x); }
template <typename T> __device__ T abs(T x) { return x < 0 ? -x : x; }
template <typename T, typename U, typename V> __device__ T clamp(T x, U lo, V hi) {
  return x < (T)lo ? (T)lo : ((T)hi < x ? (T)hi : x);
}
template <typename T, typename U> __device__ T min(T a, U b) { return (T)b < a ? (T)b : a; }
template <typename T, typename U> __device__ T max(T a, U b) { return a < (T)b ? (T)b : a; }
template <typename T> __device__ T next_power_of_two(T x) {
  T p = 1;
  while (p < x) p <<= 1;
  return p;
}
template <typename T, typename U> __device__ T rem_euclid(T a, U b) {
  T r = a % (T)b;
  return r < 0 ? r + ((T)b < 0 ? -(T)b : (T)b) : r;
}
__device__ inline float rem_euclid(float a, float b) { float r = ::fmodf(a, b); return r < 0 ? r + ::fabsf(b) : r; }
__device__ inline double rem_euclid(double a, double b) { double r = ::fmod(a, b); return r < 0 ? r + ::fabs(b) : r; }
template <typename T> __device__ std::make_unsigned_t<T> unsigned_abs(T x) {
  using U = std::make_unsigned_t<T>;
  return x < 0 ? U(0) - U(x) : U(x);
}
template <typename T, typename U> __device__ T abs_diff(T a, U b) { return a < (T)b ? (T)b - a : a - (T)b; }
__device__ inline float rsqrt(float x) { return 1.0f / ::sqrtf(x); }
__device__ inline double rsqrt(double x) { return 1.0 / ::sqrt(x); }
template <typename T> __device__ T recip(T x) { return (T)1 / x; }
template <typename T> __device__ T signum(T x) { return x < 0 ? (T)-1 : (T)1; }
template <typename T> __device__ T to_radians(T x) { return x * (T)0.017453292519943295; }
template <typename T> __device__ T to_degrees(T x) { return x * (T)57.29577951308232; }
// Warp and atomic helpers of nvptx-std, as the PTX they issue. Without nvcc (a syntax check)
// they stand in with plain code.
#ifdef __CUDACC__
__device__ inline unsigned int lane() { unsigned int id; asm volatile("mov.u32 %0, %%laneid;" : "=r"(id)); return id; }
__device__ inline unsigned int shfl_down_sync_u32(unsigned int mask, unsigned int v, unsigned int offset, unsigned int width) {
  unsigned int out;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, %3, %4;" : "=r"(out) : "r"(v), "r"(offset), "r"(width), "r"(mask));
  return out;
}
__device__ inline unsigned int shfl_bfly_u32(unsigned int mask, unsigned int v, unsigned int offset, unsigned int width) {
  unsigned int out;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, %3, %4;" : "=r"(out) : "r"(v), "r"(offset), "r"(width), "r"(mask));
  return out;
}
__device__ inline unsigned long long atomic_add_global_u64(unsigned long long* p, unsigned long long v) { return atomicAdd(p, v); }
__device__ inline unsigned int atomic_add_global_u32(unsigned int* p, unsigned int v) { return atomicAdd(p, v); }
__device__ inline float atomic_add_global_f32(float* p, float v) { return atomicAdd(p, v); }
__device__ inline double atomic_add_global_f64(double* p, double v) { return atomicAdd(p, v); }
__device__ inline float powf_fast(float x, float y) { return __powf(x, y); }
#else
__device__ inline float powf_fast(float x, float y) { return ::powf(x, y); }
__device__ inline unsigned int lane() { return threadIdx.x & 31u; }
__device__ inline unsigned int shfl_down_sync_u32(unsigned int, unsigned int v, unsigned int, unsigned int) { return v; }
__device__ inline unsigned int shfl_bfly_u32(unsigned int, unsigned int v, unsigned int, unsigned int) { return v; }
template <typename T> __device__ T atomic_add(T* p, T v) { T old = *p; *p = old + v; return old; }
__device__ inline unsigned long long atomic_add_global_u64(unsigned long long* p, unsigned long long v) { return atomic_add(p, v); }
__device__ inline unsigned int atomic_add_global_u32(unsigned int* p, unsigned int v) { return atomic_add(p, v); }
__device__ inline float atomic_add_global_f32(float* p, float v) { return atomic_add(p, v); }
__device__ inline double atomic_add_global_f64(double* p, double v) { return atomic_add(p, v); }
#endif
__device__ inline float bits_f32(unsigned int u) { union { unsigned int u; float f; } v = {u}; return v.f; }
__device__ inline unsigned int f32_bits(float f) { union { float f; unsigned int u; } v = {f}; return v.u; }
__device__ inline float shfl_down_sync_f32(unsigned int mask, float v, unsigned int offset, unsigned int width) {
  return bits_f32(shfl_down_sync_u32(mask, f32_bits(v), offset, width));
}
__device__ inline unsigned int warp_sum_u32(unsigned int v) {
  for (unsigned int offset = 16; offset > 0; offset /= 2) v += shfl_bfly_u32(0xffffffffu, v, offset, 32);
  return v;
}
__device__ inline float warp_sum_f32(float v) {
  for (unsigned int offset = 16; offset > 0; offset /= 2) v += bits_f32(shfl_bfly_u32(0xffffffffu, f32_bits(v), offset, 32));
  return v;
}
template <typename T> __device__ T infinity() {
  return (T)1e300 * (T)1e300;
}
template <typename T> __device__ T* byte_add(T* p, unsigned long long n) {
  return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(p) + n);
}
template <typename T> __device__ T* byte_sub(T* p, unsigned long long n) {
  return reinterpret_cast<T*>(reinterpret_cast<std::uintptr_t>(p) - n);
}
__device__ inline float dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
__device__ inline float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
__device__ inline float dot(Vec4 a, Vec4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
__device__ inline float length(Vec2 a) { return ::sqrtf(dot(a, a)); }
__device__ inline float length(Vec3 a) { return ::sqrtf(dot(a, a)); }
__device__ inline float length(Vec4 a) { return ::sqrtf(dot(a, a)); }
__device__ inline Vec2 xy(Vec3 a) { return Vec2{a.x, a.y}; }
__device__ inline Vec2 xy(Vec4 a) { return Vec2{a.x, a.y}; }
__device__ inline Vec3 xyz(Vec4 a) { return Vec3{a.x, a.y, a.z}; }
template <typename A, typename B> struct tuple2 {
  A _0; B _1;
  template <typename X, typename Y> __host__ __device__ constexpr operator tuple2<X, Y>() const { return {(X)_0, (Y)_1}; }
};
template <typename A, typename B, typename C> struct tuple3 {
  A _0; B _1; C _2;
  template <typename X, typename Y, typename Z> __host__ __device__ constexpr operator tuple3<X, Y, Z>() const {
    return {(X)_0, (Y)_1, (Z)_2};
  }
};
template <typename A, typename B, typename C, typename D> struct tuple4 {
  A _0; B _1; C _2; D _3;
  template <typename X, typename Y, typename Z, typename W>
  __host__ __device__ constexpr operator tuple4<X, Y, Z, W>() const {
    return {(X)_0, (Y)_1, (Z)_2, (W)_3};
  }
};
// cuda_std's warp shuffles (`cuda_std::warp`): the value of the target lane and whether that
// lane was active. Without nvcc (a syntax check) they stand in with the lane's own value.
#ifdef __CUDACC__
template <typename T> __device__ tuple2<T, bool> warp_shuffle_xor(unsigned int mask, T v, unsigned int m, unsigned int w) {
  return {__shfl_xor_sync(mask, v, (int)m, (int)w), true};
}
template <typename T> __device__ tuple2<T, bool> warp_shuffle_down(unsigned int mask, T v, unsigned int d, unsigned int w) {
  return {__shfl_down_sync(mask, v, d, (int)w), true};
}
template <typename T> __device__ tuple2<T, bool> warp_shuffle_up(unsigned int mask, T v, unsigned int d, unsigned int w) {
  return {__shfl_up_sync(mask, v, d, (int)w), true};
}
template <typename T> __device__ tuple2<T, bool> warp_shuffle_idx(unsigned int mask, T v, unsigned int i, unsigned int w) {
  return {__shfl_sync(mask, v, (int)i, (int)w), true};
}
#else
template <typename T> __device__ tuple2<T, bool> warp_shuffle_xor(unsigned int, T v, unsigned int, unsigned int) { return {v, true}; }
template <typename T> __device__ tuple2<T, bool> warp_shuffle_down(unsigned int, T v, unsigned int, unsigned int) { return {v, true}; }
template <typename T> __device__ tuple2<T, bool> warp_shuffle_up(unsigned int, T v, unsigned int, unsigned int) { return {v, true}; }
template <typename T> __device__ tuple2<T, bool> warp_shuffle_idx(unsigned int, T v, unsigned int, unsigned int) { return {v, true}; }
#endif
// Constant: tables of tuples initialize `__device__` variables.
template <typename A, typename B> __host__ __device__ constexpr tuple2<A, B> make_tuple(A a, B b) { return {a, b}; }
template <typename A, typename B, typename C> __host__ __device__ constexpr tuple3<A, B, C> make_tuple(A a, B b, C c) {
  return {a, b, c};
}
template <typename A, typename B, typename C, typename D>
__host__ __device__ constexpr tuple4<A, B, C, D> make_tuple(A a, B b, C c, D d) { return {a, b, c, d}; }
"#,
    crate::array_prelude!(),
    crate::option_prelude!(),
    r#"__device__ inline array<float, 2> to_array(Vec2 a) { return {{a.x, a.y}}; }
__device__ inline array<float, 3> to_array(Vec3 a) { return {{a.x, a.y, a.z}}; }
__device__ inline array<float, 4> to_array(Vec4 a) { return {{a.x, a.y, a.z, a.w}}; }
}
"#,
    crate::oxide_prelude!(),
    crate::groups_prelude!(),
    crate::launch_prelude!(),
    crate::async_copy_prelude!(),
    crate::nalgebra_prelude!(),
    crate::component_methods_prelude!(),
    crate::nalgebra_literals_prelude!(),
    crate::sub_slices_prelude!(),
    crate::numeric_prelude!(),
    crate::divisibility_prelude!(),
    crate::byte_order_prelude!(),
    crate::intrinsics_prelude!(),
    crate::warp_stubs_prelude!(),
    crate::ptx_ops_prelude!(),
    crate::ptx_context_prelude!(),
    crate::warpgroup_mma_prelude!(),
    crate::register_mma_prelude!(),
    crate::atomics_prelude!(),
    crate::trait_prelude!(),
    crate::wide_tuple_prelude!(),
    crate::callables_prelude!(),
    crate::ordering_prelude!(),
    crate::three_way_prelude!(),
    crate::half_exchange_prelude!(),
    crate::unsize_prelude!(),
    crate::intrinsic_values_prelude!(),
    crate::literal_refs_prelude!(),
    crate::pointer_casts_prelude!(),
    crate::slice_queries_prelude!(),
    crate::glam_lanes_prelude!(),
    crate::inferred_pointers_prelude!(),
    crate::thread_runs_prelude!(),
    crate::matrix_views_prelude!(),
    crate::simd_values_prelude!(),
    crate::core_values_prelude!(),
    crate::promoted_consts_prelude!(),
    crate::generated_arrays_prelude!(),
    crate::option_transmutes_prelude!(),
    crate::slice_splits_prelude!(),
    crate::vector_views_prelude!(),
    crate::promoted_ranges_prelude!(),
    crate::shared_array_types_prelude!(),
    crate::vek_shapes_prelude!()
);
