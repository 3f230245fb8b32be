//! A slice reached only through an atomic on a cast reference: the atomic is a predicted
//! access (a read and a write of `hist[bin]`), so the slice is sized like any other, by its
//! elements, and keeps the usual length.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::bounds::SLICE_ELEMENTS;
use kernel_lint_harness::driver;

use crate::support;
use support::check_with_gxx;

#[test]
fn a_slice_reached_only_through_an_atomic_on_a_cast_reference_is_sized_by_its_elements() {
    let source = SourceFile::new("k.rs", include_str!("../data/unseen_buffers.rs"));
    let emitted = driver::emit(&[source], &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let launch = &emitted.manifest.launches[0];
    assert_eq!(launch.kernel, "histogram");
    let hist = launch.buffers.iter().find(|b| b.array == "hist").expect("hist sized");
    let bytes = SLICE_ELEMENTS as u64 * 4;
    assert_eq!((hist.bytes, hist.unbounded.as_deref()), (bytes, None));
    let program = &emitted.program;
    assert!(
        program.contains(&format!("KL_CHECK(cudaMalloc((void**)&hist, {bytes}ull));")),
        "{program}"
    );
    let call = program.lines().find(|l| l.contains("histogram<<<")).expect("a launch");
    assert!(call.contains(&format!("(hist, {SLICE_ELEMENTS}ull, ")), "{call}");
    check_with_gxx(program);
}
