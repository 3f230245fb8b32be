//! A slice no predicted access reaches (an atomic through a cast reference) is still given
//! the memory of an unbounded one, and keeps the usual length.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::bounds::{SLICE_ELEMENTS, UNBOUNDED_BYTES};
use kernel_lint_harness::driver;

use crate::support;
use support::check_with_gxx;

#[test]
fn a_slice_reached_only_through_a_cast_reference_gets_the_unbounded_allocation() {
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
    assert_eq!((hist.bytes, hist.unbounded.as_deref()), (UNBOUNDED_BYTES, None));
    let program = &emitted.program;
    assert!(
        program.contains(&format!("KL_CHECK(cudaMalloc((void**)&hist, {UNBOUNDED_BYTES}ull));")),
        "{program}"
    );
    let call = program.lines().find(|l| l.contains("histogram<<<")).expect("a launch");
    assert!(call.contains(&format!("(hist, {SLICE_ELEMENTS}ull, ")), "{call}");
    check_with_gxx(program);
}
