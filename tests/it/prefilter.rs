//! Files that cannot hold a kernel, a launch or a hint are parsed only when a name of a file
//! that can reaches them: a helper of another module is still followed, and a host-only file is
//! never parsed (its syntax errors are the compiler's), unless it is named alone.

use kernel_lint_analyzer::{needed_files, ModuleSource, SourceFile};
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-kernel-lint");
const PACKAGE: &str = "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
const LIB: &str = "pub mod kernels;\npub mod access;\npub mod settings;\n";
const KERNELS: &str = "use cuda_std::prelude::*;\nuse crate::access::every_other;\n\n#[kernel]\npub unsafe fn halve(a: &[f32], out: *mut f32) {\n    let i = thread::index_1d() as usize;\n    *out.add(i) = every_other(a, i);\n}\n";
const ACCESS: &str =
    "/// The element two steps along.\npub fn every_other(a: &[f32], i: usize) -> f32 {\n    a[i * 2]\n}\n";
const SETTINGS: &str = "pub struct Settings {\n    pub verbose: bool,\n}\n";

fn write(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
}

fn check_json(dir: &Path) -> (i32, serde_json::Value, String) {
    let out = Command::new(BIN)
        .current_dir(dir)
        .args(["check", "--format", "json", "src"])
        .output()
        .expect("runs");
    let json = serde_json::from_slice(&out.stdout).expect("a JSON document");
    (
        out.status.code().unwrap_or(-1),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn module(path: &str, text: &str, name: &[&str]) -> ModuleSource {
    ModuleSource {
        source: SourceFile::new(path, text),
        module: name.iter().map(|s| s.to_string()).collect(),
        also_in: Vec::new(),
    }
}

#[test]
fn only_the_files_a_kernel_reaches_are_parsed_up_front() {
    let inputs = [
        module("src/lib.rs", LIB, &["c"]),
        module("src/kernels.rs", KERNELS, &["c", "kernels"]),
        module("src/access.rs", ACCESS, &["c", "access"]),
        module("src/settings.rs", SETTINGS, &["c", "settings"]),
    ];
    // The root is above a kernel's module; `access` is named by the kernel; nothing names
    // `Settings`.
    assert_eq!(needed_files(&inputs, &[]), vec![true, true, true, false]);
}

#[test]
fn a_helper_without_a_kernel_called_from_another_file_keeps_its_finding() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    write(
        dir.path(),
        &[
            ("Cargo.toml", PACKAGE),
            ("src/lib.rs", LIB),
            ("src/kernels.rs", KERNELS),
            ("src/access.rs", ACCESS),
            ("src/settings.rs", SETTINGS),
        ],
    );
    let (code, json, _) = check_json(dir.path());
    assert_eq!(code, 1);
    let diagnostics = json["diagnostics"].as_array().expect("diagnostics");
    let found: Vec<(&str, &str, &str, u64)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or(""),
                d["kernel"].as_str().unwrap_or(""),
                d["file"].as_str().unwrap_or(""),
                d["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(found, vec![("KL001", "halve", "src/access.rs", 3)]);
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("8 sectors per request")),
        "{}",
        diagnostics[0]["message"]
    );
}

#[test]
fn a_host_only_file_is_never_parsed_unless_named_alone() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let broken = "pub struct Settings {\n    pub verbose: bool,\n\nfn broken( {}\n";
    write(
        dir.path(),
        &[
            ("Cargo.toml", PACKAGE),
            ("src/lib.rs", LIB),
            ("src/kernels.rs", KERNELS),
            ("src/access.rs", ACCESS),
            ("src/settings.rs", broken),
        ],
    );
    // Nothing in it can hold a kernel and no kernel names it: its syntax is the compiler's.
    let (code, json, stderr) = check_json(dir.path());
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(json["errors"].as_array().map_or(usize::MAX, Vec::len), 0, "{json}");
    let codes: Vec<&str> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, vec!["KL001"]);
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args(["check", "--color", "never", "src"])
        .output()
        .expect("runs");
    let summary = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(summary.contains("kernel-lint: 1 kernel in 4 files"), "{summary}");
    // Named alone, a file is a crate root of its own, and a root is always parsed.
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args(["check", "--color", "never", "src/settings.rs"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("error: cannot tokenize: unclosed `(`"), "{text}");
    assert!(text.contains("[src/settings.rs:4:10]"), "{text}");
}
