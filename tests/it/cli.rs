//! The command line as users run it: exit codes, output formats, configuration, discovery.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_cargo-kernel-lint");

/// A kernel whose every access is coalesced.
const CLEAN_KERNEL: &str = r#"use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn add(a: &[f32], b: &[f32], c: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        *c.add(i) = a[i] + b[i];
    }
}
"#;

/// A kernel with a stride-2 access: one KL001 warning.
const STRIDED_KERNEL: &str = r#"use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn every_other(a: &[f32], c: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        *c.add(i) = a[2 * i];
    }
}
"#;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("invalid JSON ({e}):\n{}", self.stdout))
    }
}

fn finish(output: Output) -> Run {
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "the binary panicked:\n{}", run.stderr);
    run
}

/// Runs the binary where the fixtures are ([`crate::home`]).
fn run(args: &[&str]) -> Run {
    run_in(crate::home::home(), args)
}

fn run_in(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .output()
        .expect("the binary runs");
    finish(output)
}

fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("create dir");
    }
    std::fs::write(&path, contents).expect("write file");
    path
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

/// The `file` of every kernel of an `accesses` JSON document, in order.
fn kernel_files(doc: &Value) -> Vec<&str> {
    doc["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .filter_map(|k| k["file"].as_str())
        .collect()
}

fn first_access(doc: &Value, kernel: &str) -> Value {
    let kernels = doc["kernels"].as_array().expect("kernels array");
    let kernel = kernels.iter().find(|k| k["name"] == kernel).expect("kernel listed");
    kernel["accesses"][0].clone()
}

#[test]
fn clean_kernel_exits_zero() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = write(dir.path(), "clean.rs", CLEAN_KERNEL);
    let run = run(&["check", path_str(&file)]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout
            .contains("kernel-lint: 1 kernel in 1 file, 3 global accesses; 0 warnings"),
        "{}",
        run.stdout
    );
}

#[test]
fn strided_fixture_warns_and_exits_one() {
    let run = run(&["fixtures/seeds/strided.rs"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(run.stdout.contains("warning[KL001]"), "{}", run.stdout);
    assert!(run.stdout.contains("fixtures/seeds/strided.rs:19:22"), "{}", run.stdout);
    let summary = run.stdout.lines().last().expect("a summary line");
    assert!(summary.starts_with("kernel-lint: 2 kernels in 1 file, "), "{summary}");
    assert!(summary.contains("1 warning,"), "{summary}");
}

#[test]
fn explicit_check_subcommand_matches_the_default() {
    let implicit = run(&["fixtures/seeds/strided.rs"]);
    let explicit = run(&["check", "fixtures/seeds/strided.rs"]);
    assert_eq!(implicit.stdout, explicit.stdout);
    assert_eq!(implicit.code, explicit.code);
}

#[test]
fn cargo_subcommand_argument_is_dropped() {
    let run = run(&["kernel-lint", "check", "fixtures/seeds/strided.rs"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(run.stdout.contains("warning[KL001]"), "{}", run.stdout);
}

#[test]
fn accesses_json_schema_and_values() {
    let run = run(&["accesses", "--format", "json", "fixtures/seeds/offset.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let doc = run.json();
    assert_eq!(doc["schema"], "kernel-lint/accesses/v1");
    assert_eq!(doc["errors"], serde_json::json!([]));
    let kernel = &doc["kernels"][0];
    assert_eq!(kernel["name"], "read_offset");
    assert_eq!(kernel["file"], "fixtures/seeds/offset.rs");
    assert_eq!(kernel["line"], 6);
    assert_eq!(kernel["block"], serde_json::json!([256, 1, 1]));
    assert_eq!(kernel["block_source"], "default");
    let access = first_access(&doc, "read_offset");
    assert_eq!(access["line"], 10);
    assert_eq!(access["column"], 17);
    assert_eq!(access["array"], "a");
    assert_eq!(access["index"], "k as usize");
    assert_eq!(access["op"], "load");
    assert_eq!(access["space"], "global");
    assert_eq!(access["elem_bytes"], 4);
    assert_eq!(access["class"], "misaligned");
    assert_eq!(access["stride_bytes"], 4);
    assert_eq!(access["sectors_per_request"], 5.0);
    assert_eq!(access["ideal_sectors_per_request"], 4.0);
    assert_eq!(access["efficiency"], 0.8);
    assert_eq!(access["cases"][0]["condition"], "offset % 8 == 0");
    assert_eq!(access["cases"][0]["sectors_per_request"], 4.0);
    assert!(access["assumptions"].is_array());
    for key in ["field", "end_line", "end_column"] {
        assert!(access.get(key).is_some(), "missing {key}");
    }
}

#[test]
fn shared_accesses_have_no_prediction() {
    let run = run(&["accesses", "--format", "json", "fixtures/seeds/matmul.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let doc = run.json();
    let kernel = &doc["kernels"][0];
    assert_eq!(kernel["block"], serde_json::json!([32, 32, 1]));
    assert_eq!(kernel["block_source"], "hint");
    let accesses = kernel["accesses"].as_array().expect("accesses");
    let shared = accesses
        .iter()
        .find(|a| a["space"] == "shared")
        .expect("a shared access");
    for key in [
        "class",
        "stride_bytes",
        "sectors_per_request",
        "ideal_sectors_per_request",
        "efficiency",
    ] {
        assert!(shared[key].is_null(), "{key} of a shared access: {}", shared[key]);
    }
}

#[test]
fn accesses_table_for_people() {
    let run = run(&["accesses", "fixtures/seeds/offset.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let mut lines = run.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("kernel read_offset  fixtures/seeds/offset.rs:6  block (256, 1, 1) default")
    );
    let heading = lines.next().expect("heading");
    for column in [
        "line:col", "op", "space", "access", "bytes", "class", "sectors", "ideal", "eff", "notes",
    ] {
        assert!(heading.contains(column), "{heading}");
    }
    let row = lines.next().expect("first row");
    assert!(row.trim_start().starts_with("10:17"), "{row}");
    assert!(
        row.contains("a[k as usize]") && row.contains("misaligned") && row.contains("80%"),
        "{row}"
    );
    assert!(row.contains("4 (coalesced) when offset % 8 == 0"), "{row}");
}

#[test]
fn config_parameters_change_the_prediction() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = write(
        dir.path(),
        "kl.toml",
        "[[kernel]]\nname = \"read_offset\"\nblock = [256, 1, 1]\n[kernel.params]\noffset = 8\n",
    );
    let run = run(&[
        "accesses",
        "--format",
        "json",
        "--config",
        path_str(&config),
        "fixtures/seeds/offset.rs",
    ]);
    assert_eq!(run.code, 0, "{}", run.all());
    let doc = run.json();
    let kernel = &doc["kernels"][0];
    assert_eq!(kernel["block_source"], "config");
    let access = first_access(&doc, "read_offset");
    assert_eq!(access["sectors_per_request"], 4.0);
    assert_eq!(access["class"], "coalesced");
}

#[test]
fn config_file_in_the_current_directory_is_used() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "k.rs", STRIDED_KERNEL);
    write(dir.path(), "kernel-lint.toml", "[lints]\nstrided-access = \"allow\"\n");
    let run = run_in(dir.path(), &["k.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(!run.stdout.contains("KL001"), "{}", run.stdout);
    // Silence, not a missed kernel: the access was analyzed.
    assert!(
        run.stdout.contains("1 kernel in 1 file, 2 global accesses; 0 warnings"),
        "{}",
        run.stdout
    );
}

#[test]
fn level_flags_override_the_configuration() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "k.rs", STRIDED_KERNEL);
    write(dir.path(), "kernel-lint.toml", "[lints]\nKL001 = \"allow\"\n");
    let denied = run_in(dir.path(), &["--deny", "KL001", "k.rs"]);
    assert_eq!(denied.code, 1, "{}", denied.all());
    assert!(denied.stdout.contains("error[KL001]"), "{}", denied.stdout);
    // The last of conflicting flags wins.
    let allowed = run_in(
        dir.path(),
        &["check", "--deny", "KL001", "--allow", "strided-access", "k.rs"],
    );
    assert_eq!(allowed.code, 0, "{}", allowed.all());
    let noted = run_in(dir.path(), &["--warn", "KL001", "--color", "never", "check", "k.rs"]);
    assert_eq!(noted.code, 1, "{}", noted.all());
    assert!(noted.stdout.contains("warning[KL001]"), "{}", noted.stdout);
}

#[test]
fn unknown_lint_flag_is_an_error() {
    let run = run(&["--deny", "KL999", "fixtures/seeds/strided.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stderr.contains("KL999"), "{}", run.stderr);
}

#[test]
fn missing_path_is_named_and_the_rest_still_reported() {
    let run = run(&["no/such/kernel.rs", "fixtures/seeds/strided.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.all().contains("no/such/kernel.rs"), "{}", run.all());
    assert!(run.stdout.contains("warning[KL001]"), "{}", run.stdout);

    let json = self::run(&["--format", "json", "no/such/kernel.rs", "fixtures/seeds/strided.rs"]);
    assert_eq!(json.code, 2);
    let doc = json.json();
    assert_eq!(doc["schema"], "kernel-lint/diagnostics/v1");
    assert_eq!(doc["errors"][0]["file"], "no/such/kernel.rs");
    assert_eq!(doc["diagnostics"][0]["code"], "KL001");
}

#[test]
fn syntax_error_is_located_and_other_files_still_checked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = write(dir.path(), "bad.rs", "fn f() {\n    let = 5;\n}\n");
    let good = write(dir.path(), "good.rs", STRIDED_KERNEL);
    let run = run_in(dir.path(), &["--color", "never", "bad.rs", "good.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stdout.contains("bad.rs:2:9"), "{}", run.stdout);
    assert!(run.stdout.contains("syntax error"), "{}", run.stdout);
    assert!(run.stdout.contains("warning[KL001]"), "{}", run.stdout);

    let json = self::run(&["--format", "json", path_str(&bad), path_str(&good)]);
    assert_eq!(json.code, 2);
    let doc = json.json();
    let error = &doc["errors"][0];
    assert_eq!(error["file"], path_str(&bad));
    assert_eq!((error["line"].clone(), error["column"].clone()), (2.into(), 9.into()));
    assert_eq!(doc["diagnostics"].as_array().map(Vec::len), Some(1));
}

#[test]
fn non_utf8_file_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "latin1.rs", b"fn f() {}\n// caf\xe9\n");
    let run = run_in(dir.path(), &["latin1.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stdout.contains("not valid UTF-8"), "{}", run.stdout);
    assert!(run.stdout.contains("latin1.rs:2:7"), "{}", run.stdout);
}

#[test]
fn deeply_nested_file_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let deep = format!("fn f() -> i32 {{ {}1{} }}\n", "(".repeat(10_000), ")".repeat(10_000));
    write(dir.path(), "deep.rs", deep);
    let run = run_in(dir.path(), &["deep.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stdout.contains("deep.rs:1:"), "{}", run.stdout);
    assert!(run.stdout.contains("nested"), "{}", run.stdout);
    // The 20,000-character line is not echoed back.
    assert!(run.stdout.len() < 2_000, "{} bytes of output", run.stdout.len());
}

#[test]
fn unknown_config_key_names_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "k.rs", CLEAN_KERNEL);
    write(dir.path(), "bad.toml", "[[kernel]]\nname = \"add\"\nblok = [256]\n");
    let run = run_in(dir.path(), &["--config", "bad.toml", "k.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stderr.contains("bad.toml:3:1"), "{}", run.stderr);
    assert!(run.stderr.contains("blok"), "{}", run.stderr);
}

#[test]
fn oversized_block_in_config_names_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "k.rs", CLEAN_KERNEL);
    write(
        dir.path(),
        "kernel-lint.toml",
        "[[kernel]]\nname = \"add\"\nblock = [2000]\n",
    );
    let run = run_in(dir.path(), &["accesses", "k.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stderr.contains("kernel-lint.toml:3:9"), "{}", run.stderr);
    assert!(run.stderr.contains("2000"), "{}", run.stderr);

    write(
        dir.path(),
        "kernel-lint.toml",
        "[[kernel]]\nname = \"add\"\nblock = [64, 64]\n",
    );
    let run = run_in(dir.path(), &["k.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stderr.contains("1024"), "{}", run.stderr);
}

#[test]
fn config_lint_levels_are_validated() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "k.rs", CLEAN_KERNEL);
    write(
        dir.path(),
        "kernel-lint.toml",
        "[lints]\nKL001 = \"warn\"\nKL999 = \"deny\"\n",
    );
    let run = run_in(dir.path(), &["k.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.stderr.contains("kernel-lint.toml:3:1") && run.stderr.contains("KL999"),
        "{}",
        run.stderr
    );
}

#[test]
fn missing_config_file_is_an_error() {
    let run = run(&["--config", "no-such-config.toml", "fixtures/seeds/strided.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stderr.contains("no-such-config.toml"), "{}", run.stderr);
}

#[test]
fn rule_prints_documentation() {
    let run = run(&["rule", "KL001"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stdout.starts_with("KL001 strided-access"), "{}", run.stdout);
    assert!(run.stdout.contains("## What it does"), "{}", run.stdout);
    assert_eq!(self::run(&["rule", "strided-access"]).stdout, run.stdout);
}

#[test]
fn unknown_rule_is_an_error() {
    let run = run(&["rule", "KL999"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stderr.contains("KL999"), "{}", run.stderr);
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(run(&["--format", "xml", "fixtures/seeds/strided.rs"]).code, 2);
    assert_eq!(run(&["accesses", "--bogus"]).code, 2);
    assert_eq!(run(&["--help"]).code, 0);
}

#[test]
fn color_follows_the_flag() {
    let never = run(&["--color", "never", "fixtures/seeds/strided.rs"]);
    assert!(!never.stdout.contains('\u{1b}'), "{}", never.stdout);
    let always = run(&["--color", "always", "fixtures/seeds/strided.rs"]);
    assert!(always.stdout.contains('\u{1b}'), "{}", always.stdout);
    // Output to a pipe is plain unless asked otherwise.
    assert!(!run(&["fixtures/seeds/strided.rs"]).stdout.contains('\u{1b}'));
}

#[test]
fn directories_are_walked_in_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "kernels/b.rs", STRIDED_KERNEL);
    write(dir.path(), "kernels/a.rs", CLEAN_KERNEL);
    write(dir.path(), "kernels/notes.txt", "not rust");
    let run = run_in(dir.path(), &["accesses", "--format", "json", "kernels"]);
    assert_eq!(run.code, 0, "{}", run.all());
    let doc = run.json();
    let files = kernel_files(&doc);
    assert_eq!(files, ["kernels/a.rs", "kernels/b.rs"]);
}

#[test]
fn cargo_workspace_sources_are_found_without_paths() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "Cargo.toml",
        "[package]\nname = \"kernels\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [package.metadata.kernel-lint]\nlints = { KL001 = \"deny\" }\n",
    );
    write(
        dir.path(),
        "src/lib.rs",
        format!("{STRIDED_KERNEL}\npub mod clean;\n// mod orphan;\n"),
    );
    write(dir.path(), "src/clean.rs", CLEAN_KERNEL);
    // No crate compiles this file (its `mod` line is commented out): it is not read.
    write(dir.path(), "src/orphan.rs", "fn broken( {\n");
    let run = run_in(dir.path(), &["kernel-lint", "--color", "never"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(run.stdout.contains("error[KL001]"), "{}", run.stdout);
    assert!(run.stdout.contains("src/lib.rs:8:"), "{}", run.stdout);
    assert!(run.stdout.contains("2 kernels in 2 files"), "{}", run.stdout);
    assert!(!run.all().contains("orphan"), "{}", run.all());

    let json = run_in(dir.path(), &["accesses", "--format", "json"]);
    assert_eq!(json.code, 0, "{}", json.all());
    let doc = json.json();
    let files = kernel_files(&doc);
    // Module-tree order: the crate root, then its modules.
    assert_eq!(files, ["src/lib.rs", "src/clean.rs"]);
}

#[test]
fn manifest_path_selects_the_workspace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let manifest = write(
        dir.path(),
        "pkg/Cargo.toml",
        "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(dir.path(), "pkg/src/lib.rs", CLEAN_KERNEL);
    let run = run_in(dir.path(), &["--manifest-path", path_str(&manifest)]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(run.stdout.contains("1 kernel in 1 file"), "{}", run.stdout);
}

#[test]
fn outside_a_cargo_workspace_without_paths_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = run_in(dir.path(), &["check"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(run.stderr.contains("cargo"), "{}", run.stderr);
}

#[test]
fn workspace_metadata_applies_to_members() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "Cargo.toml",
        "[workspace]\nmembers = [\"k\"]\nresolver = \"2\"\n\n\
         [workspace.metadata.kernel-lint]\nlints = { strided-access = \"deny\" }\n",
    );
    write(
        dir.path(),
        "k/Cargo.toml",
        "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(dir.path(), "k/src/lib.rs", STRIDED_KERNEL);
    let member = run_in(&dir.path().join("k"), &["--color", "never"]);
    assert_eq!(member.code, 1, "{}", member.all());
    assert!(
        member.stdout.contains("error[KL001]") && member.stdout.contains("src/lib.rs:8:"),
        "{}",
        member.stdout
    );
    let root = run_in(dir.path(), &["--color", "never"]);
    assert!(root.stdout.contains("k/src/lib.rs:8:"), "{}", root.stdout);
    assert!(root.stdout.contains("error[KL001]"), "{}", root.stdout);
}

/// A kernel with a float parameter that plays no part in addressing.
const SCALE_KERNEL: &str = r#"use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn scale(a: &[f32], c: *mut f32, n: usize, alpha: f32) {
    let i = thread::index_1d() as usize;
    if i < n {
        *c.add(i) = a[i] * alpha;
    }
}
"#;

#[test]
fn float_parameter_values_are_accepted_and_listed() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "k.rs", SCALE_KERNEL);
    write(
        dir.path(),
        "kernel-lint.toml",
        "[[kernel]]\nname = \"scale\"\n[kernel.params]\nalpha = 2.0\nn = 4096\n",
    );
    let run = run_in(dir.path(), &["accesses", "--format", "json", "k.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(run.stderr, "");
    let doc = run.json();
    assert_eq!(
        doc["kernels"][0]["params"],
        serde_json::json!({"alpha": 2.0, "n": 4096})
    );
    assert!(run.stdout.contains("\"alpha\": 2.0"), "{}", run.stdout);
    assert_eq!(first_access(&doc, "scale")["class"], "coalesced");

    // A float given to an integer parameter is kept out of the index arithmetic, and said so.
    write(
        dir.path(),
        "kernel-lint.toml",
        "[[kernel]]\nname = \"scale\"\n[kernel.params]\nalpha = 2.0\nn = 4096.0\n",
    );
    let run = run_in(dir.path(), &["check", "k.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(
        run.stderr,
        "warning: kernel-lint.toml:5:5: parameter `n` of `scale` is an integer (`usize`), so the float 4096.0 \
         plays no part in the analysis: write `4096` to use it\n"
    );
}

#[test]
fn config_entry_for_a_missing_kernel_is_a_located_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "k.rs", CLEAN_KERNEL);
    write(
        dir.path(),
        "kernel-lint.toml",
        "[[kernel]]\nname = \"add\"\n[[kernel]]\nname = \"ad\"\nblock = [64]\n",
    );
    let run = run_in(dir.path(), &["check", "k.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(
        run.stderr,
        "warning: kernel-lint.toml:4:8: no kernel named `ad` in the analyzed files\n"
    );
    // Warnings leave findings and their exit code alone.
    write(dir.path(), "s.rs", STRIDED_KERNEL);
    let run = run_in(dir.path(), &["check", "k.rs", "s.rs"]);
    assert_eq!(run.code, 1, "{}", run.all());
    assert!(
        run.stderr.contains("kernel-lint.toml:4:8: no kernel named `ad`"),
        "{}",
        run.stderr
    );
}

#[test]
fn config_file_that_matches_no_analyzed_file_is_a_located_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "k.rs", CLEAN_KERNEL);
    write(
        dir.path(),
        "kernel-lint.toml",
        "[[kernel]]\nname = \"add\"\nfile = \"src/gone.rs\"\n",
    );
    let run = run_in(dir.path(), &["accesses", "k.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(
        run.stderr,
        "warning: kernel-lint.toml:3:8: no analyzed file matches `src/gone.rs`\n"
    );
}

#[test]
fn unknown_parameter_is_a_warning_naming_the_kernels_parameters() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "k.rs", CLEAN_KERNEL);
    write(
        dir.path(),
        "kernel-lint.toml",
        "[[kernel]]\nname = \"add\"\n[kernel.params]\nlen = 3\nn = 64\n",
    );
    let run = run_in(dir.path(), &["k.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(
        run.stderr,
        "warning: kernel-lint.toml:4:1: kernel `add` has no parameter `len`; its parameters are `a`, `b`, `c`, `n`\n"
    );
}

#[test]
fn duplicate_entry_is_an_error_with_a_note_on_the_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "k.rs", CLEAN_KERNEL);
    write(
        dir.path(),
        "kernel-lint.toml",
        "[[kernel]]\nname = \"add\"\nblock = [64]\n\n[[kernel]]\nname = \"add\"\nblock = [64]\n",
    );
    let run = run_in(dir.path(), &["k.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: kernel-lint.toml:6:8: duplicate entry for kernel `add`\n\
         note: kernel-lint.toml:2:8: the first entry is here\n"
    );
}

#[test]
fn negative_value_for_an_unsigned_parameter_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "k.rs", CLEAN_KERNEL);
    write(
        dir.path(),
        "kernel-lint.toml",
        "[[kernel]]\nname = \"add\"\n[kernel.params]\nn = -1\n",
    );
    let run = run_in(dir.path(), &["accesses", "k.rs"]);
    assert_eq!(run.code, 2, "{}", run.all());
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: kernel-lint.toml:4:5: parameter `n` of `add` is unsigned (`usize`), so it cannot be -1\n"
    );
}

#[test]
fn malformed_and_out_of_range_hints_are_located_warnings() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "hints.rs",
        "use cuda_std::prelude::*;\n\n\
         // kernel-lint: block(0)\n#[kernel]\npub unsafe fn a(x: *mut f32) {}\n\n\
         #[kernel]\n  /* kernel-lint: block(2048) */\npub unsafe fn b(x: *mut f32) {}\n\n\
         // kernel-lint: blok(32)\n#[kernel]\npub unsafe fn c(x: *mut f32) {}\n\n\
         #[kernel]\n// kernel-lint: block(32, )\npub unsafe fn d(x: *mut f32) {}\n\n\
         // kernel-lint: block(x)\n#[kernel]\npub unsafe fn e(x: *mut f32) {}\n\n\
         // kernel-lint: block(32)\n\n#[kernel]\npub unsafe fn f(x: *mut f32) {}\n",
    );
    let run = run_in(dir.path(), &["accesses", "--format", "json", "hints.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(
        run.stderr,
        "warning: hints.rs:3:1: ignored launch hint: block extent 0 is out of range (1 to 1024)\n\
         warning: hints.rs:8:3: ignored launch hint: block extent 2048 is out of range (1 to 1024)\n\
         warning: hints.rs:11:1: ignored launch hint: unknown hint key `blok`: did you mean `block`?\n\
         warning: hints.rs:16:1: ignored launch hint: missing block extent in `block(32, )`\n\
         warning: hints.rs:19:1: ignored launch hint: `x` is not a block extent (1 to 1024)\n\
         warning: hints.rs:23:1: ignored launch hint: no kernel follows it: a hint goes directly above a kernel \
         or among its attributes\n"
    );
    let doc = run.json();
    for kernel in doc["kernels"].as_array().expect("kernels") {
        assert_eq!(kernel["block_source"], "default", "{kernel}");
    }
    // `check` reports them the same way, not as notes of the summary.
    let run = run_in(dir.path(), &["--color", "never", "check", "hints.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stderr.contains("warning: hints.rs:11:1: ignored launch hint"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout
            .contains("6 kernels in 1 file, 0 global accesses; 0 warnings, 0 notes"),
        "{}",
        run.stdout
    );
}

#[test]
fn hints_after_attributes_and_in_block_comments_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "hints.rs",
        "#[kernel]\n// kernel-lint: block(16, 16)\npub unsafe fn a(x: *mut f32) {}\n\n\
         /* kernel-lint: block(32, 8) */\n#[kernel]\npub unsafe fn b(x: *mut f32) {}\n\n\
         #[no_mangle]\n/* kernel-lint: block(64) */\n#[kernel]\npub unsafe fn c(x: *mut f32) {}\n",
    );
    let run = run_in(dir.path(), &["accesses", "--format", "json", "hints.rs"]);
    assert_eq!(run.code, 0, "{}", run.all());
    assert_eq!(run.stderr, "");
    let doc = run.json();
    let blocks: Vec<(String, Value, Value)> = doc["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|k| (k["name"].to_string(), k["block"].clone(), k["block_source"].clone()))
        .collect();
    let hint = Value::from("hint");
    assert_eq!(
        blocks,
        [
            ("\"a\"".to_string(), serde_json::json!([16, 16, 1]), hint.clone()),
            ("\"b\"".to_string(), serde_json::json!([32, 8, 1]), hint.clone()),
            ("\"c\"".to_string(), serde_json::json!([64, 1, 1]), hint),
        ]
    );
}

/// A workspace of two crates: `a` with a `kernel-lint.toml`, `b` with package metadata, the
/// workspace with metadata of its own, and a decoy configuration above the workspace root.
fn two_crate_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "kernel-lint.toml", "[lints]\nKL001 = \"note\"\n");
    write(
        dir.path(),
        "ws/Cargo.toml",
        "[workspace]\nmembers = [\"crates/a\", \"crates/b\"]\nresolver = \"2\"\n\n\
         [workspace.metadata.kernel-lint]\nlints = { strided-access = \"deny\" }\n",
    );
    write(
        dir.path(),
        "ws/crates/a/Cargo.toml",
        "[package]\nname = \"a\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        dir.path(),
        "ws/crates/a/kernel-lint.toml",
        "[[kernel]]\nname = \"every_other\"\nblock = [64]\n\n[[kernel]]\nname = \"missing\"\n\n\
         [lints]\nstrided-access = \"allow\"\n",
    );
    write(dir.path(), "ws/crates/a/src/lib.rs", STRIDED_KERNEL);
    write(
        dir.path(),
        "ws/crates/b/Cargo.toml",
        "[package]\nname = \"b\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [[package.metadata.kernel-lint.kernel]]\nname = \"every_other\"\nblock = [128]\n",
    );
    write(dir.path(), "ws/crates/b/src/lib.rs", STRIDED_KERNEL);
    dir
}

/// `(file, block)` of every kernel of an `accesses` JSON document.
fn kernel_blocks(doc: &Value) -> Vec<(String, Value)> {
    doc["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|k| {
            (
                k["file"].as_str().unwrap_or_default().to_string(),
                k["block"][0].clone(),
            )
        })
        .collect()
}

#[test]
fn configuration_is_found_from_each_crate_root() {
    let dir = two_crate_workspace();
    let ws = dir.path().join("ws");
    let paths = ["crates/a/src/lib.rs", "crates/b/src/lib.rs"];
    let json = run_in(&ws, &["accesses", "--format", "json", paths[0], paths[1]]);
    assert_eq!(json.code, 0, "{}", json.all());
    assert_eq!(
        kernel_blocks(&json.json()),
        [
            ("crates/a/src/lib.rs".to_string(), Value::from(64)),
            ("crates/b/src/lib.rs".to_string(), Value::from(128)),
        ]
    );
    assert_eq!(
        json.stderr,
        "warning: crates/a/kernel-lint.toml:6:8: no kernel named `missing` in the analyzed files\n"
    );

    // Lint levels too: `a` allows KL001, `b` gets the workspace's deny; the configuration above
    // the workspace root plays no part.
    let check = run_in(&ws, &["--color", "never", "check", paths[0], paths[1]]);
    assert_eq!(check.code, 1, "{}", check.all());
    assert_eq!(check.stdout.matches("error[KL001]").count(), 1, "{}", check.stdout);
    assert!(check.stdout.contains("crates/b/src/lib.rs:8:"), "{}", check.stdout);
    assert!(!check.stdout.contains("crates/a/src/lib.rs:8:"), "{}", check.stdout);

    // The same from a subfolder, and from the workspace's own discovery.
    let sub = run_in(
        &ws.join("crates/b"),
        &["accesses", "--format", "json", "../a/src/lib.rs", "src/lib.rs"],
    );
    assert_eq!(sub.code, 0, "{}", sub.all());
    assert_eq!(
        kernel_blocks(&sub.json()),
        [
            ("../a/src/lib.rs".to_string(), Value::from(64)),
            ("src/lib.rs".to_string(), Value::from(128)),
        ]
    );
    let discovered = run_in(&ws, &["accesses", "--format", "json"]);
    assert_eq!(discovered.code, 0, "{}", discovered.all());
    assert_eq!(kernel_blocks(&discovered.json()), kernel_blocks(&json.json()));

    // `--config` is one configuration for every file.
    let all = write(
        dir.path(),
        "all.toml",
        "[[kernel]]\nname = \"every_other\"\nblock = [32]\n",
    );
    let explicit = run_in(
        &ws,
        &[
            "--config",
            path_str(&all),
            "accesses",
            "--format",
            "json",
            paths[0],
            paths[1],
        ],
    );
    assert_eq!(explicit.code, 0, "{}", explicit.all());
    assert_eq!(
        kernel_blocks(&explicit.json()),
        [
            ("crates/a/src/lib.rs".to_string(), Value::from(32)),
            ("crates/b/src/lib.rs".to_string(), Value::from(32)),
        ]
    );
    assert_eq!(explicit.stderr, "");
}

#[test]
fn harness_needs_one_configuration_for_all_files() {
    let dir = two_crate_workspace();
    let ws = dir.path().join("ws");
    let out = dir.path().join("out");
    let run = run_in(
        &ws,
        &[
            "harness",
            "emit",
            "--out",
            path_str(&out),
            "crates/a/src/lib.rs",
            "crates/b/src/lib.rs",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.all());
    assert!(
        run.stderr.contains(
            "error: the files given use different configurations (`Cargo.toml`, \
             `crates/a/kernel-lint.toml`, `crates/b/Cargo.toml`): give one with `--config`, or one crate at a time"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn a_workspace_pinning_a_toolchain_that_is_not_installed_is_still_analyzed() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "Cargo.toml",
        "[package]\nname = \"pinned\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        dir.path(),
        "rust-toolchain.toml",
        "[toolchain]\nchannel = \"nightly-1999-01-01\"\n",
    );
    write(dir.path(), "src/lib.rs", CLEAN_KERNEL);
    // The crates are read from their manifests, with no cargo command that rustup would refuse
    // to run under the pinned toolchain.
    let output = Command::new(BIN)
        .current_dir(dir.path())
        .env_remove("CARGO")
        .env_remove("RUSTUP_TOOLCHAIN")
        .env("RUSTUP_AUTO_INSTALL", "0")
        .output()
        .expect("the binary runs");
    let run = finish(output);
    assert_eq!(run.code, 0, "{}", run.all());
    assert!(
        run.stdout.contains("1 kernel in 1 file, 3 global accesses"),
        "{}",
        run.stdout
    );
}

#[test]
fn notes_about_code_not_followed_are_a_lint_that_allow_silences() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kernel = "#[kernel]\npub unsafe fn k(a: &[f32], out: *mut f32) {\n    let i = thread::index_1d() as usize;\n    \
                  let double = |x: f32| x * 2.0;\n    sum!(3 + 4);\n    trace!(a[i]);\n    *out.add(i) = double(a[i]);\n}\n";
    write(dir.path(), "k.rs", kernel);
    let noted = run_in(dir.path(), &["--color", "never", "check", "k.rs"]);
    assert_eq!(noted.code, 0, "{}", noted.all());
    // Only the macro that may hold an access is noted: not the arithmetic one, not the closure.
    assert_eq!(noted.stdout.matches("note[KL007]").count(), 1, "{}", noted.stdout);
    assert!(
        noted
            .stdout
            .contains("note[KL007]: macro `trace!` is not expanded: accesses inside it are not analyzed"),
        "{}",
        noted.stdout
    );
    assert!(noted.stdout.contains("╭─[k.rs:6:5]"), "{}", noted.stdout);
    assert!(
        noted.stdout.contains("2 global accesses; 0 warnings, 1 note, 0 errors"),
        "{}",
        noted.stdout
    );
    let allowed = run_in(dir.path(), &["--color", "never", "--allow", "KL007", "check", "k.rs"]);
    assert_eq!(allowed.code, 0, "{}", allowed.all());
    assert!(!allowed.stdout.contains("KL007"), "{}", allowed.stdout);
    assert!(
        allowed
            .stdout
            .contains("2 global accesses; 0 warnings, 0 notes, 0 errors"),
        "{}",
        allowed.stdout
    );
}

/// `exclude` keeps the files found under its patterns out of the report (a folder pattern
/// takes all below it; a file named on the command line is reported all the same), and
/// `[kernel-allow]` silences lints in the kernels it names; a bad pattern or lint is an error
/// at its place.
#[test]
fn excluded_files_and_lints_allowed_in_a_kernel_leave_the_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "Cargo.toml",
        "[package]\nname = \"ex\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(root, "src/lib.rs", "mod generated;\nmod kernels;\n");
    write(root, "src/generated/mod.rs", "mod made;\n");
    write(
        root,
        "src/generated/made.rs",
        STRIDED_KERNEL.replace("every_other", "made"),
    );
    write(
        root,
        "src/kernels.rs",
        format!(
            "{}{}",
            STRIDED_KERNEL,
            STRIDED_KERNEL
                .replace("every_other", "quiet")
                .replace("use cuda_std::prelude::*;\nuse cuda_std::thread;\n", "")
        ),
    );
    let before = run_in(root, &["--no-cache"]);
    assert_eq!(before.code, 1, "{}", before.all());
    assert!(
        before
            .stdout
            .contains("3 kernels in 4 files, 6 global accesses; 3 warnings"),
        "{}",
        before.stdout
    );
    write(
        root,
        "kernel-lint.toml",
        "exclude = [\"src/generated\"]\n\n[kernel-allow]\nquiet = [\"kl001\"]\n",
    );
    let after = run_in(root, &["--no-cache"]);
    assert_eq!(after.code, 1, "{}", after.all());
    assert!(
        after
            .stdout
            .contains("2 kernels in 2 files, 4 global accesses; 1 warning"),
        "{}",
        after.stdout
    );
    assert!(after.stdout.contains("src/kernels.rs:8:"), "{}", after.stdout);
    assert!(!after.stdout.contains("made"), "{}", after.stdout);
    assert!(
        after
            .stderr
            .contains("note: 2 files not reported: under `exclude` patterns of the configuration"),
        "{}",
        after.stderr
    );
    let named = run_in(root, &["--no-cache", "src/generated/made.rs"]);
    assert!(
        named
            .stdout
            .contains("1 kernel in 1 file, 2 global accesses; 1 warning"),
        "{}",
        named.stdout
    );
    write(root, "kernel-lint.toml", "exclude = [\"src/[gen\"]\n");
    let bad = run_in(root, &["--no-cache"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains(
            "error: kernel-lint.toml:1:12: `src/[gen` is not a glob pattern: unclosed character class; missing ']'"
        ),
        "{}",
        bad.stderr
    );
    write(root, "kernel-lint.toml", "[kernel-allow]\nquiet = [\"KL099\"]\n");
    let unknown = run_in(root, &["--no-cache"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown
            .stderr
            .contains("error: kernel-lint.toml:2:10: unknown lint `KL099`"),
        "{}",
        unknown.stderr
    );
}

/// A host workspace whose kernel crate is left out of it (`exclude`, as crates built for the
/// device by a build script are): with no member holding a kernel, the package nested in its
/// folder is read through its own tree. Once a member holds a kernel, it is not.
#[test]
fn a_kernel_crate_excluded_from_the_host_workspace_is_read_when_no_member_has_kernels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "Cargo.toml",
        "[workspace]\nmembers = [\"host\"]\nexclude = [\"device\"]\nresolver = \"2\"\n",
    );
    write(
        root,
        "host/Cargo.toml",
        "[package]\nname = \"host\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(root, "host/src/main.rs", "fn main() {}\n");
    write(
        root,
        "device/Cargo.toml",
        "[package]\nname = \"device\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\ncrate-type = [\"cdylib\"]\n",
    );
    write(
        root,
        "device/src/lib.rs",
        "#![no_std]\n#![feature(abi_ptx, stdarch_nvptx)]\nmod ops;\nuse core::arch::nvptx::*;\n\n\
         #[no_mangle]\npub unsafe extern \"ptx-kernel\" fn scale(x: *mut f32) {\n    \
         let i = (_block_dim_x() * _block_idx_x() + _thread_idx_x()) as usize;\n    ops::twice(x, 2 * i);\n}\n",
    );
    write(
        root,
        "device/src/ops.rs",
        "pub unsafe fn twice(x: *mut f32, i: usize) {\n    *x.add(i) *= 2.0;\n}\n",
    );
    let run = run_in(root, &["accesses", "--format", "json", "--no-cache"]);
    let doc = run.json();
    assert_eq!(kernel_files(&doc), ["device/src/lib.rs"], "{}", run.stderr);
    let access = first_access(&doc, "scale");
    assert_eq!(
        (
            access["access_file"].as_str(),
            access["class"].as_str(),
            access["sectors_per_request"].as_f64()
        ),
        (Some("device/src/ops.rs"), Some("strided"), Some(8.0))
    );
    // A kernel in a member: the excluded package stays out.
    write(
        root,
        "host/src/lib.rs",
        "#![no_std]\nuse core::arch::nvptx::*;\n#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn fill(x: *mut f32) {\n    \
         *x.add(_thread_idx_x() as usize) = 0.0;\n}\n",
    );
    let doc = run_in(root, &["accesses", "--format", "json", "--no-cache"]).json();
    assert_eq!(kernel_files(&doc), ["host/src/lib.rs"]);
}
