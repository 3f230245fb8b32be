//! Cargo, run for an editor's stream: `cargo check`'s messages passed through ahead of the
//! findings, and `cargo metadata`'s packages, which own the files the findings are in.

use crate::error::CliError;
use crate::output::print;
use serde_json::Value;
use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The cargo that runs us (`cargo kernel-lint` sets `CARGO`), else the one on the PATH.
fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"))
}

/// How `cargo check` went; its `build-finished` line is held back to end the whole stream.
#[derive(Debug, Clone, Copy)]
pub struct Checked {
    /// Whether cargo check succeeded.
    pub success: bool,
}

impl Checked {
    /// The one `build-finished` line that ends the stream, with cargo's success.
    pub fn finished_line(self) -> String {
        format!(
            "{}\n",
            serde_json::json!({ "reason": "build-finished", "success": self.success })
        )
    }
}

/// Runs `cargo check --message-format json` (on `manifest_path` when given), printing its lines
/// as they come except the closing `build-finished`; its progress goes to stderr as usual.
pub fn check(manifest_path: Option<&Path>) -> Result<Checked, CliError> {
    let mut command = Command::new(cargo());
    command.args(["check", "--message-format", "json"]);
    if let Some(path) = manifest_path {
        command.arg("--manifest-path").arg(path);
    }
    let program = format!("`{} check`", cargo().to_string_lossy());
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|err| CliError::Tool {
            program: program.clone(),
            message: format!("cannot start: {err} (`--cargo-check` runs cargo; set `CARGO` or put it on the PATH)"),
        })?;
    if let Some(stdout) = child.stdout.take() {
        let mut reader = BufReader::new(stdout);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&line);
            if !is_build_finished(&text) {
                let mut text = text.into_owned();
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                print(&text)?;
            }
        }
    }
    let status = child.wait().map_err(|err| CliError::Tool {
        program,
        message: format!("did not finish: {err}"),
    })?;
    Ok(Checked {
        success: status.success(),
    })
}

fn is_build_finished(line: &str) -> bool {
    serde_json::from_str::<Value>(line)
        .is_ok_and(|value| value.get("reason").and_then(Value::as_str) == Some("build-finished"))
}

/// The packages of the workspaces the files are in, as `cargo metadata` describes them.
#[derive(Debug, Default)]
pub struct Packages {
    packages: Vec<Package>,
}

#[derive(Debug)]
struct Package {
    id: String,
    manifest_path: String,
    /// The package's folder, canonical, to find the files it holds.
    dir: PathBuf,
    targets: Vec<Value>,
}

/// The package and target that own a file: what cargo names in its `compiler-message`.
#[derive(Debug, Clone, Copy)]
pub struct Owner<'a> {
    /// `package_id`, as cargo metadata gives it.
    pub package_id: &'a str,
    /// The package's `Cargo.toml`.
    pub manifest_path: &'a str,
    /// The target object, as cargo metadata gives it.
    pub target: &'a Value,
}

impl Packages {
    /// Runs `cargo metadata --no-deps` (which runs no code of the project) once for the
    /// workspace of each file's nearest `Cargo.toml`; a workspace cargo cannot read is left out
    /// with a warning, and its files are then written without a package.
    pub fn of_files<'a>(files: impl IntoIterator<Item = &'a Path>) -> Packages {
        let mut packages = Packages::default();
        let mut asked: Vec<PathBuf> = Vec::new();
        for file in files {
            let Ok(file) = file.canonicalize() else { continue };
            let Some(manifest) = file
                .ancestors()
                .skip(1)
                .map(|dir| dir.join("Cargo.toml"))
                .find(|manifest| manifest.is_file())
            else {
                continue;
            };
            let known = packages
                .packages
                .iter()
                .any(|p| manifest.parent() == Some(p.dir.as_path()));
            if known || asked.contains(&manifest) {
                continue;
            }
            match metadata(&manifest) {
                Ok(found) => {
                    for package in found {
                        if !packages.packages.iter().any(|p| p.id == package.id) {
                            packages.packages.push(package);
                        }
                    }
                }
                Err(message) => eprintln!("warning: {message}"),
            }
            asked.push(manifest);
        }
        packages
    }

    /// The package holding `file` (the innermost one) and its target whose crate is
    /// `crate_name`; `None` for a file of no crate.
    pub fn owner(&self, file: &Path, crate_name: &str) -> Option<Owner<'_>> {
        let file = file.canonicalize().ok()?;
        let is_crate = |target: &Value| {
            target
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|name| name.replace('-', "_") == crate_name)
        };
        // A target's root may lie outside its package's folder (`path = "../../src/lib.rs"`, one
        // source tree shared by several packages): the crate whose root folder holds the file.
        let by_root = self
            .packages
            .iter()
            .flat_map(|package| package.targets.iter().map(move |target| (package, target)))
            .filter(|(_, target)| is_crate(target))
            .filter_map(|(package, target)| {
                let root = Path::new(target.get("src_path")?.as_str()?)
                    .parent()?
                    .canonicalize()
                    .ok()?;
                file.starts_with(&root)
                    .then_some((root.components().count(), package, target))
            })
            .max_by_key(|(depth, ..)| *depth);
        if let Some((_, package, target)) = by_root {
            return Some(Owner {
                package_id: &package.id,
                manifest_path: &package.manifest_path,
                target,
            });
        }
        let package = self
            .packages
            .iter()
            .filter(|p| file.starts_with(&p.dir))
            .max_by_key(|p| p.dir.components().count())?;
        let target = package.targets.iter().find(|target| is_crate(target))?;
        Some(Owner {
            package_id: &package.id,
            manifest_path: &package.manifest_path,
            target,
        })
    }
}

/// The packages `cargo metadata --no-deps --format-version 1` lists for a manifest. rustup's
/// `cargo` runs the toolchain the current folder pins, and fails when that one is not
/// installed: then it is asked again from a folder that pins none (the temporary folder), whose
/// toolchain reads the manifest all the same (`--no-deps` compiles nothing).
fn metadata(manifest: &Path) -> Result<Vec<Package>, String> {
    let first = metadata_from(manifest, None);
    if first.is_err() && pins_a_toolchain() {
        if let Ok(packages) = metadata_from(manifest, Some(&std::env::temp_dir())) {
            return Ok(packages);
        }
    }
    first
}

/// Whether the current folder or one above it holds a `rust-toolchain` file.
fn pins_a_toolchain() -> bool {
    let Ok(cwd) = std::env::current_dir() else {
        return false;
    };
    cwd.ancestors()
        .any(|dir| dir.join("rust-toolchain.toml").is_file() || dir.join("rust-toolchain").is_file())
}

/// `cargo metadata` for `manifest`, run in `folder` (the current one when `None`).
fn metadata_from(manifest: &Path, folder: Option<&Path>) -> Result<Vec<Package>, String> {
    let mut command = Command::new(cargo());
    command
        .args(["metadata", "--no-deps", "--format-version", "1", "--manifest-path"])
        .arg(manifest)
        .stdin(Stdio::null());
    if let Some(folder) = folder {
        command.current_dir(folder).env_remove("RUSTUP_TOOLCHAIN");
    }
    let output = command
        .output()
        .map_err(|err| format!("cannot start `cargo metadata` for `{}`: {err}", manifest.display()))?;
    let failed = |why: String| {
        format!(
            "`cargo metadata` failed for `{}`: {why}; its files' findings are written without their package",
            manifest.display()
        )
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        // cargo (or rustup, for a toolchain the project pins) says why on its `error:` line; a
        // backtrace may follow it.
        let lines = || stderr.lines().map(str::trim).filter(|line| !line.is_empty());
        let why = lines()
            .find(|line| line.starts_with("error"))
            .or_else(|| lines().next())
            .unwrap_or("no output");
        return Err(failed(why.to_string()));
    }
    let value: Value = serde_json::from_slice(&output.stdout).map_err(|err| failed(err.to_string()))?;
    let packages = value
        .get("packages")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    Ok(packages
        .iter()
        .filter_map(|package| {
            let manifest_path = package.get("manifest_path")?.as_str()?.to_string();
            let dir = Path::new(&manifest_path).parent()?;
            Some(Package {
                id: package.get("id")?.as_str()?.to_string(),
                dir: dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf()),
                manifest_path,
                targets: package.get("targets")?.as_array()?.clone(),
            })
        })
        .collect())
}
