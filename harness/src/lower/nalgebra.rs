//! nalgebra's statically sized vectors, points and matrices (`Vector3<f32>`, `Point3<Real>`,
//! `Matrix3<u8>`, `SVector<T, D>`) as the C++ templates of [`nalgebra_prelude`]: column-major
//! arrays of the scalar, as `ArrayStorage` lays them out, so structs holding them keep their
//! layout and every element read or written is the access the Rust code makes.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::model::items::Target;
use syn::punctuated::Punctuated;
use syn::{Expr, Token};
use syn::{GenericArgument, PathArguments, Type};

/// A nalgebra type: scalar, rows, columns, and whether it is a point.
struct Shape<'t> {
    scalar: &'t Type,
    rows: String,
    columns: String,
    point: bool,
}

/// Methods of nalgebra's matrices lowered to the function of the same name in `kl::na`.
const METHODS: &[&str] = &[
    "row",
    "column",
    "sum",
    "transpose",
    "dot",
    "norm",
    "norm_squared",
    "component_mul",
    "component_div",
    "trace",
    "abs",
    "magnitude",
    "magnitude_squared",
    "to_homogeneous",
];

impl Context<'_> {
    /// The C++ type of a nalgebra type, unless the workspace defines a type of that name.
    pub(super) fn nalgebra_type(&self, ty: &Type) -> Lowered<Option<String>> {
        let Type::Path(p) = ty else { return Ok(None) };
        if self
            .layouts
            .resolve(&p.path)
            .is_some_and(|t| !matches!(t, Target::External(_)))
        {
            return Ok(None);
        }
        let Some(shape) = self.shape(&p.path)? else {
            return Ok(None);
        };
        let scalar = self.c_type(shape.scalar)?;
        Ok(Some(if shape.point {
            format!("kl::na::Point<{scalar}, {}>", shape.rows)
        } else {
            format!("kl::na::Matrix<{scalar}, {}, {}>", shape.rows, shape.columns)
        }))
    }

    fn shape<'t>(&self, path: &'t syn::Path) -> Lowered<Option<Shape<'t>>> {
        let Some(last) = path.segments.last() else {
            return Ok(None);
        };
        let name = last.ident.to_string();
        let PathArguments::AngleBracketed(args) = &last.arguments else {
            return Ok(None);
        };
        let types: Vec<&Type> = args
            .args
            .iter()
            .filter_map(|a| match a {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect();
        let consts: Vec<String> = args
            .args
            .iter()
            .skip(1)
            .map(|a| match a {
                GenericArgument::Const(e) => self.layouts.const_value(e).map(|v| v.to_string()),
                // `SVector<f32, DIM>`: a constant's name parses as a type.
                GenericArgument::Type(Type::Path(t)) => self.layouts.const_named(&t.path).map(|v| v.to_string()),
                _ => None,
            })
            .collect::<Option<_>>()
            .unwrap_or_default();
        let Some(&scalar) = types.first() else { return Ok(None) };
        let digits = |s: &str| -> Option<(String, String)> {
            match s.split_once('x') {
                Some((r, c)) if r.parse::<u32>().is_ok() && c.parse::<u32>().is_ok() => {
                    Some((r.to_string(), c.to_string()))
                }
                None if s.parse::<u32>().is_ok() => Some((s.to_string(), s.to_string())),
                _ => None,
            }
        };
        let shape = |rows: String, columns: String, point: bool| {
            Ok(Some(Shape {
                scalar,
                rows,
                columns,
                point,
            }))
        };
        if let Some(n) = name.strip_prefix("Vector").filter(|n| n.parse::<u32>().is_ok()) {
            return shape(n.to_string(), "1".to_string(), false);
        }
        if let Some(n) = name.strip_prefix("RowVector").filter(|n| n.parse::<u32>().is_ok()) {
            return shape("1".to_string(), n.to_string(), false);
        }
        if let Some(n) = name.strip_prefix("Point").filter(|n| n.parse::<u32>().is_ok()) {
            return shape(n.to_string(), "1".to_string(), true);
        }
        if let Some((r, c)) = name.strip_prefix("Matrix").and_then(digits) {
            return shape(r, c, false);
        }
        match (name.as_str(), consts.as_slice()) {
            ("SVector", [d]) => shape(d.clone(), "1".to_string(), false),
            ("Point", [d]) => shape(d.clone(), "1".to_string(), true),
            ("SMatrix", [r, c]) => shape(r.clone(), c.clone(), false),
            ("SVector" | "SMatrix" | "Point", _) => self.fail(
                path,
                format!("`{name}` with a dimension that is not a known constant is not lowered"),
            ),
            _ => Ok(None),
        }
    }

    /// `Vector3::new(x, y, z)`, `Point2::new(x, y)`, and `Matrix3::<f32>::zeros()`-like
    /// constructors whose type names its scalar.
    pub(super) fn nalgebra_constructor(&self, path: &syn::Path, args: &[String]) -> Lowered<Option<String>> {
        let n = path.segments.len();
        if n < 2 {
            return Ok(None);
        }
        let function = path.segments[n - 1].ident.to_string();
        let mut type_path = path.clone();
        type_path.segments = path.segments.iter().take(n - 1).cloned().collect();
        let Some(ty_segment) = type_path.segments.last() else {
            return Ok(None);
        };
        let name = ty_segment.ident.to_string();
        let sized = |prefix: &str| name.strip_prefix(prefix).is_some_and(|d| d.parse::<u32>().is_ok());
        let nalgebra = sized("Vector")
            || sized("Point")
            || sized("Matrix")
            || sized("RowVector")
            || matches!(name.as_str(), "SVector" | "SMatrix");
        if !nalgebra
            || self
                .layouts
                .resolve(&type_path)
                .is_some_and(|t| !matches!(t, Target::External(_)))
        {
            return Ok(None);
        }
        let ty = Type::Path(syn::TypePath {
            qself: None,
            path: type_path.clone(),
        });
        let known = self.nalgebra_type(&ty)?;
        Ok(Some(match (function.as_str(), known) {
            ("new", Some(c)) => format!("{c}{{{}}}", args.join(", ")),
            ("new", None) if sized("Vector") => format!("kl::na::vector({})", args.join(", ")),
            ("new", None) if sized("Point") => format!("kl::na::point({})", args.join(", ")),
            ("zeros" | "identity", Some(c)) if args.is_empty() => format!("kl::na::{function}<{c}>()"),
            ("repeat" | "from_element", Some(c)) if args.len() == 1 => {
                format!("kl::na::from_element<{c}>({})", args[0])
            }
            (_, None) => {
                return self.fail(
                    path,
                    format!(
                        "`{name}::{function}` without its scalar type is not lowered: the element size is not known"
                    ),
                )
            }
            _ => return self.fail(path, format!("`{name}::{function}` is not lowered")),
        }))
    }

    /// A method of nalgebra's matrices that the workspace does not define itself.
    pub(super) fn nalgebra_method(
        &self,
        m: &syn::ExprMethodCall,
        receiver: &str,
        scope: &mut Scope,
    ) -> Lowered<Option<String>> {
        let method = m.method.to_string();
        let method = method.as_str();
        if !METHODS.contains(&method)
            || is_iterator(&m.receiver)
            || self
                .layouts
                .index
                .methods_named(method, self.layouts.module)
                .next()
                .is_some()
        {
            return Ok(None);
        }
        let receiver = if is_reference(&m.receiver, scope) {
            format!("(*{receiver})")
        } else {
            receiver.to_string()
        };
        let mut all = vec![receiver];
        // `a.dot(&b)` reads `b` through the reference: the C++ takes the matrix itself.
        for arg in &m.args {
            let arg = match arg {
                Expr::Reference(r) => &r.expr,
                other => other,
            };
            let text = self.expr(arg, scope)?;
            all.push(if is_reference(arg, scope) {
                format!("(*{text})")
            } else {
                text
            });
        }
        Ok(Some(format!("kl::na::{method}({})", all.join(", "))))
    }
}

impl Context<'_> {
    /// `vector![a, b, c]`: a column vector of the elements.
    pub(super) fn nalgebra_macro(&self, m: &syn::ExprMacro, scope: &mut Scope) -> Lowered<Option<String>> {
        if !m.mac.path.is_ident("vector") {
            return Ok(None);
        }
        let elements = m
            .mac
            .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            .map_err(|e| (self.span(m), format!("`vector!` arguments: {e}")))?;
        let lowered = elements
            .iter()
            .map(|e| self.expr(e, scope))
            .collect::<Lowered<Vec<_>>>()?;
        Ok(Some(format!("kl::na::vector({})", lowered.join(", "))))
    }
}

/// Whether an expression is a range or an iterator chain: `.sum()` of one is no matrix's.
fn is_iterator(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => is_iterator(&p.expr),
        Expr::Range(_) => true,
        Expr::MethodCall(m) => {
            matches!(
                m.method.to_string().as_str(),
                "iter"
                    | "iter_mut"
                    | "into_iter"
                    | "map"
                    | "filter"
                    | "zip"
                    | "enumerate"
                    | "rev"
                    | "step_by"
                    | "take"
                    | "skip"
                    | "chain"
                    | "copied"
                    | "cloned"
                    | "flat_map"
                    | "filter_map"
            ) || is_iterator(&m.receiver)
        }
        _ => false,
    }
}

/// Whether an expression is a binding of a reference (a pointer in C).
pub(super) fn is_reference(e: &Expr, scope: &Scope) -> bool {
    matches!(e, Expr::Path(p) if p.path.get_ident().is_some_and(|i| scope.references.contains(&scope.lookup(&i.to_string()))))
}

/// `m[(i, j)]` through a reference `m`: nalgebra's (row, column) index of the matrix it points to.
pub(super) fn indexes_matrix_reference(base: &Expr, index: &Expr, scope: &Scope) -> bool {
    matches!(index, Expr::Tuple(t) if t.elems.len() == 2) && is_reference(base, scope)
}

/// The C++ of nalgebra's fixed-size types, appended to the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! nalgebra_prelude {
    () => {
        r#"namespace kl { namespace na {
// nalgebra's fixed-size matrices: `R * C` scalars, column after column, aligned as the scalar.
#define KL_NA_ACCESS(FIRST, COLS) \
  template <typename U> __device__ operator Matrix<U, rows, COLS>() const { \
    Matrix<U, rows, COLS> r; for (int i = 0; i < rows * COLS; ++i) r[i] = (U)data()[i]; return r; } \
  __device__ T* data() { return &FIRST; } \
  __device__ const T* data() const { return &FIRST; } \
  __device__ T& operator[](unsigned long long i) { if (i >= rows * COLS) __trap(); return data()[i]; } \
  __device__ const T& operator[](unsigned long long i) const { if (i >= rows * COLS) __trap(); return data()[i]; } \
  template <typename A, typename B> __device__ T& operator[](kl::tuple2<A, B> rc) { \
    return (*this)[kl::na::at(rc._0, rc._1, rows, COLS)]; } \
  template <typename A, typename B> __device__ const T& operator[](kl::tuple2<A, B> rc) const { \
    return (*this)[kl::na::at(rc._0, rc._1, rows, COLS)]; }
// nalgebra panics on an index out of the matrix, before any element is read.
__device__ inline unsigned long long at(unsigned long long i, unsigned long long j, int rows, int cols) {
  if (i >= (unsigned long long)rows || j >= (unsigned long long)cols) __trap();
  return j * rows + i; }
template <typename T, int R, int C> struct Matrix;
template <typename T, int R, int C> struct Matrix { enum { rows = R }; T m[R * C]; KL_NA_ACCESS(m[0], C) };
// Vectors of up to four rows name their elements, as nalgebra's `Deref` to `XYZW` does.
template <typename T> struct Matrix<T, 1, 1> { enum { rows = 1 }; T x; KL_NA_ACCESS(x, 1) };
template <typename T> struct Matrix<T, 2, 1> { enum { rows = 2 }; T x, y; KL_NA_ACCESS(x, 1) };
template <typename T> struct Matrix<T, 3, 1> { enum { rows = 3 }; T x, y, z; KL_NA_ACCESS(x, 1) };
template <typename T> struct Matrix<T, 4, 1> { enum { rows = 4 }; T x, y, z, w; KL_NA_ACCESS(x, 1) };
// A point is its coordinates vector (`OPoint { coords }`), same layout.
template <typename T, int D> struct Point {
  enum { rows = D };
  Matrix<T, D, 1> coords;
  KL_NA_ACCESS(coords.data()[0], 1)
};
#undef KL_NA_ACCESS
template <typename T, int R, int C> __device__ Matrix<T, R, C> operator+(const Matrix<T, R, C>& a, const Matrix<T, R, C>& b) {
  Matrix<T, R, C> r; for (int i = 0; i < R * C; ++i) r[i] = a[i] + b[i]; return r; }
template <typename T, int R, int C> __device__ Matrix<T, R, C> operator-(const Matrix<T, R, C>& a, const Matrix<T, R, C>& b) {
  Matrix<T, R, C> r; for (int i = 0; i < R * C; ++i) r[i] = a[i] - b[i]; return r; }
template <typename T, int R, int C> __device__ Matrix<T, R, C> operator-(const Matrix<T, R, C>& a) {
  Matrix<T, R, C> r; for (int i = 0; i < R * C; ++i) r[i] = -a[i]; return r; }
template <typename T, int R, int C, typename S, typename = typename std::enable_if<std::is_arithmetic<S>::value>::type>
__device__ Matrix<T, R, C> operator*(const Matrix<T, R, C>& a, S s) {
  Matrix<T, R, C> r; for (int i = 0; i < R * C; ++i) r[i] = a[i] * (T)s; return r; }
template <typename T, int R, int C, typename S, typename = typename std::enable_if<std::is_arithmetic<S>::value>::type>
__device__ Matrix<T, R, C> operator*(S s, const Matrix<T, R, C>& a) { return a * s; }
template <typename T, int R, int C, typename S, typename = typename std::enable_if<std::is_arithmetic<S>::value>::type>
__device__ Matrix<T, R, C> operator/(const Matrix<T, R, C>& a, S s) {
  Matrix<T, R, C> r; for (int i = 0; i < R * C; ++i) r[i] = a[i] / (T)s; return r; }
// The product of an `R x K` and a `K x C` matrix, in the scalar's (wrapping) arithmetic.
template <typename T, int R, int K, int C> __device__ Matrix<T, R, C> operator*(const Matrix<T, R, K>& a, const Matrix<T, K, C>& b) {
  Matrix<T, R, C> r;
  for (int j = 0; j < C; ++j) for (int i = 0; i < R; ++i) {
    T acc = T(0); for (int k = 0; k < K; ++k) acc = (T)(acc + a[k * R + i] * b[j * K + k]); r[j * R + i] = acc; }
  return r; }
template <typename T, int R, int C> __device__ Matrix<T, R, C>& operator+=(Matrix<T, R, C>& a, const Matrix<T, R, C>& b) { return a = a + b; }
template <typename T, int R, int C> __device__ Matrix<T, R, C>& operator-=(Matrix<T, R, C>& a, const Matrix<T, R, C>& b) { return a = a - b; }
template <typename T, int R, int C, typename S> __device__ Matrix<T, R, C>& operator*=(Matrix<T, R, C>& a, S s) { return a = a * s; }
template <typename T, int R, int C, typename S> __device__ Matrix<T, R, C>& operator/=(Matrix<T, R, C>& a, S s) { return a = a / s; }
template <typename T, int R, int C> __device__ bool operator==(const Matrix<T, R, C>& a, const Matrix<T, R, C>& b) {
  for (int i = 0; i < R * C; ++i) if (!(a[i] == b[i])) return false; return true; }
template <typename T, int R, int C> __device__ bool operator!=(const Matrix<T, R, C>& a, const Matrix<T, R, C>& b) { return !(a == b); }
// Points move by vectors; their difference is a vector.
template <typename T, int D> __device__ Point<T, D> operator+(const Point<T, D>& p, const Matrix<T, D, 1>& v) { return {p.coords + v}; }
template <typename T, int D> __device__ Point<T, D> operator-(const Point<T, D>& p, const Matrix<T, D, 1>& v) { return {p.coords - v}; }
template <typename T, int D> __device__ Matrix<T, D, 1> operator-(const Point<T, D>& a, const Point<T, D>& b) { return a.coords - b.coords; }
template <typename T, int D, typename S> __device__ Point<T, D> operator*(const Point<T, D>& p, S s) { return {p.coords * s}; }
template <typename T, int D, typename S> __device__ Point<T, D> operator/(const Point<T, D>& p, S s) { return {p.coords / s}; }
template <typename T, int R, int C> __device__ Matrix<T, 1, C> row(const Matrix<T, R, C>& a, unsigned long long i) {
  if (i >= (unsigned long long)R) __trap();
  Matrix<T, 1, C> r; for (int j = 0; j < C; ++j) r[j] = a[j * R + i]; return r; }
template <typename T, int R, int C> __device__ Matrix<T, R, 1> column(const Matrix<T, R, C>& a, unsigned long long j) {
  if (j >= (unsigned long long)C) __trap();
  Matrix<T, R, 1> r; for (int i = 0; i < R; ++i) r[i] = a[j * R + i]; return r; }
template <typename T, int R, int C> __device__ Matrix<T, C, R> transpose(const Matrix<T, R, C>& a) {
  Matrix<T, C, R> r; for (int j = 0; j < C; ++j) for (int i = 0; i < R; ++i) r[i * C + j] = a[j * R + i]; return r; }
template <typename T, int R, int C> __device__ T sum(const Matrix<T, R, C>& a) {
  T s = T(0); for (int i = 0; i < R * C; ++i) s = (T)(s + a[i]); return s; }
template <typename T, int R, int C> __device__ T trace(const Matrix<T, R, C>& a) {
  T s = T(0); for (int i = 0; i < (R < C ? R : C); ++i) s = (T)(s + a[i * R + i]); return s; }
template <typename T, int R, int C> __device__ T dot(const Matrix<T, R, C>& a, const Matrix<T, R, C>& b) {
  T s = T(0); for (int i = 0; i < R * C; ++i) s = (T)(s + a[i] * b[i]); return s; }
template <typename T, int R, int C> __device__ T norm_squared(const Matrix<T, R, C>& a) { return dot(a, a); }
template <typename T, int R, int C> __device__ T magnitude_squared(const Matrix<T, R, C>& a) { return dot(a, a); }
template <typename T, int R, int C> __device__ T norm(const Matrix<T, R, C>& a) { return (T)::sqrt((double)dot(a, a)); }
template <int R, int C> __device__ float norm(const Matrix<float, R, C>& a) { return ::sqrtf(dot(a, a)); }
template <typename T, int R, int C> __device__ T magnitude(const Matrix<T, R, C>& a) { return norm(a); }
template <typename T, int R, int C> __device__ Matrix<T, R, C> component_mul(const Matrix<T, R, C>& a, const Matrix<T, R, C>& b) {
  Matrix<T, R, C> r; for (int i = 0; i < R * C; ++i) r[i] = a[i] * b[i]; return r; }
template <typename T, int R, int C> __device__ Matrix<T, R, C> component_div(const Matrix<T, R, C>& a, const Matrix<T, R, C>& b) {
  Matrix<T, R, C> r; for (int i = 0; i < R * C; ++i) r[i] = a[i] / b[i]; return r; }
template <typename T, int R, int C> __device__ Matrix<T, R, C> abs(const Matrix<T, R, C>& a) {
  Matrix<T, R, C> r; for (int i = 0; i < R * C; ++i) r[i] = a[i] < T(0) ? -a[i] : a[i]; return r; }
template <typename T, int D> __device__ Matrix<T, D + 1, 1> to_homogeneous(const Point<T, D>& p) {
  Matrix<T, D + 1, 1> r; for (int i = 0; i < D; ++i) r[i] = p[i]; r[D] = T(1); return r; }
// `vector![a, b, c]`: a column of the first element's type.
template <typename T, typename... U> __device__ Matrix<T, 1 + sizeof...(U), 1> vector(T first, U... rest) {
  return Matrix<T, 1 + sizeof...(U), 1>{first, (T)rest...}; }
template <typename T, typename... U> __device__ Point<T, 1 + sizeof...(U)> point(T first, U... rest) {
  return Point<T, 1 + sizeof...(U)>{{first, (T)rest...}}; }
template <typename M> __device__ M from_element(typename std::remove_reference<decltype(M{}[0])>::type e) {
  M r; for (unsigned long long i = 0; i < sizeof(M) / sizeof(e); ++i) r[i] = e; return r; }
template <typename M> __device__ M zeros() { M r; for (unsigned long long i = 0; i < sizeof(M) / sizeof(r[0]); ++i) r[i] = 0; return r; }
template <typename M> __device__ M identity() {
  M r = zeros<M>(); for (int i = 0; i < M::rows && (unsigned long long)(i * M::rows + i) < sizeof(M) / sizeof(r[0]); ++i) r[i * M::rows + i] = 1; return r; }
}
// `a.dot(&b)` as the prelude's `dot`, which glam's vectors share.
template <typename T, int R, int C> __device__ T dot(const na::Matrix<T, R, C>& a, const na::Matrix<T, R, C>& b) { return na::dot(a, b); }
template <typename T, int R, int C> __device__ T dot(const na::Matrix<T, R, C>& a, const na::Matrix<T, R, C>* b) { return na::dot(a, *b); }
}
"#
    };
}
