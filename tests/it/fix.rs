//! `cargo kernel-lint fix` on a crate in a temporary git repository: what it writes, what it
//! refuses, and what it prints.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-kernel-lint");

const MANIFEST: &str = "[package]\nname = \"aos\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

/// A kernel that copies whole 12-byte elements: one KL002 finding with an unsafe fix in
/// another file.
const LIB: &str = r#"use cuda_std::prelude::*;
use cuda_std::thread;

mod types;
use types::Q;

#[kernel]
pub unsafe fn copy(queries: &[Q], out: *mut f32) {
    let i = thread::index_1d() as usize;
    let q = queries[i];
    *out.add(i) = q.x;
}
"#;

const TYPES: &str =
    "#[repr(C)]\n#[derive(Clone, Copy)]\npub struct Q {\n    pub x: f32,\n    pub y: f32,\n    pub z: f32,\n}\n";

const FIXED_TYPES: &str =
    "#[repr(C, align(16))]\n#[derive(Clone, Copy)]\npub struct Q {\n    pub x: f32,\n    pub y: f32,\n    pub z: f32,\n}\n";

const DIFF: &str = "--- a/src/types.rs\n+++ b/src/types.rs\n@@ -1,4 +1,4 @@\n-#[repr(C)]\n+#[repr(C, align(16))]\n #[derive(Clone, Copy)]\n pub struct Q {\n     pub x: f32,\n";

const CLEAN_SUMMARY: &str = "kernel-lint: 1 kernel in 2 files, 2 global accesses; 0 warnings, 0 notes, 0 errors\n";

const DIRTY: &str = "error: the files to fix have uncommitted changes; commit them first, or pass `--allow-dirty` to fix them anyway:\n  src/types.rs (modified)\n";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn kernel_lint(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(BIN)
        .args(args)
        .args(["--color", "never"])
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

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=kernel-lint",
            "-c",
            "user.email=kernel-lint@example.com",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("these tests need git on the PATH");
    assert!(
        status.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&status.stderr)
    );
}

/// The crate, committed in a fresh repository when `committed`.
fn crate_dir(committed: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary folder");
    std::fs::create_dir(dir.path().join("src")).expect("src");
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).expect("manifest");
    std::fs::write(dir.path().join("src/lib.rs"), LIB).expect("lib.rs");
    std::fs::write(dir.path().join("src/types.rs"), TYPES).expect("types.rs");
    if committed {
        git(dir.path(), &["init", "-q"]);
        git(dir.path(), &["add", "-A"]);
        git(dir.path(), &["commit", "-q", "-m", "kernels"]);
    }
    dir
}

fn types(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("src/types.rs")).expect("types.rs")
}

#[test]
fn an_unsafe_fix_waits_for_unsafe_fixes() {
    let dir = crate_dir(true);
    let run = kernel_lint(dir.path(), &["fix"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stderr, "nothing to fix\n1 fix available with --unsafe-fixes\n");
    assert!(
        run.stdout
            .starts_with("  ⚠ warning[KL002]: array-of-structs access `queries[i]`"),
        "{}",
        run.stdout
    );
    assert_eq!(types(dir.path()), TYPES);
}

#[test]
fn a_clean_tree_is_fixed_and_analyzed_again() {
    let dir = crate_dir(true);
    let run = kernel_lint(dir.path(), &["fix", "--unsafe-fixes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        concat!(
            "fixed src/types.rs (1 fix)\n",
            "then by hand (src/lib.rs, `copy`): `Q` grows from 12 to 16 bytes: the host must lay out its buffers with the padding\n",
            "fixed 1 finding in 1 file; 0 remaining\n"
        )
    );
    assert_eq!(run.stdout, CLEAN_SUMMARY);
    assert_eq!(types(dir.path()), FIXED_TYPES);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("src/lib.rs")).expect("lib.rs"),
        LIB
    );
    // The copy is one wide load now: nothing left for `check`.
    let check = kernel_lint(dir.path(), &["check"]);
    assert_eq!((check.code, check.stdout.as_str()), (0, CLEAN_SUMMARY));
}

#[test]
fn a_dirty_tree_is_refused() {
    let dir = crate_dir(true);
    let edited = format!("{TYPES}// work in progress\n");
    std::fs::write(dir.path().join("src/types.rs"), &edited).expect("edited");
    let run = kernel_lint(dir.path(), &["fix", "--unsafe-fixes"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, DIRTY);
    assert_eq!(run.stdout, "");
    assert_eq!(types(dir.path()), edited);
    // Staged changes are uncommitted too.
    git(dir.path(), &["add", "src/types.rs"]);
    let run = kernel_lint(dir.path(), &["fix", "--unsafe-fixes"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, DIRTY.replace("(modified)", "(staged)"));
    assert_eq!(types(dir.path()), edited);
}

#[test]
fn an_untracked_file_is_refused() {
    let dir = crate_dir(true);
    git(dir.path(), &["rm", "-q", "--cached", "src/types.rs"]);
    git(dir.path(), &["commit", "-q", "-m", "untrack"]);
    let run = kernel_lint(dir.path(), &["fix", "--unsafe-fixes"]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stderr, DIRTY.replace("(modified)", "(untracked)"));
    assert_eq!(types(dir.path()), TYPES);
}

#[test]
fn allow_dirty_fixes_over_uncommitted_changes() {
    let dir = crate_dir(true);
    let edited = format!("{TYPES}// work in progress\n");
    std::fs::write(dir.path().join("src/types.rs"), &edited).expect("edited");
    let run = kernel_lint(dir.path(), &["fix", "--unsafe-fixes", "--allow-dirty"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        concat!(
            "fixed src/types.rs (1 fix)\n",
            "then by hand (src/lib.rs, `copy`): `Q` grows from 12 to 16 bytes: the host must lay out its buffers with the padding\n",
            "fixed 1 finding in 1 file; 0 remaining\n"
        )
    );
    assert_eq!(types(dir.path()), format!("{FIXED_TYPES}// work in progress\n"));
}

#[test]
fn diff_prints_the_changes_and_writes_nothing() {
    let dir = crate_dir(true);
    let run = kernel_lint(dir.path(), &["fix", "--unsafe-fixes", "--diff"]);
    assert_eq!(run.code, 1);
    assert_eq!(run.stdout, DIFF);
    assert_eq!(
        run.stderr,
        concat!(
            "would fix 1 finding in 1 file\n",
            "then by hand, once applied (src/lib.rs, `copy`): `Q` grows from 12 to 16 bytes: the host must lay out its buffers with the padding\n"
        )
    );
    assert_eq!(types(dir.path()), TYPES);
    // Nothing to fix without the unsafe fixes: exit 0, no diff.
    let run = kernel_lint(dir.path(), &["fix", "--diff"]);
    assert_eq!(run.code, 0);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "nothing to fix\n1 fix available with --unsafe-fixes\n");
}

#[test]
fn files_outside_git_need_allow_dirty() {
    let dir = crate_dir(false);
    let run = kernel_lint(dir.path(), &["fix", "--unsafe-fixes"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: the files to fix are not in a git repository, so the fixes could not be undone; \
         pass `--allow-dirty` to fix them anyway (it also allows files outside version control):\n  src/types.rs\n"
    );
    assert_eq!(types(dir.path()), TYPES);
    let run = kernel_lint(dir.path(), &["fix", "--unsafe-fixes", "--allow-dirty"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(types(dir.path()), FIXED_TYPES);
}

#[test]
fn a_file_that_cannot_be_written_is_left_intact() {
    let dir = crate_dir(true);
    let path = dir.path().join("src/types.rs");
    let mut permissions = std::fs::metadata(&path).expect("metadata").permissions();
    permissions.set_readonly(true);
    std::fs::set_permissions(&path, permissions).expect("read-only");
    let run = kernel_lint(dir.path(), &["fix", "--unsafe-fixes"]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: the fix of KL002 at src/lib.rs:10:13 (give `Q` `#[repr(C, align(16))]`) failed: cannot write \
         `src/types.rs`: permission denied; it is left as it was\nfixed 0 findings in 0 files; 1 remaining\n"
    );
    assert_eq!(types(dir.path()), TYPES);
}

#[test]
fn two_findings_with_the_same_fix_are_both_fixed_by_one_edit() {
    let dir = crate_dir(true);
    let twice = format!(
        "{LIB}\n#[kernel]\npub unsafe fn again(queries: &[Q], out: *mut f32) {{\n    let i = thread::index_1d() as usize;\n    let q = queries[i];\n    *out.add(i) = q.y;\n}}\n"
    );
    std::fs::write(dir.path().join("src/lib.rs"), &twice).expect("lib.rs");
    git(dir.path(), &["commit", "-q", "-a", "-m", "two kernels"]);
    let run = kernel_lint(dir.path(), &["fix", "--unsafe-fixes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        concat!(
            "fixed src/types.rs (2 fixes)\n",
            "then by hand (src/lib.rs, `copy`): `Q` grows from 12 to 16 bytes: the host must lay out its buffers with the padding\n",
            "fixed 2 findings in 1 file; 0 remaining\n"
        )
    );
    assert_eq!(types(dir.path()), FIXED_TYPES);
}

/// Particles behind a raw pointer, 16 bytes each, two fields read and one written: the
/// structure-of-arrays rewrite changes the signature, so it is unsafe.
const PARTICLES: &str = r#"use cuda_std::prelude::*;
use cuda_std::thread;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Body {
    pub x: f32,
    pub y: f32,
    pub vx: f32,
    pub vy: f32,
}

// kernel-lint: block(128)
#[kernel]
pub unsafe fn drift(bodies: *mut Body, n: u32, dt: f32) {
    let i = thread::index_1d() as usize;
    if i >= n as usize {
        return;
    }
    let vx = (*bodies.add(i)).vx;
    (*bodies.add(i)).x += vx * dt;
}
"#;

/// `(line, array, op, sectors per request)` of every access `accesses --format json` lists.
fn access_figures(dir: &Path) -> Vec<(u64, String, String, f64)> {
    let run = kernel_lint(dir, &["accesses", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    let kernels = report["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 1, "the kernel is found and analyzed");
    assert_eq!(kernels[0]["name"], "drift");
    kernels[0]["accesses"]
        .as_array()
        .expect("accesses")
        .iter()
        .map(|a| {
            (
                a["line"].as_u64().unwrap(),
                a["array"].as_str().unwrap().to_string(),
                a["op"].as_str().unwrap().to_string(),
                a["sectors_per_request"].as_f64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_structure_of_arrays_rewrite_reanalyzes_to_its_predicted_gain() {
    let dir = tempfile::tempdir().expect("temporary folder");
    std::fs::create_dir(dir.path().join("src")).expect("src");
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).expect("manifest");
    std::fs::write(dir.path().join("src/lib.rs"), PARTICLES).expect("lib.rs");
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "kernels"]);

    // What `check` predicts for the rewrite of each finding.
    let check = kernel_lint(dir.path(), &["check", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_str(&check.stdout).expect("JSON");
    let predicted: Vec<(u64, f64, f64)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let gain = &d["fixes"][0]["gain"];
            (
                d["line"].as_u64().unwrap(),
                gain["sectors_before"].as_f64().unwrap(),
                gain["sectors_after"].as_f64().unwrap(),
            )
        })
        .collect();
    // A load of `vx`, then `x += ..` (its load and store are one finding): 16-byte elements.
    assert_eq!(predicted, [(20, 16.0, 4.0), (21, 16.0, 4.0)]);
    assert_eq!(
        access_figures(dir.path()),
        [
            (20, "bodies".to_string(), "load".to_string(), 16.0),
            (21, "bodies".to_string(), "load".to_string(), 16.0),
            (21, "bodies".to_string(), "store".to_string(), 16.0),
        ]
    );

    let run = kernel_lint(dir.path(), &["fix", "--unsafe-fixes"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr,
        concat!(
            "fixed src/lib.rs (2 fixes)\n",
            "then by hand (src/lib.rs, `drift`): the host must allocate one buffer per field of `Body` (`x`, `y`, `vx`, `vy`) and pass a `BodySoa` of their pointers in place of the `Body` buffer\n",
            "fixed 2 findings in 1 file; 0 remaining\n"
        )
    );
    let fixed = std::fs::read_to_string(dir.path().join("src/lib.rs")).expect("lib.rs");
    syn::parse_file(&fixed).expect("the fixed file parses");
    assert!(
        fixed.contains("pub unsafe fn drift(bodies: BodySoa, n: u32, dt: f32) {"),
        "{fixed}"
    );
    assert!(fixed.contains("    let vx = *bodies.vx.add(i);\n"), "{fixed}");
    assert!(fixed.contains("    *bodies.x.add(i) += vx * dt;\n"), "{fixed}");
    // Analyzed again, every rewritten access has the figure the fix predicted.
    let lines_after: Vec<(String, String, f64)> = access_figures(dir.path())
        .into_iter()
        .map(|(_, array, op, sectors)| (array, op, sectors))
        .collect();
    assert_eq!(
        lines_after,
        [
            ("bodies.vx".to_string(), "load".to_string(), 4.0),
            ("bodies.x".to_string(), "load".to_string(), 4.0),
            ("bodies.x".to_string(), "store".to_string(), 4.0),
        ]
    );
    assert!(predicted.iter().all(|(_, _, after)| *after == 4.0));
}
