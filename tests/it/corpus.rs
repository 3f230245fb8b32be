//! The synthetic workspaces of the benchmarks and the determinism test: the same spec gives the
//! same files, with the kernels and host-only files it asks for.

use xtask::corpus::{generate, CorpusSpec};

#[test]
fn same_spec_same_files() {
    let spec = CorpusSpec {
        kernels: 25,
        mixed: true,
        seed: 7,
        ..CorpusSpec::default()
    };
    assert_eq!(generate(&spec), generate(&spec));
}

#[test]
fn counts_kernels_and_host_files() {
    let spec = CorpusSpec {
        kernels: 25,
        mixed: true,
        seed: 1,
        ..CorpusSpec::default()
    };
    let files = generate(&spec);
    let kernels: usize = files.iter().map(|f| f.text.matches("pub unsafe fn").count()).sum();
    assert_eq!(kernels, 25);
    let host_only = files.iter().filter(|f| f.path.contains("/host_")).count();
    // Three kernel files, nine host-only files beside each.
    assert_eq!(host_only, 27);
    assert!(files.iter().any(|f| f.path == "src/types.rs"));
}

#[test]
fn all_kernels_in_one_file() {
    let spec = CorpusSpec {
        kernels: 25,
        kernels_per_file: 25,
        ..CorpusSpec::default()
    };
    let files = generate(&spec);
    let with_kernels: Vec<usize> = files
        .iter()
        .map(|f| f.text.matches("pub unsafe fn").count())
        .filter(|&n| n > 0)
        .collect();
    assert_eq!(with_kernels, vec![25]);
}
