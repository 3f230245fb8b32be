//! The folder the command-line tests run the tool in: a copy of the fixtures and of the
//! harness's measurements outside this repository, under the same relative paths. Run here,
//! `fixtures/seeds` is a folder of a user's with no cargo workspace around it, as the
//! fixtures mean it; run in the checkout, every run would also read the tool's own workspace
//! (every file of which names kernels), and the output would depend on the tool's sources.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What is copied, relative to the package root.
const COPIED: &[&str] = &["fixtures", "harness/measurements"];

const PREFIX: &str = "kernel-lint-fixtures-";

/// The copy, made once per test process.
pub fn home() -> &'static Path {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let temp = std::env::temp_dir();
        remove_stale(&temp);
        let home = temp.join(format!("{PREFIX}{}", std::process::id()));
        // A folder left by an earlier process of the same id is stale.
        let _ = std::fs::remove_dir_all(&home);
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for part in COPIED {
            copy_tree(&root.join(part), &home.join(part));
        }
        home
    })
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder for the fixtures");
    for entry in std::fs::read_dir(from).expect("a fixtures folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a fixture copied");
        }
    }
}

/// Copies of processes that are gone (where `/proc` tells): the process never outlives them
/// otherwise, since a static is never dropped.
fn remove_stale(temp: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(PREFIX) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}
