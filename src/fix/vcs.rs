//! Whether the files to fix can be restored from git: fixing over uncommitted work, or over
//! files git does not hold, could lose what cannot be recovered.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Why the files may not be fixed without `--allow-dirty`.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// Files with uncommitted changes, each with its state (`modified`, `staged`, `untracked`,
    /// `ignored`).
    Dirty(Vec<(String, &'static str)>),
    /// Files that no git repository holds.
    NoRepository(Vec<String>),
    /// git is not installed.
    NoGit,
    /// git failed on a file.
    Failed(String),
}

impl Refusal {
    /// The message, naming the files.
    pub fn message(&self) -> String {
        match self {
            Refusal::Dirty(files) => {
                let mut out = String::from(
                    "the files to fix have uncommitted changes; commit them first, or pass `--allow-dirty` to fix them anyway:",
                );
                for (file, state) in files {
                    out.push_str(&format!("\n  {file} ({state})"));
                }
                out
            }
            Refusal::NoRepository(files) => {
                let mut out = String::from(
                    "the files to fix are not in a git repository, so the fixes could not be undone; \
                     pass `--allow-dirty` to fix them anyway (it also allows files outside version control):",
                );
                for file in files {
                    out.push_str(&format!("\n  {file}"));
                }
                out
            }
            Refusal::NoGit => "cannot check the files to fix for uncommitted changes: git is not installed \
                               (not found on the PATH); pass `--allow-dirty` to fix them without the check"
                .to_string(),
            Refusal::Failed(message) => message.clone(),
        }
    }
}

/// Checks each file (printed path, path to open) with `git status --porcelain` run from its
/// folder: every one must be committed as it is.
pub fn check(files: &[(String, PathBuf)]) -> Result<(), Refusal> {
    let mut dirty = Vec::new();
    let mut outside = Vec::new();
    for (shown, path) in files {
        match status(path)? {
            FileState::Clean => {}
            FileState::Outside => outside.push(shown.clone()),
            FileState::Changed(state) => dirty.push((shown.clone(), state)),
        }
    }
    if !outside.is_empty() {
        return Err(Refusal::NoRepository(outside));
    }
    if !dirty.is_empty() {
        return Err(Refusal::Dirty(dirty));
    }
    Ok(())
}

enum FileState {
    Clean,
    Outside,
    Changed(&'static str),
}

fn status(path: &Path) -> Result<FileState, Refusal> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path.file_name().unwrap_or(path.as_os_str());
    let output = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=all", "--ignored", "--"])
        .arg(name)
        .current_dir(folder)
        .output()
        .map_err(|err| match err.kind() {
            std::io::ErrorKind::NotFound => Refusal::NoGit,
            _ => Refusal::Failed(format!("cannot run git: {err}")),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        if stderr.contains("not a git repository") {
            return Ok(FileState::Outside);
        }
        return Err(Refusal::Failed(format!(
            "git status failed in `{}`: {}",
            folder.display(),
            stderr.trim()
        )));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    Ok(match stdout.lines().next() {
        None => FileState::Clean,
        Some(line) => FileState::Changed(state(line)),
    })
}

/// The state of a `git status --porcelain` line (`XY path`): the work tree's change first.
fn state(line: &str) -> &'static str {
    let mut codes = line.chars();
    let (staged, worktree) = (codes.next().unwrap_or(' '), codes.next().unwrap_or(' '));
    match (staged, worktree) {
        ('?', _) => "untracked",
        // git cannot restore an ignored file either.
        ('!', _) => "ignored",
        (_, 'D') | ('D', _) => "deleted",
        (_, ' ') => "staged",
        _ => "modified",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn porcelain_states() {
        assert_eq!(state("?? a.rs"), "untracked");
        assert_eq!(state("!! a.rs"), "ignored");
        assert_eq!(state(" M a.rs"), "modified");
        assert_eq!(state("M  a.rs"), "staged");
        assert_eq!(state("A  a.rs"), "staged");
        assert_eq!(state("MM a.rs"), "modified");
    }
}
