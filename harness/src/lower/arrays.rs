//! Fixed-size arrays as values: `[T; N]` is `kl::array<T, N>`, a struct holding `T v[N]`, so
//! that arrays are returned, passed and copied as Rust does, with the same size, alignment and
//! element addresses as the C array. The unit type `()` is the empty `kl::unit`.

use super::{Context, Lowered, Scope};
use syn::Expr;

/// `kl::array`, `kl::unit` and the helpers that build arrays; spliced into the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! array_prelude {
    () => {
        r#"struct unit {
  __host__ __device__ bool operator==(unit) const { return true; }
};
template <typename T, unsigned long long N> struct array {
  T v[N];
  // A template index is an exact match for every integer, so the array's own subscript is
  // preferred to the built-in one on the decayed pointer.
  template <typename I> __host__ __device__ constexpr T& operator[](I i) { return v[i]; }
  template <typename I> __host__ __device__ constexpr const T& operator[](I i) const { return v[i]; }
  __host__ __device__ T* begin() { return v; }
  __host__ __device__ T* end() { return v + N; }
  __host__ __device__ const T* begin() const { return v; }
  __host__ __device__ const T* end() const { return v + N; }
  // A literal's element type is inferred from its use in Rust: `[0, 1]` becomes `[u64; 2]`.
  template <typename U, typename = typename std::enable_if<!std::is_same<U, T>::value>::type>
  __host__ __device__ constexpr operator array<U, N>() const {
    array<U, N> out{};
    for (unsigned long long i = 0; i < N; ++i) out.v[i] = static_cast<U>(v[i]);
    return out;
  }
};
// `&[T; N]`: Rust indexes through the reference, so the C++ does too.
template <typename A> struct aref {
  A* p;
  __host__ __device__ constexpr aref(A* q) : p(q) {}
  template <typename I> __host__ __device__ auto& operator[](I i) const { return (*p)[i]; }
  __host__ __device__ A& operator*() const { return *p; }
  __host__ __device__ A* operator->() const { return p; }
  __host__ __device__ operator A*() const { return p; }
};
// The receiver a call gives to a method taking `&mut self`: the referent of a returned
// reference (a pointer here), else the value itself, alive to the end of the statement.
template <typename T> __host__ __device__ decltype(auto) self_ref(T&& r) {
  if constexpr (std::is_pointer<typename std::decay<T>::type>::value) return (*r);
  else return static_cast<T&>(r);
}
// `[T; 0]`: no element, and still an object.
template <typename T> struct array<T, 0> {
  template <typename I> __host__ __device__ T& operator[](I) { return *static_cast<T*>(nullptr); }
  __host__ __device__ T* begin() { return nullptr; }
  __host__ __device__ T* end() { return nullptr; }
  __host__ __device__ const T* begin() const { return nullptr; }
  __host__ __device__ const T* end() const { return nullptr; }
};
template <typename T, unsigned long long N>
__host__ __device__ bool operator==(const array<T, N>& a, const array<T, N>& b) {
  for (unsigned long long i = 0; i < N; ++i) if (!(a.v[i] == b.v[i])) return false;
  return true;
}
template <typename T, unsigned long long N>
__host__ __device__ bool operator!=(const array<T, N>& a, const array<T, N>& b) { return !(a == b); }
template <typename T, typename... R>
__host__ __device__ constexpr array<T, 1 + sizeof...(R)> make_array(T first, R... rest) {
  return {{first, static_cast<T>(rest)...}};
}
template <unsigned long long N, typename T> __host__ __device__ constexpr array<T, N> repeat(T value) {
  array<T, N> out{};
  for (unsigned long long i = 0; i < N; ++i) out.v[i] = value;
  return out;
}
// `as_ptr()`: the first element's address of an array; a pointer (or a C array) as it is.
template <typename P> __host__ __device__ P as_ptr(P p) { return p; }
template <typename T> __host__ __device__ T* as_ptr(T* p) { return p; }
template <typename T, unsigned long long N> __host__ __device__ T* as_ptr(array<T, N>& a) { return a.v; }
template <typename T, unsigned long long N> __host__ __device__ const T* as_ptr(const array<T, N>& a) { return a.v; }
template <typename A> __host__ __device__ auto as_ptr(aref<A> a) { return as_ptr(*a.p); }
template <typename T, unsigned long long N>
__host__ __device__ constexpr unsigned long long len(const array<T, N>&) { return N; }
template <typename T, unsigned long long N>
__host__ __device__ constexpr unsigned long long len(const T (&)[N]) { return N; }
template <typename A> __host__ __device__ constexpr unsigned long long len(aref<A> a) { return len(*a.p); }
"#
    };
}

impl Context<'_> {
    /// `[T; N]` as `kl::array<T, N>`, nested for arrays of arrays.
    pub(super) fn array_type(&self, a: &syn::TypeArray) -> Lowered<String> {
        let len = self.array_length(&a.len)?;
        Ok(format!("kl::array<{}, {len}>", self.c_type(&a.elem)?))
    }

    /// `&[T; N]` and `&mut [T; N]` as `kl::aref`, indexed through as Rust does; `None` for
    /// references to other types.
    pub(super) fn array_reference(&self, r: &syn::TypeReference) -> Lowered<Option<String>> {
        let syn::Type::Array(a) = &*r.elem else { return Ok(None) };
        let constness = if r.mutability.is_some() { "" } else { "const " };
        Ok(Some(format!("kl::aref<{constness}{}>", self.array_type(a)?)))
    }

    /// An array's length: a constant the layouts know, or an expression of constants that
    /// C++ evaluates (`TILE * TILE`).
    pub(super) fn array_length(&self, len: &Expr) -> Lowered<String> {
        match self.layouts.const_value(len) {
            Some(len) => Ok(len.to_string()),
            None if super::types::is_constant_expression(len) => self.expr(len, &mut Scope::default()),
            None => self.fail(len, "array length is not a constant"),
        }
    }

    /// `[a, b, c]` as a value: its element type is that of the first element, converted to
    /// the declared one where the array is used.
    pub(super) fn array_literal(&self, a: &syn::ExprArray, scope: &mut Scope) -> Lowered<String> {
        if a.elems.is_empty() {
            return self.fail(a, "an empty array literal needs a declared type");
        }
        let elems = a
            .elems
            .iter()
            .map(|e| self.expr(e, scope))
            .collect::<Lowered<Vec<_>>>()?;
        Ok(format!("kl::make_array({})", elems.join(", ")))
    }

    /// `[value; N]` as a value.
    pub(super) fn array_repeat(&self, r: &syn::ExprRepeat, scope: &mut Scope) -> Lowered<String> {
        let len = self.array_length(&r.len)?;
        Ok(format!("kl::repeat<{len}>({})", self.expr(&r.expr, scope)?))
    }

    /// The declaration of a local array whose element type comes from its innermost literal.
    pub(super) fn inferred_array(base: &str, dims: &[String], name: &str) -> String {
        let ty = dims
            .iter()
            .rev()
            .fold(base.to_string(), |inner, d| format!("kl::array<{inner}, {d}>"));
        format!("{ty} {name}")
    }
}
