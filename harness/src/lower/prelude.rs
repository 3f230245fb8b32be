//! The C++ every generated program starts with.

/// Definitions every generated file starts with.
pub const PRELUDE: &str = r#"#include <cstdio>
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
}
"#;
