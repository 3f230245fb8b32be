//! Slices divided in place (`as_chunks::<N>()`, `split_at`, `split_at_mut_checked`, slices
//! rebuilt with `from_raw_parts_mut`) and checked vector views (`as_vectors::<F32x4>`): every
//! part points into the original buffer, so each access keeps its address and width.

use kernel_lint_harness::driver;

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/oxide_slice_splits.rs");

fn emitted() -> driver::Emitted {
    emit_one(KERNELS)
}

#[test]
fn every_kernel_is_lowered() {
    assert_every_kernel_lowered(&emitted());
}

#[test]
fn chunks_are_arrays_laid_over_the_slice() {
    let emitted = emitted();
    let triples = kernel(&emitted.program, "weighted_triples");
    assert!(
        triples.contains(
            "auto triples = kl::as_chunks<3>(samples);\nauto triples_len = samples_len / (3);\n\
             auto tail = samples + samples_len / (3) * (3);\nauto tail_len = samples_len % (3);"
        ),
        "{triples}"
    );
    assert!(triples.contains("auto q = triples[at];"), "{triples}");
    assert!(emitted.program.contains("return reinterpret_cast<C*>(p); }"));
}

#[test]
fn a_checked_split_keeps_both_parts_in_the_buffer() {
    let emitted = emitted();
    let halves = kernel(&emitted.program, "halves_offset");
    assert!(
        halves.contains("auto whole = kl::oxide_as_mut_ptr(data);") || halves.contains("auto whole = data;"),
        "{halves}"
    );
    assert!(
        halves.contains("auto whole_len = (unsigned long long)(count);"),
        "{halves}"
    );
    assert!(
        halves.contains(
            "if ((unsigned long long)(cut) <= whole_len) {\nunsigned long long whole_mid = kl::split_point(cut, whole_len);\n\
             auto head = whole;\nauto head_len = whole_mid;\nauto tail = whole + whole_mid;\nauto tail_len = whole_len - whole_mid;"
        ),
        "{halves}"
    );
    // The element is read through its reference, not the pointer stepped.
    assert!(halves.contains("(*v) = ((*v) - 7);"), "{halves}");
    assert!(halves.contains("(*v_1) = ((*v_1) * 3);"), "{halves}");
    assert!(halves.contains("else {"), "{halves}");
}

#[test]
fn an_unchecked_split_traps_past_the_end() {
    let emitted = emitted();
    let fixed = kernel(&emitted.program, "fixed_split");
    assert!(
        fixed.contains("unsigned long long values_mid = kl::split_point(16, values_len);\nauto front = values;"),
        "{fixed}"
    );
    assert!(fixed.contains("auto back = values + values_mid;"), "{fixed}");
    assert!(emitted.program.contains("if ((unsigned long long)k > len) __trap();"));
}

#[test]
fn vector_views_check_length_and_alignment_and_copy_whole_vectors() {
    let emitted = emitted();
    let quads = kernel(&emitted.program, "quad_move");
    assert!(
        quads.contains("long long src_vectors = kl::vector_count<4>(src, src_len);\nif (src_vectors < 0) {"),
        "{quads}"
    );
    assert!(
        quads.contains("auto from = kl::vector_view<4>(src);\nauto from_len = (unsigned long long)src_vectors;"),
        "{quads}"
    );
    assert!(
        quads.contains("long long flat_vectors = kl::vector_count<4>(flat, flat_len);\nif (flat_vectors >= 0) {\nauto to = kl::vector_view<4>(flat);"),
        "{quads}"
    );
    assert!(quads.contains("to[j] = from[j];"), "{quads}");
    let octets = kernel(&emitted.program, "halfword_octets");
    assert!(octets.contains("kl::vector_view<8>(src)"), "{octets}");
    assert!(emitted.program.contains("struct alignas(sizeof(T) * N) vector_lanes {"));
}

#[test]
fn a_promoted_range_is_read_through_its_reference() {
    let emitted = emitted();
    assert!(
        emitted
            .program
            .contains("const kl::range<unsigned long long>* w = &kl::promoted_range<unsigned long long, 24, 40>;"),
        "{}",
        emitted.program
    );
    assert!(emitted.program.contains("w->start"), "{}", emitted.program);
    assert!(emitted
        .program
        .contains("template <typename T, T S, T E> __device__ const range<T> promoted_range = {S, E};"));
}

#[test]
fn the_lowered_program_compiles() {
    check_with_gxx(&emitted().program);
}
