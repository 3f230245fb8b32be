//! A helper's `&DeviceAtomicU64` parameter is a cell of that value type and scope, and
//! `Err(actual)` of its compare-exchange binds the value read. `get_mut(i)` of an array element
//! of a `DisjointSlice` checks the array's length.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::check_with_gxx;

#[test]
fn helpers_taking_an_atomic_cell_by_reference_are_lowered() {
    let emitted = driver::emit(
        &[SourceFile::new("k.rs", include_str!("../data/oxide_atomic_cells.rs"))],
        &LaunchPlan::default(),
    );
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let program = &emitted.program;
    for line in [
        "__device__ inline void bump_until_stored(const kl::oxide_atomic<unsigned long long, 1>* cell, unsigned long long seen, unsigned long long add)",
        "__device__ inline unsigned int mark(const kl::oxide_atomic<unsigned int, 1>* word, unsigned int bit)",
        "kl::oxide_cas(cell, seen, (seen + add))",
        "auto actual = (kl_match_1).value;",
        "seen = actual;",
    ] {
        assert!(program.contains(line), "{line}\n{program}");
    }
    check_with_gxx(program);
}

#[test]
fn get_mut_of_an_array_element_checks_the_array_length() {
    let emitted = driver::emit(
        &[SourceFile::new("k.rs", include_str!("../data/oxide_array_elements.rs"))],
        &LaunchPlan::default(),
    );
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let program = &emitted.program;
    for line in [
        "if ((unsigned long long)(i) < (unsigned long long)(WIDTH)) {",
        "auto e = kl::make_ref(&(*row)[i]);",
        "if ((unsigned long long)(i) < (unsigned long long)(2)) {",
        "auto s = kl::make_ref(&(*spans)[i]);",
    ] {
        assert!(program.contains(line), "{line}\n{program}");
    }
    check_with_gxx(program);
}
