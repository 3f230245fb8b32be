//! cuda-oxide's `CuSimd<T, N>`: N values of T held in registers, built from an array and read
//! by index (`s[i]`, `s.at(i)`, `s.get::<I>()`), by lane name (`x`..`w`, `xy`, `xyzw`, `lo`,
//! `hi`) or whole (`to_array`). As in the library it is one array field, so the twin keeps it
//! as `kl::cusimd<T, N>` over a `kl::array<T, N>`; it touches no memory of its own.

use super::{Context, Lowered, Scope};
use quote::ToTokens;
use syn::{Expr, GenericArgument, PathArguments};

/// `kl::cusimd`; spliced into the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! simd_values_prelude {
    () => {
        r#"namespace kl {
template <typename T, unsigned long long N> struct cusimd {
  array<T, N> data;
  template <typename I> __device__ const T& operator[](I i) const { return data[i]; }
  template <unsigned long long I> __device__ T get() const { return data[I]; }
  __device__ T at(unsigned long long i) const { return data[i]; }
  __device__ array<T, N> to_array() const { return data; }
  __device__ unsigned long long len() const { return N; }
  __device__ bool is_empty() const { return N == 0; }
  __device__ T x() const { return data[0]; }
  __device__ T y() const { return data[1]; }
  __device__ T z() const { return data[2]; }
  __device__ T w() const { return data[3]; }
  __device__ tuple2<T, T> xy() const { return {data[0], data[1]}; }
  __device__ tuple4<T, T, T, T> xyzw() const { return {data[0], data[1], data[2], data[3]}; }
  __device__ cusimd<T, 2> lo() const { return {{{data[0], data[1]}}}; }
  __device__ cusimd<T, 2> hi() const { return {{{data[2], data[3]}}}; }
};
}
"#
    };
}

/// The `CuSimd` segment of a path (`CuSimd::<f32, 4>::new`, `CuSimd<u32, 2>`).
fn simd_segment(path: &syn::Path) -> Option<&syn::PathSegment> {
    path.segments.iter().find(|s| s.ident == "CuSimd")
}

impl Context<'_> {
    /// `kl::cusimd<T, N>` of `CuSimd<T, N>` with both arguments named; `None` for other types.
    pub(super) fn simd_type(&self, segment: &syn::PathSegment) -> Lowered<Option<String>> {
        if segment.ident != "CuSimd" {
            return Ok(None);
        }
        let PathArguments::AngleBracketed(a) = &segment.arguments else {
            return self.fail(segment, "`CuSimd` without its lane type and count named");
        };
        let (Some(GenericArgument::Type(elem)), Some(count), 2) = (a.args.first(), a.args.get(1), a.args.len()) else {
            return self.fail(segment, "`CuSimd` without its lane type and count named");
        };
        let count = match count {
            GenericArgument::Const(e) => self.array_length(e)?,
            GenericArgument::Type(syn::Type::Path(p)) => {
                let e: Expr = syn::parse2(p.to_token_stream()).map_err(|e| (self.span(segment), e.to_string()))?;
                self.array_length(&e)?
            }
            other => return self.fail(other, "`CuSimd` lane count is not lowered"),
        };
        Ok(Some(format!("kl::cusimd<{}, {count}>", self.c_type(elem)?)))
    }

    /// `CuSimd::<T, N>::new(array)`: the lanes, converted to T as Rust infers the literal.
    pub(super) fn simd_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let Some(segment) = simd_segment(&p.path) else {
            return Ok(None);
        };
        let method = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
        if method != "new" || c.args.len() != 1 {
            return self.fail(c, format!("`CuSimd::{method}` is not lowered"));
        }
        let Some(simd) = self.simd_type(segment)? else {
            return Ok(None);
        };
        let lanes = self.expr(&c.args[0], scope)?;
        Ok(Some(format!("{simd}{{decltype({simd}::data)({lanes})}}")))
    }

    /// A method of a value built as a `CuSimd`; `None` for other receivers.
    pub(super) fn simd_method(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        // `[1., 2.].as_slice()` or `arr.as_slice()` of a local array: the array's own elements,
        // read by index as the slice would be; the value is kept so no temporary dangles.
        if m.method == "as_slice" && m.args.is_empty() {
            let array = match &*m.receiver {
                Expr::Array(_) => true,
                Expr::Path(p) => match p.path.get_ident() {
                    Some(i) => {
                        let name = scope.lookup(&i.to_string());
                        self.value_type_of(&m.receiver, scope).is_none() && !scope.slices.contains(&name)
                    }
                    None => false,
                },
                _ => false,
            };
            if array {
                return Ok(Some(self.expr(&m.receiver, scope)?));
            }
        }
        if self.value_type_of(&m.receiver, scope).as_deref() != Some("CuSimd") {
            return Ok(None);
        }
        let method = m.method.to_string();
        let receiver = self.expr(&m.receiver, scope)?;
        match (method.as_str(), m.args.len(), &m.turbofish) {
            ("get", 0, Some(t)) if t.args.len() == 1 => {
                let index = match &t.args[0] {
                    GenericArgument::Const(e) => self.array_length(e)?,
                    GenericArgument::Type(ty) => {
                        let e: Expr = syn::parse2(ty.to_token_stream()).map_err(|e| (self.span(m), e.to_string()))?;
                        self.array_length(&e)?
                    }
                    other => return self.fail(other, "`CuSimd::get` index is not lowered"),
                };
                Ok(Some(format!("{receiver}.template get<{index}>()")))
            }
            ("at", 1, None) => {
                let i = self.expr(&m.args[0], scope)?;
                Ok(Some(format!("{receiver}.at((unsigned long long)({i}))")))
            }
            (
                "to_array" | "len" | "is_empty" | "x" | "y" | "z" | "w" | "xy" | "xyzw" | "lo" | "hi" | "clone",
                0,
                None,
            ) => {
                if method == "clone" {
                    return Ok(Some(receiver));
                }
                Ok(Some(format!("{receiver}.{method}()")))
            }
            _ => self.fail(m, format!("method `{method}` of a `CuSimd` is not lowered")),
        }
    }
}
