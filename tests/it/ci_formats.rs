//! The formats CI reads (SARIF for code scanning, GitHub workflow-command annotations) and the
//! baseline that hides the findings a codebase already had.
//!
//! `tests/data/sarif-schema-2.1.0.json` is the SARIF 2.1.0 JSON schema published by OASIS
//! (`Schemata/sarif-schema-2.1.0.json` of the oasis-tcs/sarif-spec repository), vendored so that
//! the validation needs no network.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-kernel-lint");

/// A kernel with one stride-2 read: one KL001 finding.
const KERNEL: &str = "use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn every_other(a: &[f32], c: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        *c.add(i) = a[2 * i];
    }
}
";

/// The same kernel after edits that are not about it: lines above it, a new function beside it,
/// and the flagged line reformatted.
const KERNEL_MOVED: &str = "use cuda_std::prelude::*;
use cuda_std::thread;

// Scales by two.
fn twice(x: f32) -> f32 {
    x * 2.0
}

/// Reads every other element.
#[kernel]
pub unsafe fn every_other(a: &[f32], c: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        *c.add(i) = twice(
            a[2 *  i],
        );
    }
}
";

/// The moved kernel with one new stride-4 read.
const KERNEL_NEW_FINDING: &str = "use cuda_std::prelude::*;
use cuda_std::thread;

// Scales by two.
fn twice(x: f32) -> f32 {
    x * 2.0
}

/// Reads every other element.
#[kernel]
pub unsafe fn every_other(a: &[f32], c: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        *c.add(i) = twice(
            a[2 *  i],
        ) + a[4 * i];
    }
}
";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_in(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(BIN)
        .args(args)
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

fn run(args: &[&str]) -> Run {
    run_in(crate::home::home(), args)
}

fn snapshot(args: &[&str]) -> String {
    let run = run(args);
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        run.code, run.stdout, run.stderr
    )
}

fn sarif_validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sarif-schema-2.1.0.json");
    let mut schema: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("the vendored schema")).expect("the schema is JSON");
    // The published `language` patterns (of `run` and `toolComponent`) have a stray `]`: a
    // literal in ECMA-262 regular expressions, but the draft-07 meta-schema's `regex` format
    // check here rejects it unescaped. Escaping it keeps the patterns' meaning.
    for owner in ["run", "toolComponent"] {
        let language = &mut schema["definitions"][owner]["properties"]["language"]["pattern"];
        assert_eq!(*language, "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$");
        *language = Value::from(r"^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}\]?$");
    }
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles")
}

#[test]
fn sarif_on_the_pattern_fixtures() {
    insta::assert_snapshot!(
        "sarif-patterns",
        snapshot(&["--warn", "KL005", "check", "--format", "sarif", "fixtures/patterns"])
    );
}

#[test]
fn github_annotations_on_the_pattern_fixtures() {
    insta::assert_snapshot!(
        "github-patterns",
        snapshot(&["--warn", "KL005", "check", "--format", "github", "fixtures/patterns"])
    );
}

/// Notes are lines of the log, not annotations: GitHub shows only a handful of annotations a
/// step, and those are for what fails the job.
#[test]
fn github_notes_are_log_lines_not_annotations() {
    let run = run(&[
        "--file-time-budget",
        "0ms",
        "check",
        "--format",
        "github",
        "fixtures/seeds/strided.rs",
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(
        run.stdout,
        "note: fixtures/seeds/strided.rs:15:15: KL007 unfollowed-construct: the analysis of `fn strided_access` \
         stopped after 0 ms, the file's time budget (`--file-time-budget`); its accesses have no figures\n\
         note: fixtures/seeds/strided.rs:26:15: KL007 unfollowed-construct: `fn vectorized_access` is not \
         analyzed: the file's time budget (0 ms, `--file-time-budget`) ran out before it\n"
    );
}

#[test]
fn sarif_of_every_fixture_folder_validates_against_the_schema() {
    let validator = sarif_validator();
    for folder in [
        "fixtures/patterns",
        "fixtures/seeds",
        "fixtures/idioms",
        "fixtures/dialects",
    ] {
        let run = run(&[
            "--warn", "KL005", "--deny", "KL002", "check", "--format", "sarif", folder,
        ]);
        let log: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{folder}: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(&log)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{folder}:\n{}", errors.join("\n"));
        let results = log["runs"][0]["results"].as_array().expect("results");
        assert!(!results.is_empty(), "{folder} has findings");
        for result in results {
            let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
            assert_eq!(log["runs"][0]["tool"]["driver"]["rules"][index]["id"], result["ruleId"]);
            let fingerprint = result["partialFingerprints"]["kernelLint/v1"]
                .as_str()
                .expect("fingerprint");
            assert_eq!(fingerprint.len(), 16, "{fingerprint}");
        }
    }
}

#[test]
fn the_schema_rejects_a_log_that_breaks_it() {
    // The validation above means something only if the schema is enforced.
    let validator = sarif_validator();
    let bad = serde_json::json!({ "version": "2.1.0", "runs": [{ "tool": { "driver": {} } }] });
    assert!(!validator.is_valid(&bad));
    let bad_region = serde_json::json!({ "version": "2.1.0", "runs": [{
        "tool": { "driver": { "name": "x" } },
        "results": [{ "message": { "text": "m" }, "locations": [{ "physicalLocation": {
            "artifactLocation": { "uri": "a.rs" }, "region": { "startLine": 0 } } }] }]
    }] });
    assert!(!validator.is_valid(&bad_region));
}

#[test]
fn deny_level_findings_are_errors_in_both_formats() {
    let run = run(&[
        "--deny",
        "KL001",
        "check",
        "--format",
        "github",
        "fixtures/seeds/strided.rs",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let first = run.stdout.lines().next().expect("an annotation");
    assert!(
        first.starts_with("::error file=fixtures/seeds/strided.rs,line=19,col=22,"),
        "{first}"
    );
    let run = self::run(&[
        "--deny",
        "KL001",
        "check",
        "--format",
        "sarif",
        "fixtures/seeds/strided.rs",
    ]);
    let log: Value = serde_json::from_str(&run.stdout).expect("SARIF");
    assert_eq!(log["runs"][0]["results"][0]["level"], "error");
    assert_eq!(log["runs"][0]["columnKind"], "unicodeCodePoints");
}

#[test]
fn baseline_hides_old_findings_and_shows_new_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("kernel.rs"), KERNEL).expect("write");
    let wrote = run_in(dir.path(), &["check", "kernel.rs", "--write-baseline", "baseline.json"]);
    assert_eq!(wrote.code, 0, "{}", wrote.stderr);
    assert_eq!(wrote.stdout, "");
    assert_eq!(
        wrote.stderr,
        "kernel-lint: wrote 1 finding to the baseline `baseline.json`\n"
    );
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("baseline.json")).expect("read")).expect("JSON");
    assert_eq!(written["schema"], "kernel-lint/baseline/v1");
    let findings = written["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["code"], "KL001");
    assert_eq!(findings[0]["file"], "kernel.rs");
    assert_eq!(findings[0]["kernel"], "every_other");
    let fingerprint = findings[0]["fingerprint"].as_str().expect("fingerprint").to_string();

    // The same finding after unrelated edits: hidden, and the summary says so.
    std::fs::write(dir.path().join("kernel.rs"), KERNEL_MOVED).expect("write");
    let checked = run_in(
        dir.path(),
        &["--color", "never", "check", "kernel.rs", "--baseline", "baseline.json"],
    );
    assert_eq!(checked.code, 0, "{}{}", checked.stdout, checked.stderr);
    assert_eq!(
        checked.stdout,
        "kernel-lint: 1 kernel in 1 file, 2 global accesses; 0 warnings, 0 notes, 0 errors; 1 hidden by the baseline\n"
    );
    let sarif = run_in(dir.path(), &["check", "kernel.rs", "--format", "sarif"]);
    let log: Value = serde_json::from_str(&sarif.stdout).expect("SARIF");
    assert_eq!(
        log["runs"][0]["results"][0]["partialFingerprints"]["kernelLint/v1"],
        fingerprint.as_str()
    );

    // A new bad access is the one finding reported.
    std::fs::write(dir.path().join("kernel.rs"), KERNEL_NEW_FINDING).expect("write");
    let checked = run_in(
        dir.path(),
        &[
            "check",
            "kernel.rs",
            "--baseline",
            "baseline.json",
            "--format",
            "github",
        ],
    );
    assert_eq!(checked.code, 1, "{}", checked.stderr);
    let lines: Vec<&str> = checked.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "{}", checked.stdout);
    assert!(
        lines[0].starts_with("::warning file=kernel.rs,line=16,col=15,endColumn=19,title=KL001 strided-access::"),
        "{}",
        lines[0]
    );
    assert_eq!(checked.stderr, "kernel-lint: 1 finding hidden by the baseline\n");
}

#[test]
fn a_bad_baseline_is_an_error_with_its_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("kernel.rs"), KERNEL).expect("write");
    std::fs::write(dir.path().join("text.json"), "findings: none\n").expect("write");
    std::fs::write(
        dir.path().join("other.json"),
        r#"{"schema":"kernel-lint/diagnostics/v1","diagnostics":[]}"#,
    )
    .expect("write");
    std::fs::write(
        dir.path().join("shape.json"),
        r#"{"schema":"kernel-lint/baseline/v1","findings":[{}]}"#,
    )
    .expect("write");
    let cases = [
        (
            "missing.json",
            "error: cannot read `missing.json`: no such file or directory\n",
        ),
        (
            "text.json",
            "error: text.json: not a kernel-lint baseline: expected ident at line 1 column 2\n",
        ),
        (
            "other.json",
            "error: other.json: not a kernel-lint baseline: schema `kernel-lint/diagnostics/v1`, expected \
             `kernel-lint/baseline/v1` (write one with `--write-baseline`)\n",
        ),
        (
            "shape.json",
            "error: shape.json: not a kernel-lint baseline: missing field `file`\n",
        ),
    ];
    for (file, message) in cases {
        let run = run_in(dir.path(), &["check", "kernel.rs", "--baseline", file]);
        assert_eq!(run.code, 2, "{file}: {}", run.stderr);
        assert_eq!(run.stderr, message);
        assert_eq!(run.stdout, "");
    }
}

#[test]
fn report_formats_and_baselines_belong_to_check() {
    for args in [
        &["accesses", "--format", "sarif", "fixtures/seeds/strided.rs"][..],
        &["accesses", "--baseline", "b.json", "fixtures/seeds/strided.rs"],
        &["fix", "--write-baseline", "b.json", "fixtures/seeds/strided.rs"],
        &["--baseline", "a.json", "rule", "KL001"],
        &["check", "--baseline", "a.json", "--write-baseline", "b.json"],
    ] {
        let run = run(args);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("error: "), "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "", "{args:?}");
    }
    let run = run(&["accesses", "--format", "github", "fixtures/seeds/strided.rs"]);
    assert!(
        run.stderr.starts_with(
            "error: `accesses` writes `--format human` or `json`; `sarif` and `github` are formats of findings"
        ),
        "{}",
        run.stderr
    );
}
