//! cuda-oxide's generated PTX intrinsics (`cuda_intrinsics::{float, f16, bf16, prmt, matrix}`,
//! `cuda_device::{wmma, cluster, wgmma}`): each call is the one PTX instruction the code
//! generator emits for it, spelled from the function's name (`mul_rn_f64` is `mul.rn.f64`,
//! `min_ftz_nan_xorsign_abs_f32` is `min.ftz.NaN.xorsign.abs.f32`). The tensor-memory copies
//! (TMA) are refused: they read global memory through a `CUtensorMap` the host encodes.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::Expr;

/// `mul_rn_f64`, `sin_approx_ftz_f32`, `min_nan_xorsign_abs_bf16`: the PTX instruction, the
/// register constraint of its operands and their C++ type, for the given number of operands.
fn scalar_float_op(name: &str, arity: usize) -> Option<(String, &'static str, &'static str)> {
    let (stem, ty) = name.rsplit_once('_')?;
    let (constraint, c_type) = match ty {
        "f32" => ("f", "float"),
        "f64" => ("d", "double"),
        "f16" | "bf16" => ("h", "unsigned short"),
        _ => return None,
    };
    let mut parts = stem.split('_');
    let op = parts.next()?;
    let expected = match op {
        "rcp" | "sqrt" | "rsqrt" | "sin" | "cos" | "ex2" | "lg2" | "tanh" => 1,
        "add" | "sub" | "mul" | "div" | "min" | "max" => 2,
        "fma" => 3,
        _ => return None,
    };
    // Half-precision scalars exist here only as min/max; their arithmetic is in `f16x2`.
    if arity != expected || (constraint == "h" && !matches!(op, "min" | "max")) {
        return None;
    }
    let mut ptx = vec![op.to_string()];
    for part in parts {
        match part {
            "nan" => ptx.push("NaN".to_string()),
            "rn" | "rm" | "rp" | "rz" | "approx" | "ftz" | "sat" | "xorsign" | "abs" => ptx.push(part.to_string()),
            _ => return None,
        }
    }
    ptx.push(ty.to_string());
    Some((ptx.join("."), constraint, c_type))
}

/// `prmt_f4e(a, b, c)` and the one-source modes `prmt_rc8(a, c)`, whose second source is 0.
fn prmt_mode(name: &str, arity: usize) -> Option<&str> {
    let mode = name.strip_prefix("prmt_")?;
    match (mode, arity) {
        ("f4e" | "b4e", 3) | ("rc8" | "ecl" | "ecr" | "rc16", 2) => Some(mode),
        _ => None,
    }
}

/// `ldmatrix_x2_trans` of `cuda_device::wmma` and `ldmatrix_m8n8_x4_b16` of
/// `cuda_intrinsics::matrix`: the number of 8x8 b16 tiles and whether they are transposed.
fn ldmatrix(name: &str) -> Option<(u32, bool)> {
    let rest = name.strip_prefix("ldmatrix_")?;
    let rest = rest.strip_prefix("m8n8_").map_or(rest.to_string(), |r| {
        r.strip_suffix("_b16").map(str::to_string).unwrap_or_default()
    });
    let (count, trans) = match rest.strip_suffix("_trans") {
        Some(count) => (count, true),
        None => (rest.as_str(), false),
    };
    let n = match count {
        "x2" => 2,
        "x4" => 4,
        _ => return None,
    };
    Some((n, trans))
}

/// The Blackwell matrix instructions, by name: the sm_100 and sm_120 forms of `mma` and `ldmatrix`.
fn blackwell_matrix(name: &str) -> Option<&'static str> {
    let narrow_float = ["e2m1", "e2m3", "e3m2"].iter().any(|t| name.contains(t));
    if name.starts_with("ldmatrix_m16n16") || name.starts_with("ldmatrix_m8n16") {
        Some("the `ldmatrix` m16n16/m8n16 b8 and b6/b4 shapes need sm_100 or later")
    } else if name.starts_with("mma") && (name.contains("f8f6f4") || narrow_float) {
        Some("the `mma` `.kind::f8f6f4` and e2m1/e2m3/e3m2 forms need sm_120a")
    } else if name.starts_with("mma") && name.contains("_fp8_") && name.contains("k16") {
        Some("the FP8 `mma` m16n8k16 shape needs sm_120a (sm_89/sm_90 have only m16n8k32)")
    } else {
        None
    }
}

impl Context<'_> {
    /// A call of one of cuda-oxide's generated PTX intrinsics, or `None` for anything else.
    pub(super) fn ptx_op_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let name = last_segment(&p.path);
        let arity = c.args.len();
        if let Some(call) = self.library_barrier_call(c, &p.path, scope)? {
            return Ok(Some(call));
        }
        let known = scalar_float_op(&name, arity).is_some()
            || (name.as_str(), arity) == super::warpgroup_mma::MMA_M64N64K16_BF16
            || prmt_mode(&name, arity).is_some()
            || super::register_mma::register_mma(&name, arity).is_some()
            || (ldmatrix(&name).is_some() && arity == 1)
            || blackwell_matrix(&name).is_some()
            || name.starts_with("cp_async_bulk_tensor")
            || matches!(
                (name.as_str(), arity),
                ("movmatrix_trans_b16", 1)
                    | ("wgmma_fence" | "wgmma_commit_group" | "wgmma_wait_group", 0)
                    | ("fence_mbarrier_init_release_cluster", 0)
                    | ("dsmem_read_u32" | "map_shared_rank" | "map_shared_rank_mut", 2)
            );
        if !known || !self.names_intrinsic(&p.path, &name) {
            return Ok(None);
        }
        if let Some(why) = blackwell_matrix(&name) {
            return self.fail(
                c,
                format!("`{name}`: {why}, which the H100/H200 harness machine cannot run"),
            );
        }
        if name.starts_with("cp_async_bulk_tensor") {
            return self.fail(
                c,
                format!(
                    "`{name}` (TMA) reads global memory through a `CUtensorMap` that the host encodes with `cuTensorMapEncodeTiled`; the harness driver builds no tensor maps"
                ),
            );
        }
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        if let Some(mma) = super::register_mma::register_mma(&name, arity) {
            return self.register_mma_call(c, &name, &mma, &args).map(Some);
        }
        if let Some((ptx, constraint, c_type)) = scalar_float_op(&name, arity) {
            let operands: Vec<String> = (1..=arity).map(|i| format!("%{i}")).collect();
            let inputs: Vec<String> = args
                .iter()
                .map(|a| format!("\"{constraint}\"(({c_type})({a}))"))
                .collect();
            return Ok(Some(format!(
                "KL_PTX_VALUE({c_type}, \"{ptx} %0, {};\", \"={constraint}\", {})",
                operands.join(", "),
                inputs.join(", ")
            )));
        }
        if let Some(mode) = prmt_mode(&name, arity) {
            return Ok(Some(match args.as_slice() {
                [a, b, selector] => format!("kl::prmt_mode<kl::PRMT_{}>({a}, {b}, {selector})", mode.to_uppercase()),
                [a, selector] => format!("kl::prmt_mode<kl::PRMT_{}>({a}, 0u, {selector})", mode.to_uppercase()),
                _ => return Ok(None),
            }));
        }
        if let Some((n, trans)) = ldmatrix(&name) {
            return Ok(Some(format!("kl::ldmatrix<{n}, {trans}>({})", args[0])));
        }
        Ok(Some(match (name.as_str(), args.as_slice()) {
            ("movmatrix_trans_b16", [a]) => format!("kl::movmatrix_trans_b16({a})"),
            ("wgmma_mma_m64n64k16_f32_bf16", [acc, a, b]) => {
                format!("kl::wgmma_mma_m64n64k16_f32_bf16({acc}, {a}, {b})")
            }
            ("wgmma_fence", []) => "KL_PTX_FENCE(\"wgmma.fence.sync.aligned;\")".to_string(),
            ("wgmma_commit_group", []) => "KL_PTX_FENCE(\"wgmma.commit_group.sync.aligned;\")".to_string(),
            ("wgmma_wait_group", []) => {
                let pending = match p.path.segments.last().map(|s| &s.arguments) {
                    Some(syn::PathArguments::AngleBracketed(a)) if a.args.len() == 1 => match &a.args[0] {
                        syn::GenericArgument::Const(e) => self.expr(e, scope)?,
                        other => self.expr(&syn::parse_quote!(#other), scope)?,
                    },
                    _ => return self.fail(c, "`wgmma_wait_group` without its count of pending groups"),
                };
                format!("kl::wgmma_wait_group<{pending}>()")
            }
            ("fence_mbarrier_init_release_cluster", []) => "kl::fence_mbarrier_init_release_cluster()".to_string(),
            ("dsmem_read_u32", [ptr, rank]) => format!("kl::dsmem_read_u32({ptr}, {rank})"),
            ("map_shared_rank" | "map_shared_rank_mut", [ptr, rank]) => format!("kl::map_shared_rank({ptr}, {rank})"),
            _ => return Ok(None),
        }))
    }

    /// The C++ type of a generated intrinsic's result, for arrays built from such calls.
    pub(super) fn ptx_op_type(&self, e: &Expr) -> Option<&'static str> {
        let Expr::Call(c) = e else { return None };
        let Expr::Path(p) = &*c.func else { return None };
        let name = last_segment(&p.path);
        let ty = match scalar_float_op(&name, c.args.len()) {
            Some((_, _, c_type)) => c_type,
            None if prmt_mode(&name, c.args.len()).is_some()
                || name == "prmt"
                || super::intrinsics::packed_half_op(&name, c.args.len()).is_some() =>
            {
                "unsigned int"
            }
            None => return None,
        };
        self.names_intrinsic(&p.path, &name).then_some(ty)
    }

    /// `cuda_device::barrier::mbarrier_init(..)` written out in full: the intrinsics of
    /// `async_copy.rs` by their whole path.
    fn library_barrier_call(&self, c: &syn::ExprCall, path: &syn::Path, scope: &mut Scope) -> Lowered<Option<String>> {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let Some(("cuda_device", rest)) = segments.split_first().map(|(f, r)| (f.as_str(), r)) else {
            return Ok(None);
        };
        let Some(function) = super::async_copy::intrinsic(&rest.join("::")) else {
            return Ok(None);
        };
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        Ok(Some(format!("{function}({})", args.join(", "))))
    }
}

/// One operand of `ptx_asm!`: `out("=r") x`, `inout("+r") x`, `in("r") e`, `clobber("memory")`
/// or `options(register_only)`.
struct AsmOperand {
    kind: String,
    constraint: Option<syn::LitStr>,
    value: Option<Expr>,
}

impl syn::parse::Parse for AsmOperand {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let kind = input.call(<syn::Ident as syn::ext::IdentExt>::parse_any)?.to_string();
        let inner;
        syn::parenthesized!(inner in input);
        if kind == "options" {
            let _: proc_macro2::TokenStream = inner.parse()?;
            return Ok(AsmOperand {
                kind,
                constraint: None,
                value: None,
            });
        }
        let constraint = Some(inner.parse()?);
        let value = match kind.as_str() {
            "out" | "inout" | "in" => Some(input.parse()?),
            _ => None,
        };
        Ok(AsmOperand {
            kind,
            constraint,
            value,
        })
    }
}

impl Context<'_> {
    /// `ptx_asm!("tmpl", out("=r") x, in("r") y, clobber("memory"))` as CUDA's `asm volatile`:
    /// the macro numbers outputs before inputs, as CUDA does, so the template is kept as is.
    pub(super) fn ptx_asm(&self, mac: &syn::Macro, scope: &mut Scope) -> Lowered<String> {
        use syn::parse::Parser;
        let parser = |input: syn::parse::ParseStream| {
            let template: syn::LitStr = input.parse()?;
            let mut operands = Vec::new();
            while !input.is_empty() {
                let _: syn::Token![,] = input.parse()?;
                if input.is_empty() {
                    break;
                }
                operands.push(input.parse::<AsmOperand>()?);
            }
            Ok((template, operands))
        };
        let Ok((template, operands)) = parser.parse2(mac.tokens.clone()) else {
            return self.fail(
                mac,
                "`ptx_asm!` whose operands are not `out`/`inout`/`in`/`clobber`/`options`",
            );
        };
        let (mut outputs, mut inputs, mut clobbers) = (Vec::new(), Vec::new(), Vec::new());
        let mut template = template.value();
        // Operands are numbered outputs first; a `C` operand's text goes into the template.
        let output_count = operands
            .iter()
            .filter(|o| matches!(o.kind.as_str(), "out" | "inout"))
            .count();
        let syntax = self.workspace.syntax.get(self.here).copied().flatten();
        let mut spliced = Vec::new();
        for (i, operand) in operands.iter().filter(|o| o.kind == "in").enumerate() {
            if operand.constraint.as_ref().is_some_and(|c| c.value() == "C") {
                let value = operand.value.as_ref().expect("an input has a value");
                let Some(text) = super::asm_strings::operand_text(value, syntax) else {
                    let source = super::asm_strings::source(value);
                    return self.fail(
                        mac,
                        format!("`ptx_asm!` operand `in(\"C\") {source}` is no string constant of this file"),
                    );
                };
                spliced.push((output_count + i, text));
            }
        }
        for (index, text) in spliced.iter().rev() {
            template = super::asm_strings::splice(&template, *index, text);
        }
        for operand in &operands {
            let constraint = operand.constraint.as_ref().map(syn::LitStr::value).unwrap_or_default();
            match (operand.kind.as_str(), &operand.value) {
                ("in", Some(_)) if constraint == "C" => {}
                ("out" | "inout", Some(place)) => {
                    outputs.push(format!("\"{constraint}\"({})", self.expr(place, scope)?));
                }
                ("in", Some(value)) => inputs.push(format!("\"{constraint}\"({})", self.expr(value, scope)?)),
                ("clobber", None) => clobbers.push(format!("\"{constraint}\"")),
                ("options", None) => {}
                _ => return self.fail(mac, format!("`ptx_asm!` operand `{}` is not lowered", operand.kind)),
            }
        }
        Ok(format!(
            "asm volatile({} : {} : {} : {});\n",
            c_string(&template),
            outputs.join(", "),
            inputs.join(", "),
            clobbers.join(", ")
        ))
    }
}

/// `text` as a C++ string literal: PTX templates may span lines.
pub(super) fn c_string(text: &str) -> String {
    let mut out = String::from("\"");
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            other => out.push(other),
        }
    }
    out.push('"');
    out
}

/// C++ of these intrinsics, appended to the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! ptx_ops_prelude {
    () => {
        r#"namespace kl {
#ifdef __CUDACC__
// One PTX instruction of one result; the instruction text is a literal of the call.
#define KL_PTX_VALUE(type, ptx, out, ...) ([&] { type d_; asm volatile(ptx : out(d_) : __VA_ARGS__); return d_; }())
#define KL_PTX_FENCE(ptx) asm volatile(ptx ::: "memory")
#else
#define KL_PTX_VALUE(type, ptx, out, ...) ((type)0)
#define KL_PTX_FENCE(ptx) ((void)0)
#endif
enum prmt_modes { PRMT_F4E, PRMT_B4E, PRMT_RC8, PRMT_ECL, PRMT_ECR, PRMT_RC16 };
// `prmt.b32.<mode>`: a byte permutation of registers.
template <int M> __device__ inline unsigned int prmt_mode(unsigned int a, unsigned int b, unsigned int c) {
  unsigned int d = 0;
#ifdef __CUDACC__
  if (M == PRMT_F4E) asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  else if (M == PRMT_B4E) asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  else if (M == PRMT_RC8) asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  else if (M == PRMT_ECL) asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  else if (M == PRMT_ECR) asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  else asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
#endif
  return d;
}
// `ldmatrix` of N 8x8 b16 tiles from shared memory, one register per tile.
template <int N, bool Trans> __device__ inline array<unsigned int, N> ldmatrix(const void* p) {
  array<unsigned int, N> r{};
#ifdef __CUDACC__
  unsigned int a = (unsigned int)__cvta_generic_to_shared(p);
  if (N == 2 && !Trans) asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(r.v[0]), "=r"(r.v[1]) : "r"(a));
  if (N == 2 && Trans) asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(r.v[0]), "=r"(r.v[1]) : "r"(a));
  if (N == 4 && !Trans) asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r.v[0]), "=r"(r.v[1]), "=r"(r.v[2]), "=r"(r.v[3]) : "r"(a));
  if (N == 4 && Trans) asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];" : "=r"(r.v[0]), "=r"(r.v[1]), "=r"(r.v[2]), "=r"(r.v[3]) : "r"(a));
#endif
  return r;
}
__device__ inline unsigned int movmatrix_trans_b16(unsigned int a) {
  unsigned int d = a;
#ifdef __CUDACC__
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d) : "r"(a));
#endif
  return d;
}
template <int N> __device__ inline void wgmma_wait_group() {
#ifdef __CUDACC__
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
#endif
}
// A barrier's arrival in another block of the cluster, at its shared::cluster address.
__device__ inline void mbarrier_arrive_cluster(unsigned long long remote) {
#ifdef __CUDACC__
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"l"(remote) : "memory");
#else
  (void)remote;
#endif
}
__device__ inline void fence_mbarrier_init_release_cluster() {
#ifdef __CUDACC__
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
// Distributed shared memory: the same shared variable in the block of cluster rank `rank`.
template <typename T> __device__ inline T* map_shared_rank(T* p, unsigned int rank) {
#ifdef __CUDACC__
  unsigned long long d;
  asm volatile("mapa.u64 %0, %1, %2;" : "=l"(d) : "l"(p), "r"(rank));
  return (T*)d;
#else
  (void)rank;
  return p;
#endif
}
__device__ inline unsigned int dsmem_read_u32(const unsigned int* p, unsigned int rank) {
  unsigned int v = 0;
#ifdef __CUDACC__
  unsigned int remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"((unsigned int)__cvta_generic_to_shared(p)), "r"(rank));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory");
#else
  v = *p + rank * 0u;
#endif
  return v;
}
}
"#
    };
}
