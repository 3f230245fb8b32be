//! Calls to `extern "C"` device functions compile the crate's CUDA source that defines them
//! into the twin; a function defined nowhere, or only with a MathDx header, is refused.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

fn emitted() -> driver::Emitted {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/device_ffi/src/main.rs");
    let text = std::fs::read_to_string(path).unwrap();
    driver::emit(&[SourceFile::new(path, &text)], &LaunchPlan::default())
}

#[test]
fn foreign_calls_are_calls_of_the_included_definitions() {
    let emitted = emitted();
    let lengths = kernel(&emitted.program, "lengths");
    assert!(
        lengths.contains("(*(out + i)) = (::length_squared((*(xs + i)), 4.0f) + ::sum_of(xs, 4));"),
        "{lengths}"
    );
    // The defining file is compiled once, before the file's namespace.
    let program = &emitted.program;
    assert_eq!(
        program
            .matches("#ifndef KL_FFI_VECTOR_FUNCS_CU\n#define KL_FFI_VECTOR_FUNCS_CU\n")
            .count(),
        1
    );
    assert!(program.contains("extern \"C\" __device__ float length_squared(float x, float y) {"));
    assert!(
        !program.contains("fft_forward(float* data) {"),
        "the MathDx source stays out"
    );
    check_with_gxx(program);
}

#[test]
fn undefined_and_mathdx_functions_are_refused_by_name() {
    let emitted = emitted();
    let reasons: Vec<(String, String)> = emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (n.kernel.clone(), n.reason.clone()))
        .collect();
    assert!(
        reasons.contains(&(
            "undefined".to_string(),
            "extern \"C\" `declared_only` is defined in no .cu file of the crate's extern-libs/".to_string()
        )),
        "{reasons:?}"
    );
    assert!(reasons.contains(&(
        "fft".to_string(),
        "extern \"C\" `fft_forward` is defined in extern-libs/fft_funcs.cu with cuFFTDx (<cufftdx.hpp>), a NVIDIA MathDx header that does not ship with the CUDA toolkit".to_string()
    )), "{reasons:?}");
}
