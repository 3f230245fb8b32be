//! Atomics of `cuda_device` cells at every ordering, value width and scope, as cuda-oxide
//! lowers them: loads and stores are one `ld`/`st` with the ordering and scope in the
//! instruction (`ld.acquire.gpu.b32`; SeqCst puts `fence.sc` first); read-modify-writes are
//! the relaxed CUDA builtin of the cell's scope between fences (`fence.acq_rel` after an
//! acquire, before a release; `fence.sc` on both sides for SeqCst). Every form is the one
//! access of the cell's width that the Rust operation is.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::Expr;

/// An ordering as `kl::oxide_*` numbers it.
fn ordering(name: &str) -> Option<u8> {
    Some(match name {
        "Relaxed" => 0,
        "Acquire" => 1,
        "Release" => 2,
        "AcqRel" => 3,
        "SeqCst" => 4,
        _ => return None,
    })
}

/// The ordering an argument names: `AtomicOrdering::Acquire`, `Ordering::SeqCst`.
pub(super) fn ordering_argument(e: &Expr) -> Option<(String, u8)> {
    let Expr::Path(p) = e else { return None };
    let owner = p.path.segments.iter().rev().nth(1)?.ident.to_string();
    if !matches!(owner.as_str(), "AtomicOrdering" | "Ordering") {
        return None;
    }
    let name = last_segment(&p.path);
    ordering(&name).map(|o| (name, o))
}

/// `atomic_load::<u32, { AtomicOrdering::Acquire }>`: the ordering of a core intrinsic.
fn intrinsic_ordering(path: &syn::Path) -> Option<u8> {
    let syn::PathArguments::AngleBracketed(a) = &path.segments.last()?.arguments else {
        return None;
    };
    a.args.iter().find_map(|arg| {
        let e = match arg {
            syn::GenericArgument::Const(e) => e,
            _ => return None,
        };
        let inner = match e {
            Expr::Block(b) => match b.block.stmts.as_slice() {
                [syn::Stmt::Expr(inner, None)] => inner,
                _ => return None,
            },
            other => other,
        };
        match inner {
            Expr::Path(p) => ordering(&last_segment(&p.path)),
            _ => None,
        }
    })
}

/// `&cells[i]`, `cells[i]` or `cell` of a slice or name of atomic cells: its value type and scope.
pub(super) fn atomic_element(e: &Expr, scope: &Scope) -> Option<(&'static str, u8)> {
    match e {
        Expr::Reference(r) => atomic_element(&r.expr, scope),
        Expr::Paren(p) => atomic_element(&p.expr, scope),
        Expr::Index(i) => atomic_element(&i.expr, scope),
        Expr::Path(p) => {
            let name = scope.lookup(&p.path.get_ident()?.to_string());
            scope.oxide.atomics.get(&name).copied()
        }
        _ => None,
    }
}

/// Wraps the relaxed read-modify-write `op` of a cell of scope `scope` in the fences of
/// `order`.
fn fenced(op: &str, order: u8, scope: u8) -> String {
    match order {
        1 => format!("kl::oxide_acquired<{scope}>({op})"),
        2 => format!("(kl::oxide_fence_acq_rel<{scope}>(), {op})"),
        3 => format!("kl::oxide_acquired<{scope}>((kl::oxide_fence_acq_rel<{scope}>(), {op}))"),
        4 => format!("kl::oxide_sc_fenced<{scope}>((kl::oxide_fence_sc<{scope}>(), {op}))"),
        _ => op.to_string(),
    }
}

impl Context<'_> {
    /// One operation of an atomic cell of `value` type and `scope`, with its ordering; the
    /// receiver and operands are already lowered.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn atomic_operation(
        &self,
        m: &syn::ExprMethodCall,
        operation: &str,
        order_name: &str,
        value: &'static str,
        scope: u8,
        receiver: &str,
        operands: &[String],
    ) -> Lowered<String> {
        let method = m.method.to_string();
        let Some(order) = ordering(order_name) else {
            return self.fail(m, format!("atomic ordering `{order_name}` is not known"));
        };
        let c_value = Self::primitive(value).unwrap_or("unsigned int");
        let integer32 = matches!(value, "u32" | "i32");
        let wide_integer = matches!(value, "u64" | "usize" | "i64" | "isize");
        let unsigned64 = matches!(value, "u64" | "usize");
        match (operation, operands) {
            ("load", []) => {
                if matches!(order, 2 | 3) {
                    return self.fail(m, format!("atomic `load` with `{order_name}` ordering panics"));
                }
                // A relaxed load of a cell a plain volatile read can hold stays that one read.
                if order == 0 && value != "f16" {
                    return Ok(format!("kl::oxide_atomic_load({receiver})"));
                }
                Ok(format!("kl::oxide_load<{order}>({receiver})"))
            }
            ("store", [v]) => {
                if matches!(order, 1 | 3) {
                    return self.fail(m, format!("atomic `store` with `{order_name}` ordering panics"));
                }
                if order == 0 && value != "f16" {
                    return Ok(format!("kl::oxide_atomic_store({receiver}, {v})"));
                }
                Ok(format!("kl::oxide_store<{order}>({receiver}, {v})"))
            }
            ("compare_exchange" | "compare_exchange_weak", [current, new]) => {
                if !(integer32 || wide_integer) {
                    return self.fail(m, format!("atomic `{method}` of `{value}` has no CUDA builtin"));
                }
                Ok(fenced(
                    &format!("kl::oxide_cas({receiver}, {current}, {new})"),
                    order,
                    scope,
                ))
            }
            (_, [v]) => {
                let op = match (operation, value) {
                    // Half cells: one 16-bit `atom.add.noftz.f16` at the cell's scope; a
                    // subtraction adds the value with its sign bit flipped.
                    ("add", "f16") => format!("kl::oxide_atomic_add_f16({receiver}, {v}, false)"),
                    ("sub", "f16") => format!("kl::oxide_atomic_add_f16({receiver}, {v}, true)"),
                    // No 16-bit `atom.exch`: the compiler's loop of 16-bit compare-and-swaps.
                    ("swap", "f16") => format!("kl::oxide_atomic_swap_f16({receiver}, {v})"),
                    // Subtraction without a builtin: the addition of the negated value.
                    ("sub", "f32" | "f64") => format!("kl::oxide_atomic_add({receiver}, (-({c_value})({v})))"),
                    ("add", _) if matches!(value, "u32" | "i32" | "u64" | "usize" | "f32" | "f64") => {
                        format!("kl::oxide_atomic_add({receiver}, {v})")
                    }
                    ("sub", _) if integer32 => format!("kl::oxide_atomic_sub({receiver}, {v})"),
                    ("sub", _) if unsigned64 => {
                        format!("kl::oxide_atomic_add({receiver}, (({c_value})0 - ({c_value})({v})))")
                    }
                    ("and" | "or" | "xor", _) if integer32 || unsigned64 => {
                        format!("kl::oxide_atomic_{operation}({receiver}, {v})")
                    }
                    ("min" | "max", _) if integer32 || wide_integer => {
                        format!("kl::oxide_atomic_{operation}({receiver}, {v})")
                    }
                    ("swap", _) if integer32 || unsigned64 || value == "f32" => {
                        format!("kl::oxide_atomic_swap({receiver}, {v})")
                    }
                    // Signed 64-bit and `f64` exchange: the unsigned builtin of the same bits.
                    ("add", "i64" | "isize") => format!("kl::oxide_atomic_bits_add({receiver}, {v})"),
                    ("sub", "i64" | "isize") => {
                        format!("kl::oxide_atomic_bits_add({receiver}, (({c_value})0 - ({c_value})({v})))")
                    }
                    ("and" | "or" | "xor", "i64" | "isize") => {
                        format!("kl::oxide_atomic_bits_{operation}({receiver}, {v})")
                    }
                    ("swap", "i64" | "isize" | "f64") => format!("kl::oxide_atomic_bits_swap({receiver}, {v})"),
                    _ => {
                        return self.fail(
                            m,
                            format!("atomic `{method}` of `{value}` has no CUDA builtin at this scope"),
                        )
                    }
                };
                Ok(fenced(&op, order, scope))
            }
            _ => self.fail(m, format!("atomic `{method}` is not lowered")),
        }
    }

    /// `core::intrinsics::atomic_load::<T, { AtomicOrdering::Acquire }>(p)` and the other
    /// core intrinsics on a pointer, at device scope as cuda-oxide's `Atomic*` cells are.
    pub(super) fn core_atomic_intrinsic(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let name = last_segment(&p.path);
        let owner = p.path.segments.iter().rev().nth(1).map(|s| s.ident.to_string());
        if owner.as_deref() != Some("intrinsics") || !name.starts_with("atomic_") {
            return Ok(None);
        }
        let Some(order) = intrinsic_ordering(&p.path) else {
            return self.fail(c, format!("`{name}` without an ordering is not lowered"));
        };
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        let op = |builtin: &str, pointer: &str, v: &str| format!("kl::oxide_at_{builtin}({pointer}, {v})");
        Ok(Some(match (name.as_str(), args.as_slice()) {
            ("atomic_load", [pointer]) => format!("kl::oxide_load_at<{order}, 1>({pointer})"),
            ("atomic_store", [pointer, v]) => format!("kl::oxide_store_at<{order}, 1>({pointer}, {v})"),
            ("atomic_xchg", [pointer, v]) => fenced(&op("swap", pointer, v), order, 1),
            ("atomic_xadd", [pointer, v]) => fenced(&op("add", pointer, v), order, 1),
            ("atomic_and", [pointer, v]) => fenced(&op("and", pointer, v), order, 1),
            ("atomic_or", [pointer, v]) => fenced(&op("or", pointer, v), order, 1),
            ("atomic_xor", [pointer, v]) => fenced(&op("xor", pointer, v), order, 1),
            // `(previous, succeeded)`.
            ("atomic_cxchg" | "atomic_cxchgweak", [pointer, current, new]) => fenced(
                &format!("kl::oxide_cas_tuple(kl::oxide_at_cas({pointer}, {current}, {new}))"),
                order,
                1,
            ),
            _ => return self.fail(c, format!("core intrinsic `{name}` is not lowered")),
        }))
    }

    /// The arm of `Err(actual)`: `actual` is the value the compare-exchange read.
    pub(super) fn exchange_arm(&self, name: &str, scrutinee: &str, body: &Expr, scope: &mut Scope) -> Lowered<String> {
        scope.names.push(std::collections::HashMap::new());
        let bound = scope.bind(name);
        let block = self.block(&super::arm_blocks::arm_block(body), scope);
        scope.names.pop();
        Ok(format!("{{\nauto {bound} = ({scrutinee}).value;\n{}}}\n", block?))
    }

    /// `Ok(_)` and `Err(_)` of a compare-exchange's result: whether it succeeded.
    pub(super) fn exchange_pattern(&self, pattern: &syn::Pat, scrutinee: &str) -> Lowered<Option<String>> {
        let syn::Pat::TupleStruct(t) = pattern else {
            return Ok(None);
        };
        let ok = match last_segment(&t.path).as_str() {
            "Ok" => true,
            "Err" => false,
            _ => return Ok(None),
        };
        // The value is not bound: an arm that reads it is not lowered.
        let unbound = t.elems.len() == 1
            && match &t.elems[0] {
                syn::Pat::Wild(_) => true,
                syn::Pat::Ident(i) => i.ident.to_string().starts_with('_') && i.subpat.is_none(),
                _ => false,
            };
        if !unbound {
            return self.fail(pattern, "only `Ok(_)` and `Err(_)` of a compare-exchange are lowered");
        }
        Ok(Some(if ok {
            format!("({scrutinee}).ok")
        } else {
            format!("(!({scrutinee}).ok)")
        }))
    }
}

/// `Err(actual)` (or `Ok(previous)`) of a `compare_exchange` that binds the value read: the
/// name bound and the pattern with `_` in its place.
pub(super) fn exchange_binding(scrutinee: &syn::Expr, pattern: &syn::Pat) -> Option<(String, syn::Pat)> {
    let syn::Expr::MethodCall(m) = scrutinee else {
        return None;
    };
    if !matches!(
        m.method.to_string().as_str(),
        "compare_exchange" | "compare_exchange_weak"
    ) {
        return None;
    }
    let syn::Pat::TupleStruct(t) = pattern else { return None };
    if !matches!(last_segment(&t.path).as_str(), "Ok" | "Err") || t.elems.len() != 1 {
        return None;
    }
    let syn::Pat::Ident(i) = &t.elems[0] else { return None };
    if i.subpat.is_some() || i.ident.to_string().starts_with('_') {
        return None;
    }
    let mut unbound = t.clone();
    unbound.elems[0] = syn::Pat::Wild(syn::PatWild {
        attrs: Vec::new(),
        underscore_token: Default::default(),
    });
    Some((i.ident.to_string(), syn::Pat::TupleStruct(unbound)))
}

/// C++ for the atomics, appended to the prelude after cuda-oxide's cells.
#[macro_export]
#[doc(hidden)]
macro_rules! atomics_prelude {
    () => {
        r#"namespace kl {
template <int S> __device__ inline void oxide_fence_sc() {
  if constexpr (S == 0) __threadfence_block();
  else if constexpr (S == 2) __threadfence_system();
  else __threadfence();
}
#ifdef __CUDACC__
template <int S> __device__ inline void oxide_fence_acq_rel() {
  if constexpr (S == 0) asm volatile("fence.acq_rel.cta;" ::: "memory");
  else if constexpr (S == 2) asm volatile("fence.acq_rel.sys;" ::: "memory");
  else asm volatile("fence.acq_rel.gpu;" ::: "memory");
}
#else
template <int S> __device__ inline void oxide_fence_acq_rel() {}
#endif
template <int S, typename T> __device__ T oxide_acquired(T v) { oxide_fence_acq_rel<S>(); return v; }
template <int S, typename T> __device__ T oxide_sc_fenced(T v) { oxide_fence_sc<S>(); return v; }
template <int N> struct oxide_bits;
template <> struct oxide_bits<2> { using type = unsigned short; };
template <> struct oxide_bits<4> { using type = unsigned int; };
template <> struct oxide_bits<8> { using type = unsigned long long; };
// `ld.{relaxed,acquire}.{cta,gpu,sys}.b{16,32,64}`: one load of the value's width.
#ifdef __CUDACC__
#define KL_LD(sem, scope) \
  if constexpr (sizeof(T) == 2) asm volatile("ld." sem "." scope ".b16 %0, [%1];" : "=h"(r) : "l"(p) : "memory"); \
  else if constexpr (sizeof(T) == 4) asm volatile("ld." sem "." scope ".b32 %0, [%1];" : "=r"(r) : "l"(p) : "memory"); \
  else asm volatile("ld." sem "." scope ".b64 %0, [%1];" : "=l"(r) : "l"(p) : "memory");
#define KL_ST(sem, scope) \
  if constexpr (sizeof(T) == 2) asm volatile("st." sem "." scope ".b16 [%0], %1;" :: "l"(p), "h"(b) : "memory"); \
  else if constexpr (sizeof(T) == 4) asm volatile("st." sem "." scope ".b32 [%0], %1;" :: "l"(p), "r"(b) : "memory"); \
  else asm volatile("st." sem "." scope ".b64 [%0], %1;" :: "l"(p), "l"(b) : "memory");
template <int O, int S, typename T> __device__ T oxide_load_at(const T* p) {
  typename oxide_bits<sizeof(T)>::type r;
  if constexpr (O == 4) oxide_fence_sc<S>();
  if constexpr (O == 0) {
    if constexpr (S == 0) { KL_LD("relaxed", "cta") } else if constexpr (S == 2) { KL_LD("relaxed", "sys") } else { KL_LD("relaxed", "gpu") }
  } else {
    if constexpr (S == 0) { KL_LD("acquire", "cta") } else if constexpr (S == 2) { KL_LD("acquire", "sys") } else { KL_LD("acquire", "gpu") }
  }
  return transmute<T>(r);
}
template <int O, int S, typename T, typename U> __device__ void oxide_store_at(T* p, U value) {
  auto b = transmute<typename oxide_bits<sizeof(T)>::type>((T)value);
  if constexpr (O == 4) oxide_fence_sc<S>();
  if constexpr (O == 0) {
    if constexpr (S == 0) { KL_ST("relaxed", "cta") } else if constexpr (S == 2) { KL_ST("relaxed", "sys") } else { KL_ST("relaxed", "gpu") }
  } else {
    if constexpr (S == 0) { KL_ST("release", "cta") } else if constexpr (S == 2) { KL_ST("release", "sys") } else { KL_ST("release", "gpu") }
  }
}
#undef KL_LD
#undef KL_ST
#else
template <int O, int S, typename T> __device__ T oxide_load_at(const T* p) { return *p; }
template <int O, int S, typename T, typename U> __device__ void oxide_store_at(T* p, U value) { *p = (T)value; }
#endif
template <int O, typename A> __device__ auto oxide_load(A&& a) {
  auto* cell = oxide_cell_ptr(a);
  return oxide_load_at<O, oxide_cell<decltype(cell)>::scope>(&cell->v);
}
template <int O, typename A, typename U> __device__ void oxide_store(A&& a, U value) {
  auto* cell = oxide_cell_ptr(a);
  oxide_store_at<O, oxide_cell<decltype(cell)>::scope>(&cell->v, value);
}
// The unsigned builtin of the value's bits, at the scope: signed 64-bit and `f64` cells.
#ifdef __CUDACC__
#define KL_OXIDE_RMW_BITS(op, builtin) \
  template <int S, typename B> __device__ B oxide_scoped_##op(B* p, B bits) { \
    if constexpr (S == 0) return builtin##_block(p, bits); \
    else if constexpr (S == 2) return builtin##_system(p, bits); \
    else return builtin(p, bits); \
  }
#else
#define KL_OXIDE_RMW_BITS(op, builtin) \
  template <int S, typename B> __device__ B oxide_scoped_##op(B* p, B bits) { B old = *p; (void)bits; return old; }
#endif
KL_OXIDE_RMW_BITS(add, atomicAdd)
KL_OXIDE_RMW_BITS(and, atomicAnd)
KL_OXIDE_RMW_BITS(or, atomicOr)
KL_OXIDE_RMW_BITS(xor, atomicXor)
KL_OXIDE_RMW_BITS(swap, atomicExch)
#undef KL_OXIDE_RMW_BITS
#define KL_OXIDE_BITS(op) \
  template <typename A, typename U> __device__ auto oxide_atomic_bits_##op(A&& a, U value) { \
    auto* cell = oxide_cell_ptr(a); \
    using C = oxide_cell<decltype(cell)>; \
    using T = typename C::type; \
    using B = typename oxide_bits<sizeof(T)>::type; \
    return transmute<T>(oxide_scoped_##op<C::scope>(reinterpret_cast<B*>(&cell->v), transmute<B>((T)value))); \
  } \
  template <typename T, typename U> __device__ T oxide_at_##op(T* p, U value) { \
    using B = typename oxide_bits<sizeof(T) < 4 ? 4 : sizeof(T)>::type; \
    return transmute<T>(oxide_scoped_##op<1>(reinterpret_cast<B*>(p), transmute<B>((T)value))); \
  }
KL_OXIDE_BITS(add)
KL_OXIDE_BITS(and)
KL_OXIDE_BITS(or)
KL_OXIDE_BITS(xor)
KL_OXIDE_BITS(swap)
#undef KL_OXIDE_BITS
// A half cell's addition: one `atom.add.noftz.f16` at its scope.
template <typename A, typename U> __device__ __half oxide_atomic_add_f16(A&& a, U value, bool negate) {
  auto* cell = oxide_cell_ptr(a);
  using C = oxide_cell<decltype(cell)>;
  unsigned short b = (unsigned short)(to_bits((__half)value) ^ (negate ? 0x8000u : 0u)), old;
#ifdef __CUDACC__
  if constexpr (C::scope == 0) asm volatile("atom.cta.add.noftz.f16 %0, [%1], %2;" : "=h"(old) : "l"(&cell->v), "h"(b) : "memory");
  else if constexpr (C::scope == 2) asm volatile("atom.sys.add.noftz.f16 %0, [%1], %2;" : "=h"(old) : "l"(&cell->v), "h"(b) : "memory");
  else asm volatile("atom.gpu.add.noftz.f16 %0, [%1], %2;" : "=h"(old) : "l"(&cell->v), "h"(b) : "memory");
#else
  old = to_bits(cell->v); (void)b;
#endif
  return from_bits<__half>(old);
}
// Compare-and-swap: the previous value and whether it was the expected one.
template <typename T> struct oxide_exchange { T value; bool ok; };
#ifdef __CUDACC__
#define KL_CAS(S, p, e, n) \
  (S == 0 ? atomicCAS_block(p, e, n) : (S == 2 ? atomicCAS_system(p, e, n) : atomicCAS(p, e, n)))
#else
#define KL_CAS(S, p, e, n) (*(p) == (e) ? (*(p) = (n), (e)) : *(p))
#endif
template <int S, typename T, typename U, typename V> __device__ oxide_exchange<T> oxide_cas_at(T* p, U expected, V desired) {
  using B = typename oxide_bits<sizeof(T)>::type;
  B e = transmute<B>((T)expected);
  B old = KL_CAS(S, reinterpret_cast<B*>(p), e, transmute<B>((T)desired));
  return {transmute<T>(old), old == e};
}
#undef KL_CAS
template <typename A, typename U, typename V> __device__ auto oxide_cas(A&& a, U expected, V desired) {
  auto* cell = oxide_cell_ptr(a);
  return oxide_cas_at<oxide_cell<decltype(cell)>::scope>(&cell->v, expected, desired);
}
template <typename T, typename U, typename V> __device__ oxide_exchange<T> oxide_at_cas(T* p, U expected, V desired) {
  return oxide_cas_at<1>(p, expected, desired);
}
template <typename T> __device__ tuple2<T, bool> oxide_cas_tuple(oxide_exchange<T> r) { return {r.value, r.ok}; }
template <typename T> __device__ bool is_ok(oxide_exchange<T> r) { return r.ok; }
template <typename T> __device__ bool is_err(oxide_exchange<T> r) { return !r.ok; }
}
"#
    };
}
