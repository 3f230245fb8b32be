//! Which files to analyze: the crates' module trees (every workspace member, or the crates
//! above the paths given), never every `.rs` file of a folder.

use crate::error::CliError;
use kernel_lint_analyzer::workspace::{self, SourceEntry, Workspace, WorkspaceError};
use kernel_lint_analyzer::{CrateUse, FileError, ModulePath};
use std::path::{Path, PathBuf};

/// One file to read, and whether its findings are reported.
#[derive(Debug, Clone)]
pub struct Input {
    /// The path as printed.
    pub display: String,
    /// The path to open.
    pub path: PathBuf,
    /// The module the file is, so that its names resolve.
    pub module: ModulePath,
    /// The other crates whose module trees reach the file.
    pub also_in: Vec<String>,
    /// Whether the file was asked for; other files of its crates are read for their items only.
    pub reported: bool,
    /// Whether it was named on its own (not found in a folder): then it is parsed whatever its
    /// bytes hold, and its syntax errors are reported.
    pub named: bool,
    /// The text, when it is given rather than read from `path`.
    pub text: Option<String>,
}

/// The files of a run, the paths that could not be used, and what was odd on the way.
#[derive(Debug, Default)]
pub struct Inputs {
    /// Files in the order first reached: the reported ones first.
    pub files: Vec<Input>,
    /// Paths given that do not exist or could not be read.
    pub errors: Vec<FileError>,
    /// Located warnings: a `mod` without its file, an unreadable member manifest.
    pub warnings: Vec<String>,
    /// Which crates each crate uses, so that their names resolve.
    pub uses: Vec<CrateUse>,
    /// The features each crate is compiled with, which decide its `#[cfg]`s.
    pub features: workspace::CrateFeatures,
}

/// The files under the given paths, through their crates' module trees; the other files of
/// those crates come along unreported, so names resolve as in the whole workspace.
pub fn from_paths(paths: &[PathBuf]) -> Inputs {
    let mut inputs = from_workspace_files(Workspace::for_paths(paths));
    let named: Vec<PathBuf> = (paths.iter())
        .filter(|p| p.is_file())
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    for input in &mut inputs.files {
        input.named = input.reported && input.path.canonicalize().is_ok_and(|p| named.contains(&p));
    }
    inputs
}

/// Every file of every crate of the workspace above `manifest_path` (or the current folder).
pub fn from_workspace(manifest_path: Option<&Path>) -> Result<Inputs, CliError> {
    let start = match manifest_path {
        Some(path) => path.to_path_buf(),
        None => {
            std::env::current_dir().map_err(|e| CliError::Workspace(format!("cannot read the current folder: {e}")))?
        }
    };
    let location = workspace::locate(&start).map_err(|e| CliError::Workspace(workspace_message(&e)))?;
    let found =
        Workspace::discover(&location.workspace_manifest).map_err(|e| CliError::Workspace(workspace_message(&e)))?;
    Ok(from_workspace_files(found))
}

fn from_workspace_files(found: Workspace) -> Inputs {
    let input = |entry: &SourceEntry, reported: bool| Input {
        display: entry.display.clone(),
        path: entry.path.clone(),
        module: module_of(entry),
        also_in: other_crates(entry),
        reported,
        named: false,
        text: None,
    };
    let mut files: Vec<Input> = found.files.iter().map(|e| input(e, true)).collect();
    files.extend(found.context.iter().map(|e| input(e, false)));
    let errors = found
        .errors
        .iter()
        .map(|e| FileError::without_span(&e.path().display().to_string(), e.message()))
        .collect();
    let warnings = found
        .warnings
        .iter()
        .map(|w| match w.span {
            Some(span) => format!("{}:{}:{}: {}", w.display, span.line, span.column, w.message),
            None => format!("{}: {}", w.display, w.message),
        })
        .collect();
    Inputs {
        files,
        errors,
        warnings,
        uses: crate_uses(&found),
        features: workspace::enabled_features(&found),
    }
}

/// Each target sees its package's library and the libraries of the package's path
/// dependencies, under the names its code uses for them.
fn crate_uses(found: &Workspace) -> Vec<CrateUse> {
    let mut uses = Vec::new();
    for package in &found.crates {
        let library = package.lib().map(|lib| lib.crate_name.clone());
        for target in &package.targets {
            let mut add = |name: &str, root: &str| {
                if name != target.crate_name || root != target.crate_name {
                    uses.push(CrateUse {
                        from: target.crate_name.clone(),
                        name: name.to_string(),
                        root: root.to_string(),
                    });
                }
            };
            if let Some(library) = &library {
                add(library, library);
            }
            for dependency in &package.path_dependencies {
                let used = found.crates.iter().find(|c| c.manifest_dir == dependency.manifest_dir);
                if let Some(root) = used.and_then(|c| c.lib()) {
                    add(&dependency.name.replace('-', "_"), &root.crate_name);
                }
            }
        }
    }
    uses
}

/// `crate::kernels::blur` in crate `gpu` is `[gpu, kernels, blur]`; a file outside every
/// crate is a crate of its own.
fn module_of(entry: &SourceEntry) -> ModulePath {
    match entry.primary() {
        Some(membership) if membership.crate_index.is_some() => {
            let mut module = vec![membership.crate_name.clone()];
            module.extend(
                membership
                    .module_path
                    .split("::")
                    .skip_while(|s| *s == "crate")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
            module
        }
        _ => vec![entry.display.clone()],
    }
}

/// The crates besides its primary module's whose module trees reach a file, each once.
fn other_crates(entry: &SourceEntry) -> Vec<String> {
    let mut crates: Vec<String> = Vec::new();
    let primary = entry.primary().map(|m| m.crate_name.as_str());
    for membership in entry.memberships.iter().skip(1).filter(|m| m.crate_index.is_some()) {
        if Some(membership.crate_name.as_str()) != primary && !crates.contains(&membership.crate_name) {
            crates.push(membership.crate_name.clone());
        }
    }
    crates
}

fn workspace_message(err: &WorkspaceError) -> String {
    match err {
        WorkspaceError::NoManifest { .. } => format!(
            "no Cargo.toml above `{}`: run it inside a cargo workspace, or give the files to check",
            err.path().display()
        ),
        _ => format!(
            "cannot read the cargo workspace: {}: {}",
            err.path().display(),
            err.message()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_paths_are_errors_and_the_rest_is_kept() {
        let dir = env!("CARGO_MANIFEST_DIR");
        let paths = [PathBuf::from("/no/such/path.rs"), Path::new(dir).join("src/exit.rs")];
        let found = from_paths(&paths);
        assert_eq!(found.errors.len(), 1);
        assert_eq!(found.errors[0].path, "/no/such/path.rs");
        let reported: Vec<&Input> = found.files.iter().filter(|f| f.reported).collect();
        assert_eq!(reported.len(), 1);
        // The library target's name (`[lib] name`) is the crate's.
        assert_eq!(reported[0].module, ["kernel_lint", "exit"]);
        // The rest of the library's crate is read for its items.
        assert!(found
            .files
            .iter()
            .any(|f| !f.reported && f.display.ends_with("src/lib.rs")));
    }
}
