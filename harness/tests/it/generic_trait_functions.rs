//! Trait functions generic over types and constants are lowered once per argument list: the
//! arguments the call gives (`M::gains::<R, DEPTH>()`) or, for a constant the call leaves out,
//! the one the caller's bound gives (`Depth<N>: Sample` under the caller's `Depth<8>: Sample`).

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::check_with_gxx;

const KERNELS: &str = include_str!("../data/generic_trait_functions.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

#[test]
fn generic_trait_functions_are_copied_per_argument_list() {
    let emitted = emitted();
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let program = &emitted.program;
    // The explicit arguments and the depth inferred from the caller's bound.
    assert!(
        program.contains("__device__ inline kl::tuple5<float, float, float, float, float> Hd_gains_Studio_8() {"),
        "{program}"
    );
    assert!(
        program.contains("auto s = (1.0f / ((float)(Studio_span_10())));"),
        "{program}"
    );
    // A trait's default body calls the impl's functions with the copy's own depth.
    assert!(
        program.contains("return (Studio_ceil_8() - Studio_floor_8());"),
        "{program}"
    );
    assert!(program.contains("return (16 << ((10 - 8)));"), "{program}");
    // An associated constant built by `const fn`s is the same expression.
    assert!(
        program.contains("auto&& kl_let_1 = (weights_of(Pair_new(0.2126f, 0.0722f)));"),
        "{program}"
    );
    // The method's result type is known: `q.total()` calls `Pair`'s.
    assert!(program.contains("auto q = Pair_swapped(p);"), "{program}");
    assert!(program.contains("return Pair_new(Pair_total(q), q.a);"), "{program}");
    let start = program
        .find(
            "__device__ inline void convert_8_Studio_Hd(const unsigned char* src, float* dst, unsigned long long n) {",
        )
        .expect("the helper's copy is defined");
    let helper = &program[start..start + program[start..].find("\n}\n\n").expect("its end")];
    assert!(
        helper.contains("auto kl_tuple_1 = Hd_gains_Studio_8();\nauto s = kl_tuple_1._0;"),
        "{helper}"
    );
    assert!(helper.contains("auto g2 = kl_tuple_1._4;"), "{helper}");
    assert!(helper.contains("Studio_floor_8()) - Studio_floor_8());"), "{helper}");
    // libdevice's `__nv_fmaf` bound as `fmaf` is the C function.
    assert!(
        helper.contains("(*(dst + i)) = ::fmaf((float)(((float)(v))), (float)(s), (float)((((ra + rb) + g1) + g2)));"),
        "{helper}"
    );
    check_with_gxx(program);
}
