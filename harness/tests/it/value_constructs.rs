//! Values the twin must build the way nvcc accepts: a reference to an integer constant names a
//! `__device__` copy (device code may not take a host `constexpr`'s address), variants that
//! initialize a `__device__` table are `constexpr`, an integer past `long long` is `ull`;
//! `map_or` on an option, `Some(&s)` in a tuple `if let`, and a const assertion as `()`.

use crate::support;
use support::{check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/value_constructs.rs");

#[test]
fn a_reference_to_an_integer_constant_names_a_device_copy() {
    let emitted = emit_one(KERNELS);
    let k = kernel(&emitted.program, "clamp_with_const_ref");
    assert!(
        k.contains("auto a = (*kl::unwrap_or(found, (&kl::promoted<FALLBACK_LIMIT>)));"),
        "{k}"
    );
    assert!(emitted
        .program
        .contains("template <auto V> __device__ const decltype(V) promoted = V;"));
}

#[test]
fn variants_and_wide_literals_initialize_device_tables_statically() {
    let emitted = emit_one(KERNELS);
    let p = &emitted.program;
    assert!(
        p.contains("static __host__ __device__ constexpr Face make_Back() { Face e{}; e.tag = 8; return e; }"),
        "{p}"
    );
    assert!(p.contains(
        "__device__ const kl::array<unsigned long long, 2> MASKS = {9833440827789222417ull, 72623859790382856};"
    ));
}

#[test]
fn map_or_and_a_by_value_binding_lower() {
    let emitted = emit_one(KERNELS);
    let k = kernel(&emitted.program, "mapped_or");
    assert!(
        k.contains("(*slot) = kl::map_or(kl::slice_get(values, values_len, i), 7, [&](auto v) {"),
        "{k}"
    );
    let k = kernel(&emitted.program, "copy_by_value");
    assert!(k.contains("auto s = (*kl::make_ref(&src[idx]));"), "{k}");
    assert!(k.contains("(*slot) = (s ^ ((s >> 5)));"), "{k}");
}

#[test]
fn a_const_generic_owner_is_copied_per_constants_and_the_rest_compiles() {
    let emitted = emit_one(KERNELS);
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    assert!(emitted.program.contains("Rotate_5_apply("), "{}", emitted.program);
    assert_eq!(emitted.manifest.launches.len(), 5);
    check_with_gxx(&emitted.program);
}
