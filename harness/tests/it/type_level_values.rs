//! Integer `cmp` as a three-way compare in the operands' own order, functions of the file
//! passed as values (the copies for their generic arguments), and a host closure's
//! capture of a struct built from literals, tuple-pattern parameters, `NonNull` as a pointer.

use crate::support;
use support::{check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/type_level_values.rs");

#[test]
fn integer_cmp_is_a_three_way_compare_beside_a_struct_ord() {
    let emitted = emit_one(KERNELS);
    let program = &emitted.program;
    let order = kernel(program, "signed_order");
    assert!(
        order.contains("(*slot) = ((int)(((signed char)(kl::three_way(lane, next)))));"),
        "{order}"
    );
    assert!(
        program.contains(
            "template <typename T> __device__ inline ::Ordering three_way(T a, typename same_type<T>::type b)"
        ),
        "{program}"
    );
    check_with_gxx(program);
}

#[test]
fn functions_passed_as_values_name_their_instances() {
    let emitted = emit_one(KERNELS);
    let program = &emitted.program;
    let passed = kernel(program, "passed_functions");
    assert!(
        passed.contains("(*slot) = ((call_with(offset_by_9, raw) + call_with(echo_u32, raw)) + spread_sum(kl::make_tuple(raw, kl::make_tuple(2, 3))));"),
        "{passed}"
    );
    assert!(
        program.contains("__device__ inline unsigned int offset_by_9(unsigned int x)"),
        "{program}"
    );
    check_with_gxx(program);
}

#[test]
fn a_struct_of_literals_is_a_closure_capture() {
    let emitted = emit_one(KERNELS);
    assert!(
        !emitted
            .manifest
            .not_lowered
            .iter()
            .any(|n| n.kernel.starts_with("blend")),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let blend = kernel(&emitted.program, "blend_f32_c1");
    assert!(blend.contains("auto mix = Blend{3, 0.5f};"), "{blend}");
    check_with_gxx(&emitted.program);
}

#[test]
fn non_null_is_a_pointer_and_its_transmutes_are_casts() {
    let emitted = emit_one(KERNELS);
    let program = &emitted.program;
    assert!(
        program.contains("__device__ inline unsigned char* as_handle(unsigned long long addr)"),
        "{program}"
    );
    assert!(program.contains("return ((unsigned char*)(addr));"), "{program}");
    assert!(program.contains("return ((unsigned long long)(p));"), "{program}");
    assert!(
        !emitted.manifest.not_lowered.iter().any(|n| n.kernel == "handles"),
        "{:?}",
        emitted.manifest.not_lowered
    );
    check_with_gxx(program);
}
