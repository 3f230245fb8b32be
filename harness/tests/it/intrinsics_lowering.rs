//! cuda-oxide's atomics at every ordering and width, bit reinterpretation, numeric methods of
//! primitives and the device intrinsics of `cuda_device` are lowered to the CUDA builtins or
//! PTX they stand for, each keeping the Rust accesses; what cannot be is listed with why.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/cuda_oxide_intrinsics.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

fn reason(emitted: &driver::Emitted, name: &str) -> Option<String> {
    emitted
        .manifest
        .not_lowered
        .iter()
        .find(|n| n.kernel == name)
        .map(|n| n.reason.clone())
}

#[test]
fn orderings_are_instructions_or_fences_around_the_one_access() {
    let emitted = emitted();
    let publish = kernel(&emitted.program, "publish");
    assert!(publish.contains("kl::oxide_store<2>(flag, 7);"), "{publish}");
    assert!(publish.contains("auto seen = kl::oxide_load<1>(flag);"), "{publish}");
    assert!(
        publish.contains(
            "auto old = kl::oxide_acquired<1>((kl::oxide_fence_acq_rel<1>(), kl::oxide_atomic_add(flag, 1)));"
        ),
        "{publish}"
    );
    assert!(
        publish.contains(
            "auto last = kl::oxide_sc_fenced<1>((kl::oxide_fence_sc<1>(), kl::oxide_atomic_swap(flag, seen)));"
        ),
        "{publish}"
    );
    // The PTX of an acquire load of a device-scope cell.
    assert!(emitted.program.contains(r#"KL_LD("acquire", "gpu")"#));
    check_with_gxx(&emitted.program);
}

#[test]
fn compare_exchange_results_match_ok_and_err() {
    let emitted = emitted();
    let claim = kernel(&emitted.program, "claim");
    assert!(
        claim.contains(
            "auto result = kl::oxide_acquired<1>((kl::oxide_fence_acq_rel<1>(), kl::oxide_cas(slot, 0, 1)));"
        ),
        "{claim}"
    );
    assert!(claim.contains("if ((result).ok) {"), "{claim}");
    assert!(claim.contains("else if ((!(result).ok)) {"), "{claim}");
}

#[test]
fn signed_wide_and_half_cells_use_the_builtin_of_their_bits_and_scope() {
    let emitted = emitted();
    let wide = kernel(&emitted.program, "wide_and_half");
    assert!(
        wide.contains("auto old = kl::oxide_atomic_bits_add(count, (-3));"),
        "{wide}"
    );
    assert!(
        wide.contains("kl::oxide_atomic_add_f16(block, ((__half)1.0f), false);"),
        "{wide}"
    );
    assert!(emitted.program.contains("atom.cta.add.noftz.f16 %0, [%1], %2;"));
    // No 16-bit exchange: the loop of 16-bit compare-and-swaps the compiler emits.
    assert_eq!(reason(&emitted, "half_swap"), None);
    let swap = kernel(&emitted.program, "half_swap");
    assert!(swap.contains("kl::oxide_atomic_swap_f16(cell, vals[0]);"), "{swap}");
    assert!(emitted.program.contains("atom.gpu.cas.b16 %0, [%1], %2, %3;"));
}

#[test]
fn bits_are_reinterpreted_and_numeric_methods_are_prelude_functions() {
    let emitted = emitted();
    let bits = kernel(&emitted.program, "bits");
    assert!(bits.contains("auto b = kl::to_bits(xs[i]);"), "{bits}");
    assert!(bits.contains("auto back = kl::from_bits<double>(ys[i]);"), "{bits}");
    assert!(bits.contains("int same = kl::transmute<int>((float)xs[i]);"), "{bits}");
    assert!(
        bits.contains("auto kl_tuple_1 = kl::overflowing_add(b, ((unsigned int)(same)));"),
        "{bits}"
    );
    assert!(
        bits.contains("auto pick = kl::select(kl::is_nan(back), sum, b);"),
        "{bits}"
    );
    assert!(bits.contains("kl::to_bits(kl::asin(xs[i]))"), "{bits}");
    // Constant bits are the literal they spell: a `constexpr` takes it.
    assert!(
        emitted
            .program
            .contains("constexpr float ONE_PLUS_ULP = (1.0000001e0f);"),
        "{}",
        emitted.program
    );
    let copies = kernel(&emitted.program, "copies");
    assert!(copies.contains("kl::copy_elements(input, out, len);"), "{copies}");
    check_with_gxx(&emitted.program);
}

#[test]
fn device_intrinsics_are_their_builtins_and_registers() {
    let emitted = emitted();
    let registers = kernel(&emitted.program, "registers");
    assert!(
        registers.contains("if (!((a[i] < 1000))) __assertfail(\"value out of range\", \"k.rs\", "),
        "{registers}"
    );
    assert!(registers.contains("if (!((a[i] != 7))) __trap();"), "{registers}");
    // CUDA declares the report for runtime compilation only.
    assert!(emitted
        .program
        .contains("extern \"C\" __device__ void __assertfail(const char* message, const char* file, unsigned int line, const char* function, size_t charSize);"));
    assert!(registers.contains("auto start = kl::sreg_clock64();"), "{registers}");
    assert!(
        registers.contains(r#"auto packed = KL_PACK_F32X2("cvt.rn.f16x2.f32", 1.0f, 2.0f);"#),
        "{registers}"
    );
    assert!(
        registers.contains(r#"auto sum = KL_PACKED_HALF2("add.bf16x2", packed, a[i]);"#),
        "{registers}"
    );
    assert!(
        registers.contains("auto dot = __dp4a((int)(a[i]), (int)(packed), (int)(3));"),
        "{registers}"
    );
    assert!(registers.contains("__trap();"), "{registers}");
    assert!(registers.contains("(kl::sreg_warpid() + sum)"), "{registers}");
    check_with_gxx(&emitted.program);
}

#[test]
fn cluster_barriers_rounding_and_writes_through_a_cast_pointer() {
    let emitted = emitted();
    let rounding = kernel(&emitted.program, "rounding");
    assert!(
        rounding.contains(r#"KL_CLUSTER_BARRIER("barrier.cluster.arrive.relaxed.aligned;");"#),
        "{rounding}"
    );
    assert!(
        rounding.contains(r#"KL_CLUSTER_BARRIER("barrier.cluster.wait.aligned;");"#),
        "{rounding}"
    );
    assert!(rounding.contains("(*(((unsigned int*)(out))) = 7);"), "{rounding}");
    assert!(
        rounding.contains(
            "((kl::round_ties_even(xs[i]) + kl::mul_add(xs[i], 2.0f, 1.0f)) + ::fmaxf((float)(xs[i]), (float)(1.0f)))"
        ),
        "{rounding}"
    );
    check_with_gxx(&emitted.program);
}
