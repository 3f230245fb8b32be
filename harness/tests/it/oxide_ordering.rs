//! `core::cmp::Ordering` is a C++ enum with Rust's discriminants: returned by helpers, matched
//! on its variants, cast to an integer.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

#[test]
fn ordering_is_an_enum_with_rust_discriminants() {
    let emitted = driver::emit(
        &[SourceFile::new("k.rs", include_str!("../data/oxide_ordering.rs"))],
        &LaunchPlan::default(),
    );
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let program = &emitted.program;
    for line in [
        "enum class Ordering : signed char { Less = -1, Equal = 0, Greater = 1 };",
        "__device__ inline ::Ordering order(unsigned int a, unsigned int b)",
        "return ::Ordering::Less;",
        "return ::Ordering::Greater;",
    ] {
        assert!(program.contains(line), "{line}\n{program}");
    }
    let rank = kernel(program, "rank");
    assert!(rank.contains("== ::Ordering::Less)"), "{rank}");
    check_with_gxx(program);
}
