// A host-only stand-in for the CUDA runtime header: enough declarations for g++ to check the
// syntax and types of generated harness programs on machines without nvcc.
#pragma once
#include <cmath>
#include <cstddef>
#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __align__(n) alignas(n)
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int x = 1, unsigned int y = 1, unsigned int z = 1) : x(x), y(y), z(z) {}
};
struct uint3 { unsigned int x, y, z; };
extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;
inline void __syncthreads() {}
inline void __trap() {}
inline void __threadfence() {}
inline void __threadfence_block() {}
typedef int cudaError_t;
typedef void* cudaEvent_t;
constexpr cudaError_t cudaSuccess = 0;
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1 };
cudaError_t cudaMalloc(void** p, size_t bytes);
cudaError_t cudaMemset(void* p, int v, size_t bytes);
cudaError_t cudaMemcpy(void* d, const void* s, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaFree(void* p);
cudaError_t cudaGetLastError();
cudaError_t cudaDeviceSynchronize();
const char* cudaGetErrorString(cudaError_t e);
cudaError_t cudaEventCreate(cudaEvent_t* e);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaEventRecord(cudaEvent_t e);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t a, cudaEvent_t b);
template <typename T> T min(T a, T b) { return a < b ? a : b; }
template <typename T> T max(T a, T b) { return a < b ? b : a; }
// Warp match, lane barrier and bit builtins of the cooperative groups.
unsigned int __match_any_sync(unsigned int mask, unsigned int value);
unsigned int __match_any_sync(unsigned int mask, unsigned long long value);
unsigned int __match_all_sync(unsigned int mask, unsigned int value, int* pred);
unsigned int __match_all_sync(unsigned int mask, unsigned long long value, int* pred);
void __syncwarp(unsigned int mask = 0xffffffffu);
float __int_as_float(int x);
int __ffs(int x);
