//! Every single-file kernel source of `tests/data/` lowered under the default launch plan: the
//! emitted CUDA C++ after the prelude every program shares, and the kernels left out with their
//! reasons, are committed snapshots (`snapshots/lowered/`), and each whole program compiles with
//! g++. A change to the lowering shows as a snapshot diff of the C++ it prints.

use crate::support::check_with_gxx;
use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;
use std::fmt::Write;
use std::path::Path;

/// The single-file kernel sources, by file name, in name order.
fn kernel_sources() -> Vec<(String, String)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut sources: Vec<(String, String)> = std::fs::read_dir(&folder)
        .expect("the data folder")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let name = path.file_name().expect("a name").to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).expect("readable"))
        })
        .collect();
    sources.sort();
    sources
}

/// What a file lowers to: its errors, the kernels left out and the program.
fn lowered(name: &str, text: &str) -> (String, String) {
    let emitted = driver::emit(&[SourceFile::new(name, text)], &LaunchPlan::default());
    let mut shown = String::new();
    for err in &emitted.errors {
        let _ = writeln!(shown, "error: {err}");
    }
    for left in &emitted.manifest.not_lowered {
        let _ = writeln!(
            shown,
            "not lowered: {} at {}:{}: {}",
            left.kernel, left.line, left.column, left.reason
        );
    }
    let _ = writeln!(shown, "launches: {}", emitted.manifest.launches.len());
    shown.push_str("---\n");
    let own = emitted.program.strip_prefix(emitted.parts.head());
    shown.push_str(own.expect("the program starts with the shared prelude"));
    (shown, emitted.program)
}

#[test]
fn every_kernel_source_lowers_to_its_snapshot_and_compiles() {
    let sources = kernel_sources();
    // The folder is found and holds the sources the other lowering tests read.
    assert!(sources.len() >= 50, "{} kernel sources", sources.len());
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/lowered");
    settings.set_prepend_module_to_snapshot(false);
    for (name, text) in &sources {
        let (shown, program) = lowered(name, text);
        let stem = name.trim_end_matches(".rs");
        settings.bind(|| insta::assert_snapshot!(stem, shown));
        check_with_gxx(&program);
    }
}
