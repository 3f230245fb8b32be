//! Generic kernels of a library crate are instantiated by the launches of the host program of
//! the example it belongs to (`ex/src/main.rs` for `ex/kernel-lib/src/lib.rs`), and by the
//! entry-point names it asks for (`fill_ptx_name::<3>()`).

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

#[test]
fn library_kernels_are_instantiated_by_the_host_program() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/host_launched/kernel-lib/src/lib.rs"
    );
    let text = std::fs::read_to_string(path).expect("library source");
    let emitted = driver::emit(&[SourceFile::new(path, &text)], &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let gain = kernel(&emitted.program, "gain_f32");
    assert!(
        gain.starts_with(
            "__global__ void gain_f32(float k, const float* src, unsigned long long src_len, float* dst, unsigned long long dst_len)"
        ),
        "{gain}"
    );
    assert!(gain.contains("(*d) = (src[at] * k);"), "{gain}");
    let fill = kernel(&emitted.program, "fill_3");
    assert!(fill.contains("(*d) = 3;"), "{fill}");
    check_with_gxx(&emitted.program);
}

#[test]
fn without_the_host_program_the_generic_kernels_are_refused() {
    let path = "elsewhere/kernel-lib/src/lib.rs";
    let text = include_str!("../data/host_launched/kernel-lib/src/lib.rs");
    let emitted = driver::emit(&[SourceFile::new(path, text)], &LaunchPlan::default());
    let reasons: Vec<&str> = emitted.manifest.not_lowered.iter().map(|n| n.reason.as_str()).collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons
            .iter()
            .all(|r| r.contains("no launch in this file instantiates it")),
        "{reasons:?}"
    );
}
