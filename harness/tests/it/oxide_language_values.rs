//! Language constructs of cuda-oxide kernels: arrays whose element type is inferred from their
//! elements, `char`, `if` used as a value after statements, `is_multiple_of`, `powi` called by
//! path and `from_ne_bytes`.

use kernel_lint_harness::driver;

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/oxide_language_values.rs");

fn emitted() -> driver::Emitted {
    emit_one(KERNELS)
}

#[test]
fn every_kernel_is_lowered() {
    let emitted = emitted();
    assert_every_kernel_lowered(&emitted);
}

#[test]
fn an_array_of_loaded_bytes_takes_the_type_of_its_first_element() {
    let emitted = emitted();
    let gather = kernel(&emitted.program, "gather_words");
    assert!(
        gather.contains(
            "kl::array<std::decay_t<decltype(bytes[at])>, 4> quad = {bytes[at], bytes[(at + 1)], bytes[(at + 2)], bytes[(at + 3)]};"
        ),
        "{gather}"
    );
    assert!(
        gather.contains("(*slot) = kl::from_ne_bytes<unsigned int>(quad);"),
        "{gather}"
    );
}

#[test]
fn an_if_value_runs_its_statements_only_in_the_branch_taken() {
    let emitted = emitted();
    let pick = kernel(&emitted.program, "pick_lane");
    assert!(pick.contains("auto v = ((kl::is_multiple_of(i, 2)) ? (({\n"), "{pick}");
    assert!(
        pick.contains("auto w = src[i];\n") && pick.contains("(w + 1);\n})) : ((src[i] * 2)));"),
        "{pick}"
    );
    assert!(pick.contains("unsigned int letter = 65u;"), "{pick}");
    assert!(
        pick.contains("kl::array<std::decay_t<decltype(kl::to_bits(kl::powi(((float)(v)), 2)))>, 2> squares;"),
        "{pick}"
    );
}

#[test]
fn the_lowered_program_compiles() {
    check_with_gxx(&emitted().program);
}
