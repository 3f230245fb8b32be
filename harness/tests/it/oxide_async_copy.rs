//! cuda-oxide's shared-memory barriers and asynchronous copies are lowered to the PTX the
//! library documents: `Barrier` statics in shared memory, `mbarrier_*` and `cp.async`
//! instructions, `ManagedBarrier` handles.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/oxide_async_copy.rs");

#[test]
fn barriers_and_async_copies_lower_to_their_instructions() {
    let emitted = driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let staged = kernel(&emitted.program, "staged_copy");
    assert!(staged.contains("__shared__ kl::mbarrier BAR;"), "{staged}");
    assert!(staged.contains("kl::mbarrier_init((&BAR), blockDim.x);"), "{staged}");
    assert!(staged.contains("kl::cp_async_ca<4>(dst, src);"), "{staged}");
    assert!(staged.contains("kl::cp_async_commit_group();"), "{staged}");
    assert!(staged.contains("kl::cp_async_wait_group<0>();"), "{staged}");
    assert!(staged.contains("kl::cp_async_mbarrier_arrive((&BAR));"), "{staged}");
    assert!(staged.contains("auto token = kl::mbarrier_arrive((&BAR));"), "{staged}");
    assert!(staged.contains("kl::mbarrier_wait((&BAR), token);"), "{staged}");
    assert!(staged.contains("kl::mbarrier_inval((&BAR));"), "{staged}");
    assert!(
        emitted
            .program
            .contains("asm volatile(\"cp.async.ca.shared.global [%0], [%1], %2;\""),
        "the copy is the PTX instruction"
    );
    let handled = kernel(&emitted.program, "handled_barrier");
    assert!(handled.contains("auto bar = kl::managed_barrier{(&BAR)};"), "{handled}");
    assert!(handled.contains("auto bar_1 = kl::cg(bar).init(32);"), "{handled}");
    assert!(handled.contains("auto token = kl::cg(bar_1).arrive();"), "{handled}");
    assert!(handled.contains("kl::cg(bar_1).wait(token);"), "{handled}");
    check_with_gxx(&emitted.program);
}
