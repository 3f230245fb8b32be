//! Which files to analyze: the paths given, or the sources of the cargo workspace.

use crate::error::{io_message, CliError};
use crate::toolchain;
use kernel_lint_analyzer::FileError;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One input: a file to read, or a path that could not be used.
#[derive(Debug, Clone)]
pub enum Candidate {
    /// A file to analyze.
    File {
        /// The path as printed.
        display: String,
        /// The path to open.
        path: PathBuf,
    },
    /// A path that does not exist or could not be walked.
    Error(FileError),
}

/// The files under the given paths, in the order given; directories walked sorted.
pub fn from_paths(paths: &[PathBuf]) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for path in paths {
        let display = path.display().to_string();
        match std::fs::metadata(path) {
            Err(err) => out.push(Candidate::Error(FileError::without_span(&display, io_message(&err)))),
            Ok(meta) if meta.is_dir() => {
                for candidate in walk(path, None) {
                    push_unique(&mut out, &mut seen, candidate);
                }
            }
            Ok(_) => push_unique(
                &mut out,
                &mut seen,
                Candidate::File {
                    display,
                    path: path.clone(),
                },
            ),
        }
    }
    out
}

/// The `*.rs` files of every target of every workspace member, from `cargo metadata`.
pub fn from_workspace(manifest_path: Option<&Path>) -> Result<Vec<Candidate>, CliError> {
    let mut command = cargo_metadata::MetadataCommand::new();
    command.no_deps();
    if let Some(path) = manifest_path {
        command.manifest_path(path);
    }
    let metadata = command.exec().map_err(|err| {
        // A toolchain the workspace pins but rustup lacks fails every cargo command: say so.
        let cwd = std::env::current_dir().ok();
        let manifest_dir = manifest_path
            .and_then(Path::parent)
            .filter(|d| !d.as_os_str().is_empty());
        let pinned = toolchain::pinned(manifest_dir.into_iter().chain(cwd.as_deref()));
        toolchain::metadata_error(&err.to_string(), pinned.as_deref())
    })?;
    let target_dir = metadata.target_directory.clone().into_std_path_buf();
    let mut roots: Vec<PathBuf> = Vec::new();
    for package in metadata.workspace_packages() {
        for target in &package.targets {
            // A build script's directory is the package root: walking it would take in everything.
            if target.kind.iter().any(|k| k == "custom-build") {
                continue;
            }
            if let Some(dir) = target.src_path.parent() {
                let dir = dir.to_path_buf().into_std_path_buf();
                if !roots.contains(&dir) {
                    roots.push(dir);
                }
            }
        }
    }
    let bases = current_dirs();
    let mut files = BTreeSet::new();
    let mut errors = Vec::new();
    for root in &roots {
        for candidate in walk(root, Some(&target_dir)) {
            match candidate {
                Candidate::File { path, .. } => {
                    files.insert(path);
                }
                Candidate::Error(err) => errors.push(Candidate::Error(err)),
            }
        }
    }
    let mut out: Vec<Candidate> = files
        .into_iter()
        .map(|path| Candidate::File {
            display: relative_display(&path, &bases),
            path,
        })
        .collect();
    out.extend(errors);
    Ok(out)
}

fn push_unique(out: &mut Vec<Candidate>, seen: &mut BTreeSet<PathBuf>, candidate: Candidate) {
    match &candidate {
        Candidate::File { path, .. } if !seen.insert(path.clone()) => {}
        _ => out.push(candidate),
    }
}

/// The `*.rs` files under a directory, sorted by name, honouring ignore files.
fn walk(root: &Path, skip: Option<&Path>) -> Vec<Candidate> {
    let skip = skip.map(Path::to_path_buf);
    let walker = ignore::WalkBuilder::new(root)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |entry| skip.as_deref() != Some(entry.path()))
        .build();
    let mut out = Vec::new();
    for entry in walker {
        match entry {
            Ok(entry) => {
                let is_file = entry.file_type().is_some_and(|t| t.is_file());
                let is_rust = entry.path().extension().is_some_and(|e| e == "rs");
                if is_file && is_rust {
                    out.push(Candidate::File {
                        display: entry.path().display().to_string(),
                        path: entry.into_path(),
                    });
                }
            }
            Err(err) => {
                let message = err.to_string();
                let path = walk_error_path(&err).unwrap_or_else(|| root.display().to_string());
                out.push(Candidate::Error(FileError::without_span(&path, message)));
            }
        }
    }
    out
}

fn walk_error_path(err: &ignore::Error) -> Option<String> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path.display().to_string()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => walk_error_path(err),
        _ => None,
    }
}

/// The current directory, as given and resolved (cargo reports resolved paths).
fn current_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        if let Ok(canonical) = cwd.canonicalize() {
            if canonical != cwd {
                dirs.push(canonical);
            }
        }
        dirs.insert(0, cwd);
    }
    dirs
}

/// A path relative to one of the bases when it lies under one, else unchanged.
fn relative_display(path: &Path, bases: &[PathBuf]) -> String {
    bases
        .iter()
        .find_map(|base| path.strip_prefix(base).ok())
        .filter(|rel| !rel.as_os_str().is_empty())
        .unwrap_or(path)
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_when_under_a_base() {
        let bases = vec![PathBuf::from("/w/p")];
        assert_eq!(relative_display(Path::new("/w/p/src/a.rs"), &bases), "src/a.rs");
        assert_eq!(relative_display(Path::new("/x/a.rs"), &bases), "/x/a.rs");
    }

    #[test]
    fn missing_paths_are_errors_and_the_rest_is_kept() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let paths = [PathBuf::from("/no/such/path.rs"), Path::new(dir).join("src/exit.rs")];
        let found = from_paths(&paths);
        assert!(matches!(&found[0], Candidate::Error(e) if e.path == "/no/such/path.rs"));
        assert!(matches!(&found[1], Candidate::File { .. }));
    }
}
