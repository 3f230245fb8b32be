//! cuda-oxide's device intrinsics: the functions of `cuda_device` whose Rust body is only a
//! stub (`unreachable!`) that the compiler replaces by an instruction. Each becomes the CUDA
//! builtin or the PTX instruction it stands for: special registers (`warpid`, `envreg1`,
//! `cluster_ctaidX`, `clock64`), `trap`, `breakpoint`, `prof_trigger`, `dp4a`, the packed
//! f16x2 / bf16x2 conversions and arithmetic, and the packed half atomics.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::parse::last_segment;
use syn::Expr;

/// Special registers read by a `cuda_device` function of no arguments: the Rust name, the PTX
/// register and whether it is 64 bits wide. [`intrinsics_prelude`] defines `kl::sreg_<name>`
/// for each, the register with `.` as `_`.
pub(super) const SPECIAL_REGISTERS: &[(&str, &str, bool)] = &[
    ("warpid", "warpid", false),
    ("nwarpid", "nwarpid", false),
    ("smid", "smid", false),
    ("nsmid", "nsmid", false),
    ("gridid", "gridid", true),
    ("lane_id", "laneid", false),
    ("laneid", "laneid", false),
    ("lanemask_eq", "lanemask_eq", false),
    ("lanemask_lt", "lanemask_lt", false),
    ("lanemask_le", "lanemask_le", false),
    ("lanemask_gt", "lanemask_gt", false),
    ("lanemask_ge", "lanemask_ge", false),
    ("clock", "clock", false),
    ("clock64", "clock64", true),
    ("globaltimer", "globaltimer", true),
    ("dynamic_smem_size", "dynamic_smem_size", false),
    ("total_smem_size", "total_smem_size", false),
    ("cluster_ctaidX", "cluster_ctaid.x", false),
    ("cluster_ctaidY", "cluster_ctaid.y", false),
    ("cluster_ctaidZ", "cluster_ctaid.z", false),
    ("cluster_nctaidX", "cluster_nctaid.x", false),
    ("cluster_nctaidY", "cluster_nctaid.y", false),
    ("cluster_nctaidZ", "cluster_nctaid.z", false),
    ("__cluster_idxX", "clusterid.x", false),
    ("__cluster_idxY", "clusterid.y", false),
    ("__cluster_idxZ", "clusterid.z", false),
    ("__cluster_grid_dimX", "nclusterid.x", false),
    ("__cluster_grid_dimY", "nclusterid.y", false),
    ("__cluster_grid_dimZ", "nclusterid.z", false),
    ("cluster_ctarank", "cluster_ctarank", false),
    ("cluster_nctarank", "cluster_nctarank", false),
];

/// `threadIdx_x` and the other geometry registers, as `cuda_device`'s own code reads them.
fn geometry_register(name: &str) -> Option<String> {
    let (stem, axis) = name.rsplit_once('_')?;
    (matches!(axis, "x" | "y" | "z") && matches!(stem, "threadIdx" | "blockIdx" | "blockDim" | "gridDim"))
        .then(|| format!("{stem}.{axis}"))
}

/// `barrier_cluster_arrive_relaxed_aligned` and the other cluster barriers: the PTX.
fn cluster_barrier(name: &str) -> Option<String> {
    let rest = name.strip_prefix("barrier_cluster_")?;
    let mut parts = rest.split('_');
    let op = parts.next()?;
    if !matches!(op, "arrive" | "wait") {
        return None;
    }
    let mut ptx = format!("barrier.cluster.{op}");
    for part in parts {
        match part {
            "relaxed" if op == "arrive" => ptx.push_str(".relaxed"),
            "aligned" => ptx.push_str(".aligned"),
            _ => return None,
        }
    }
    Some(format!("{ptx};"))
}

/// `%envreg0` to `%envreg31`, read by `grid::envregN()`.
fn environment_register(name: &str) -> Option<u32> {
    let n: u32 = name.strip_prefix("envreg")?.parse().ok()?;
    (n < 32).then_some(n)
}

/// Whether a function body is a stub the compiler replaces: `let _ = ..;` then `unreachable!`.
fn is_stub(block: &syn::Block) -> bool {
    let Some((last, rest)) = block.stmts.split_last() else {
        return false;
    };
    let unreachable = |m: &syn::Macro| m.path.segments.last().is_some_and(|s| s.ident == "unreachable");
    let ends = match last {
        syn::Stmt::Macro(m) => unreachable(&m.mac),
        syn::Stmt::Expr(Expr::Macro(m), _) => unreachable(&m.mac),
        _ => false,
    };
    ends && rest
        .iter()
        .all(|s| matches!(s, syn::Stmt::Local(l) if matches!(l.pat, syn::Pat::Wild(_))))
}

/// `add_bf16x2`, `fma_ftz_relu_f16x2`, `max_nan_xorsign_abs_bf16x2`: the PTX instruction
/// (`max.NaN.xorsign.abs.bf16x2`) and its number of operands.
pub(super) fn packed_half_op(name: &str, arity: usize) -> Option<String> {
    let (stem, ty) = name.rsplit_once('_')?;
    if !matches!(ty, "f16x2" | "bf16x2") {
        return None;
    }
    let mut parts = stem.split('_');
    let op = parts.next()?;
    let expected = match op {
        "abs" | "neg" => 1,
        "add" | "sub" | "mul" | "max" | "min" => 2,
        "fma" => 3,
        _ => return None,
    };
    if arity != expected {
        return None;
    }
    let mut ptx = vec![op.to_string()];
    // `fma` always names its rounding; the others round to nearest by default.
    if op == "fma" {
        ptx.push("rn".to_string());
    }
    for part in parts {
        match part {
            "nan" => ptx.push("NaN".to_string()),
            "ftz" | "sat" | "relu" | "xorsign" | "abs" => ptx.push(part.to_string()),
            _ => return None,
        }
    }
    ptx.push(ty.to_string());
    Some(ptx.join("."))
}

/// `cvt_f16x2_f32(lo, hi)`, `cvt_rz_bf16x2_f32`, `cvt_rn_satfinite_e4m3x2_f32`: two `f32`
/// packed into one register, the first in the low half; the PTX instruction and whether the
/// result is 16 bits wide.
fn packing_conversion(name: &str) -> Option<(String, bool)> {
    let stem = name.strip_prefix("cvt_")?.strip_suffix("_f32")?;
    let mut parts: Vec<&str> = stem.split('_').collect();
    let destination = parts.pop()?;
    if !matches!(destination, "f16x2" | "bf16x2" | "e4m3x2" | "e5m2x2") {
        return None;
    }
    if parts.is_empty() {
        parts.push("rn");
    }
    if !matches!(parts[0], "rn" | "rz") || !parts[1..].iter().all(|p| matches!(*p, "relu" | "satfinite")) {
        return None;
    }
    let narrow = destination.starts_with('e');
    Some((format!("cvt.{}.{destination}.f32", parts.join(".")), narrow))
}

/// `cvt_rna_tf32_f32(x)` and the other roundings of one `f32` to tf32 bits.
fn tf32_conversion(name: &str) -> Option<String> {
    let stem = name.strip_prefix("cvt_")?.strip_suffix("_tf32_f32")?;
    let parts: Vec<&str> = stem.split('_').collect();
    if !matches!(parts[0], "rn" | "rna" | "rz") || !parts[1..].iter().all(|p| matches!(*p, "relu" | "satfinite")) {
        return None;
    }
    Some(format!("cvt.{}.tf32.f32", parts.join(".")))
}

impl Context<'_> {
    /// `gpu_assert!(cond)` traps when `cond` is false; `gpu_assert!(cond, "message")` reports
    /// through CUDA's `__assertfail`, as cuda-oxide lowers it, then the kernel stops.
    pub(super) fn gpu_assert(&self, mac: &syn::Macro, scope: &mut Scope) -> Lowered<String> {
        let args = mac
            .parse_body_with(syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated)
            .map_err(|e| (self.span(mac), format!("`gpu_assert!` not understood: {e}")))?;
        let args: Vec<&Expr> = args.iter().collect();
        let condition = match args.first() {
            Some(c) => self.expr(c, scope)?,
            None => return self.fail(mac, "`gpu_assert!` without a condition"),
        };
        match args.get(1) {
            None => Ok(format!("if (!({condition})) __trap();\n")),
            Some(Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(message),
                ..
            })) => {
                let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
                let function = self.layouts.module.join("::");
                Ok(format!(
                    "if (!({condition})) __assertfail({}, {}, {}u, {}, 1);\n",
                    quote(&message.value()),
                    quote(&self.file.path),
                    self.span(mac).line,
                    quote(&function)
                ))
            }
            Some(other) => self.fail(other, "`gpu_assert!` messages must be string literals"),
        }
    }

    /// Whether `path` names a `cuda_device` intrinsic here: the file is written against
    /// `cuda_device` or is part of it, no helper of the file has the name, and the function
    /// the path resolves to (if any) is a compiler stub.
    pub(super) fn names_intrinsic(&self, path: &syn::Path, name: &str) -> bool {
        let in_library = self.layouts.module.first().is_some_and(|c| c == "cuda_device");
        if !(self.oxide.enabled || in_library) || self.helpers.contains(name) {
            return false;
        }
        match self.layouts.resolve(path) {
            Some(target) => self
                .layouts
                .index
                .function(&target)
                .is_none_or(|f| is_stub(f.block) || self.wraps_stub(f.module, f.block)),
            None => true,
        }
    }

    /// Whether a body only calls a stub of its own module: `cuda_device`'s generated wrappers
    /// (`pub fn wgmma_wait_group<const N: u32>() { __wgmma_wait_group(N as u64); }`), whose
    /// instruction the code generator supplies for the `__` stub.
    fn wraps_stub(&self, module: &kernel_lint_analyzer::ModulePath, block: &syn::Block) -> bool {
        let [syn::Stmt::Expr(only, _)] = block.stmts.as_slice() else {
            return false;
        };
        let call = match only {
            Expr::Unsafe(u) => match u.block.stmts.as_slice() {
                [syn::Stmt::Expr(Expr::Call(call), _)] => call,
                _ => return false,
            },
            Expr::Call(call) => call,
            _ => return false,
        };
        let Expr::Path(callee) = &*call.func else { return false };
        let Some(name) = callee.path.get_ident() else {
            return false;
        };
        let target = kernel_lint_analyzer::model::items::Target::Item(module.clone(), name.to_string());
        self.layouts.index.function(&target).is_some_and(|f| is_stub(f.block))
    }

    /// A call of a `cuda_device` intrinsic as the builtin or instruction it stands for.
    pub(super) fn device_intrinsic(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        if let Some(stub) = self.warp_stub_call(c, scope)? {
            return Ok(Some(stub));
        }
        if let Some(op) = self.ptx_op_call(c, scope)? {
            return Ok(Some(op));
        }
        if let Some(vote) = self.warp_vote_call(c, scope)? {
            return Ok(Some(vote));
        }
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let name = last_segment(&p.path);
        let owner = p.path.segments.iter().rev().nth(1).map(|s| s.ident.to_string());
        let arity = c.args.len();
        let recognised = arity == 0
            && (SPECIAL_REGISTERS.iter().any(|(n, ..)| *n == name)
                || environment_register(&name).is_some()
                || geometry_register(&name).is_some()
                || cluster_barrier(&name).is_some()
                || matches!(name.as_str(), "trap" | "breakpoint" | "prof_trigger" | "active_mask"))
            || matches!(
                (name.as_str(), arity),
                ("dp4a_s32" | "dp4a_u32" | "dp2a_s32" | "dp2a_u32" | "prmt", 3)
                    | ("cvt_f32x2_bf16x2", 1 | 2)
                    | ("cvt_f32x2_f16x2" | "cvt_f32_f16x2_lo" | "cvt_f32_f16x2_hi", 1)
                    | ("cvt_f32_bf16x2_lo" | "cvt_f32_bf16x2_hi", 1)
                    | ("atom_add_f16x2" | "atom_add_bf16x2", 2)
            )
            || packed_half_op(&name, arity).is_some()
            || (arity == 2 && packing_conversion(&name).is_some())
            || (arity == 1 && tf32_conversion(&name).is_some());
        // The unpacking conversions have Rust bodies; the packing `cvt_f32x2_bf16x2(a, b)` of
        // `tcgen05` shares its name with one of them.
        let unpacking = matches!(
            name.as_str(),
            "cvt_f32x2_bf16x2"
                | "cvt_f32x2_f16x2"
                | "cvt_f32_f16x2_lo"
                | "cvt_f32_f16x2_hi"
                | "cvt_f32_bf16x2_lo"
                | "cvt_f32_bf16x2_hi"
        );
        if !recognised || (!unpacking && !self.names_intrinsic(&p.path, &name)) {
            return Ok(None);
        }
        if unpacking && (self.helpers.contains(&name) || !self.oxide.enabled && owner.is_none()) {
            return Ok(None);
        }
        let args: Vec<String> = c.args.iter().map(|a| self.expr(a, scope)).collect::<Lowered<_>>()?;
        if let Some((_, register, _)) = SPECIAL_REGISTERS.iter().find(|(n, ..)| *n == name) {
            return Ok(Some(format!("kl::sreg_{}()", register.replace('.', "_"))));
        }
        if let Some(register) = geometry_register(&name) {
            return Ok(Some(register));
        }
        if let Some(n) = environment_register(&name) {
            return Ok(Some(format!("kl::sreg_envreg<{n}>()")));
        }
        Ok(Some(match (name.as_str(), args.as_slice()) {
            ("trap", []) => "__trap()".to_string(),
            ("active_mask", []) => "__activemask()".to_string(),
            ("prmt", [a, b, selector]) => format!("__byte_perm({a}, {b}, {selector})"),
            (other, []) if cluster_barrier(other).is_some() => {
                format!("KL_CLUSTER_BARRIER(\"{}\")", cluster_barrier(other).unwrap_or_default())
            }
            ("breakpoint", []) => "__brkpt()".to_string(),
            ("prof_trigger", []) => {
                let counter = match p.path.segments.last().map(|s| &s.arguments) {
                    Some(syn::PathArguments::AngleBracketed(a)) if a.args.len() == 1 => match &a.args[0] {
                        syn::GenericArgument::Const(e) => self.expr(e, scope)?,
                        other => self.expr(&syn::parse_quote!(#other), scope)?,
                    },
                    _ => return self.fail(c, "`prof_trigger` without its counter"),
                };
                format!("__prof_trigger({counter})")
            }
            ("dp4a_s32", [a, b, acc]) => format!("__dp4a((int)({a}), (int)({b}), (int)({acc}))"),
            ("dp4a_u32", [a, b, acc]) => {
                format!("__dp4a((unsigned int)({a}), (unsigned int)({b}), (unsigned int)({acc}))")
            }
            // `dp2a` multiplies the halfwords of `a` by the low two bytes of `b`.
            ("dp2a_s32", [a, b, acc]) => format!("__dp2a_lo((int)({a}), (int)({b}), (int)({acc}))"),
            ("dp2a_u32", [a, b, acc]) => {
                format!("__dp2a_lo((unsigned int)({a}), (unsigned int)({b}), (unsigned int)({acc}))")
            }
            ("cvt_f32x2_bf16x2", [a, b]) => format!("KL_PACK_F32X2(\"cvt.rn.bf16x2.f32\", {a}, {b})"),
            ("cvt_f32x2_bf16x2", [packed]) => format!("kl::unpack_bf16x2({packed})"),
            ("cvt_f32x2_f16x2", [packed]) => format!("kl::unpack_f16x2({packed})"),
            ("cvt_f32_bf16x2_lo", [packed]) => format!("kl::unpack_bf16x2({packed})._0"),
            ("cvt_f32_bf16x2_hi", [packed]) => format!("kl::unpack_bf16x2({packed})._1"),
            ("cvt_f32_f16x2_lo", [packed]) => format!("kl::unpack_f16x2({packed})._0"),
            ("cvt_f32_f16x2_hi", [packed]) => format!("kl::unpack_f16x2({packed})._1"),
            ("atom_add_f16x2", [address, value]) => format!("kl::atom_add_f16x2({address}, {value})"),
            ("atom_add_bf16x2", [address, value]) => format!("kl::atom_add_bf16x2({address}, {value})"),
            (other, [a, b]) if packing_conversion(other).is_some() => {
                let (ptx, narrow) = packing_conversion(other).unwrap_or_default();
                let pack = if narrow { "KL_PACK_F32X2_16" } else { "KL_PACK_F32X2" };
                format!("{pack}(\"{ptx}\", {a}, {b})")
            }
            // ptxas accepts `.satfinite` on a tf32 conversion only from sm_100 on.
            (other, [_]) if tf32_conversion(other).is_some() && other.contains("satfinite") => {
                return self.fail(
                    c,
                    format!("`{other}`: `cvt.*.satfinite.tf32.f32` needs sm_100, which the H100/H200 harness machine cannot run"),
                );
            }
            (other, [a]) if tf32_conversion(other).is_some() => {
                format!(
                    "KL_CONVERT_TF32(\"{}\", {a})",
                    tf32_conversion(other).unwrap_or_default()
                )
            }
            (other, args) => {
                let Some(ptx) = packed_half_op(other, args.len()) else {
                    return Ok(None);
                };
                format!("KL_PACKED_HALF{}(\"{ptx}\", {})", args.len(), args.join(", "))
            }
        }))
    }
}

/// C++ for the device intrinsics, appended to the prelude.
#[macro_export]
#[doc(hidden)]
macro_rules! intrinsics_prelude {
    () => {
        r#"#ifdef __CUDACC__
// The device's assertion report, which CUDA declares for runtime compilation only.
extern "C" __device__ void __assertfail(const char* message, const char* file, unsigned int line, const char* function, size_t charSize);
#endif
namespace kl {
// Special registers, as the PTX `mov` that reads them.
#ifdef __CUDACC__
#define KL_SREG(name, reg) \
  __device__ inline unsigned int sreg_##name() { unsigned int v; asm volatile("mov.u32 %0, %%" reg ";" : "=r"(v)); return v; }
#define KL_SREG64(name, reg) \
  __device__ inline unsigned long long sreg_##name() { unsigned long long v; asm volatile("mov.u64 %0, %%" reg ";" : "=l"(v)); return v; }
template <int N> __device__ inline unsigned int sreg_envreg() {
  unsigned int v;
  asm volatile("mov.u32 %0, %%envreg%1;" : "=r"(v) : "n"(N));
  return v;
}
#else
#define KL_SREG(name, reg) __device__ inline unsigned int sreg_##name() { return 0u; }
#define KL_SREG64(name, reg) __device__ inline unsigned long long sreg_##name() { return 0ull; }
template <int N> __device__ inline unsigned int sreg_envreg() { return 0u; }
#endif
KL_SREG(warpid, "warpid")
KL_SREG(nwarpid, "nwarpid")
KL_SREG(smid, "smid")
KL_SREG(nsmid, "nsmid")
KL_SREG64(gridid, "gridid")
KL_SREG(laneid, "laneid")
KL_SREG(lanemask_eq, "lanemask_eq")
KL_SREG(lanemask_lt, "lanemask_lt")
KL_SREG(lanemask_le, "lanemask_le")
KL_SREG(lanemask_gt, "lanemask_gt")
KL_SREG(lanemask_ge, "lanemask_ge")
KL_SREG(clock, "clock")
KL_SREG64(clock64, "clock64")
KL_SREG64(globaltimer, "globaltimer")
KL_SREG(dynamic_smem_size, "dynamic_smem_size")
KL_SREG(total_smem_size, "total_smem_size")
KL_SREG(cluster_ctaid_x, "cluster_ctaid.x")
KL_SREG(cluster_ctaid_y, "cluster_ctaid.y")
KL_SREG(cluster_ctaid_z, "cluster_ctaid.z")
KL_SREG(cluster_nctaid_x, "cluster_nctaid.x")
KL_SREG(cluster_nctaid_y, "cluster_nctaid.y")
KL_SREG(cluster_nctaid_z, "cluster_nctaid.z")
KL_SREG(clusterid_x, "clusterid.x")
KL_SREG(clusterid_y, "clusterid.y")
KL_SREG(clusterid_z, "clusterid.z")
KL_SREG(nclusterid_x, "nclusterid.x")
KL_SREG(nclusterid_y, "nclusterid.y")
KL_SREG(nclusterid_z, "nclusterid.z")
KL_SREG(cluster_ctarank, "cluster_ctarank")
KL_SREG(cluster_nctarank, "cluster_nctarank")
#undef KL_SREG
#undef KL_SREG64
// Cluster barriers: synchronisation only, no memory access.
#ifdef __CUDACC__
#define KL_CLUSTER_BARRIER(ptx) asm volatile(ptx ::: "memory")
#else
#define KL_CLUSTER_BARRIER(ptx) ((void)0)
#endif
// Packed halves in registers: one PTX instruction each. The instruction text is a literal
// of the call, so each use is its own `asm`.
#ifdef __CUDACC__
#define KL_PACKED_HALF1(ptx, a) \
  ([&] { unsigned int d_; asm(ptx " %0, %1;" : "=r"(d_) : "r"((unsigned int)(a))); return d_; }())
#define KL_PACKED_HALF2(ptx, a, b) \
  ([&] { unsigned int d_; asm(ptx " %0, %1, %2;" : "=r"(d_) : "r"((unsigned int)(a)), "r"((unsigned int)(b))); return d_; }())
#define KL_PACKED_HALF3(ptx, a, b, c) \
  ([&] { unsigned int d_; asm(ptx " %0, %1, %2, %3;" : "=r"(d_) : "r"((unsigned int)(a)), "r"((unsigned int)(b)), "r"((unsigned int)(c))); return d_; }())
// PTX packs its first source into the high half: the Rust low argument goes second.
#define KL_PACK_F32X2(ptx, lo, hi) \
  ([&] { unsigned int d_; asm(ptx " %0, %1, %2;" : "=r"(d_) : "f"((float)(hi)), "f"((float)(lo))); return d_; }())
#define KL_PACK_F32X2_16(ptx, lo, hi) \
  ([&] { unsigned short d_; asm(ptx " %0, %1, %2;" : "=h"(d_) : "f"((float)(hi)), "f"((float)(lo))); return d_; }())
#define KL_CONVERT_TF32(ptx, a) \
  ([&] { unsigned int d_; asm(ptx " %0, %1;" : "=r"(d_) : "f"((float)(a))); return d_; }())
// One 32-bit atomic access of two packed lanes.
__device__ inline unsigned int atom_add_f16x2(unsigned int* p, unsigned int v) {
  unsigned int old;
  asm volatile("atom.add.noftz.f16x2 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
__device__ inline unsigned int atom_add_bf16x2(unsigned int* p, unsigned int v) {
  unsigned int old;
  asm volatile("atom.add.noftz.bf16x2 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
  return old;
}
#else
#define KL_PACKED_HALF1(ptx, a) ((unsigned int)(a))
#define KL_PACKED_HALF2(ptx, a, b) ((void)(b), (unsigned int)(a))
#define KL_PACKED_HALF3(ptx, a, b, c) ((void)(b), (void)(c), (unsigned int)(a))
#define KL_PACK_F32X2(ptx, lo, hi) ((void)(float)(lo), (void)(float)(hi), 0u)
#define KL_PACK_F32X2_16(ptx, lo, hi) ((void)(float)(lo), (void)(float)(hi), (unsigned short)0)
#define KL_CONVERT_TF32(ptx, a) __float_as_uint((float)(a))
__device__ inline unsigned int atom_add_f16x2(unsigned int* p, unsigned int) { return *p; }
__device__ inline unsigned int atom_add_bf16x2(unsigned int* p, unsigned int) { return *p; }
#endif
// Unpacking is exact: a bf16 is the high half of an f32, an f16 widens.
__device__ inline tuple2<float, float> unpack_bf16x2(unsigned int packed) {
  return {__uint_as_float(packed << 16), __uint_as_float(packed & 0xffff0000u)};
}
__device__ inline tuple2<float, float> unpack_f16x2(unsigned int packed) {
  return {(float)__ushort_as_half((unsigned short)packed), (float)__ushort_as_half((unsigned short)(packed >> 16))};
}
}
"#
    };
}
