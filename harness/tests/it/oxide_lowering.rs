//! cuda-oxide kernels are lowered: `DisjointSlice` parameters as a pointer and a length with a
//! bounds-checked store, thread indices as the CUDA builtins, aligned shared arrays; what
//! cannot be lowered is listed with its reason.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/cuda_oxide_kernels.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

/// The kernels that were not lowered, with their reasons.
fn not_lowered(emitted: &driver::Emitted) -> Vec<(String, String)> {
    emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (n.kernel.clone(), n.reason.clone()))
        .collect()
}

#[test]
fn disjoint_slices_are_pointers_with_lengths_and_stores_are_bounds_checked() {
    let emitted = emitted();
    let scale = kernel(&emitted.program, "scale");
    assert!(
        scale.starts_with(
            "__global__ void scale(float k, const float* src, unsigned long long src_len, float* dst, unsigned long long dst_len)"
        ),
        "{scale}"
    );
    assert!(scale.contains("auto i = kl::oxide_index_1d();"), "{scale}");
    assert!(scale.contains("auto at = i;"), "{scale}");
    assert!(
        scale.contains("if ((unsigned long long)(i) < dst_len) {\nauto d = kl::make_ref(&dst[i]);"),
        "{scale}"
    );
    assert!(scale.contains("(*d) = (k * src[at]);"), "{scale}");
    // The driver passes the buffer and its length in elements, as for a slice.
    assert!(
        emitted.program.contains(
            "scale<<<dim3(4096u, 1u, 1u), dim3(256u, 1u, 1u)>>>((float)1.0, src, 1048576ull, dst, 1048576ull)"
        ),
        "{}",
        emitted.program
    );
}

#[test]
fn two_dimensional_indices_let_else_shared_arrays_and_shuffles_are_lowered() {
    let emitted = emitted();
    let rows = kernel(&emitted.program, "rows");
    assert!(
        rows.contains("if (!((kl::oxide_index_2d(ROW) != ~0ull))) {\n#line ")
            && rows.contains("return;\n}\nauto idx = kl::oxide_index_2d(ROW);"),
        "{rows}"
    );
    assert!(rows.contains("auto flat = idx;"), "{rows}");
    assert!(rows.contains("if ((unsigned long long)(idx) < dst_len)"), "{rows}");
    let staged = kernel(&emitted.program, "staged");
    assert!(
        staged.contains("__align__(16) __shared__ float STAGE[256];"),
        "{staged}"
    );
    assert!(
        staged.contains("auto t = ((unsigned long long)(threadIdx.x));"),
        "{staged}"
    );
    assert!(staged.contains("auto g = kl::oxide_index_1d();"), "{staged}");
    assert!(staged.contains("float v = STAGE[(255 - t)];"), "{staged}");
    assert!(
        staged.contains("__shfl_xor_sync(0xffffffffu, (float)(v), 1)"),
        "{staged}"
    );
    assert!(staged.contains("(*kl::make_ref(&dst[g])) = total;"), "{staged}");
    let halves = kernel(&emitted.program, "halves");
    assert!(
        halves.contains("const __half* src, unsigned long long src_len"),
        "{halves}"
    );
    assert!(emitted.program.contains("#include <cuda_fp16.h>"));
    assert!(emitted.program.contains("#include <cuda_bf16.h>"));
}

#[test]
fn let_chains_minted_indices_and_unnamed_loop_counters_are_lowered() {
    let emitted = emitted();
    let chained = kernel(&emitted.program, "chained");
    assert!(
        chained.contains(
            "if ((at < ((unsigned long long)(n)))) {\nif ((unsigned long long)(i) < dst_len) {\nauto d = kl::make_ref(&dst[i]);"
        ),
        "{chained}"
    );
    assert!(chained.contains("for (auto kl_unused = "), "{chained}");
    let indexed = kernel(&emitted.program, "indexed");
    assert!(
        indexed.contains(
            "if ((unsigned long long)(kl::oxide_index_1d()) < dst_len) {\nauto slot = kl::make_ref(&dst[kl::oxide_index_1d()]);\nauto idx = kl::oxide_index_1d();"
        ),
        "{indexed}"
    );
    assert!(indexed.contains("(*slot) = src[idx];"), "{indexed}");
}

#[test]
fn relaxed_atomics_are_the_cuda_builtins_of_their_scope() {
    let emitted = emitted();
    let histogram = kernel(&emitted.program, "histogram");
    assert!(
        histogram.contains("auto cell = (&(*(((const kl::oxide_atomic<float, 1>*)((bins + key))))));"),
        "{histogram}"
    );
    assert!(
        histogram.contains("auto before = kl::oxide_atomic_add(cell, 1.0f);"),
        "{histogram}"
    );
    let counters = kernel(&emitted.program, "counters");
    assert!(
        counters.starts_with("__global__ void counters(const kl::oxide_atomic<unsigned long long, 0>* table, unsigned long long table_len,"),
        "{counters}"
    );
    assert!(
        counters.contains("auto spent = kl::oxide_atomic_add(table[0], ((unsigned long long)0 - (unsigned long long)(((unsigned long long)(hits[i])))));"),
        "{counters}"
    );
    assert!(
        counters.contains("kl::oxide_atomic_store(table[1], spent);"),
        "{counters}"
    );
    // The driver sizes the cells as their values: 8 bytes each.
    assert!(emitted
        .program
        .contains("kl::oxide_atomic<unsigned long long, 0>* table = nullptr;"));
    assert!(emitted
        .program
        .contains("if constexpr (C::scope == 0) return builtin##_block(&cell->v, (T)value);"));
}

#[test]
fn constant_memory_and_raw_addresses_of_shared_arrays_are_lowered() {
    let emitted = emitted();
    assert!(
        emitted.program.contains("__constant__ kl::array<float, 4> TAPS;"),
        "{}",
        emitted.program
    );
    let filter = kernel(&emitted.program, "filter");
    assert!(filter.contains("__shared__ unsigned int WORDS[64];"), "{filter}");
    assert!(filter.contains("auto taps = kl::oxide_value(TAPS);"), "{filter}");
    assert!(
        filter.contains("auto first = (*(((const unsigned int*)((&WORDS)))));"),
        "{filter}"
    );
    assert!(filter.contains("auto base = ((unsigned int*)((&WORDS)));"), "{filter}");
    assert!(
        filter.contains("(((taps[0] * src[i]) + TAPS[1]) + ((float)(first)))"),
        "{filter}"
    );
}

#[test]
fn single_element_copies_and_sign_casts_are_lowered() {
    let emitted = emitted();
    let copy_one = kernel(&emitted.program, "copy_one");
    assert!(
        copy_one.contains("auto bits = kl::oxide_cast_unsigned(src[idx]);"),
        "{copy_one}"
    );
    assert!(
        copy_one.contains("(*(((unsigned int*)(kl::oxide_ptr(slot)))) = *((&bits)));"),
        "{copy_one}"
    );
}

#[test]
fn locals_named_like_lengths_and_unit_structs_are_lowered() {
    let emitted = emitted();
    let lengths = kernel(&emitted.program, "lengths");
    assert!(
        lengths.contains("auto data_len_1 = ((unsigned int)(data_len));"),
        "{lengths}"
    );
    assert!(lengths.contains("auto _unit = Unit{};"), "{lengths}");
    assert!(lengths.contains("(*o) = data_len_1;"), "{lengths}");
}

#[test]
fn writes_through_pointer_locals_store_to_the_element() {
    let emitted = emitted();
    let bump = kernel(&emitted.program, "bump");
    assert!(bump.contains("auto element = (values + index);"), "{bump}");
    assert!(bump.contains("auto value = (*element);"), "{bump}");
    assert!(bump.contains("(*element = (value + 1));"), "{bump}");
}

#[test]
fn arrays_taken_as_slices_keep_their_length() {
    let emitted = emitted();
    let table = kernel(&emitted.program, "table");
    assert!(
        table.contains(
            "auto view = &(weights)[0];\nauto view_len = (unsigned long long)(sizeof(weights) / sizeof((weights)[0]));"
        ),
        "{table}"
    );
    assert!(table.contains("(*o) = view[(i % view_len)];"), "{table}");
}

#[test]
fn what_cannot_be_lowered_is_listed_with_its_reason() {
    let emitted = emitted();
    let listed = not_lowered(&emitted);
    assert_eq!(
        listed,
        vec![
            (
                "generic".to_string(),
                "generic kernel over `T: Copy` is not lowered: no launch in this file instantiates it".to_string()
            ),
            (
                "runtime_rows".to_string(),
                "`index_2d_runtime` of a slice over `RuntimeRowMajorTiles`".to_string()
            ),
        ]
    );
    assert!(emitted.program.contains("auto smem = kl::dyn_shared<float, 16>(0ull);"));
    // An acquire load and a block-scope half addition have their instructions.
    assert!(kernel(&emitted.program, "acquire").contains("auto seen = kl::oxide_load<1>(flag);"));
    assert!(kernel(&emitted.program, "half_minimum").contains("kl::oxide_atomic_add_f16(cell, ((__half)1.0f), false);"));
}

#[test]
fn operators_of_references_a_file_overloads_are_not_lowered() {
    // Learned from the shape of NVlabs/cuda-oxide @ a105afd522b73a6712a802e30bd900cd04cc8019
    // (examples/ref_operand_mul): `impl Mul<f32> for &Pair`, a reference times a number: no
    // C++ operator of a pointer overloads it, and only `&T op &T` is called in its place.
    let text = r#"
use cuda_device::{kernel, thread, DisjointSlice};

#[derive(Clone, Copy)]
struct Pair {
    a: f32,
    b: f32,
}

impl core::ops::Mul<f32> for &Pair {
    type Output = Pair;
    fn mul(self, k: f32) -> Pair {
        Pair { a: self.a * k, b: self.b * k }
    }
}

#[kernel]
pub fn squares(mut out: DisjointSlice<f32>) {
    let p = Pair { a: 1.0, b: 2.0 };
    let q = &p * 2.0;
    if let Some(o) = out.get_mut(thread::index_1d()) {
        *o = q.a + q.b;
    }
}
"#;
    let emitted = driver::emit(&[SourceFile::new("pairs.rs", text)], &LaunchPlan::default());
    assert_eq!(
        not_lowered(&emitted),
        vec![(
            "squares".to_string(),
            "operator of `impl Mul` in this file: the operands may be its type, whose operator is not lowered"
                .to_string()
        )]
    );
}

#[test]
fn the_lowered_program_compiles() {
    check_with_gxx(&emitted().program);
}

#[test]
fn a_pointer_bound_in_an_unsafe_block_is_written_through() {
    // Shape of cuda-oxide's `cp_async_zfill` example (NVlabs/cuda-oxide @ a105afd5).
    let source = r#"
use cuda_device::{kernel, thread, DisjointSlice, SharedArray};

#[kernel]
pub fn sentinel(input: &[u32], mut out: DisjointSlice<u32>) {
    static mut SMEM: SharedArray<u32, 32> = SharedArray::UNINIT;
    let tid = thread::threadIdx_x() as usize;
    let slot = unsafe { (core::ptr::addr_of_mut!(SMEM) as *mut u32).add(tid) };
    unsafe { slot.write(0xDEAD_BEEF) };
    thread::sync_threads();
    if let Some(o) = out.get_mut(thread::index_1d()) {
        *o = unsafe { slot.read() } + input[tid];
    }
}
"#;
    let emitted = driver::emit(&[SourceFile::new("k.rs", source)], &LaunchPlan::default());
    assert!(not_lowered(&emitted).is_empty(), "{:?}", not_lowered(&emitted));
    let sentinel = kernel(&emitted.program, "sentinel");
    assert!(sentinel.contains("(*slot = 3735928559);"), "{sentinel}");
    check_with_gxx(&emitted.program);
}
