//! A constant holding the address of a static (`&DATA`, `&DATA[3]`, a table or struct of
//! such) is a `__device__` variable initialized, after the statics, with the addresses of
//! their `__device__` variables; a cast pointer, not a constant initializer in C++, is refused.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/oxide_static_addresses.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

#[test]
fn constants_of_static_addresses_are_device_variables_after_the_statics() {
    let emitted = emitted();
    let program = &emitted.program;
    let both = "__device__ const kl::tuple3<kl::aref<const kl::array<unsigned char, 8>>, const unsigned char*, bool> BOTH = kl::make_tuple((&BYTES), (&BYTES[3]), true);";
    let choices = "__device__ const kl::array<kl::tuple2<const unsigned int*, bool>, 2> CHOICES = {kl::make_tuple((&ONE), false), kl::make_tuple((&TWO), true)};";
    let row = "__device__ const kl::aref<const kl::array<float, 2>> MIDDLE_ROW = (&ROWS[1]);";
    let kept = "__device__ const Keeper KEPT = Keeper{(&BYTES), true};";
    for line in [both, choices, row, kept] {
        assert!(program.contains(line), "{line}\n{program}");
    }
    // Defined once the statics they point into are declared.
    let statics = program
        .find("__device__ const kl::array<kl::array<float, 2>, 3> ROWS = ")
        .expect("ROWS defined with its rows");
    assert!(program.find(both).unwrap() > statics, "{program}");
    for name in [
        "tuple_of_addresses",
        "table_of_addresses",
        "row_of_static",
        "struct_of_address",
    ] {
        let _ = kernel(program, name);
    }
    let refused: Vec<_> = emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (n.kernel.as_str(), n.reason.as_str()))
        .collect();
    assert_eq!(
        refused,
        [(
            "past_the_end",
            "`PAST_END` names a constant whose definition is not lowered: its value casts a static's address (`&raw const S as *const U`): a reinterpret_cast is no constant initializer of a `__device__` pointer"
        )]
    );
    check_with_gxx(program);
}

#[test]
fn statics_keep_their_numbers_and_addresses() {
    let program = emitted().program;
    for line in [
        "__device__ const unsigned int ONE = 11;",
        "__device__ const int SEED = (-7);",
        "__device__ const unsigned int* ONE_REF = (&ONE);",
        "__device__ const float* INNER = (&ROWS[2][1]);",
    ] {
        assert!(program.contains(line), "{line}\n{program}");
    }
    let _ = kernel(&program, "static_initializers");
    check_with_gxx(&program);
}
