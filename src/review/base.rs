//! The base revision read from git objects: resolved, its files copied into a temporary folder
//! (never a checkout, never the index), and the renames between it and the working tree.

use crate::error::CliError;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The repository the review runs in.
#[derive(Debug)]
pub struct Repo {
    /// The top of the working tree.
    pub root: PathBuf,
    /// The current folder relative to the top (`crates/gpu/`, or empty), as git spells it.
    pub prefix: String,
}

/// A resolved base revision.
#[derive(Debug)]
pub struct Base {
    /// As the user gave it.
    pub rev: String,
    /// The commit it names.
    pub commit: String,
}

/// Runs git with `args` in `dir`; its stdout, or its stderr's first line as the reason.
fn git(dir: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|err| format!("cannot run git: {err}"))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(stderr.lines().next().unwrap_or("git failed").trim().to_string())
    }
}

fn text(bytes: Vec<u8>) -> String {
    String::from_utf8_lossy(&bytes).trim_end_matches('\n').to_string()
}

impl Repo {
    /// The repository around the current folder.
    pub fn here() -> Result<Repo, CliError> {
        let cwd = std::env::current_dir()
            .map_err(|err| CliError::Refused(format!("cannot read the current folder: {err}")))?;
        let root = git(&cwd, &["rev-parse", "--show-toplevel"]).map_err(|_| {
            CliError::Refused(format!(
                "`{}` is not in a git repository: `review` compares the working tree with a git revision",
                cwd.display()
            ))
        })?;
        let prefix = git(&cwd, &["rev-parse", "--show-prefix"]).map(text).unwrap_or_default();
        Ok(Repo {
            root: PathBuf::from(text(root)),
            prefix,
        })
    }

    /// Resolves `rev` to a commit; a revision this clone lacks gets a hint to fetch it.
    pub fn resolve(&self, rev: &str) -> Result<Base, CliError> {
        let spec = format!("{rev}^{{commit}}");
        match git(
            &self.root,
            &["rev-parse", "--verify", "--quiet", "--end-of-options", &spec],
        ) {
            Ok(commit) => Ok(Base {
                rev: rev.to_string(),
                commit: text(commit),
            }),
            Err(_) => {
                let shallow = git(&self.root, &["rev-parse", "--is-shallow-repository"]).map(text);
                let why = if shallow.as_deref() == Ok("true") {
                    "this is a shallow clone without it"
                } else {
                    "no such commit in this repository"
                };
                Err(CliError::Refused(format!(
                    "the base revision `{rev}` is not available ({why}): fetch it first, e.g. \
                     `git fetch --depth=1 origin {rev}`"
                )))
            }
        }
    }

    /// Copies what the analysis of `base` needs (manifests, lock files, configurations and
    /// Rust sources) from git objects into `into`.
    pub fn extract(&self, base: &Base, into: &Path) -> Result<(), CliError> {
        let tool = |message: String| CliError::Tool {
            program: "git".to_string(),
            message,
        };
        let listing = git(&self.root, &["ls-tree", "-r", "-z", "--full-tree", &base.commit]).map_err(tool)?;
        let mut wanted: Vec<(String, String)> = Vec::new();
        for entry in listing.split(|&b| b == 0).filter(|e| !e.is_empty()) {
            let entry = String::from_utf8_lossy(entry);
            let Some((meta, path)) = entry.split_once('\t') else {
                continue;
            };
            let mut meta = meta.split(' ');
            let (Some(mode), Some(kind), Some(object)) = (meta.next(), meta.next(), meta.next()) else {
                continue;
            };
            // Regular files only: links and submodules have no text of their own here.
            if kind == "blob" && mode.starts_with("100") && needed(path) && safe(path) {
                wanted.push((object.to_string(), path.to_string()));
            }
        }
        let mut child = Command::new("git")
            .args(["cat-file", "--batch"])
            .current_dir(&self.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| tool(format!("cannot run: {err}")))?;
        let mut stdin = child.stdin.take().ok_or_else(|| tool("has no input".to_string()))?;
        let objects: String = wanted.iter().map(|(object, _)| format!("{object}\n")).collect();
        // Written from a thread: git may fill its output before reading all of its input.
        let writer = std::thread::spawn(move || stdin.write_all(objects.as_bytes()));
        let mut out = BufReader::new(child.stdout.take().ok_or_else(|| tool("has no output".to_string()))?);
        for (_, path) in &wanted {
            let mut header = String::new();
            out.read_line(&mut header).map_err(|err| tool(err.to_string()))?;
            let size: usize = header
                .split(' ')
                .nth(2)
                .and_then(|s| s.trim().parse().ok())
                .ok_or_else(|| tool(format!("cat-file answered `{}`", header.trim())))?;
            let mut body = vec![0; size + 1];
            out.read_exact(&mut body).map_err(|err| tool(err.to_string()))?;
            body.pop();
            let target = into.join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|err| CliError::write(parent, &err))?;
            }
            std::fs::write(&target, body).map_err(|err| CliError::write(&target, &err))?;
        }
        let _ = writer.join();
        let _ = child.wait();
        Ok(())
    }

    /// Old repository-relative path to new, for the files git finds renamed between `base`
    /// and the working tree.
    pub fn renames(&self, base: &Base) -> HashMap<String, String> {
        let Ok(out) = git(
            &self.root,
            &["diff", "--find-renames", "-z", "--name-status", &base.commit, "--"],
        ) else {
            return HashMap::new();
        };
        let fields: Vec<String> = out
            .split(|&b| b == 0)
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect();
        let mut renames = HashMap::new();
        let mut i = 0;
        while i < fields.len() {
            let status = &fields[i];
            if status.starts_with('R') || status.starts_with('C') {
                if let (Some(old), Some(new)) = (fields.get(i + 1), fields.get(i + 2)) {
                    if status.starts_with('R') {
                        renames.insert(old.clone(), new.clone());
                    }
                }
                i += 3;
            } else {
                i += 2;
            }
        }
        renames
    }
}

/// Whether the analysis of a revision needs the file: what discovery and configuration read.
fn needed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with(".rs") || matches!(name, "Cargo.toml" | "Cargo.lock" | "kernel-lint.toml")
}

/// Whether a path from the tree stays inside the folder it is copied into.
fn safe(path: &str) -> bool {
    !path.starts_with('/')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != ".." && part != ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_the_analysis_reads() {
        assert!(needed("src/lib.rs"));
        assert!(needed("Cargo.toml"));
        assert!(needed("crates/gpu/kernel-lint.toml"));
        assert!(!needed("README.md"));
        assert!(!safe("../x.rs"));
        assert!(safe("a/b.rs"));
    }
}
