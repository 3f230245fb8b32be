//! The same input gives byte-identical output whatever the number of workers: the reports are
//! put back in input order, and nothing a worker does depends on which files it took.

use std::path::Path;
use std::process::Command;
use xtask::corpus::{write_corpus, CorpusSpec};

const BIN: &str = env!("CARGO_BIN_EXE_cargo-kernel-lint");

/// stdout, stderr and exit code of one run.
fn run(dir: &Path, args: &[&str]) -> (Vec<u8>, Vec<u8>, Option<i32>) {
    // Each run analyzes: the result cache would give the second the first one's bytes.
    let output = Command::new(BIN)
        .arg("--no-cache")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    (output.stdout, output.stderr, output.status.code())
}

fn assert_same_for_any_jobs(dir: &Path, path: &str) {
    for command in ["check", "accesses"] {
        let one = run(dir, &[command, "--format", "json", "--jobs", "1", path]);
        assert!(
            matches!(one.2, Some(0 | 1)),
            "{command} {path}: exit {:?}: {}",
            one.2,
            String::from_utf8_lossy(&one.1)
        );
        assert!(!one.0.is_empty(), "{command} {path}: no output");
        for jobs in ["2", "3"] {
            let many = run(dir, &[command, "--format", "json", "--jobs", jobs, path]);
            assert!(one == many, "{command} {path}: --jobs {jobs} differs from --jobs 1");
        }
    }
}

#[test]
fn fixtures_give_the_same_bytes_with_one_or_more_workers() {
    let root = crate::home::home();
    for fixture in [
        "fixtures/seeds",
        "fixtures/patterns",
        "fixtures/workspace",
        "fixtures/launch",
    ] {
        assert_same_for_any_jobs(root, fixture);
    }
}

#[test]
fn a_generated_workspace_gives_the_same_bytes_with_one_or_more_workers() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let spec = CorpusSpec {
        kernels: 60,
        mixed: true,
        seed: 3,
        ..CorpusSpec::default()
    };
    let stats = write_corpus(&spec, &dir.path().join("ws")).expect("written");
    assert_eq!(stats.kernels, 60);
    assert_same_for_any_jobs(dir.path(), "ws");
}

#[test]
fn zero_jobs_is_a_usage_error() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (stdout, stderr, code) = run(root, &["check", "--jobs", "0", "fixtures/seeds"]);
    assert_eq!(code, Some(2));
    assert!(stdout.is_empty());
    let stderr = String::from_utf8_lossy(&stderr);
    assert!(stderr.contains("invalid value '0' for '--jobs <N>'"), "{stderr}");
}
