//! Kernels that cannot be lowered are refused with the construct and, where the repository
//! itself requires the example's device build to fail, under that category; calls to
//! geometry functions that `cuda_std` does not define are refused as such.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

fn reasons(emitted: &driver::Emitted) -> Vec<(String, String)> {
    emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (n.kernel.clone(), n.reason.clone()))
        .collect()
}

// An example in the shape of NVlabs/cuda-oxide (commit a105afd522b73a6712a802e30bd900cd04cc8019):
// its smoke test lists the examples whose build must fail, and the code generator's
// STATUS.md says where each fails.
const SMOKE_TEST: &str = "#!/usr/bin/env bash\nERROR_EXAMPLES=(error_alloc_in_kernel other_error)\n";
const STATUS: &str = "| Example | Kind | Fails at |\n| :-- | :-- | :-- |\n\
| `error_alloc_in_kernel` | diagnostics-fixture | `__rust_alloc` reachable |\n";
const EXAMPLE: &str = r#"
use cuda_device::{kernel, thread, DisjointSlice};

#[kernel]
pub fn copies(src: &[f32], mut dst: DisjointSlice<f32>) {
    let idx = thread::index_1d();
    let i = idx.get();
    if let Some(d) = dst.get_mut(idx) {
        *d = src[i];
    }
}

#[kernel]
pub fn allocates(src: &[f32], mut dst: DisjointSlice<f32>) {
    let idx = thread::index_1d();
    let staged = vec![src[idx.get()]; 4];
    if let Some(d) = dst.get_mut(idx) {
        *d = staged[0];
    }
}
"#;

/// Writes a repository with one example and emits its file; `listed` says whether the smoke
/// test names the example.
fn emit_example(root: &std::path::Path, listed: bool) -> driver::Emitted {
    let name = if listed {
        "error_alloc_in_kernel"
    } else {
        "alloc_in_kernel"
    };
    let home = root.join("crates/codegen");
    let src = home.join("examples").join(name).join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(root.join("scripts")).unwrap();
    std::fs::write(root.join("scripts/smoketest.sh"), SMOKE_TEST).unwrap();
    std::fs::write(home.join("STATUS.md"), STATUS).unwrap();
    let file = src.join("main.rs");
    std::fs::write(&file, EXAMPLE).unwrap();
    driver::emit(
        &[SourceFile::new(file.to_str().unwrap(), EXAMPLE)],
        &LaunchPlan::default(),
    )
}

#[test]
fn kernels_of_examples_required_to_fail_are_refused_under_that_category() {
    let root = std::env::temp_dir().join(format!("kl-rejected-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let emitted = emit_example(&root, true);
    assert_eq!(
        reasons(&emitted),
        [(
            "allocates".to_string(),
            "example whose device build the code generator rejects by design (an error example of \
             scripts/smoketest.sh; STATUS.md: fails at `__rust_alloc` reachable (diagnostics-fixture)): \
             macro `vec!` is not lowered"
                .to_string()
        )]
    );
    // The example's valid kernel still lowers.
    assert!(
        kernel(&emitted.program, "copies").contains("src[i]"),
        "{}",
        emitted.program
    );
    check_with_gxx(&emitted.program);

    // Not listed by the smoke test: the plain reason.
    let _ = std::fs::remove_dir_all(&root);
    let plain = emit_example(&root, false);
    assert_eq!(
        reasons(&plain),
        [("allocates".to_string(), "macro `vec!` is not lowered".to_string())]
    );
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn geometry_calls_that_cuda_std_does_not_define_are_refused() {
    let text = include_str!("../data/cuda_std_absent_api.rs");
    let emitted = driver::emit(&[SourceFile::new("lib.rs", text)], &LaunchPlan::default());
    assert_eq!(
        reasons(&emitted),
        [
            (
                "scale_rows".to_string(),
                "call to `block::index_y` names no function of `cuda_std`, which the file imports: \
                 cuda_std has no module `block` (block geometry is `thread::block_idx_x` and kin)"
                    .to_string()
            ),
            (
                "copy_tile".to_string(),
                "call to `thread::index_x` names no function of `cuda_std`, which the file imports: \
                 its module `thread` has no `index_x`"
                    .to_string()
            ),
        ]
    );
    let copy = kernel(&emitted.program, "copy_block");
    assert!(copy.contains("blockIdx.x"), "{copy}");
    check_with_gxx(&emitted.program);
}
