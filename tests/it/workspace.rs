//! A multi-crate workspace in the shapes real kernel crates have (`fixtures/workspace/`):
//! kernels calling helpers and methods of other modules and of a path-dependency crate under
//! a renamed dependency, newtypes, aliases, consts, pattern-bound and closure values, cuda-oxide
//! and ptx_support kernels, a file
//! two crates share through `#[path]`, and a file no crate compiles. Every `//~` expectation
//! of every file holds, in workspace mode and for a path given alone.

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/workspace")
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(["--warn", "KL005", "--warn", "KL006"])
        .args(args)
        .current_dir(root())
        .output()
        .expect("the binary runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
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

/// `(file, line, code)` or `(file, line, sectors)`.
type Marks = BTreeSet<(String, usize, String)>;

/// `(file, line, code)` for every `//~ CODE` and `(file, line, sectors)` for `sectors=N`.
fn expectations() -> (Marks, Marks) {
    let mut files = Vec::new();
    rust_files(&root(), &mut files);
    let (mut codes, mut sectors) = (BTreeSet::new(), BTreeSet::new());
    for path in files {
        let name = path.strip_prefix(root()).expect("under root").display().to_string();
        let text = std::fs::read_to_string(&path).expect("readable");
        for (i, line) in text.lines().enumerate() {
            let Some((_, annotation)) = line.split_once("//~") else {
                continue;
            };
            for word in annotation.split_whitespace() {
                if word.starts_with("KL") {
                    codes.insert((name.clone(), i + 1, word.to_string()));
                } else if let Some(n) = word.strip_prefix("sectors=") {
                    sectors.insert((name.clone(), i + 1, n.to_string()));
                }
            }
        }
    }
    (codes, sectors)
}

fn found_codes(doc: &Value) -> Marks {
    doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap_or_default().to_string(),
                d["line"].as_u64().unwrap_or_default() as usize,
                d["code"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// `(file, line, sectors)` of every global access with a figure, where it is written.
fn found_sectors(doc: &Value) -> Marks {
    let mut out = BTreeSet::new();
    for kernel in doc["kernels"].as_array().expect("kernels") {
        for access in kernel["accesses"].as_array().expect("accesses") {
            let Some(sectors) = access["sectors_per_request"].as_f64() else {
                continue;
            };
            let file = access["access_file"]
                .as_str()
                .or(kernel["file"].as_str())
                .unwrap_or_default();
            let line = access["line"].as_u64().unwrap_or_default() as usize;
            out.insert((file.to_string(), line, format!("{sectors}")));
        }
    }
    out
}

#[test]
fn every_expectation_of_the_workspace_holds() {
    let (codes, sectors) = expectations();
    assert_eq!(codes.len(), 10, "{codes:?}");
    let check = run(&["check", "--format", "json"]);
    assert_eq!(check.code, 1, "{}{}", check.stdout, check.stderr);
    let doc: Value = serde_json::from_str(&check.stdout).expect("json");
    assert_eq!(found_codes(&doc), codes);
    assert_eq!(doc["errors"].as_array().map(Vec::len), Some(0), "{}", check.stdout);

    let accesses = run(&["accesses", "--format", "json"]);
    assert_eq!(accesses.code, 0, "{}", accesses.stderr);
    let doc: Value = serde_json::from_str(&accesses.stdout).expect("json");
    let predicted = found_sectors(&doc);
    let missing: Vec<_> = sectors.difference(&predicted).collect();
    assert!(
        missing.is_empty(),
        "expected but not predicted: {missing:?}\npredicted: {predicted:?}"
    );
    let kernels: Vec<&str> = doc["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .filter_map(|k| k["name"].as_str())
        .collect();
    assert_eq!(
        kernels,
        [
            "speeds",
            "gather_mass",
            "positions",
            "every_other",
            "one_tile_on",
            "column_mass",
            "halves",
            "walk",
            "farthest",
            "shift_right"
        ]
    );
}

#[test]
fn the_shared_file_is_analyzed_once_and_the_orphan_never() {
    let check = run(&["--color", "never", "check"]);
    assert_eq!(check.code, 1, "{}{}", check.stdout, check.stderr);
    assert_eq!(check.stdout.matches("warning[KL003]").count(), 1, "{}", check.stdout);
    assert!(check.stdout.contains("╭─[shared/blur.rs:9:23]"), "{}", check.stdout);
    assert!(!check.stdout.contains("../"), "{}", check.stdout);
    assert!(!format!("{}{}", check.stdout, check.stderr).contains("orphan"));
    assert!(
        check
            .stdout
            .contains("kernel-lint: 10 kernels in 11 files, 21 global accesses; 10 warnings"),
        "{}",
        check.stdout
    );
}

#[test]
fn a_helper_in_another_crate_is_reported_at_its_line_with_the_call_chain() {
    let check = run(&["--color", "never", "check", "kernels/src/physics.rs"]);
    assert_eq!(check.code, 1, "{}{}", check.stdout, check.stderr);
    assert!(
        check.stdout.contains("╭─[types/src/particle.rs:13:5]"),
        "{}",
        check.stdout
    );
    assert!(
        check
            .stdout
            .contains("note: in kernel `positions`, called through `position_x` (kernels/src/physics.rs:19:19)"),
        "{}",
        check.stdout
    );
    assert!(
        check
            .stdout
            .contains("array-of-structs access `particles[i].position[0]`: a 4-byte field of the 24-byte `Particle`"),
        "{}",
        check.stdout
    );
    // Only the file asked about is reported on; the types crate was read for its items.
    assert!(
        check
            .stdout
            .contains("kernel-lint: 5 kernels in 1 file, 10 global accesses; 4 warnings"),
        "{}",
        check.stdout
    );
}
