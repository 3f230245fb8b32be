//! The warp-level register matrix multiplies of cuda-oxide (`cuda_intrinsics::matrix::mma_*`,
//! `cuda_device::wmma::mma_*`): each call is one `mma.sync` (or sparse `mma.sp`) instruction
//! whose fragments live in registers, spelled from the function's name
//! (`mma_m16n8k16_f32_bf16` is `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`). They touch
//! no memory; the twin keeps the instruction so that the warp's lanes stay converged as in Rust.

/// One register fragment: how many registers, their C++ type and `asm` constraint.
#[derive(Clone, Copy)]
struct Fragment {
    count: u32,
    c_type: &'static str,
    constraint: &'static str,
}

/// A register `mma` form that sm_80 and later (so sm_90) run.
pub(super) struct RegisterMma {
    ptx: String,
    d: Fragment,
    a: Fragment,
    b: Fragment,
    sparse: bool,
}

/// Bits of one element of a PTX matrix type.
fn bits(ty: &str) -> Option<u32> {
    Some(match ty {
        "f64" => 64,
        "f32" | "tf32" | "s32" => 32,
        "f16" | "bf16" => 16,
        "s8" | "u8" => 8,
        "s4" | "u4" => 4,
        "b1" => 1,
        _ => return None,
    })
}

/// The fragment of an `rows x cols` matrix of `ty` spread over the warp's 32 lanes.
fn fragment(rows: u32, cols: u32, ty: &str, accumulator: bool) -> Option<Fragment> {
    let (c_type, constraint, reg_bits) = match ty {
        "f64" => ("double", "d", 64),
        "f32" if accumulator => ("float", "f", 32),
        "s32" => ("int", "r", 32),
        _ => ("unsigned int", "r", 32),
    };
    let total = rows * cols * bits(ty)?;
    total.is_multiple_of(32 * reg_bits).then_some(Fragment {
        count: total / (32 * reg_bits),
        c_type,
        constraint,
    })
}

/// The register `mma` named `name`, with `arity` arguments: `(c, a, b)` dense, `(c, a, b, e, f)`
/// sparse. `None` for any other name, including forms sm_90 lacks (those are refused elsewhere).
pub(super) fn register_mma(name: &str, arity: usize) -> Option<RegisterMma> {
    let rest = name.strip_prefix("mma_")?;
    let (op, sparse, rest) = if let Some(r) = rest.strip_prefix("sp_ordered_metadata_") {
        ("mma.sp::ordered_metadata", true, r)
    } else if let Some(r) = rest.strip_prefix("sp_") {
        ("mma.sp", true, r)
    } else {
        ("mma", false, rest)
    };
    if arity != if sparse { 5 } else { 3 } {
        return None;
    }
    let mut parts = rest.split('_');
    let shape = parts.next()?;
    let (m, rest_shape) = shape.strip_prefix('m')?.split_once('n')?;
    let (n, k) = rest_shape.split_once('k')?;
    let (m, n, k): (u32, u32, u32) = (m.parse().ok()?, n.parse().ok()?, k.parse().ok()?);
    let parts: Vec<&str> = parts.collect();
    // (accumulator type, A type, B type, ".satfinite", trailing bit operation)
    let (acc, ta, tb, satfinite, bit_op) = match parts.as_slice() {
        ["f64"] => ("f64", "f64", "f64", false, None),
        [acc @ ("f32" | "f16"), ab @ ("f16" | "bf16" | "tf32")] => (*acc, *ab, *ab, false, None),
        ["s32", "b1", op @ ("xor" | "and"), "popc"] => ("s32", "b1", "b1", false, Some(*op)),
        ["s32", int @ ..] => {
            let (types, satfinite) = match int {
                [types @ .., "satfinite"] => (types, true),
                types => (types, false),
            };
            match types {
                [a] => ("s32", *a, *a, satfinite, None),
                [a, b] => ("s32", *a, *b, satfinite, None),
                _ => return None,
            }
        }
        _ => return None,
    };
    let integer = |t: &str| matches!(t, "s8" | "u8" | "s4" | "u4");
    let dense_shapes: &[(u32, u32, u32)] = match (acc, ta) {
        ("f64", _) => &[(8, 8, 4), (16, 8, 4), (16, 8, 8), (16, 8, 16)],
        ("f32" | "f16", "f16") => &[(16, 8, 8), (16, 8, 16)],
        ("f32", "bf16") => &[(16, 8, 8), (16, 8, 16)],
        ("f32", "tf32") => &[(16, 8, 4), (16, 8, 8)],
        ("s32", "s8" | "u8") if integer(tb) && bits(tb) == Some(8) => &[(8, 8, 16), (16, 8, 16), (16, 8, 32)],
        ("s32", "s4" | "u4") if integer(tb) && bits(tb) == Some(4) => &[(8, 8, 32), (16, 8, 32), (16, 8, 64)],
        ("s32", "b1") => &[(8, 8, 128), (16, 8, 128), (16, 8, 256)],
        _ => return None,
    };
    let sparse_shapes: &[(u32, u32, u32)] = match ta {
        "s8" | "u8" => &[(16, 8, 32), (16, 8, 64)],
        "s4" | "u4" => &[(16, 8, 64), (16, 8, 128)],
        _ => &[],
    };
    let shapes = if sparse { sparse_shapes } else { dense_shapes };
    if !shapes.contains(&(m, n, k)) {
        return None;
    }
    let mut a = fragment(m, k, ta, false)?;
    if sparse {
        // Only the kept half of A's 2:4-sparse elements is held.
        a.count /= 2;
    }
    let b = fragment(k, n, tb, false)?;
    let d = fragment(m, n, acc, true)?;
    let mut ptx = format!("{op}.sync.aligned.m{m}n{n}k{k}.row.col");
    if satfinite {
        ptx.push_str(".satfinite");
    }
    ptx.push_str(&format!(".{acc}.{ta}.{tb}.{acc}"));
    if let Some(op) = bit_op {
        ptx.push_str(&format!(".{op}.popc"));
    }
    Some(RegisterMma { ptx, d, a, b, sparse })
}

impl RegisterMma {
    /// The twin's expression for a call with lowered arguments `args` (`c, a, b` then, sparse,
    /// the metadata `e` and the sparsity selector, which PTX takes as an immediate).
    pub(super) fn call(&self, args: &[String], selector: Option<u32>) -> String {
        let mut next = 0u32;
        // Fragments are vector operands even of one register (`{%2}`: ptxas rejects a bare
        // `%2` there); the sparse metadata and selector are scalars.
        let mut list = |count: u32, vector: bool| {
            let regs: Vec<String> = (next..next + count).map(|i| format!("%{i}")).collect();
            next += count;
            if vector {
                format!("{{{}}}", regs.join(", "))
            } else {
                regs.join(", ")
            }
        };
        let mut operands = vec![
            list(self.d.count, true),
            list(self.a.count, true),
            list(self.b.count, true),
            list(self.d.count, true),
        ];
        if self.sparse {
            operands.push(list(1, false));
            operands.push(list(1, false));
        }
        let element = |var: &str, f: Fragment, i: u32| {
            if f.count == 1 {
                var.to_string()
            } else {
                format!("{var}.v[{i}]")
            }
        };
        let outputs: Vec<String> = (0..self.d.count)
            .map(|i| format!("\"={}\"(d_.v[{i}])", self.d.constraint))
            .collect();
        let mut inputs = Vec::new();
        for (var, f) in [("a_", self.a), ("b_", self.b), ("c_", self.d)] {
            for i in 0..f.count {
                inputs.push(format!("\"{}\"(({})({}))", f.constraint, f.c_type, element(var, f, i)));
            }
        }
        let mut bindings = format!(
            "auto c_ = ({}); auto a_ = ({}); auto b_ = ({});",
            args[0], args[1], args[2]
        );
        if self.sparse {
            bindings.push_str(&format!(" unsigned int e_ = (unsigned int)({});", args[3]));
            inputs.push("\"r\"(e_)".to_string());
            inputs.push(format!("\"n\"({})", selector.unwrap_or(0)));
        }
        let unused = if self.sparse { " (void)e_;" } else { "" };
        format!(
            "([&] {{ {bindings} kl::array<{}, {}> d_{{}}; KL_MMA_ASM(\"{} {};\" : {} : {}); (void)a_; (void)b_; (void)c_;{unused} return d_; }}())",
            self.d.c_type,
            self.d.count,
            self.ptx,
            operands.join(", "),
            outputs.join(", "),
            inputs.join(", ")
        )
    }
}

impl super::Context<'_> {
    /// A register `mma` call; a sparse one needs its sparsity selector as a literal, since
    /// the instruction takes it as an immediate operand.
    pub(super) fn register_mma_call(
        &self,
        c: &syn::ExprCall,
        name: &str,
        mma: &RegisterMma,
        args: &[String],
    ) -> super::Lowered<String> {
        let selector = match c.args.iter().nth(4) {
            None => None,
            Some(syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i), ..
            })) => match i.base10_parse::<u32>() {
                Ok(v) if v <= 1 => Some(v),
                _ => return self.fail(c, format!("`{name}`: the sparsity selector must be 0 or 1")),
            },
            Some(other) => {
                return self.fail(
                    other,
                    format!("`{name}`: the sparsity selector is not a literal, but PTX takes it as an immediate"),
                );
            }
        };
        Ok(mma.call(args, selector))
    }
}

/// `KL_MMA_ASM`: the instruction on the device, nothing in a host check of the twin.
#[macro_export]
#[doc(hidden)]
macro_rules! register_mma_prelude {
    () => {
        r#"#ifdef __CUDACC__
#define KL_MMA_ASM(...) asm volatile(__VA_ARGS__)
#else
#define KL_MMA_ASM(...) ((void)0)
#endif
"#
    };
}
