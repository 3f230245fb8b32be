//! Throughput on generated kernel workspaces, every figure on the same files in the same run:
//! (a) reading and `syn::parse_file` alone, the floor; (b) a full `check`; (c) `accesses
//! --format json`; (d) `check` of a mixed workspace (nine host-only files beside each kernel
//! file) against parsing every file of it. The counter is lines of Rust, so divan prints lines
//! per second; the ratios are the quotients of the medians.
//!
//! `KERNEL_LINT_BENCH_KERNELS` sets the number of kernels (1000 by default).

use divan::counter::ItemsCount;
use divan::Bencher;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::LazyLock;
use xtask::corpus::{write_corpus, CorpusSpec};

const BIN: &str = env!("CARGO_BIN_EXE_cargo-kernel-lint");

/// A generated workspace on disk, its Rust files and their lines.
struct Corpus {
    _dir: tempfile::TempDir,
    root: PathBuf,
    files: Vec<PathBuf>,
    lines: usize,
}

fn corpus(mixed: bool) -> Corpus {
    let kernels = std::env::var("KERNEL_LINT_BENCH_KERNELS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path().join("ws");
    let spec = CorpusSpec {
        kernels,
        mixed,
        seed: 1,
        ..CorpusSpec::default()
    };
    let stats = write_corpus(&spec, &root).expect("the corpus is written");
    let mut files = Vec::new();
    collect_rs(&root.join("src"), &mut files);
    files.sort();
    Corpus {
        _dir: dir,
        root,
        files,
        lines: stats.lines,
    }
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable").flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

static KERNELS: LazyLock<Corpus> = LazyLock::new(|| corpus(false));
static MIXED: LazyLock<Corpus> = LazyLock::new(|| corpus(true));

fn parse_all(corpus: &Corpus) -> usize {
    corpus
        .files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).expect("readable");
            syn::parse_file(&text).expect("parses").items.len()
        })
        .sum()
}

/// Runs the binary on the corpus; findings exit 1, anything else is a failure.
fn kernel_lint(corpus: &Corpus, args: &[&str]) {
    // Every sample analyzes; the result cache would time reading it back.
    let status = Command::new(BIN)
        .arg("--no-cache")
        .args(args)
        .arg(&corpus.root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("the binary runs");
    assert!(matches!(status.code(), Some(0 | 1)), "{args:?}: {status}");
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn a_parse_only(bencher: Bencher) {
    let corpus = &*KERNELS;
    bencher
        .counter(ItemsCount::new(corpus.lines))
        .bench(|| parse_all(corpus));
}

#[divan::bench(sample_count = 5, sample_size = 1, args = [1, 2])]
fn b_check(bencher: Bencher, jobs: usize) {
    let corpus = &*KERNELS;
    let jobs = jobs.to_string();
    bencher
        .counter(ItemsCount::new(corpus.lines))
        .bench(|| kernel_lint(corpus, &["check", "--format", "json", "--jobs", &jobs]));
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn c_accesses_json(bencher: Bencher) {
    let corpus = &*KERNELS;
    bencher
        .counter(ItemsCount::new(corpus.lines))
        .bench(|| kernel_lint(corpus, &["accesses", "--format", "json", "--jobs", "1"]));
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn d_mixed_parse_only(bencher: Bencher) {
    let corpus = &*MIXED;
    bencher
        .counter(ItemsCount::new(corpus.lines))
        .bench(|| parse_all(corpus));
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn d_mixed_check(bencher: Bencher) {
    let corpus = &*MIXED;
    bencher
        .counter(ItemsCount::new(corpus.lines))
        .bench(|| kernel_lint(corpus, &["check", "--format", "json", "--jobs", "1"]));
}

fn main() {
    divan::main();
}
