//! The warpgroup matrix multiply of cuda-oxide's `wgmma` module: `wgmma_mma_m64n64k16_f32_bf16`
//! has a stub for a Rust body; its code generator writes one `wgmma.mma_async` instruction,
//! which exists only in the arch-specific `sm_90a` target.

/// `kl::wgmma_mma_m64n64k16_f32_bf16(&acc, desc_a, desc_b)`.
#[macro_export]
#[doc(hidden)]
macro_rules! warpgroup_mma_prelude {
    () => {
        r#"namespace kl {
// `wgmma.mma_async` m64n64k16 f32 += bf16 * bf16, both operands from shared memory through
// their descriptors, in the form cuda-oxide's code generator writes: scale-d 1, A and B
// scales 1, neither transposed. The accumulator is the warpgroup's 32 registers per lane.
template <typename A>
__device__ inline void wgmma_mma_m64n64k16_f32_bf16(A* acc, unsigned long long desc_a, unsigned long long desc_b) {
  static_assert(sizeof(A) == 32 * sizeof(float), "a 64x64 f32 accumulator is 32 registers per lane");
#ifdef __CUDACC__
  float* f = reinterpret_cast<float*>(acc);
  asm volatile(
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
      "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
      "%32, %33, 1, 1, 1, 0, 0;"
      : "+f"(f[0]), "+f"(f[1]), "+f"(f[2]), "+f"(f[3]), "+f"(f[4]), "+f"(f[5]), "+f"(f[6]), "+f"(f[7]), "+f"(f[8]), "+f"(f[9]), "+f"(f[10]), "+f"(f[11]), "+f"(f[12]), "+f"(f[13]), "+f"(f[14]), "+f"(f[15]), "+f"(f[16]), "+f"(f[17]), "+f"(f[18]), "+f"(f[19]), "+f"(f[20]), "+f"(f[21]), "+f"(f[22]), "+f"(f[23]), "+f"(f[24]), "+f"(f[25]), "+f"(f[26]), "+f"(f[27]), "+f"(f[28]), "+f"(f[29]), "+f"(f[30]), "+f"(f[31])
      : "l"(desc_a), "l"(desc_b)
      : "memory");
#else
  (void)acc;
  (void)desc_a;
  (void)desc_b;
#endif
}
template <typename A>
__device__ inline void wgmma_mma_m64n64k16_f32_bf16(ref<A> acc, unsigned long long desc_a, unsigned long long desc_b) {
  wgmma_mma_m64n64k16_f32_bf16(acc.p, desc_a, desc_b);
}
}
"#
    };
}

/// The intrinsic's name and its count of arguments (accumulator, two descriptors).
pub(super) const MMA_M64N64K16_BF16: (&str, usize) = ("wgmma_mma_m64n64k16_f32_bf16", 3);
