//! The result cache: a run over unchanged inputs takes every result from it and prints the
//! same bytes as a run without it, in every format; a change to anything the results depend
//! on (a helper in another module, the block of the host launch, the configuration, the
//! build of the tool) analyzes again; a broken cache file is ignored and written anew.
//! `--verbose` says how many files were analyzed and how many taken from the cache.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_cargo-kernel-lint");

const MANIFEST: &str = "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
const LIB: &str = "mod helpers;\nmod host;\nmod kernels;\n";
const KERNELS: &str = "use crate::helpers::load;\n\
    use cuda_std::prelude::*;\n\
    \n\
    #[kernel]\n\
    pub unsafe fn scale(a: &[f32], out: *mut f32) {\n\
    \x20   let i = thread::index_1d() as usize;\n\
    \x20   *out.add(i) = load(a, i);\n\
    }\n";
const HELPER: &str = "pub fn load(a: &[f32], i: usize) -> f32 {\n    a[i * 2]\n}\n";

fn host(block: u32) -> String {
    format!(
        "use cust::prelude::*;\n\
         pub fn run(module: &Module, stream: &Stream, a: &DeviceBuffer<f32>, out: &DeviceBuffer<f32>) {{\n\
         \x20   unsafe {{\n\
         \x20       launch!(module.scale<<<64, {block}, 0, stream>>>(a.as_device_ptr(), a.len(), out.as_device_ptr())).unwrap();\n\
         \x20   }}\n\
         }}\n"
    )
}

/// A crate whose kernel reads through a helper of another module and is launched by host code
/// of a third.
fn crate_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temporary folder");
    write(dir.path(), "Cargo.toml", MANIFEST);
    write(dir.path(), "src/lib.rs", LIB);
    write(dir.path(), "src/kernels.rs", KERNELS);
    write(dir.path(), "src/helpers.rs", HELPER);
    write(dir.path(), "src/host.rs", &host(32));
    dir
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder created");
    std::fs::write(path, text).expect("file written");
}

fn run(root: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(["--color", "never", "--verbose"])
        .args(args)
        .current_dir(root)
        .env_remove("NO_COLOR")
        .output()
        .expect("the binary runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The `--verbose` line of a run.
fn tally(output: &Output) -> String {
    let text = stderr(output);
    text.lines()
        .find(|l| l.starts_with("cache: "))
        .unwrap_or_else(|| panic!("no cache line in:\n{text}"))
        .to_string()
}

fn cache_of(root: &Path) -> PathBuf {
    root.join(".kernel-lint-cache")
}

fn analyzed_fresh(root: &Path) -> String {
    format!("cache: 1 file analyzed, 0 taken from {}", cache_of(root).display())
}

fn taken(root: &Path) -> String {
    format!("cache: 0 files analyzed, 1 taken from {}", cache_of(root).display())
}

const FORMATS: [&[&str]; 5] = [
    &["check", "src/kernels.rs"],
    &["check", "src/kernels.rs", "--format", "json"],
    &["check", "src/kernels.rs", "--format", "sarif"],
    &["check", "src/kernels.rs", "--format", "github"],
    &["accesses", "src/kernels.rs", "--format", "json"],
];

#[test]
fn a_warm_run_takes_every_result_from_the_cache_and_prints_the_same_bytes_in_every_format() {
    for args in FORMATS {
        let dir = crate_dir();
        let root = dir.path();
        let uncached = run(root, &[&["--no-cache"], args].concat());
        assert_eq!(tally(&uncached), "cache: 1 file analyzed, none kept (no cache)");
        assert!(!cache_of(root).exists(), "--no-cache writes nothing");
        let cold = run(root, args);
        assert_eq!(tally(&cold), analyzed_fresh(root), "{args:?}");
        let warm = run(root, args);
        assert_eq!(tally(&warm), taken(root), "{args:?}");
        assert_eq!(
            String::from_utf8_lossy(&warm.stdout),
            String::from_utf8_lossy(&cold.stdout),
            "{args:?}"
        );
        assert_eq!(warm.stdout, uncached.stdout, "{args:?}");
        assert_eq!(warm.status.code(), cold.status.code());
        assert_eq!(cold.status.code(), Some(if args[0] == "check" { 1 } else { 0 }));
    }
    // The findings are real: the helper's stride under the launch's block of 32.
    let dir = crate_dir();
    let human = run(dir.path(), FORMATS[0]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("warning[KL001]"), "{text}");
    assert!(text.contains("8 sectors per request where 4 would do"), "{text}");
    assert!(
        text.contains("block (32, 1, 1) from the launch site src/host.rs:4"),
        "{text}"
    );
}

/// `accesses` prints no fixes and drafts no rewrites: a `check` run's results serve it, while
/// its own are kept apart and never serve `check`, whose findings carry the rewrites
/// (or why none is offered).
#[test]
fn accesses_reads_the_results_of_check_and_check_never_reads_those_of_accesses() {
    let accesses: &[&str] = &["accesses", "src/kernels.rs", "--format", "json"];
    let check: &[&str] = &["check", "src/kernels.rs", "--format", "json"];
    let dir = crate_dir();
    let root = dir.path();
    let fresh_accesses = run(root, &[&["--no-cache"], accesses].concat()).stdout;
    let fresh_check = run(root, &[&["--no-cache"], check].concat()).stdout;
    // The rewrite of the finding is drafted and declined: its reason is a note.
    let proven = String::from_utf8_lossy(&fresh_check);
    assert!(
        proven.contains("no rewrite is offered: the access is made in `load`"),
        "{proven}"
    );

    // accesses first: its results do not serve check, which analyzes and proves.
    assert_eq!(tally(&run(root, accesses)), analyzed_fresh(root));
    assert_eq!(tally(&run(root, accesses)), taken(root));
    let checked = run(root, check);
    assert_eq!(tally(&checked), analyzed_fresh(root));
    assert_eq!(checked.stdout, fresh_check);
    assert_eq!(tally(&run(root, check)), taken(root));

    // check first: accesses takes its results and prints what it prints without the cache.
    let dir = crate_dir();
    let root = dir.path();
    assert_eq!(tally(&run(root, check)), analyzed_fresh(root));
    let reused = run(root, accesses);
    assert_eq!(tally(&reused), taken(root));
    assert_eq!(reused.stdout, fresh_accesses);
}

/// Runs `check --format json`, changes a file, runs again: the second run analyzes and prints
/// what a run without the cache prints.
fn invalidated_by(path: &str, text: &str, expect_changed: &str) {
    let dir = crate_dir();
    let root = dir.path();
    let args = ["check", "src/kernels.rs", "--format", "json"];
    let before = run(root, &args);
    assert_eq!(tally(&before), analyzed_fresh(root));
    assert_eq!(tally(&run(root, &args)), taken(root));
    write(root, path, text);
    let after = run(root, &args);
    assert_eq!(tally(&after), analyzed_fresh(root), "a change to {path} analyzes again");
    let fresh = run(root, &[&["--no-cache"][..], &args].concat());
    assert_eq!(after.stdout, fresh.stdout);
    assert_ne!(after.stdout, before.stdout);
    assert!(String::from_utf8_lossy(&after.stdout).contains(expect_changed));
    assert_eq!(tally(&run(root, &args)), taken(root), "the new results are kept");
}

#[test]
fn a_change_to_a_helper_in_another_module_analyzes_the_kernel_again() {
    invalidated_by(
        "src/helpers.rs",
        "pub fn load(a: &[f32], i: usize) -> f32 {\n    a[i * 4]\n}\n",
        "16 sectors per request where 4 would do",
    );
}

#[test]
fn a_change_to_the_block_of_the_host_launch_analyzes_the_kernel_again() {
    invalidated_by(
        "src/host.rs",
        &host(16),
        "block (16, 1, 1) from the launch site src/host.rs:4",
    );
}

#[test]
fn a_change_to_the_configuration_analyzes_again() {
    invalidated_by("kernel-lint.toml", "[lints]\nKL001 = \"deny\"\n", "\"level\": \"deny\"");
}

/// A kernel the time budget stopped is a note, not an error: the run exits with its findings'
/// status, and its result is kept, so the next run does not spend the budget again.
#[test]
fn a_run_stopped_by_the_time_budget_is_kept_and_exits_with_the_findings_status() {
    let dir = crate_dir();
    let root = dir.path();
    let args = ["--file-time-budget", "0ms", "check", "src/kernels.rs"];
    let cold = run(root, &args);
    let text = String::from_utf8_lossy(&cold.stdout).into_owned();
    assert!(
        text.contains("note[KL007]: the analysis of `fn scale` stopped after 0 ms, the file's time budget"),
        "{text}"
    );
    assert_eq!(cold.status.code(), Some(0), "{text}");
    assert_eq!(tally(&cold), analyzed_fresh(root));
    let warm = run(root, &args);
    assert_eq!(tally(&warm), taken(root));
    assert_eq!(warm.stdout, cold.stdout);
    assert_eq!(warm.status.code(), Some(0));
}

#[test]
fn results_of_another_build_of_the_tool_are_not_used() {
    let dir = crate_dir();
    let root = dir.path();
    let args = ["check", "src/kernels.rs"];
    let cold = run(root, &args);
    let file = only_cache_file(root);
    let text = std::fs::read_to_string(&file).expect("cache file");
    let tool = format!("{{\"tool\":\"{}+", env!("CARGO_PKG_VERSION"));
    assert!(text.starts_with(&tool), "{}", &text[..80.min(text.len())]);
    std::fs::write(&file, text.replacen(&tool, "{\"tool\":\"0.0.1+", 1)).expect("written");
    let other = run(root, &args);
    assert_eq!(tally(&other), analyzed_fresh(root));
    assert_eq!(other.stdout, cold.stdout);
    assert!(
        !stderr(&other).contains("warning: ignoring"),
        "another build's file is no damage"
    );
    assert_eq!(tally(&run(root, &args)), taken(root));
}

#[test]
fn a_broken_cache_file_is_ignored_with_a_warning_and_written_anew() {
    for broken in [&b"{\"tool\": \"0.1"[..], b"\xff\xfe not json", b""] {
        let dir = crate_dir();
        let root = dir.path();
        let args = ["check", "src/kernels.rs", "--format", "sarif"];
        let cold = run(root, &args);
        let file = only_cache_file(root);
        std::fs::write(&file, broken).expect("written");
        let recovered = run(root, &args);
        assert_eq!(recovered.status.code(), Some(1), "never an error");
        assert_eq!(recovered.stdout, cold.stdout);
        assert_eq!(tally(&recovered), analyzed_fresh(root));
        let warning = format!("warning: ignoring the unreadable cache file {}: ", file.display());
        assert!(stderr(&recovered).contains(&warning), "{}", stderr(&recovered));
        let again = run(root, &args);
        assert_eq!(tally(&again), taken(root));
        assert_eq!(again.stdout, cold.stdout);
    }
}

#[test]
fn the_cache_folder_is_tagged_ignored_configurable_and_cleaned() {
    let dir = crate_dir();
    let root = dir.path();
    run(root, &["check", "src/kernels.rs"]);
    let cache = cache_of(root);
    let tag = std::fs::read_to_string(cache.join("CACHEDIR.TAG")).expect("tag");
    assert!(tag.starts_with("Signature: 8a477f597d28d172789f06886806bc55\n"));
    assert_eq!(
        std::fs::read_to_string(cache.join(".gitignore")).expect("ignore file"),
        "# Created by kernel-lint.\n*\n"
    );
    let clean = run(root, &["clean"]);
    assert_eq!(clean.status.code(), Some(0));
    assert_eq!(stderr(&clean), format!("removed {}\n", cache.display()));
    assert!(!cache.exists());
    assert_eq!(
        stderr(&run(root, &["clean"])),
        format!("no cache at {}\n", cache.display())
    );

    // `cache-dir` of the configuration is read against the configuration's folder, and
    // `--cache-dir` wins over it.
    write(root, "kernel-lint.toml", "cache-dir = \"target/kl\"\n");
    let configured = run(root, &["check", "src/kernels.rs"]);
    let kl = root.join("target/kl");
    assert_eq!(
        tally(&configured),
        format!("cache: 1 file analyzed, 0 taken from {}", kl.display())
    );
    assert!(kl.join("CACHEDIR.TAG").is_file());
    let given = root.join("given");
    let flag = run(root, &["check", "src/kernels.rs", "--cache-dir", "given"]);
    assert_eq!(tally(&flag), format!("cache: 1 file analyzed, 0 taken from given"));
    assert!(given.join("CACHEDIR.TAG").is_file());
    assert_eq!(stderr(&run(root, &["clean"])), format!("removed {}\n", kl.display()));
    assert!(!kl.exists() && given.exists());

    // A folder that is no cache is never removed.
    let refused = run(root, &["clean", "--cache-dir", "src"]);
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        stderr(&refused),
        "error: `src` is not a kernel-lint cache (it has no kernel-lint CACHEDIR.TAG); it is not removed\n"
    );
    assert!(root.join("src/kernels.rs").is_file());
}

#[test]
fn piped_output_carries_no_progress() {
    let dir = crate_dir();
    let output = run(dir.path(), &["check", "src/kernels.rs"]);
    for stream in [&output.stdout, &output.stderr] {
        assert!(!stream.contains(&b'\r'), "{}", String::from_utf8_lossy(stream));
        assert!(!stream.contains(&0x1b), "{}", String::from_utf8_lossy(stream));
    }
    assert!(!stderr(&output).contains("analyzing"));
    assert!(!stderr(&output).contains("files src/"));
}

fn only_cache_file(root: &Path) -> PathBuf {
    let folder = cache_of(root).join(env!("CARGO_PKG_VERSION"));
    let files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("version folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}
