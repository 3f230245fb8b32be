//! `n.is_multiple_of(d)` of the unsigned integers.

/// Rust defines `0` as the one multiple of `0`, where `n % 0` would trap.
#[macro_export]
#[doc(hidden)]
macro_rules! divisibility_prelude {
    () => {
        r#"namespace kl {
template <class T, class D> __host__ __device__ inline bool is_multiple_of(T n, D d) { return (T)d == 0 ? n == 0 : n % (T)d == 0; }
}
"#
    };
}
