//! `review --base <rev>`: what a change did to the findings. The working tree is analyzed as
//! `check` does; the base revision is read from git objects into a temporary folder (the
//! working tree and the index are never touched) and analyzed the same way; the findings are
//! matched per kernel and reported as introduced, fixed, changed or unchanged.

mod base;
mod diff;
mod html;
mod markdown;
mod markup;
mod svg;

use crate::cli::{ReviewArgs, ReviewFormat};
use crate::error::CliError;
use crate::exit::Status;
use crate::output::print;
use crate::session::{self, Outcome, Session};
use base::{Base, Repo};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What the renderers draw from.
#[derive(Debug)]
pub struct Report {
    /// The base as given.
    pub rev: String,
    /// The commit it names.
    pub commit: String,
    /// "1 new array-of-structs access, 2 fixed".
    pub summary: String,
    /// The kernels with findings on either side.
    pub kernels: Vec<diff::KernelReview>,
}

/// Runs `review`.
pub fn run(session: &Session, args: &ReviewArgs) -> Result<Status, CliError> {
    let repo = Repo::here()?;
    let base = repo.resolve(&args.base)?;
    let head = session.check_fresh(&args.paths)?;
    for err in head.errors() {
        eprintln!("error: {err}");
    }
    let folder =
        tempfile::tempdir().map_err(|err| CliError::Refused(format!("cannot make a temporary folder: {err}")))?;
    repo.extract(&base, folder.path())?;
    let renames = repo.renames(&base);
    let paths = base_paths(&repo, &renames, &args.paths);
    let old = analyze_base(&repo, &base, session, &paths, folder.path())?;
    let (old_kernels, base_file) = match &old {
        Some(outcome) => renamed(&repo, &renames, diff::kernels(outcome)),
        None => (Vec::new(), HashMap::new()),
    };
    let kernels = diff::review(&old_kernels, &base_file, &diff::kernels(&head));
    let counts = diff::counts(&kernels);
    let report = Report {
        rev: base.rev.clone(),
        commit: base.commit.clone(),
        summary: diff::summary(&counts),
        kernels,
    };
    let text = match args.format.unwrap_or_default() {
        ReviewFormat::Markdown => markdown::render(&report),
        ReviewFormat::Html => html::render(&report),
    };
    print(&text)?;
    Ok(Status::of_run(head.has_errors(), counts.failing > 0))
}

/// The paths to analyze in the base: those given, and the base's names of the files renamed
/// into them.
fn base_paths(repo: &Repo, renames: &HashMap<String, String>, paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = paths.to_vec();
    for path in paths.iter().filter(|p| p.is_relative()) {
        let given = format!("{}{}", repo.prefix, path.display());
        let given = given.trim_end_matches('/');
        let mut old_names: Vec<&String> = renames
            .iter()
            .filter(|(_, new)| *new == given || new.starts_with(&format!("{given}/")))
            .map(|(old, _)| old)
            .collect();
        old_names.sort();
        for old in old_names {
            if let Some(here) = old.strip_prefix(&repo.prefix) {
                out.push(PathBuf::from(here));
            }
        }
    }
    out
}

/// Analyzes the copy of the base as the working tree was analyzed: from the same folder of the
/// repository, with the paths given (those the base has; none means the base has nothing to
/// compare). The files are printed under their working-tree names.
fn analyze_base(
    repo: &Repo,
    base: &Base,
    session: &Session,
    paths: &[PathBuf],
    copy: &Path,
) -> Result<Option<Outcome>, CliError> {
    let cwd =
        std::env::current_dir().map_err(|err| CliError::Refused(format!("cannot read the current folder: {err}")))?;
    let inside = copy.join(&repo.prefix);
    // An absolute path into the working tree points at the copy instead.
    let moved = |path: &Path| -> PathBuf {
        let absolute = cwd.join(path);
        match absolute.strip_prefix(&repo.root) {
            Ok(rest) => copy.join(rest),
            Err(_) => absolute,
        }
    };
    let present: Vec<PathBuf> = paths
        .iter()
        .map(|p| if p.is_absolute() { moved(p) } else { p.clone() })
        .filter(|p| inside.join(p).exists())
        .collect();
    if !inside.is_dir() || (!paths.is_empty() && present.is_empty()) {
        return Ok(None);
    }
    let in_base = session.with(|settings| {
        // The working tree's analysis said what is odd about the workspace; the base's would
        // say it again.
        settings.quiet_warnings = true;
        settings.manifest_path = settings.manifest_path.as_deref().map(moved);
        // A configuration the base lacks (not committed) is taken from the working tree.
        settings.config = settings.config.as_deref().map(|c| {
            let there = moved(c);
            if there.exists() {
                there
            } else {
                cwd.join(c)
            }
        });
    });
    std::env::set_current_dir(&inside)
        .map_err(|err| CliError::Refused(format!("cannot enter the copy of the base: {err}")))?;
    let outcome = in_base.check_fresh(&present);
    std::env::set_current_dir(&cwd)
        .map_err(|err| CliError::Refused(format!("cannot return to `{}`: {err}", cwd.display())))?;
    let mut outcome = outcome.map_err(|err| CliError::Refused(format!("in the base `{}`: {err}", base.rev)))?;
    for err in outcome.errors() {
        eprintln!("warning: in the base `{}`: {err}", base.rev);
    }
    // Absolute names of the copy read as the working tree's.
    let (copy_name, root_name) = (copy.display().to_string(), repo.root.display().to_string());
    for entry in &mut outcome.entries {
        if let session::Entry::Ok(file) = entry {
            if let Some(rest) = file.source.path.strip_prefix(&copy_name) {
                let path = format!("{root_name}{rest}");
                for d in &mut file.diagnostics {
                    if d.file == file.source.path {
                        d.file = path.clone();
                    }
                }
                file.source.path = path;
            }
        }
    }
    Ok(Some(outcome))
}

/// The base's kernels under the names their files have now, and the base's name of each file
/// that was renamed.
fn renamed(
    repo: &Repo,
    renames: &HashMap<String, String>,
    mut kernels: Vec<diff::Kernel>,
) -> (Vec<diff::Kernel>, HashMap<String, String>) {
    let mut old_names = HashMap::new();
    for kernel in &mut kernels {
        let in_repo = format!("{}{}", repo.prefix, kernel.file);
        let Some(new) = renames.get(&in_repo) else { continue };
        let Some(now) = new.strip_prefix(&repo.prefix) else {
            continue;
        };
        old_names.insert(now.to_string(), kernel.file.clone());
        kernel.file = now.to_string();
    }
    (kernels, old_names)
}
