//! `u32::from_ne_bytes(b)`, `f32::from_le_bytes(b)`: the bytes of an array read as one scalar.
//! The device is little-endian, so native and little-endian order are one.

/// The scalar whose bytes are `bytes`, as the C type `to` of the Rust type `owner`.
pub(super) fn from_bytes(to: &str, bytes: &str) -> String {
    format!("kl::from_ne_bytes<{to}>({bytes})")
}

#[macro_export]
#[doc(hidden)]
macro_rules! byte_order_prelude {
    () => {
        r#"namespace kl {
template <typename T, typename A> __device__ T from_ne_bytes(A bytes) {
  static_assert(sizeof(A) == sizeof(T), "from_ne_bytes of an array of the scalar's size");
  T out;
  __builtin_memcpy(&out, &bytes, sizeof(T));
  return out;
}
}
"#
    };
}
