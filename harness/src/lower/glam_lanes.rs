//! Lane-wise vector methods: `map` of glam's and nalgebra's vectors and points (a float
//! function value or a closure), and glam's `v.as_u8vec3()`, `Vec3::splat(x)` and `clamp`
//! between two vectors, each computed one lane at a time, in lane order, as the crates do.

use super::{Context, Lowered, Scope};
use syn::{Expr, ExprMethodCall};

/// `f32::sqrt` as a function value: a lambda over the lane's C function.
fn float_function(e: &Expr) -> Option<String> {
    let Expr::Path(p) = e else { return None };
    let [ty, f] = p.path.segments.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let (c, suffix) = match ty.ident.to_string().as_str() {
        "f32" => ("float", "f"),
        "f64" => ("double", ""),
        _ => return None,
    };
    let name = match f.ident.to_string().as_str() {
        "abs" => "fabs",
        "ln" => "log",
        n @ ("sqrt" | "floor" | "ceil" | "round" | "trunc" | "exp" | "exp2" | "log2" | "log10" | "sin" | "cos"
        | "tan" | "tanh" | "cbrt") => n,
        _ => return None,
    }
    .to_string();
    Some(format!("[]({c} v) {{ return ::{name}{suffix}(v); }}"))
}

/// `as_u8vec3` -> glam's `U8Vec3` and its lane count.
fn conversion(method: &str) -> Option<(&'static str, usize)> {
    let rest = method.strip_prefix("as_")?;
    let (prefix, lanes) = rest.split_once("vec")?;
    let prefix = match prefix {
        "usize" => "USize".to_string(),
        p => p.to_ascii_uppercase(),
    };
    let name = format!("{prefix}Vec{lanes}");
    let (c_type, _, _, lanes) = super::types::glam_lanes(&name)?;
    Some((c_type, lanes))
}

impl Context<'_> {
    /// A lane-wise method of a glam or nalgebra vector; `None` for any other method.
    pub(super) fn glam_lane_method(&self, m: &ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let method = m.method.to_string();
        if method == "map" && m.args.len() == 1 {
            // Only a vector's lanes: a receiver known to be of another type keeps its own `map`.
            if let Some(known) = self.value_type_of(&m.receiver, scope) {
                let vector = super::types::glam_vector(&known).is_some()
                    || matches!(known.as_str(), "Vector" | "Point" | "Matrix")
                    || known.starts_with("Vector")
                    || known.starts_with("Point")
                    || known.starts_with("Matrix");
                if !vector {
                    return Ok(None);
                }
            }
            let f = match &m.args[0] {
                Expr::Closure(c) => self.closure(c, scope)?,
                other => match float_function(other) {
                    Some(f) => f,
                    None => return Ok(None),
                },
            };
            let receiver = self.expr(&m.receiver, scope)?;
            return Ok(Some(format!("kl::lanes::map({receiver}, {f})")));
        }
        if let (Some((c_type, lanes)), true) = (conversion(&method), m.args.is_empty()) {
            let receiver = self.expr(&m.receiver, scope)?;
            return Ok(Some(format!("kl::glam::convert{lanes}<{c_type}>({receiver})")));
        }
        Ok(None)
    }

    /// `Vec3::splat(x)`: every lane the value, evaluated once.
    pub(super) fn glam_splat(path: &syn::Path, args: &[String]) -> Option<String> {
        let [ty, f] = path.segments.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        if f.ident != "splat" || args.len() != 1 {
            return None;
        }
        let (c_type, _, _, lanes) = super::types::glam_lanes(&ty.ident.to_string())?;
        Some(format!("kl::glam::splat{lanes}<{c_type}>({})", args[0]))
    }
}

/// The lane-wise helpers, appended to the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! glam_lanes_prelude {
    () => {
        r#"namespace kl { namespace lanes {
#define KL_MAP_LANE(l) r.l = f(a.l);
#define KL_GLAM_MAP(V, LANES) \
  template <typename F> __device__ V map(V a, F f) { V r; LANES(KL_MAP_LANE) return r; }
KL_GLAM_MAP(Vec2, KL_LANES2)
KL_GLAM_MAP(Vec3, KL_LANES3)
KL_GLAM_MAP(Vec3A, KL_LANES3)
KL_GLAM_MAP(Vec4, KL_LANES4)
KL_GLAM_MAP(DVec2, KL_LANES2)
KL_GLAM_MAP(DVec3, KL_LANES3)
KL_GLAM_MAP(DVec4, KL_LANES4)
#undef KL_GLAM_MAP
#undef KL_MAP_LANE
// `[T; N]::map`: element after element, into an array of the results' type.
template <typename T, unsigned long long N, typename F>
__device__ auto map(const array<T, N>& a, F f) -> array<decltype(f(a[0])), N> {
  array<decltype(f(a[0])), N> r;
  for (unsigned long long i = 0; i < N; ++i) r[i] = f(a[i]);
  return r;
}
// nalgebra's `map`: element after element, column-major, into a matrix of the results' type.
template <typename T, int R, int C, typename F>
__device__ auto map(const na::Matrix<T, R, C>& a, F f) -> na::Matrix<decltype(f(a.data()[0])), R, C> {
  na::Matrix<decltype(f(a.data()[0])), R, C> r;
  for (int i = 0; i < R * C; ++i) r.data()[i] = f(a.data()[i]);
  return r;
}
template <typename T, int D, typename F>
__device__ auto map(const na::Point<T, D>& a, F f) -> na::Point<decltype(f(a.data()[0])), D> {
  na::Point<decltype(f(a.data()[0])), D> r;
  r.coords = map(a.coords, f);
  return r;
}
template <typename T, typename F> __device__ auto map(const T* a, F f) -> decltype(map(*a, f)) { return map(*a, f); }
template <typename T, typename F> __device__ auto map(ref<T> a, F f) -> decltype(map((T)a, f)) { return map((T)a, f); }
}
namespace glam {
// Each lane converted as Rust's `as` converts it.
template <typename To, typename From> __device__ To convert2(From a) { return To{(decltype(To::x))a.x, (decltype(To::y))a.y}; }
template <typename To, typename From> __device__ To convert3(From a) {
  return To{(decltype(To::x))a.x, (decltype(To::y))a.y, (decltype(To::z))a.z};
}
template <typename To, typename From> __device__ To convert4(From a) {
  return To{(decltype(To::x))a.x, (decltype(To::y))a.y, (decltype(To::z))a.z, (decltype(To::w))a.w};
}
// A reference receiver is a pointer or a `kl::ref`: the vector it reads.
template <typename To, typename T> __device__ To convert2(const T* a) { return convert2<To>(*a); }
template <typename To, typename T> __device__ To convert3(const T* a) { return convert3<To>(*a); }
template <typename To, typename T> __device__ To convert4(const T* a) { return convert4<To>(*a); }
template <typename To, typename T> __device__ To convert2(ref<T> a) { return convert2<To>((T)a); }
template <typename To, typename T> __device__ To convert3(ref<T> a) { return convert3<To>((T)a); }
template <typename To, typename T> __device__ To convert4(ref<T> a) { return convert4<To>((T)a); }
#define KL_SPLAT_LANE(l) r.l = s;
template <typename V, typename T> __device__ V splat2(T s) { V r; KL_LANES2(KL_SPLAT_LANE) return r; }
template <typename V, typename T> __device__ V splat3(T s) { V r; KL_LANES3(KL_SPLAT_LANE) return r; }
template <typename V, typename T> __device__ V splat4(T s) { V r; KL_LANES4(KL_SPLAT_LANE) return r; }
#undef KL_SPLAT_LANE
}
// glam's `clamp` of float vectors: `self.max(min).min(max)`, lane by lane.
#define KL_CLAMP_LANE(l) r.l = ::fminf(::fmaxf(x.l, lo.l), hi.l);
#define KL_CLAMP_DLANE(l) r.l = ::fmin(::fmax(x.l, lo.l), hi.l);
__device__ inline Vec2 clamp(Vec2 x, Vec2 lo, Vec2 hi) { Vec2 r; KL_LANES2(KL_CLAMP_LANE) return r; }
__device__ inline Vec3 clamp(Vec3 x, Vec3 lo, Vec3 hi) { Vec3 r; KL_LANES3(KL_CLAMP_LANE) return r; }
__device__ inline Vec3A clamp(Vec3A x, Vec3A lo, Vec3A hi) { Vec3A r; KL_LANES3(KL_CLAMP_LANE) return r; }
__device__ inline Vec4 clamp(Vec4 x, Vec4 lo, Vec4 hi) { Vec4 r; KL_LANES4(KL_CLAMP_LANE) return r; }
__device__ inline DVec3 clamp(DVec3 x, DVec3 lo, DVec3 hi) { DVec3 r; KL_LANES3(KL_CLAMP_DLANE) return r; }
#undef KL_CLAMP_LANE
#undef KL_CLAMP_DLANE
}
"#
    };
}
