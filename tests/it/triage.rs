//! Thresholds from the configuration and the command line, and the order of findings.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-kernel-lint");

/// Two strided reads: `a[i * 2]` wastes 4 sectors a request, `a[i * 8]` 28, written second.
const KERNEL: &str = "#[kernel]
pub unsafe fn k(a: &[f32], c: *mut f32) {
    let i = thread::index_1d() as usize;
    let x = a[i * 2];
    let y = a[i * 8];
    *c.add(i) = x + y;
}
";

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .args(["--color", "never"])
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn setup(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("k.rs"), KERNEL).expect("write");
    std::fs::write(dir.path().join("kernel-lint.toml"), config).expect("write");
    dir
}

fn headers(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.contains("warning["))
        .map(str::trim)
        .collect()
}

#[test]
fn most_costly_finding_comes_first() {
    let dir = setup("");
    let (code, stdout, _) = run(dir.path(), &["check", "k.rs"]);
    assert_eq!(code, 1);
    assert_eq!(
        headers(&stdout),
        [
            "⚠ warning[KL001]: strided access to `a[i * 8]`: lanes are 32 bytes apart, 32 sectors per request where 4 would do (12.5% efficiency)",
            "⚠ warning[KL001]: strided access to `a[i * 2]`: lanes are 8 bytes apart, 8 sectors per request where 4 would do (50% efficiency)",
        ]
    );
}

#[test]
fn known_grid_gives_the_waste_per_launch() {
    let dir = setup("[[kernel]]\nname = \"k\"\nblock = [256]\ngrid = [4096]\n");
    let (_, stdout, _) = run(dir.path(), &["check", "k.rs", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let first = &doc["diagnostics"][0];
    assert_eq!(first["line"], 5);
    // 4096 blocks of 8 warps, each request 28 sectors over the ideal.
    assert_eq!(first["impact"]["requests_per_launch"], 32768.0);
    assert_eq!(first["impact"]["wasted_sectors_per_launch"], 917504.0);
    assert_eq!(first["notes"][1], "about 918 k wasted sectors per launch");
}

#[test]
fn thresholds_from_the_configuration() {
    let dir = setup("[thresholds]\nmin-efficiency = 0.5\n");
    let (code, stdout, _) = run(dir.path(), &["check", "k.rs"]);
    assert_eq!(code, 1);
    assert_eq!(headers(&stdout).len(), 1);
    assert!(headers(&stdout)[0].contains("a[i * 8]"));
    let dir = setup("[thresholds]\nmin-wasted-sectors = 30\n");
    let (code, stdout, _) = run(dir.path(), &["check", "k.rs"]);
    assert_eq!((code, headers(&stdout).len()), (0, 0));
}

#[test]
fn flags_override_the_configuration() {
    let dir = setup("[thresholds]\nmin-wasted-sectors = 30\n");
    let (code, stdout, _) = run(dir.path(), &["check", "k.rs", "--min-wasted-sectors", "5"]);
    assert_eq!(code, 1);
    assert_eq!(headers(&stdout).len(), 1);
    assert!(headers(&stdout)[0].contains("a[i * 8]"));
    let (code, stdout, _) = run(
        dir.path(),
        &["--min-efficiency", "0.1", "k.rs", "--min-wasted-sectors", "0"],
    );
    assert_eq!((code, headers(&stdout).len()), (0, 0));
}

#[test]
fn bad_threshold_is_located_and_exits_two() {
    let dir = setup("[lints]\nKL001 = \"warn\"\n\n[thresholds]\nmin-efficiency = 1.5\n");
    let (code, stdout, stderr) = run(dir.path(), &["check", "k.rs"]);
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    assert!(
        stderr.contains("kernel-lint.toml:5:18: `min-efficiency` is 1.5, out of range (0 to 1)"),
        "{stderr}"
    );
    let dir = setup("[thresholds]\nmin-wasted-sectors = -1\n");
    let (code, _, stderr) = run(dir.path(), &["check", "k.rs"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("kernel-lint.toml:2:22: `min-wasted-sectors` is -1, out of range (0 or more)"),
        "{stderr}"
    );
    let (code, _, stderr) = run(dir.path(), &["check", "k.rs", "--min-efficiency=1.5"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("invalid value '1.5' for '--min-efficiency <RATIO>': 1.5 is out of range (0 to 1)"),
        "{stderr}"
    );
}

/// A crate whose kernel reads through a helper of another file.
fn helper_crate(helper_comment: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir(root.join("src")).expect("mkdir");
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .expect("write");
    std::fs::write(
        root.join("src/lib.rs"),
        "mod helper;\n\n#[kernel]\npub unsafe fn k(a: &[f32], c: *mut f32) {\n    let i = thread::index_1d() as usize;\n    *c.add(i) = helper::even(a, i);\n}\n",
    )
    .expect("write");
    std::fs::write(
        root.join("src/helper.rs"),
        format!("pub fn even(a: &[f32], i: usize) -> f32 {{\n    {helper_comment}\n    a[i * 2]\n}}\n"),
    )
    .expect("write");
    dir
}

#[test]
fn a_finding_in_a_helper_is_suppressed_in_the_helper_file() {
    let dir = helper_crate("// a plain comment");
    let (code, stdout, _) = run(dir.path(), &["check", "src/lib.rs"]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("╭─[src/helper.rs:3:7]"), "{stdout}");
    let dir = helper_crate("// kernel-lint: allow(strided-access)");
    for args in [&["check", "src/lib.rs"][..], &["check"][..]] {
        let (code, stdout, stderr) = run(dir.path(), args);
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert!(stdout.ends_with("0 warnings, 0 notes, 0 errors\n"), "{stdout}");
    }
}

#[test]
fn suppressions_and_unused_ones_end_to_end() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = "#[kernel]
pub unsafe fn k(a: &[f32], c: *mut f32) {
    let i = thread::index_1d() as usize;
    let x = a[i * 2]; // kernel-lint: allow(KL001)
    // kernel-lint: allow(KL002)
    let y = a[i * 8];
    *c.add(i) = x + y;
}
";
    std::fs::write(dir.path().join("k.rs"), source).expect("write");
    let (code, stdout, _) = run(dir.path(), &["check", "k.rs", "--format", "json"]);
    assert_eq!(code, 1);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let found: Vec<(String, u64, u64, u64, String)> = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                d["line"].as_u64().unwrap_or_default(),
                d["column"].as_u64().unwrap_or_default(),
                d["end_column"].as_u64().unwrap_or_default(),
                d["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("KL001".to_string(), 6, 15, 20, "strided access to `a[i * 8]`: lanes are 32 bytes apart, 32 sectors per request where 4 would do (12.5% efficiency)".to_string()),
            ("KL008".to_string(), 5, 5, 33, "unused suppression: no `KL002` (array-of-structs-access) finding in the statement or item below it".to_string()),
        ]
    );
    // Allowed, the unused suppression no longer fails the run.
    let (code, _, _) = run(dir.path(), &["check", "k.rs", "--allow", "KL008", "--allow", "KL001"]);
    assert_eq!(code, 0);
}

#[test]
fn findings_in_loops_come_before_those_outside_when_counts_are_unknown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = "#[kernel]
pub unsafe fn k(a: &[f32], c: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    let x = a[i * 8];
    for j in 0..n {
        *c.add(i * 2 + j) = x;
    }
}
";
    std::fs::write(dir.path().join("k.rs"), source).expect("write");
    let (_, stdout, _) = run(dir.path(), &["check", "k.rs", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let lines: Vec<u64> = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| d["line"].as_u64().unwrap_or_default())
        .collect();
    assert_eq!(lines, [6, 4]);
    assert_eq!(doc["diagnostics"][0]["impact"]["loop_depth"], 1);
    assert!(doc["diagnostics"][0]["impact"].get("requests_per_launch").is_none());
}

#[test]
fn thresholds_in_the_package_metadata() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir(root.join("src")).expect("mkdir");
    let manifest = "[package]\nname = \"k\"\nversion = \"0.1.0\"\n\n[package.metadata.kernel-lint.thresholds]\nmin-wasted-sectors = 5\n";
    std::fs::write(root.join("Cargo.toml"), manifest).expect("write");
    std::fs::write(root.join("src/lib.rs"), KERNEL).expect("write");
    let (code, stdout, _) = run(root, &["check"]);
    assert_eq!(code, 1);
    assert_eq!(headers(&stdout).len(), 1);
    assert!(headers(&stdout)[0].contains("a[i * 8]"), "{stdout}");
    let bad = manifest.replace("= 5", "= \"many\"");
    std::fs::write(root.join("Cargo.toml"), bad).expect("write");
    let (code, _, stderr) = run(root, &["check"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("Cargo.toml:6:22: invalid type: string \"many\", expected f64"),
        "{stderr}"
    );
}

/// A helper called by two kernels in two files gives each the same finding at the same place:
/// it is shown once, with both call paths among its notes.
#[test]
fn a_finding_in_a_helper_of_several_kernels_is_shown_once_with_every_call_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"shared\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .expect("write");
    std::fs::create_dir(root.join("src")).expect("src");
    std::fs::write(
        root.join("src/lib.rs"),
        "mod first;\nmod second;\n\npub fn load(a: &[f32], i: usize) -> f32 {\n    a[2 * i]\n}\n",
    )
    .expect("write");
    for name in ["first", "second"] {
        let kernel = format!(
            "use crate::load;\n\n#[kernel]\npub unsafe fn {name}(a: &[f32], out: *mut f32) {{\n    \
             let i = thread::index_1d() as usize;\n    *out.add(i) = load(a, i);\n}}\n"
        );
        std::fs::write(root.join(format!("src/{name}.rs")), kernel).expect("write");
    }
    let (code, stdout, stderr) = run(root, &["check", "--no-cache"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        headers(&stdout),
        ["⚠ warning[KL001]: strided access to `a[2 * i]`: lanes are 8 bytes apart, 8 sectors per request where 4 would do (50% efficiency)"]
    );
    assert!(
        stdout.contains("note: in kernel `first`, called through `load` (src/first.rs:6:19)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("note: in kernel `second`, called through `load` (src/second.rs:6:19)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("2 kernels in 3 files, 4 global accesses; 1 warning"),
        "{stdout}"
    );
}
