//! Sparse-grid kernels: structs deriving `PartialEq` compare field by field, unsuffixed
//! literal vectors take the other operand's scalar, `cast::<T>()` of a vector converts its
//! elements, `Vector3::zeros()` takes the field's type, `&a[1..]` loops over part of an array,
//! `?` returns `None`, `impl Trait` parameters make templates, and trait methods implemented for
//! several types are called on the element type of a raw pointer.

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one};

fn without_line_directives(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("#line"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn sparse_grid_kernels_lower_to_valid_cuda() {
    let emitted = emit_one(include_str!("../data/sparse_grid_kernels.rs"));
    assert_every_kernel_lowered(&emitted);
    let program = without_line_directives(&emitted.program);
    check_with_gxx(&emitted.program);
    for line in [
        "  template <typename A = CellKey> __host__ __device__ bool operator==(const A& b) const { const A& a = static_cast<const A&>(*this); return a._0 == b._0; }",
        "if ((slot.key == key)) {",
        "return kl::make_array(pack((cell + kl::na::vector(1, 0, 0))), pack((cell - kl::na::vector(0, 1, 0))));",
        "return kl::na::cast<unsigned long long>(kl::na::vector((key._0 & 2097151), (((key._0 >> 21)) & 2097151), (key._0 >> 42)));",
        "return Node{0.0f, kl::na::zeros<decltype(Node::flow)>()};",
        "auto kl_try_1 = Table_lookup(self, key);\nif (!kl_try_1.some) return kl::none{};\nauto first = kl_try_1.value;",
        "template <typename KlImpl0> __device__ inline void Table_insert_with(Table& self, CellKey key, KlImpl0 make) {",
        "template <typename KlImpl0> __device__ inline void weigh_all(KlImpl0* weigher, float* values, unsigned long long i) {",
        "for (unsigned long long kl_i_1 = 0; kl_i_1 < (unsigned long long)(kl::sub_len(1, kl::len(keys), kl::len(keys))); ++kl_i_1) {\nauto key = &(&keys[1])[kl_i_1];",
        "u32_accumulate((*count), 1);",
        "return u32_accumulate(((*(counts + i))), 1);",
    ] {
        assert!(program.contains(line), "missing `{line}`:\n{program}");
    }
}

#[test]
fn mixed_scalar_vector_operators_take_the_typed_scalar() {
    let emitted = emit_one(include_str!("../data/sparse_grid_kernels.rs"));
    // The prelude's operators between a typed vector and a literal one.
    assert!(emitted.program.contains(
        "std::conditional<std::is_same<U, int>::value || std::is_same<U, double>::value, T, U>::type type; };"
    ));
    let probe = format!(
        "{}\nnamespace probe {{\n__device__ kl::na::Matrix<unsigned long long, 3, 1> shifted(kl::na::Matrix<unsigned long long, 3, 1> c) {{\n  kl::na::Matrix<unsigned long long, 3, 1> r = kl::na::vector(0, 1, 0) + c;\n  r += kl::na::vector(1, 0, 0);\n  return r - kl::na::vector(1, 1, 1);\n}}\n__device__ bool same(kl::na::Matrix<float, 2, 1> v) {{ return v == kl::na::vector(1.0, 2.0) && kl::na::cast<int>(v) != kl::na::vector(1, 2); }}\n}}\n",
        emitted.program
    );
    check_with_gxx(&probe);
}
