//! `AtomicF16::swap`: PTX has no 16-bit `atom.exch`, so the compiler expands the exchange
//! into a loop of 16-bit `atom.cas.b16` (sm_70 and later) at the cell's scope, after one
//! 16-bit read of the cell; the twin runs the same loop, so every access stays 16 bits wide.

/// The exchange loop, in `kl` after the atomics' cell helpers.
#[macro_export]
macro_rules! half_exchange_prelude {
    () => {
        r#"namespace kl {
template <typename A, typename U> __device__ __half oxide_atomic_swap_f16(A&& a, U value) {
  auto* cell = oxide_cell_ptr(a);
  using C = oxide_cell<decltype(cell)>;
  unsigned short b = (unsigned short)to_bits((__half)value), old;
#ifdef __CUDACC__
  unsigned short seen = *(volatile unsigned short*)&cell->v;
  do {
    old = seen;
    if constexpr (C::scope == 0) asm volatile("atom.cta.cas.b16 %0, [%1], %2, %3;" : "=h"(seen) : "l"(&cell->v), "h"(old), "h"(b) : "memory");
    else if constexpr (C::scope == 2) asm volatile("atom.sys.cas.b16 %0, [%1], %2, %3;" : "=h"(seen) : "l"(&cell->v), "h"(old), "h"(b) : "memory");
    else asm volatile("atom.gpu.cas.b16 %0, [%1], %2, %3;" : "=h"(seen) : "l"(&cell->v), "h"(old), "h"(b) : "memory");
  } while (seen != old);
#else
  old = to_bits(cell->v); (void)b;
#endif
  return from_bits<__half>(old);
}
}
"#
    };
}
