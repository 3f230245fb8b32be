//! Temporary git repositories for the tests of `review`, with fixed dates so that commits
//! have the same names on every run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A kernel that reads no struct.
pub const CLEAN: &str = "use cuda_std::prelude::*;
use cuda_std::thread;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Particle {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub vx: f32,
}

#[kernel]
pub unsafe fn step(p: *mut Particle, out: *mut f32, n: u32) {
    let i = (thread::thread_idx_x() + thread::block_idx_x() * thread::block_dim_x()) as usize;
    if i < n as usize {
        *out.add(i) = 1.0;
    }
}
";

/// `CLEAN` with one field of an array of structs read.
pub fn with_aos() -> String {
    CLEAN.replace("*out.add(i) = 1.0;", "*out.add(i) = (*p.add(i)).x;")
}

/// A repository in a temporary folder.
pub struct Repo {
    _dir: tempfile::TempDir,
    /// Its working tree.
    pub path: PathBuf,
}

impl Repo {
    /// An empty repository.
    pub fn new() -> Repo {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let path = dir.path().join("repo");
        std::fs::create_dir(&path).expect("the repository folder");
        git(&path, &["init", "-q", "-b", "main"]);
        Repo { _dir: dir, path }
    }

    /// Writes a file of the working tree.
    pub fn write(&self, name: &str, text: &str) {
        let path = self.path.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("the folder");
        }
        std::fs::write(path, text).expect("the file is written");
    }

    /// Stages everything and commits it.
    pub fn commit(&self, message: &str) {
        git(&self.path, &["add", "-A"]);
        git(&self.path, &["commit", "-q", "-m", message]);
    }

    /// Runs `cargo-kernel-lint` in the working tree.
    pub fn kernel_lint(&self, args: &[&str]) -> Output {
        kernel_lint_in(&self.path, args)
    }
}

/// Runs `cargo-kernel-lint` in `dir`.
pub fn kernel_lint_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

/// Runs git in `dir` with fixed names and dates; panics on failure.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=kernel-lint",
            "-c",
            "user.email=kernel-lint@example.com",
        ])
        .args(["-c", "commit.gpgsign=false", "-c", "protocol.file.allow=always"])
        .args(args)
        .env("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
        .current_dir(dir)
        .output()
        .expect("these tests need git on the PATH");
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Exit code, stdout and stderr.
pub fn parts(output: &Output) -> (i32, String, String) {
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}
