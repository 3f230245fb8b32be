//! Generic kernels are lowered once per instantiation their file launches; helpers generic
//! over types and constants once per explicit call; associated functions and constants of
//! trait impls for concrete types through the impls (or the trait's defaults).

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::check_with_gxx;

const GENERIC_KERNELS: &str = include_str!("../data/generic_kernels.rs");
const TRAIT_SAMPLES: &str = include_str!("../data/trait_samples.rs");

fn emitted() -> driver::Emitted {
    driver::emit(
        &[
            SourceFile::new("generic.rs", GENERIC_KERNELS),
            SourceFile::new("samples.rs", TRAIT_SAMPLES),
        ],
        &LaunchPlan::default(),
    )
}

/// The definition of one function of the program, up to the blank line after it.
fn function<'a>(program: &'a str, signature: &str) -> &'a str {
    let start = program
        .find(&format!("{signature} {{"))
        .unwrap_or_else(|| panic!("`{signature}` is defined:\n{program}"));
    let rest = &program[start..];
    &rest[..rest.find("\n}\n\n").map_or(rest.len(), |e| e + 3)]
}

/// Without `#line` directives, which name the source lines.
fn code(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("#line"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn each_launched_instantiation_is_a_kernel_of_its_own() {
    let emitted = emitted();
    let launched: Vec<&str> = emitted.manifest.launches.iter().map(|l| l.kernel.as_str()).collect();
    // `{ Eight::VALUE }` is the 8 of the file's impl.
    for name in [
        "scale_f32",
        "scale_i32",
        "shifted_4",
        "shifted_8",
        "strided_Narrow",
        "strided_Wide",
    ] {
        assert!(launched.contains(&name), "{name} in {launched:?}");
    }
    let f32_scale = code(function(
        &emitted.program,
        "__global__ void scale_f32(float factor, const float* input, unsigned long long input_len, float* out, unsigned long long out_len)",
    ));
    assert!(f32_scale.contains("(*slot) = (input[i] * factor);"), "{f32_scale}");
    assert!(emitted.program.contains(
        "__global__ void scale_i32(int factor, const int* input, unsigned long long input_len, int* out, unsigned long long out_len)"
    ));
    // The instantiation's line is the generic kernel's.
    let record = emitted
        .manifest
        .launches
        .iter()
        .find(|l| l.kernel == "scale_i32")
        .unwrap();
    assert_eq!(record.line, 32);
}

#[test]
fn constants_and_trait_constants_of_an_instantiation_are_its_values() {
    let program = emitted().program;
    let shifted = code(function(&program, "__global__ void shifted_4(unsigned int* out)"));
    assert!(
        shifted.contains("(*(out + i) = offset_4(((unsigned int)(i))));"),
        "{shifted}"
    );
    let offset = code(function(
        &program,
        "__device__ inline unsigned int offset_4(unsigned int value)",
    ));
    assert!(offset.contains("return (value + ((unsigned int)(4)));"), "{offset}");
    // The generic helper itself is not defined: its `K` has no value.
    assert!(
        !program.contains("unsigned int offset(unsigned int value)"),
        "{program}"
    );
    let wide = code(function(
        &program,
        "__global__ void strided_Wide(const unsigned int* input, unsigned int* out)",
    ));
    assert!(wide.contains("(*(out + i) = (*(input + (i * 4ll))));"), "{wide}");
    let narrow = code(function(
        &program,
        "__global__ void strided_Narrow(const unsigned int* input, unsigned int* out)",
    ));
    assert!(narrow.contains("(*(out + i) = (*(input + (i * 1ll))));"), "{narrow}");
}

#[test]
fn kernels_without_a_concrete_launch_are_refused_with_the_reason() {
    let emitted = emitted();
    let reasons: Vec<(String, String)> = emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (n.kernel.clone(), n.reason.clone()))
        .collect();
    assert!(
        reasons.contains(&(
            "never_launched".to_string(),
            "generic kernel over `T: Copy` is not lowered: no launch in this file instantiates it".to_string()
        )),
        "{reasons:?}"
    );
    // The closure the host passes instantiates `apply`.
    assert!(!reasons.iter().any(|(k, _)| k == "apply"), "{reasons:?}");
    assert!(emitted.program.contains("__global__ void apply_c1("));
    assert!(reasons.contains(&(
        "filled".to_string(),
        "generic kernel over `T: Copy` is not lowered: its launches leave its arguments to inference (`.filled(..)`)".to_string()
    )), "{reasons:?}");
    // A generic struct of the instantiation is one C struct named with its arguments.
    assert!(!reasons.iter().any(|(k, _)| k == "tagged_Wide"), "{reasons:?}");
    let program = emitted.program;
    assert!(
        program.contains("struct Tag_u32_Wide {\n  unsigned int value;\n};\n"),
        "{program}"
    );
    assert!(
        program.contains("__global__ void tagged_Wide(Tag_u32_Wide* out)"),
        "{program}"
    );
}

#[test]
fn trait_functions_resolve_through_the_impl_or_the_default() {
    let program = emitted().program;
    let eight = code(function(
        &program,
        "__device__ inline void to_linear_8_Square(const unsigned char* src, float* dst, unsigned long long n)",
    ));
    assert!(
        eight.contains("(*(dst + i)) = (Square_apply(Bits_8_normalize(v)) + ((float)(255ll)));"),
        "{eight}"
    );
    // The trait's default body, with `Self` the 8-bit depth.
    let default = code(function(
        &program,
        "__device__ inline float Bits_8_normalize(unsigned char v)",
    ));
    assert!(
        default.contains("return (((float)(v)) / ((float)(255ll)));"),
        "{default}"
    );
    // The impl's own body for 16 bits.
    let own = code(function(
        &program,
        "__device__ inline float Bits_16_normalize(unsigned short v)",
    ));
    assert!(
        own.contains("return (((float)(v)) * ((1.0f / ((float)(65535ll)))));"),
        "{own}"
    );
    assert!(
        program.contains("__global__ void to_linear_16(const unsigned short* src, float* dst, unsigned long long n) {")
    );
}

#[test]
fn a_result_rounded_from_f32_converts_to_the_type_it_is_stored_as() {
    let program = emitted().program;
    let quantize = code(function(
        &program,
        "__device__ inline void quantize_8_(const float* src, unsigned char* dst, unsigned long long n)",
    ));
    assert!(
        quantize.contains("(*(dst + i)) = kl::RoundFromF32{(float)(((*(src + i)) * ((float)(255ll))))};"),
        "{quantize}"
    );
    assert!(program.contains("__device__ operator unsigned char() const { return (unsigned char)__float2uint_rn(v); }"));
}

#[test]
fn a_constant_the_build_script_writes_is_refused_with_the_reason() {
    let emitted = emitted();
    let reason = emitted
        .manifest
        .not_lowered
        .iter()
        .find(|n| n.kernel == "tapped")
        .map(|n| n.reason.clone());
    assert_eq!(
        reason.as_deref(),
        Some("`taps::COUNT` is written by the build script (`include!(concat!(env!(\"OUT_DIR\"),\"/taps.rs\"))`): its value is computed when the crate builds, not in the source")
    );
}

#[test]
fn the_lowered_program_compiles() {
    check_with_gxx(&emitted().program);
}
