//! Methods and functions of Rust's primitive numbers and pointers that compute in registers:
//! bit reinterpretation (`to_bits`, `from_bits`, `transmute` between scalars), overflowing and
//! widening integer arithmetic, the float math family, float classification, pointer
//! inspection. None of them touches memory, except the copies and swaps, which keep Rust's
//! typed reads and writes element by element.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::{Expr, Type};

/// Float methods of one operand that are CUDA math functions of the same name (the `f32` one
/// with an `f` suffix), overloaded on `float` and `double` in [`numeric_prelude`].
const MATH1: &[&str] = &[
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "exp_m1",
    "ln_1p",
    "fract",
    "sin_cos",
    "round_ties_even",
];

/// Float methods of two operands, likewise.
const MATH2: &[&str] = &["atan2", "hypot", "copysign", "log", "div_euclid"];

/// Integer methods lowered to a template of the prelude, by the number of operands.
const INTEGER: &[(&str, usize)] = &[
    ("overflowing_add", 1),
    ("overflowing_sub", 1),
    ("overflowing_mul", 1),
    ("carrying_mul_add", 3),
    ("carrying_mul", 2),
    ("widening_mul", 1),
    ("saturating_add", 1),
    ("saturating_sub", 1),
    ("rotate_left", 1),
    ("div_ceil", 1),
    ("is_multiple_of", 1),
    ("rotate_right", 1),
    ("count_ones", 0),
    ("is_power_of_two", 0),
    ("leading_zeros", 0),
    ("trailing_zeros", 0),
    ("swap_bytes", 0),
    ("reverse_bits", 0),
];

/// C math functions a kernel may call by name through `libm` or libdevice's `__nv_` externs.
const C_MATH: &[&str] = &[
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "exp",
    "exp2",
    "exp10",
    "expm1",
    "log",
    "log2",
    "log10",
    "log1p",
    "pow",
    "sqrt",
    "cbrt",
    "rsqrt",
    "hypot",
    "fabs",
    "floor",
    "ceil",
    "round",
    "trunc",
    "rint",
    "nearbyint",
    "fmod",
    "fdim",
    "fmin",
    "fmax",
    "fma",
    "copysign",
    "erf",
    "erfc",
    "tgamma",
    "lgamma",
    "sinpi",
    "cospi",
];

/// Whether `name` is a C math function, or its `float` form with an `f` suffix.
fn c_math(name: &str) -> bool {
    C_MATH.contains(&name) || name.strip_suffix('f').is_some_and(|stem| C_MATH.contains(&stem))
}

/// Float methods of one operand the prelude defines for `float` and `double`.
fn float_method(name: &str) -> bool {
    MATH1.contains(&name)
        || matches!(
            name,
            "floor"
                | "ceil"
                | "round"
                | "trunc"
                | "exp"
                | "exp2"
                | "ln"
                | "log2"
                | "log10"
                | "sin"
                | "cos"
                | "tan"
                | "tanh"
                | "sqrt"
                | "cbrt"
                | "abs"
        )
}

/// A primitive scalar type named by a generic argument.
fn scalar_argument(a: &syn::GenericArgument) -> Option<String> {
    match a {
        syn::GenericArgument::Type(Type::Path(p)) if p.qself.is_none() => {
            let name = last_segment(&p.path);
            Context::primitive(&name).map(|_| name)
        }
        _ => None,
    }
}

/// A literal of a half type, `1.0f16`: C++ has no such literal, and a `float` one would make
/// the arithmetic with a `__half` ambiguous.
pub(super) fn half_literal(suffix: &str, digits: &str) -> Option<String> {
    let ty = match suffix {
        "f16" => "__half",
        "bf16" => "__nv_bfloat16",
        _ => return None,
    };
    Some(format!("(({ty}){digits}f)"))
}

/// The finite float of width `ty` whose bits are `bits`, as a C++ literal that reads back to it.
fn float_literal(ty: &str, bits: i64) -> Option<String> {
    let text = match ty {
        "f32" => {
            let v = f32::from_bits(u32::try_from(bits as u64 & 0xffff_ffff).ok()?);
            v.is_finite().then(|| format!("{v:e}f"))?
        }
        "f64" => {
            let v = f64::from_bits(bits as u64);
            v.is_finite().then(|| format!("{v:e}"))?
        }
        _ => return None,
    };
    Some(format!("({text})"))
}

/// `f32::NAN` and `f64::NAN`: the builtin quiet NaN (`0x7fc00000`, as Rust's), a constant
/// expression as a `constexpr` needs.
pub(super) fn nan_constant(ty: &str, name: &str) -> Option<String> {
    match (ty, name) {
        ("f32", "NAN") => Some("__builtin_nanf(\"\")".to_string()),
        ("f64", "NAN") => Some("__builtin_nan(\"\")".to_string()),
        _ => None,
    }
}

impl Context<'_> {
    /// Whether a method name is one the workspace defines: then its own definition is used.
    pub(super) fn workspace_method(&self, method: &str) -> bool {
        self.layouts
            .index
            .methods_named(method, self.layouts.module)
            .next()
            .is_some()
    }

    /// A method of a primitive number or pointer.
    pub(super) fn numeric_method(&self, m: &syn::ExprMethodCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let method = m.method.to_string();
        let arity = m.args.len();
        let known = match method.as_str() {
            "to_bits" | "to_ne_bytes" | "to_le_bytes" | "is_nan" | "is_infinite" | "is_finite" | "is_sign_negative"
            | "is_sign_positive" | "is_null" | "addr" | "cast_const" | "cast_mut" => arity == 0,
            // Of a compare-exchange's result, the only `Result` the twin has.
            "is_ok" | "is_err" => arity == 0,
            name if MATH1.contains(&name) => arity == 0,
            name if MATH2.contains(&name) => arity == 1,
            name => INTEGER.iter().any(|&(n, a)| n == name && a == arity),
        };
        if !known || self.workspace_method(&method) {
            return Ok(None);
        }
        let receiver = self.expr(&m.receiver, scope)?;
        let args: Vec<String> = m.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        Ok(Some(match (method.as_str(), args.as_slice()) {
            ("cast_const", []) => format!("kl::cast_const({receiver})"),
            ("cast_mut", []) => format!("kl::cast_mut({receiver})"),
            ("is_null", []) => format!("(kl::pointer_of({receiver}) == nullptr)"),
            ("addr", []) => format!("kl::address_of({receiver})"),
            ("to_le_bytes", []) => format!("kl::to_ne_bytes({receiver})"),
            // `log(base)` is the one that takes its base second.
            (name, []) => format!("kl::{name}({receiver})"),
            (name, args) => format!("kl::{name}({receiver}, {})", args.join(", ")),
        }))
    }

    /// `f32::from_bits(u)`, `core::mem::transmute::<A, B>(x)`, `core::hint::select_unpredictable`,
    /// the copies and swaps of `core::ptr` and `core::mem`, and C math called by name.
    pub(super) fn numeric_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let name = last_segment(&p.path);
        if self.helpers.contains(&name) {
            return Ok(None);
        }
        let owner = p.path.segments.iter().rev().nth(1).map(|s| s.ident.to_string());
        let generics: Vec<&syn::GenericArgument> = match p.path.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(a)) => a.args.iter().collect(),
            _ => Vec::new(),
        };
        let float_owner = owner
            .as_deref()
            .filter(|o| matches!(*o, "f16" | "bf16" | "f32" | "f64"));
        let core_path = |module: &str| p.path.segments.len() == 1 || matches!(owner.as_deref(), Some(o) if o == module);
        let shape = match name.as_str() {
            "from_bits" | "to_bits" if float_owner.is_some() && c.args.len() == 1 => true,
            "transmute" | "transmute_copy" if core_path("mem") && c.args.len() == 1 => true,
            "select_unpredictable" if core_path("hint") && c.args.len() == 3 => true,
            "copy_nonoverlapping" | "copy" if core_path("ptr") && c.args.len() == 3 => true,
            "swap" if owner.as_deref() == Some("mem") && c.args.len() == 2 => true,
            "replace" if owner.as_deref() == Some("mem") && c.args.len() == 2 => true,
            "null" | "null_mut" if owner.as_deref() == Some("ptr") && c.args.is_empty() => true,
            "read_volatile" | "write_volatile" if owner.as_deref() == Some("ptr") => true,
            // `libm::sinf(x)` and libdevice's `__nv_sinf(x)` are the C functions.
            other if owner.as_deref() == Some("libm") && c_math(other) => true,
            "sincos" | "sincosf" if owner.as_deref() == Some("libm") && c.args.len() == 1 => true,
            // `core::f32::math::floor(x)`: the float method as a function.
            other if owner.as_deref() == Some("math") && c.args.len() == 1 && float_method(other) => true,
            "mul_add" if owner.as_deref() == Some("math") && c.args.len() == 3 => true,
            "powi" | "powf" if owner.as_deref() == Some("math") && c.args.len() == 2 => true,
            "from_ne_bytes" | "from_le_bytes"
                if owner.as_deref().and_then(Self::primitive).is_some() && c.args.len() == 1 =>
            {
                true
            }
            other if other.strip_prefix("__nv_").is_some_and(c_math) => true,
            // nvptx-std's `fmaf(x, y, z)`: an extern bound to libdevice's `__nv_fmaf`.
            other if owner.is_none() && c_math(other) && self.libdevice_extern(other) => true,
            _ => false,
        };
        if !shape {
            return Ok(None);
        }
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        Ok(Some(match (name.as_str(), args.as_slice()) {
            ("from_bits", [bits]) => {
                let owner = float_owner.unwrap_or("f32");
                // Constant bits are the float literal they spell, which a `constexpr` accepts.
                let constant = self
                    .layouts
                    .const_value(&c.args[0])
                    .and_then(|v| float_literal(owner, v));
                match constant {
                    Some(literal) => literal,
                    None => format!("kl::from_bits<{}>({bits})", Self::primitive(owner).unwrap_or("float")),
                }
            }
            ("to_bits", [value]) => format!("kl::to_bits({value})"),
            ("transmute", [value]) if generics.is_empty() && super::inferred_pointers::is_pointer_value(&c.args[0]) => {
                // A pointer into a reference: the same address, and a reference is a pointer in C.
                value.clone()
            }
            ("transmute" | "transmute_copy", [value]) if self.non_null_transmute(&generics, value).is_some() => self
                .non_null_transmute(&generics, value)
                .unwrap_or_else(|| Ok(value.clone()))?,
            ("transmute" | "transmute_copy", [value]) => {
                // Only scalars of named types: an aggregate's layout is not the C++ one.
                let (Some(from), Some(to)) = (
                    generics.first().and_then(|a| scalar_argument(a)),
                    generics.get(1).and_then(|a| scalar_argument(a)),
                ) else {
                    return self.fail(c, "`transmute` other than between named scalar types is not lowered");
                };
                let (from, to) = (Self::primitive(&from), Self::primitive(&to));
                format!(
                    "kl::transmute<{}>(({}){value})",
                    to.unwrap_or("int"),
                    from.unwrap_or("int")
                )
            }
            // A function: both values are computed, as Rust computes its arguments.
            ("select_unpredictable", [condition, a, b]) => format!("kl::select({condition}, {a}, {b})"),
            ("copy_nonoverlapping", [src, dst, count]) => format!("kl::copy_elements({src}, {dst}, {count})"),
            ("copy", [src, dst, count]) => format!("kl::move_elements({src}, {dst}, {count})"),
            ("swap", [a, b]) => format!("kl::swap_values({a}, {b})"),
            ("replace", [place, value]) => format!("kl::replace_value({place}, {value})"),
            ("null" | "null_mut", []) => "nullptr".to_string(),
            ("sincos" | "sincosf", [x]) => format!("kl::sin_cos({x})"),
            (other, [x]) if owner.as_deref() == Some("math") => format!("kl::{other}({x})"),
            ("mul_add", [a, b, c]) => format!("kl::mul_add({a}, {b}, {c})"),
            ("powi" | "powf", [x, n]) => format!("kl::{name}({x}, {n})"),
            ("from_ne_bytes" | "from_le_bytes", [bytes]) => {
                super::byte_order::from_bytes(owner.as_deref().and_then(Self::primitive).unwrap_or("int"), bytes)
            }
            ("read_volatile", [pointer]) => format!("kl::read_volatile({pointer})"),
            ("write_volatile", [pointer, value]) => format!("kl::write_volatile({pointer}, {value})"),
            // The C function of one float type: its operands in that type, as Rust's are.
            (other, args) => {
                let function = other.strip_prefix("__nv_").unwrap_or(other);
                let float = if C_MATH.contains(&function) { "double" } else { "float" };
                let args: Vec<String> = args.iter().map(|a| format!("({float})({a})")).collect();
                format!("::{function}({})", args.join(", "))
            }
        }))
    }
}

impl Context<'_> {
    /// Whether the workspace declares `name` as an extern function linked to libdevice's
    /// `__nv_name`, which is the C function of that name.
    fn libdevice_extern(&self, name: &str) -> bool {
        fn walk(items: &[syn::Item], name: &str) -> bool {
            items.iter().any(|item| match item {
                syn::Item::Mod(m) => m.content.as_ref().is_some_and(|(_, inner)| walk(inner, name)),
                syn::Item::ForeignMod(f) => f.items.iter().any(|i| match i {
                    syn::ForeignItem::Fn(f) => {
                        f.sig.ident == name
                            && f.attrs.iter().any(|a| {
                                a.path().is_ident("link_name")
                                    && matches!(&a.meta, syn::Meta::NameValue(nv)
                                        if matches!(&nv.value, syn::Expr::Lit(l)
                                            if matches!(&l.lit, syn::Lit::Str(s) if s.value() == format!("__nv_{name}"))))
                            })
                    }
                    _ => false,
                }),
                _ => false,
            })
        }
        self.workspace.syntax.iter().flatten().any(|s| walk(&s.items, name))
    }
}

/// C++ for the numeric lowering, appended to the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! numeric_prelude {
    () => {
        r#"#ifndef __CUDACC__
// Without nvcc (a syntax check) the half types' reinterpreting builtins stand in as declarations.
__half __ushort_as_half(unsigned short);
unsigned short __half_as_ushort(__half);
__nv_bfloat16 __ushort_as_bfloat16(unsigned short);
unsigned short __bfloat16_as_ushort(__nv_bfloat16);
#endif
namespace kl {
// Bit reinterpretation, as Rust's `to_bits` and `from_bits` of each float width.
__device__ inline unsigned int to_bits(float v) { return __float_as_uint(v); }
__device__ inline unsigned long long to_bits(double v) { return (unsigned long long)__double_as_longlong(v); }
__device__ inline unsigned short to_bits(__half v) { return __half_as_ushort(v); }
__device__ inline unsigned short to_bits(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
template <typename F> struct float_bits;
template <> struct float_bits<float> { __device__ static float from(unsigned int b) { return __uint_as_float(b); } };
template <> struct float_bits<double> {
  __device__ static double from(unsigned long long b) { return __longlong_as_double((long long)b); }
};
template <> struct float_bits<__half> { __device__ static __half from(unsigned short b) { return __ushort_as_half(b); } };
template <> struct float_bits<__nv_bfloat16> {
  __device__ static __nv_bfloat16 from(unsigned short b) { return __ushort_as_bfloat16(b); }
};
template <typename F, typename B> __device__ F from_bits(B bits) { return float_bits<F>::from(bits); }
// `transmute` between scalars of one size: the same bytes read as the other type.
template <typename To, typename From> __device__ To transmute(From v) {
  static_assert(sizeof(To) == sizeof(From), "transmute between types of one size");
  To out;
  __builtin_memcpy(&out, &v, sizeof(To));
  return out;
}
template <typename T> __device__ array<unsigned char, sizeof(T)> to_ne_bytes(T v) {
  array<unsigned char, sizeof(T)> out;
  __builtin_memcpy(out.v, &v, sizeof(T));
  return out;
}
// Float classification.
template <typename T> __device__ bool is_nan(T v) { return v != v; }
template <typename T> __device__ bool is_infinite(T v) { return v == infinity<T>() || v == -infinity<T>(); }
template <typename T> __device__ bool is_finite(T v) { return !is_nan(v) && !is_infinite(v); }
template <typename T> __device__ bool is_sign_negative(T v) { return (to_bits(v) >> (sizeof(T) * 8 - 1)) != 0; }
template <typename T> __device__ bool is_sign_positive(T v) { return !is_sign_negative(v); }
// The rest of the float math family.
#define KL_MATH1(name, f32, f64) \
  __device__ inline float name(float x) { return ::f32(x); } \
  __device__ inline double name(double x) { return ::f64(x); }
KL_MATH1(asin, asinf, asin)
KL_MATH1(acos, acosf, acos)
KL_MATH1(atan, atanf, atan)
KL_MATH1(sinh, sinhf, sinh)
KL_MATH1(cosh, coshf, cosh)
KL_MATH1(asinh, asinhf, asinh)
KL_MATH1(acosh, acoshf, acosh)
KL_MATH1(atanh, atanhf, atanh)
KL_MATH1(exp_m1, expm1f, expm1)
KL_MATH1(ln_1p, log1pf, log1p)
KL_MATH1(round_ties_even, rintf, rint)
#undef KL_MATH1
#define KL_MATH2(name, f32, f64) \
  __device__ inline float name(float x, float y) { return ::f32(x, y); } \
  __device__ inline double name(double x, double y) { return ::f64(x, y); }
KL_MATH2(atan2, atan2f, atan2)
KL_MATH2(hypot, hypotf, hypot)
KL_MATH2(copysign, copysignf, copysign)
#undef KL_MATH2
__device__ inline float fract(float x) { return x - ::truncf(x); }
__device__ inline double fract(double x) { return x - ::trunc(x); }
__device__ inline float log(float x, float base) { return ::logf(x) / ::logf(base); }
__device__ inline double log(double x, double base) { return ::log(x) / ::log(base); }
__device__ inline float div_euclid(float a, float b) {
  float q = ::truncf(a / b);
  return ::fmodf(a, b) < 0 ? (b > 0 ? q - 1 : q + 1) : q;
}
__device__ inline double div_euclid(double a, double b) {
  double q = ::trunc(a / b);
  return ::fmod(a, b) < 0 ? (b > 0 ? q - 1 : q + 1) : q;
}
template <typename T> __device__ tuple2<T, T> sin_cos(T x) { return {sin(x), cos(x)}; }
// Integer traits that hold for `__int128` too, which strict C++ leaves out of the standard ones.
template <typename T> struct unsigned_of { using type = std::make_unsigned_t<T>; };
template <> struct unsigned_of<__int128> { using type = unsigned __int128; };
template <> struct unsigned_of<unsigned __int128> { using type = unsigned __int128; };
template <typename T> using unsigned_t = typename unsigned_of<T>::type;
template <typename T> __host__ __device__ constexpr bool is_signed() { return (T)-1 < (T)0; }
template <typename T> __host__ __device__ constexpr T max_of() { return is_signed<T>() ? (T)(unsigned_t<T>(~unsigned_t<T>(0)) >> 1) : (T)~unsigned_t<T>(0); }
template <typename T> __host__ __device__ constexpr T min_of() { return is_signed<T>() ? (T)(-max_of<T>() - 1) : (T)0; }
// Integer arithmetic that reports overflow or keeps the high half, in the operand's type.
template <typename T, typename U> __device__ tuple2<T, bool> overflowing_add(T a, U b_) {
  using W = unsigned_t<T>;
  T b = (T)b_, r = (T)(W)((W)a + (W)b);
  if constexpr (is_signed<T>()) return {r, ((a ^ r) & (b ^ r)) < 0};
  else return {r, r < a};
}
template <typename T, typename U> __device__ tuple2<T, bool> overflowing_sub(T a, U b_) {
  using W = unsigned_t<T>;
  T b = (T)b_, r = (T)(W)((W)a - (W)b);
  if constexpr (is_signed<T>()) return {r, ((a ^ b) & (a ^ r)) < 0};
  else return {r, a < b};
}
template <typename T, typename U> __device__ tuple2<T, bool> overflowing_mul(T a, U b_) {
  using W = unsigned_t<T>;
  T b = (T)b_, r = (T)(W)((W)a * (W)b);
  if constexpr (is_signed<T>()) {
    bool min_by_minus_one = (a == (T)-1 && b == min_of<T>()) ||
                            (b == (T)-1 && a == min_of<T>());
    return {r, min_by_minus_one || (a != 0 && (T)(r / a) != b)};
  } else {
    return {r, a != 0 && (T)(r / a) != b};
  }
}
template <typename T> struct wider;
template <> struct wider<unsigned int> { using type = unsigned long long; };
template <> struct wider<int> { using type = long long; };
template <> struct wider<unsigned long long> { using type = unsigned __int128; };
template <> struct wider<long long> { using type = __int128; };
template <> struct wider<unsigned short> { using type = unsigned int; };
template <> struct wider<short> { using type = int; };
template <> struct wider<unsigned char> { using type = unsigned short; };
template <> struct wider<signed char> { using type = short; };
// `carrying_mul_add`: self * b + c + d in twice the width, as (low half unsigned, high half).
template <typename T, typename B, typename C, typename D>
__device__ tuple2<unsigned_t<T>, T> carrying_mul_add(T a, B b, C c, D d) {
  using Wide = typename wider<T>::type;
  Wide r = (Wide)a * (Wide)(T)b + (Wide)(T)c + (Wide)(T)d;
  return {(unsigned_t<T>)r, (T)(r >> (sizeof(T) * 8))};
}
template <typename T, typename B, typename C>
__device__ tuple2<unsigned_t<T>, T> carrying_mul(T a, B b, C c) { return carrying_mul_add(a, b, c, (T)0); }
template <typename T, typename B> __device__ tuple2<unsigned_t<T>, T> widening_mul(T a, B b) {
  return carrying_mul_add(a, b, (T)0, (T)0);
}
// Unsigned `div_ceil` (the one Rust has stable): the quotient rounded up.
template <typename T, typename U> __host__ __device__ constexpr T div_ceil(T a, U b) { return a / (T)b + (a % (T)b != 0 ? 1 : 0); }
template <typename T, typename U> __device__ T saturating_add(T a, U b) {
  auto r = overflowing_add(a, b);
  if (!r._1) return r._0;
  if constexpr (is_signed<T>()) return (T)b < 0 ? min_of<T>() : max_of<T>();
  else return max_of<T>();
}
template <typename T, typename U> __device__ T saturating_sub(T a, U b) {
  auto r = overflowing_sub(a, b);
  if (!r._1) return r._0;
  if constexpr (is_signed<T>()) return (T)b > 0 ? min_of<T>() : max_of<T>();
  else return (T)0;
}
template <typename T, typename U> __host__ __device__ constexpr T rotate_left(T a, U n) {
  using W = unsigned_t<T>;
  constexpr unsigned bits = sizeof(T) * 8;
  unsigned s = (unsigned)n % bits;
  return s == 0 ? a : (T)(W)(((W)a << s) | ((W)a >> (bits - s)));
}
template <typename T, typename U> __host__ __device__ constexpr T rotate_right(T a, U n) {
  constexpr unsigned bits = sizeof(T) * 8;
  return rotate_left(a, bits - (unsigned)n % bits);
}
template <typename T> __host__ __device__ constexpr bool is_power_of_two(T a) { return a != 0 && (a & (T)(a - 1)) == 0; }
template <typename T> __host__ __device__ constexpr unsigned int count_ones(T a) {
  using W = unsigned_t<T>;
  W w = (W)a;
  unsigned int n = 0;
  for (; w; w &= (W)(w - 1)) ++n;
  return n;
}
template <typename T> __host__ __device__ constexpr unsigned int leading_zeros(T a) {
  using W = unsigned_t<T>;
  unsigned int n = 0;
  for (W bit = (W)((W)1 << (sizeof(T) * 8 - 1)); bit && !((W)a & bit); bit >>= 1) ++n;
  return n;
}
template <typename T> __host__ __device__ constexpr unsigned int trailing_zeros(T a) {
  using W = unsigned_t<T>;
  unsigned int n = 0;
  for (W w = (W)a; n < sizeof(T) * 8 && !(w & 1); w >>= 1) ++n;
  return n;
}
template <typename T> __device__ T swap_bytes(T a) {
  T out;
  unsigned char* o = (unsigned char*)&out;
  const unsigned char* i = (const unsigned char*)&a;
  for (unsigned k = 0; k < sizeof(T); ++k) o[k] = i[sizeof(T) - 1 - k];
  return out;
}
template <typename T> __host__ __device__ constexpr T reverse_bits(T a) {
  using W = unsigned_t<T>;
  W w = (W)a, r = 0;
  for (unsigned k = 0; k < sizeof(T) * 8; ++k, w >>= 1) r = (W)((r << 1) | (w & 1));
  return (T)r;
}
// `select_unpredictable`: both values are computed before the choice.
template <typename T, typename U> __device__ T select(bool c, T a, U b) { return c ? a : (T)b; }
// Pointers: their address, their constness.
template <typename T> __device__ T* pointer_of(T* p) { return p; }
template <typename T> __device__ T* pointer_of(ref<T> r) { return r.p; }
template <typename P> __device__ unsigned long long address_of(P p) {
  return (unsigned long long)reinterpret_cast<std::uintptr_t>(pointer_of(p));
}
template <typename T> __device__ const T* cast_const(T* p) { return p; }
template <typename T> __device__ T* cast_mut(const T* p) { return const_cast<T*>(p); }
// Copies element by element, each a typed read and a typed write as the Rust types are.
template <typename S, typename D, typename N> __device__ void copy_elements(S* src, D* dst, N count) {
  for (N i = 0; i < count; ++i) dst[i] = src[i];
}
template <typename S, typename D, typename N> __device__ void move_elements(S* src, D* dst, N count) {
  if ((const void*)dst <= (const void*)src) {
    for (N i = 0; i < count; ++i) dst[i] = src[i];
  } else {
    for (N i = count; i > 0; --i) dst[i - 1] = src[i - 1];
  }
}
template <typename T> __device__ void swap_values(T* a, T* b) { T t = *a; *a = *b; *b = t; }
template <typename T, typename U> __device__ T replace_value(T* place, U value) { T old = *place; *place = (T)value; return old; }
template <typename T> __device__ T read_volatile(const T* p) { return *static_cast<const volatile T*>(p); }
template <typename T, typename U> __device__ void write_volatile(T* p, U v) { *static_cast<volatile T*>(p) = (T)v; }
}
"#
    };
}
