//! `fix`: applies the fixes the findings carry, then reports what remains.
//!
//! [`engine`] chooses and applies the fixes in memory, [`vcs`] refuses to write over work git
//! cannot restore, [`write`] puts each file in place whole, and the analysis runs again on the
//! result.

pub mod engine;
pub mod vcs;
pub mod write;

use crate::cli::FixArgs;
use crate::error::CliError;
use crate::exit::Status;
use crate::output::print;
use crate::session::Outcome;
use crate::session::Session;
use crate::settings::Settings;
use engine::{Options, Plan, Texts};
use kernel_lint_lints::Diagnostic;
use std::path::{Path, PathBuf};

/// Runs `fix`.
pub fn run(session: &Session, args: &FixArgs) -> Result<Status, CliError> {
    let before = session.check(&args.analyze.paths)?;
    let diagnostics: Vec<Diagnostic> = before.analyzed().flat_map(|a| a.diagnostics.iter().cloned()).collect();
    let texts = texts(&before, &diagnostics, &workspace_root(session.settings()));
    let mut plan = engine::plan(
        &diagnostics,
        &texts,
        Options {
            unsafe_fixes: args.unsafe_fixes,
        },
    );
    if args.diff {
        return show_diff(&before, &diagnostics, &plan);
    }
    if plan.files.is_empty() {
        report(&diagnostics, &plan);
        render(session, args, &before)?;
        eprintln!("nothing to fix");
        hint(&plan);
        return Ok(status(&before, &plan, false));
    }
    let files: Vec<(String, PathBuf)> = plan
        .files
        .iter()
        .map(|c| (c.path.clone(), path_of(&before, &c.path)))
        .collect();
    if !args.allow_dirty {
        vcs::check(&files).map_err(|refusal| CliError::Refused(refusal.message()))?;
    }
    let failures = write::commit(&mut plan, &mut write::AtomicWriter { paths: files });
    report(&diagnostics, &plan);
    for change in &plan.files {
        let count = change
            .diagnostics
            .iter()
            .filter(|&&d| matches!(plan.outcomes[d], engine::Outcome::Applied(_)))
            .count();
        eprintln!("fixed {} ({})", change.path, plural(count, "fix", "fixes"));
    }
    follow_ups(&diagnostics, &plan, "then by hand");
    let after = session.check(&args.analyze.paths)?;
    render(session, args, &after)?;
    let remaining = after.analyzed().map(|a| a.diagnostics.len()).sum::<usize>();
    eprintln!(
        "fixed {} in {}; {remaining} remaining",
        plural(plan.fixed(), "finding", "findings"),
        plural(plan.files.len(), "file", "files")
    );
    hint(&plan);
    Ok(status(&after, &plan, !failures.is_empty()))
}

/// `--diff`: the changes as unified diffs on stdout; nothing is written.
fn show_diff(before: &Outcome, diagnostics: &[Diagnostic], plan: &Plan) -> Result<Status, CliError> {
    report(diagnostics, plan);
    let mut out = String::new();
    for change in &plan.files {
        out.push_str(&unified_diff(&change.path, &change.original, &change.fixed));
    }
    print(&out)?;
    if plan.files.is_empty() {
        eprintln!("nothing to fix");
    } else {
        eprintln!(
            "would fix {} in {}",
            plural(plan.fixed(), "finding", "findings"),
            plural(plan.files.len(), "file", "files")
        );
        follow_ups(diagnostics, plan, "then by hand, once applied");
    }
    hint(plan);
    Ok(if before.has_errors() || plan.has_failures() {
        Status::Failed
    } else if plan.files.is_empty() {
        Status::Clean
    } else {
        Status::Findings
    })
}

pub use kernel_lint_rewrite::edits::unified_diff;

/// The findings that remain, as `check` prints them.
fn render(session: &Session, args: &FixArgs, outcome: &Outcome) -> Result<(), CliError> {
    let format = args.analyze.format.unwrap_or_default();
    print(&crate::render::findings(format, outcome, session.settings().color))
}

/// What the applied fixes leave to the user (the host's buffers of a changed layout), each
/// step once, on stderr: a fix that changes what the host must pass is not done when the file
/// is written.
fn follow_ups(diagnostics: &[Diagnostic], plan: &Plan, lead: &str) {
    let mut shown: Vec<&str> = Vec::new();
    for (d, outcome) in diagnostics.iter().zip(&plan.outcomes) {
        let engine::Outcome::Applied(fix) = outcome else {
            continue;
        };
        for step in d.fixes.get(*fix).map_or(&[][..], |f| f.follow_up.as_slice()) {
            if !shown.contains(&step.as_str()) {
                shown.push(step);
                eprintln!("{lead} ({}, `{}`): {step}", d.file, d.kernel);
            }
        }
    }
}

/// One line on stderr for each fix skipped or failed.
fn report(diagnostics: &[Diagnostic], plan: &Plan) {
    for (d, outcome) in plan.outcomes.iter().enumerate() {
        match outcome {
            engine::Outcome::Skipped { fix, overlaps } => eprintln!(
                "warning: skipped the fix of {} ({}): it overlaps the fix of {}",
                place(&diagnostics[d]),
                diagnostics[d].fixes[*fix].title,
                place(&diagnostics[*overlaps])
            ),
            engine::Outcome::Failed { fix, reason } => eprintln!(
                "error: the fix of {} ({}) failed: {reason}",
                place(&diagnostics[d]),
                diagnostics[d].fixes[*fix].title
            ),
            _ => {}
        }
    }
}

/// `KL002 at src/lib.rs:9:13`.
fn place(diagnostic: &Diagnostic) -> String {
    let span = diagnostic.primary.span;
    format!(
        "{} at {}:{}:{}",
        diagnostic.code, diagnostic.file, span.line, span.column
    )
}

/// `1 fix available with --unsafe-fixes`, when there is one.
fn hint(plan: &Plan) {
    let hidden = plan.hidden_unsafe();
    if hidden > 0 {
        eprintln!("{} available with --unsafe-fixes", plural(hidden, "fix", "fixes"));
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// As `check` on what remains, and a failure when a fix or a write failed.
fn status(outcome: &Outcome, plan: &Plan, write_failed: bool) -> Status {
    Status::of_run(
        outcome.has_errors() || plan.has_failures() || write_failed,
        outcome.has_failing_findings(),
    )
}

/// The text of every file read, and of the other files the fixes edit when they exist inside
/// the workspace.
fn texts(outcome: &Outcome, diagnostics: &[Diagnostic], root: &Path) -> Texts {
    let mut texts = Texts::new();
    let edited = diagnostics.iter().flat_map(|d| &d.fixes).flat_map(|f| &f.edits);
    for edit in edited {
        if texts.contains_key(&edit.file) {
            continue;
        }
        let text = match outcome.source(&edit.file) {
            Some(source) => Ok(source.text.clone()),
            None => outside_text(&edit.file, root),
        };
        texts.insert(edit.file.clone(), text);
    }
    texts
}

/// A file no analysis read: edited only when it exists inside the workspace.
fn outside_text(shown: &str, root: &Path) -> Result<String, String> {
    let path = std::fs::canonicalize(shown).map_err(|_| format!("`{shown}` does not exist"))?;
    if !path.starts_with(root) {
        return Err(format!("`{shown}` is outside the workspace ({})", root.display()));
    }
    std::fs::read_to_string(&path).map_err(|err| format!("cannot read `{shown}`: {}", crate::error::io_message(&err)))
}

/// The folder of the workspace: that of `--manifest-path`, else the cargo workspace above the
/// current folder, else the current folder.
fn workspace_root(settings: &Settings) -> PathBuf {
    let current = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let start = settings.manifest_path.clone().unwrap_or_else(|| current.clone());
    let root = kernel_lint_analyzer::workspace::locate(&start)
        .ok()
        .and_then(|found| found.workspace_manifest.parent().map(Path::to_path_buf))
        .unwrap_or(current);
    std::fs::canonicalize(&root).unwrap_or(root)
}

/// The path to open of a printed path.
fn path_of(outcome: &Outcome, shown: &str) -> PathBuf {
    outcome
        .paths
        .iter()
        .find(|(s, _)| s == shown)
        .map_or_else(|| PathBuf::from(shown), |(_, p)| p.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_not_read_is_edited_only_inside_the_workspace() {
        let root = tempfile::tempdir().expect("workspace");
        let outside = tempfile::tempdir().expect("elsewhere");
        let inside_file = root.path().join("types.rs");
        let outside_file = outside.path().join("types.rs");
        std::fs::write(&inside_file, "struct Q;").expect("written");
        std::fs::write(&outside_file, "struct Q;").expect("written");
        let root_path = std::fs::canonicalize(root.path()).expect("canonical");
        let shown = |p: &Path| p.display().to_string();
        assert_eq!(
            outside_text(&shown(&inside_file), &root_path),
            Ok("struct Q;".to_string())
        );
        assert_eq!(
            outside_text(&shown(&outside_file), &root_path),
            Err(format!(
                "`{}` is outside the workspace ({})",
                shown(&outside_file),
                root_path.display()
            ))
        );
        let missing = shown(&root.path().join("gone.rs"));
        assert_eq!(
            outside_text(&missing, &root_path),
            Err(format!("`{missing}` does not exist"))
        );
    }

    #[test]
    fn the_diff_has_git_headers() {
        let diff = unified_diff(
            "src/q.rs",
            "#[repr(C)]\nstruct Q;\n",
            "#[repr(C, align(16))]\nstruct Q;\n",
        );
        assert_eq!(
            diff,
            "--- a/src/q.rs\n+++ b/src/q.rs\n@@ -1,2 +1,2 @@\n-#[repr(C)]\n+#[repr(C, align(16))]\n struct Q;\n"
        );
    }
}
