//! A kernel generic over a closure that host code builds is lowered once per closure
//! launched: the closure is bound at the top of the body, its captures as the literals the
//! host binds them to; a capture the twin cannot hold as a literal is refused by name.

use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/host_closures.rs");

fn emitted() -> driver::Emitted {
    emit_one(KERNELS)
}

fn reason(emitted: &driver::Emitted, name: &str) -> String {
    emitted
        .manifest
        .not_lowered
        .iter()
        .find(|n| n.kernel == name)
        .map(|n| n.reason.clone())
        .unwrap_or_else(|| panic!("`{name}` is refused: {:?}", emitted.manifest.not_lowered))
}

#[test]
fn each_launched_closure_is_a_kernel_with_its_captures_as_literals() {
    let emitted = emitted();
    let first = kernel(&emitted.program, "apply_f32_c1");
    assert!(
        first.starts_with(
            "__global__ void apply_f32_c1(const float* src, unsigned long long src_len, float* dst, unsigned long long dst_len)"
        ),
        "{first}"
    );
    assert!(first.contains("auto gain = 1.5f;"), "{first}");
    assert!(
        first.contains("auto shift = -2.0f;") || first.contains("auto shift = (-2.0f);"),
        "{first}"
    );
    assert!(
        first.contains("auto f = [=](float x) mutable {\nreturn ((x * gain) + shift);\n}"),
        "{first}"
    );
    assert!(first.contains("(*d) = f(src[i]);"), "{first}");
    // A closure with no capture may borrow nothing.
    let second = kernel(&emitted.program, "apply_f32_c2");
    assert!(
        second.contains("auto f = [&](float x) {\nreturn (x * 2.0f);\n}"),
        "{second}"
    );
    // The const argument is substituted; the closure is `FnMut`, so its binding is mutable.
    let plus = kernel(&emitted.program, "apply_plus_4_c1");
    assert!(
        plus.starts_with("__global__ void apply_plus_4_c1(const unsigned int* src"),
        "{plus}"
    );
    assert!(plus.contains("unsigned int step = 3;"), "{plus}");
    assert!(plus.contains("(*d) = (f(src[i]) + 4);"), "{plus}");
    // A method launch with the closure bound by an earlier `let`.
    let only = kernel(&emitted.program, "only_closure_c1");
    assert!(
        only.contains("auto op = [&](unsigned int v) {\nreturn (v + 2);\n}"),
        "{only}"
    );
    check_with_gxx(&emitted.program);
}

#[test]
fn borrowed_captures_are_refused_and_struct_literals_captured() {
    let emitted = emitted();
    assert_eq!(
        reason(&emitted, "borrowed"),
        "generic kernel over `T: Copy` is not lowered: the closure launched by `borrowed::<f32, _>` borrows `gain`, which the device reads from host memory"
    );
    // A struct of literals is a capture the twin holds whole.
    let weighted = kernel(&emitted.program, "weighted_f32_c1");
    assert!(weighted.contains("auto w = Weights{2.0f};"), "{weighted}");
    assert!(!emitted.manifest.not_lowered.iter().any(|n| n.kernel == "weighted"));
    assert!(!emitted.program.contains("__global__ void borrowed_"));
}
