//! nalgebra values whose scalar Rust infers from the use: an unsuffixed `vector![0, 1]` added to
//! a `Vector<usize>` is a `Vector<usize>`, and `v.cast::<i64>()` converts every element (a
//! matrix's `cast`, not a pointer's).

use super::{Context, Lowered, Scope};
use syn::{Expr, GenericArgument, Type};

/// Operators between matrices of two scalars, the twin's literal one being `int` or `double`,
/// and `kl::na::cast`.
#[macro_export]
#[doc(hidden)]
macro_rules! nalgebra_literals_prelude {
    () => {
        r#"namespace kl { namespace na {
// Rust gives an unsuffixed literal vector the other operand's scalar; the twin's literal is
// `int` or `double`, so the other scalar wins.
template <typename T, typename U> struct joined {
  typedef typename std::conditional<std::is_same<U, int>::value || std::is_same<U, double>::value, T, U>::type type; };
#define KL_NA_MIXED(OP) \
template <typename T, typename U, int R, int C, typename = typename std::enable_if<!std::is_same<T, U>::value>::type> \
__device__ Matrix<typename joined<T, U>::type, R, C> operator OP(const Matrix<T, R, C>& a, const Matrix<U, R, C>& b) { \
  typedef typename joined<T, U>::type S; Matrix<S, R, C> r; for (int i = 0; i < R * C; ++i) r[i] = (S)((S)a[i] OP (S)b[i]); return r; }
KL_NA_MIXED(+)
KL_NA_MIXED(-)
#undef KL_NA_MIXED
template <typename T, typename U, int R, int C, typename = typename std::enable_if<!std::is_same<T, U>::value>::type>
__device__ Matrix<T, R, C>& operator+=(Matrix<T, R, C>& a, const Matrix<U, R, C>& b) { return a = a + (Matrix<T, R, C>)b; }
template <typename T, typename U, int R, int C, typename = typename std::enable_if<!std::is_same<T, U>::value>::type>
__device__ Matrix<T, R, C>& operator-=(Matrix<T, R, C>& a, const Matrix<U, R, C>& b) { return a = a - (Matrix<T, R, C>)b; }
template <typename T, typename U, int R, int C, typename = typename std::enable_if<!std::is_same<T, U>::value>::type>
__device__ bool operator==(const Matrix<T, R, C>& a, const Matrix<U, R, C>& b) {
  typedef typename joined<T, U>::type S; for (int i = 0; i < R * C; ++i) if (!((S)a[i] == (S)b[i])) return false; return true; }
template <typename T, typename U, int R, int C, typename = typename std::enable_if<!std::is_same<T, U>::value>::type>
__device__ bool operator!=(const Matrix<T, R, C>& a, const Matrix<U, R, C>& b) { return !(a == b); }
template <typename T, typename U, int D, typename = typename std::enable_if<!std::is_same<T, U>::value>::type>
__device__ Point<T, D> operator+(const Point<T, D>& p, const Matrix<U, D, 1>& v) { return {p.coords + (Matrix<T, D, 1>)v}; }
template <typename T, typename U, int D, typename = typename std::enable_if<!std::is_same<T, U>::value>::type>
__device__ Point<T, D> operator-(const Point<T, D>& p, const Matrix<U, D, 1>& v) { return {p.coords - (Matrix<T, D, 1>)v}; }
// `m.cast::<T>()`: every element converted with `as`.
template <typename T, typename U, int R, int C> __device__ Matrix<T, R, C> cast(const Matrix<U, R, C>& a) {
  Matrix<T, R, C> r; for (int i = 0; i < R * C; ++i) r[i] = (T)a[i]; return r; }
template <typename T, typename U, int D> __device__ Point<T, D> cast(const Point<U, D>& p) { return {cast<T>(p.coords)}; }
} }
"#
    };
}

/// Whether a type's name is one of nalgebra's fixed-size matrices or points (or sparkl-like
/// aliases of them: `Vector<N>`, `Point<N>`).
fn nalgebra_name(name: &str) -> bool {
    let sized = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|d| d.is_empty() || d.parse::<u32>().is_ok() || d.split_once('x').is_some())
    };
    sized("Vector")
        || sized("Point")
        || sized("Matrix")
        || sized("RowVector")
        || matches!(name, "SVector" | "SMatrix" | "OVector" | "OPoint")
}

impl Context<'_> {
    /// `m.cast::<T>()` of a value that is a nalgebra matrix or point.
    pub(super) fn nalgebra_cast(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Some(target) = m.turbofish.as_ref().and_then(|t| match t.args.first() {
            Some(GenericArgument::Type(ty)) if t.args.len() == 1 => Some(ty),
            _ => None,
        }) else {
            return Ok(None);
        };
        if matches!(target, Type::Tuple(_) | Type::Ptr(_)) || !self.is_nalgebra_value(&m.receiver, scope) {
            return Ok(None);
        }
        let receiver = self.expr(&m.receiver, scope)?;
        let receiver = if super::nalgebra::is_reference(&m.receiver, scope) {
            format!("(*{receiver})")
        } else {
            receiver
        };
        Ok(Some(format!("kl::na::cast<{}>({receiver})", self.c_type(target)?)))
    }

    /// Whether the source shows an expression to be a nalgebra matrix or point (not a pointer
    /// to one).
    fn is_nalgebra_value(&self, e: &Expr, scope: &Scope) -> bool {
        match e {
            Expr::Paren(p) => self.is_nalgebra_value(&p.expr, scope),
            Expr::Macro(m) => m.mac.path.is_ident("vector") || m.mac.path.is_ident("point"),
            Expr::Binary(b) => {
                use syn::BinOp::{Add, Div, Mul, Sub};
                matches!(b.op, Add(_) | Sub(_) | Mul(_) | Div(_))
                    && (self.is_nalgebra_value(&b.left, scope) || self.is_nalgebra_value(&b.right, scope))
            }
            Expr::Path(p) => {
                let Some(name) = p.path.get_ident().map(|i| scope.lookup(&i.to_string())) else {
                    return false;
                };
                !scope.raw_pointers.contains(&name) && scope.types.get(&name).is_some_and(|t| self.names_nalgebra(t))
            }
            // A method whose declared return type is a matrix, not a pointer to one.
            Expr::MethodCall(m) => {
                let Some(receiver) = self.value_type_of(&m.receiver, scope) else {
                    return false;
                };
                let method = m.method.to_string();
                let mut found = self
                    .layouts
                    .index
                    .methods_named(&method, self.layouts.module)
                    .filter(|f| f.self_type == Some(receiver.as_str()));
                let Some(f) = found.next() else { return false };
                found.next().is_none()
                    && matches!(&f.sig.output, syn::ReturnType::Type(_, ty) if matches!(&**ty,
                        Type::Path(p) if p.path.segments.last().is_some_and(|s| self.names_nalgebra(&s.ident.to_string()))))
            }
            _ => false,
        }
    }

    fn names_nalgebra(&self, name: &str) -> bool {
        let path: syn::Path = syn::Ident::new(name, proc_macro2::Span::call_site()).into();
        nalgebra_name(name) && self.layouts.struct_fields(&path).is_none()
    }
}

impl Context<'_> {
    /// The value of the field `field` of a struct literal of the C type `ty`: `Vector::zeros()`
    /// takes its scalar and shape from the field it initializes, as Rust infers them.
    pub(super) fn field_value(&self, value: &Expr, ty: &str, field: &str, scope: &mut Scope) -> Lowered<String> {
        if let Expr::Call(c) = value {
            if let Expr::Path(p) = &*c.func {
                let segments: Vec<_> = p.path.segments.iter().collect();
                if let [.., owner, function] = segments.as_slice() {
                    let untyped = matches!(owner.arguments, syn::PathArguments::None)
                        && self.names_nalgebra(&owner.ident.to_string());
                    let function = function.ident.to_string();
                    if untyped && c.args.is_empty() && matches!(function.as_str(), "zeros" | "identity") {
                        let member = if field.parse::<u32>().is_ok() {
                            format!("_{field}")
                        } else {
                            super::ident(field)
                        };
                        return Ok(format!("kl::na::{function}<decltype({ty}::{member})>()"));
                    }
                }
            }
        }
        self.expr(value, scope)
    }
}
