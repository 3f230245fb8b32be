//! Every bundled fixture with a finding: its rendered diagnostics (rewrite diffs included) as an
//! insta snapshot, and its rewrites applied with `fix --unsafe-fixes` and analyzed again, each
//! rewritten kernel reaching the sectors per request its fix predicted.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fixture: a file analyzed alone, or a crate folder analyzed as a workspace.
struct Fixture {
    name: &'static str,
    path: &'static str,
    crate_folder: bool,
}

const fn file(name: &'static str, path: &'static str) -> Fixture {
    Fixture {
        name,
        path,
        crate_folder: false,
    }
}

const fn crate_folder(name: &'static str, path: &'static str) -> Fixture {
    Fixture {
        name,
        path,
        crate_folder: true,
    }
}

/// The fixtures whose kernels have findings.
const FIXTURES: &[Fixture] = &[
    file("boundaries", "fixtures/boundaries/kernels.rs"),
    file("dialects-core-arch-nvptx", "fixtures/dialects/core_arch_nvptx.rs"),
    file("dialects-cubecl-elementwise", "fixtures/dialects/cubecl_elementwise.rs"),
    file("dialects-cubecl-tensor", "fixtures/dialects/cubecl_tensor.rs"),
    file(
        "dialects-cubecl-runtime-shapes",
        "fixtures/dialects/cubecl_runtime_shapes.rs",
    ),
    file("dialects-cuda-oxide", "fixtures/dialects/cuda_oxide.rs"),
    file("dialects-ptx-support", "fixtures/dialects/ptx_support.rs"),
    file("dialects-rust-gpu", "fixtures/dialects/rust_gpu.rs"),
    file("dialects-rust-gpu-matmul", "fixtures/dialects/rust_gpu_matmul.rs"),
    file("frontend-chosen-buffers", "fixtures/frontend/chosen_buffers.rs"),
    file("frontend-closures", "fixtures/frontend/closures.rs"),
    file("frontend-copies", "fixtures/frontend/copies.rs"),
    file("frontend-iterators", "fixtures/frontend/iterators.rs"),
    file("frontend-loaded-loops", "fixtures/frontend/loaded_loops.rs"),
    file("frontend-macro-bodies", "fixtures/frontend/macro_bodies.rs"),
    file("frontend-one-thread-wide", "fixtures/frontend/one_thread_wide.rs"),
    file("frontend-pointer-fields", "fixtures/frontend/pointer_fields.rs"),
    file("frontend-semantic-calls", "fixtures/frontend/semantic_calls.rs"),
    file("frontend-slice-wrappers", "fixtures/frontend/slice_wrappers.rs"),
    file("ground-truth-tail-warps", "fixtures/ground-truth/tail_warps.rs"),
    file("idioms", "fixtures/idioms/kernels.rs"),
    file("patterns-hard-cases", "fixtures/patterns/hard_cases.rs"),
    file("patterns-raw-nvptx", "fixtures/patterns/raw_nvptx.rs"),
    file("seeds-aos-soa", "fixtures/seeds/aos_soa.rs"),
    file("seeds-loop-order", "fixtures/seeds/loop_order.rs"),
    file("seeds-offset", "fixtures/seeds/offset.rs"),
    file("seeds-rgb", "fixtures/seeds/rgb.rs"),
    file("seeds-strided", "fixtures/seeds/strided.rs"),
    file("seeds-transpose", "fixtures/seeds/transpose.rs"),
    file("shared-cuda-oxide", "fixtures/shared/cuda_oxide.rs"),
    file("shared-dynamic", "fixtures/shared/dynamic.rs"),
    file("shared-tiles", "fixtures/shared/tiles.rs"),
    file("shared-wide", "fixtures/shared/wide.rs"),
    crate_folder("launch", "fixtures/launch"),
    crate_folder("workspace", "fixtures/workspace"),
];

fn root() -> &'static Path {
    crate::home::home()
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs the tool in `dir` on `path` (nothing: the workspace there).
fn kernel_lint(dir: &Path, path: Option<&str>, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(["--color", "never"])
        .args(args)
        .args(path)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .expect("the binary runs");
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "the binary panicked:\n{}", run.stderr);
    run
}

/// Where the fixture is run from, and the path given (none for a crate folder).
fn location(fixture: &Fixture, base: &Path) -> (PathBuf, Option<String>) {
    if fixture.crate_folder {
        (base.join(fixture.path), None)
    } else {
        (base.to_path_buf(), Some(fixture.path.to_string()))
    }
}

fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/fixtures");
    settings.set_prepend_module_to_snapshot(false);
    settings
}

#[test]
fn every_fixture_with_a_finding_has_its_rendered_diagnostics() {
    for fixture in FIXTURES {
        let (dir, path) = location(fixture, root());
        let run = kernel_lint(&dir, path.as_deref(), &["check"]);
        assert!(
            run.stdout.contains("warning[KL") || run.stdout.contains("error[KL"),
            "{} has a finding:\n{}{}",
            fixture.name,
            run.stdout,
            run.stderr
        );
        settings().bind(|| insta::assert_snapshot!(fixture.name, run.stdout));
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("fixture folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_fixture_file_with_a_finding_is_listed() {
    let mut files = Vec::new();
    rust_files(&root().join("fixtures"), &mut files);
    let crates: Vec<&str> = FIXTURES.iter().filter(|f| f.crate_folder).map(|f| f.path).collect();
    let listed: Vec<&str> = FIXTURES.iter().filter(|f| !f.crate_folder).map(|f| f.path).collect();
    let mut unlisted = Vec::new();
    for file in files {
        let shown = file.strip_prefix(root()).expect("inside").display().to_string();
        if crates.iter().any(|c| shown.starts_with(c)) || listed.contains(&shown.as_str()) {
            continue;
        }
        let run = kernel_lint(root(), Some(&shown), &["check", "--format", "json"]);
        let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
        if !report["diagnostics"].as_array().expect("diagnostics").is_empty() {
            unlisted.push(shown);
        }
    }
    assert!(
        unlisted.is_empty(),
        "fixtures with findings and no snapshot: {unlisted:?}"
    );
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("folder");
    for entry in std::fs::read_dir(from).expect("fixture folder") {
        let path = entry.expect("entry").path();
        let target = to.join(path.file_name().expect("name"));
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copied");
        }
    }
}

/// `(kernel, sectors per request after)` of the first fix of every finding that has a rewrite.
fn predicted(dir: &Path, path: Option<&str>) -> Vec<(String, f64)> {
    let run = kernel_lint(dir, path, &["check", "--format", "json"]);
    let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
    report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| {
            let after = d["fixes"][0]["gain"]["sectors_after"].as_f64()?;
            Some((d["kernel"].as_str()?.to_string(), after))
        })
        .collect()
}

#[test]
fn rewritten_fixtures_reach_the_predicted_figures() {
    let mut rewritten = Vec::new();
    for fixture in FIXTURES {
        let (dir, path) = location(fixture, root());
        let predictions = predicted(&dir, path.as_deref());
        if predictions.is_empty() {
            continue;
        }
        let temp = tempfile::tempdir().expect("temporary folder");
        let base = temp.path();
        if fixture.crate_folder {
            copy_tree(&root().join(fixture.path), &base.join(fixture.path));
        } else {
            let target = base.join(fixture.path);
            std::fs::create_dir_all(target.parent().expect("parent")).expect("folder");
            std::fs::copy(root().join(fixture.path), &target).expect("copied");
        }
        let (dir, path) = location(fixture, base);
        let fix = kernel_lint(&dir, path.as_deref(), &["fix", "--unsafe-fixes", "--allow-dirty"]);
        assert!(fix.code == 0 || fix.code == 1, "{}: {}", fixture.name, fix.stderr);
        let run = kernel_lint(&dir, path.as_deref(), &["accesses", "--format", "json"]);
        let report: Value = serde_json::from_str(&run.stdout).expect("JSON");
        for (kernel, after) in &predictions {
            let reaches = report["kernels"]
                .as_array()
                .expect("kernels")
                .iter()
                .filter(|k| k["name"] == kernel.as_str())
                .flat_map(|k| k["accesses"].as_array().expect("accesses"))
                .any(|a| {
                    // A bank rewrite's figure is the shared access's wavefronts.
                    a["sectors_per_request"].as_f64() == Some(*after)
                        || a["banks"]["wavefronts_per_request"].as_f64() == Some(*after)
                });
            assert!(
                reaches,
                "{}: after `fix`, no access of `{kernel}` has the predicted {after} sectors per request:\n{}",
                fixture.name, run.stdout
            );
        }
        // The whole rewritten table, so that a change of any figure shows.
        let table = kernel_lint(&dir, path.as_deref(), &["accesses"]);
        settings().bind(|| insta::assert_snapshot!(format!("{}-rewritten", fixture.name), table.stdout));
        rewritten.push(fixture.name);
    }
    // The seeds with a structure-of-arrays rewrite, at least.
    assert!(rewritten.contains(&"seeds-aos-soa"), "{rewritten:?}");
}
