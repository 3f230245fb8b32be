//! Writing the fixed files: each one whole or not at all.

use super::engine::Plan;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Puts a file's new text in place; the file keeps its old text when this fails.
pub trait Writer {
    /// Replaces the text of the file printed as `path`; the error is one sentence.
    fn write(&mut self, path: &str, text: &str) -> Result<(), String>;
}

/// A file that could not be written, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteFailure {
    /// The printed path.
    pub path: String,
    /// The reason, naming the file.
    pub message: String,
}

/// Writes every changed file of `plan`; a file that fails keeps its text, its fixes are marked
/// failed and leave `plan.files`, and the others are still written.
pub fn commit(plan: &mut Plan, writer: &mut dyn Writer) -> Vec<WriteFailure> {
    let mut failures = Vec::new();
    for change in &plan.files {
        if let Err(reason) = writer.write(&change.path, &change.fixed) {
            failures.push(WriteFailure {
                path: change.path.clone(),
                message: format!("cannot write `{}`: {reason}; it is left as it was", change.path),
            });
        }
    }
    for failure in &failures {
        plan.fail_file(&failure.path, &failure.message);
    }
    plan.files.retain(|c| !failures.iter().any(|f| f.path == c.path));
    failures
}

/// Writes through a temporary file in the same folder renamed over the original, so that a
/// reader (or a crash) sees the old text or the new, never a part.
pub struct AtomicWriter {
    /// The path to open of each printed path; others are opened as printed.
    pub paths: Vec<(String, PathBuf)>,
}

impl Writer for AtomicWriter {
    fn write(&mut self, path: &str, text: &str) -> Result<(), String> {
        let target = self
            .paths
            .iter()
            .find(|(shown, _)| shown == path)
            .map_or_else(|| PathBuf::from(path), |(_, p)| p.clone());
        write_atomically(&target, text).map_err(|err| crate::error::io_message(&err))
    }
}

/// Replaces `path`'s text by way of a temporary file in its folder; a link is followed, so the
/// file it points to is replaced, not the link.
pub fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let target = std::fs::canonicalize(path)?;
    let permissions = std::fs::metadata(&target)?.permissions();
    // Renaming over a read-only file would succeed; writing it must not.
    if permissions.readonly() {
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, "the file is read-only"));
    }
    let folder = target.parent().unwrap_or(Path::new("."));
    let mut temporary = tempfile::Builder::new()
        .prefix(".kernel-lint-fix")
        .tempfile_in(folder)?;
    temporary.write_all(text.as_bytes())?;
    temporary.as_file().sync_all()?;
    temporary.as_file().set_permissions(permissions)?;
    temporary.persist(&target).map_err(|err| err.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::engine::{FileChange, Outcome};

    /// Fails for one file and records what the others got.
    struct FailingFor(&'static str, Vec<(String, String)>);

    impl Writer for FailingFor {
        fn write(&mut self, path: &str, text: &str) -> Result<(), String> {
            if path == self.0 {
                return Err("no space left on device".to_string());
            }
            self.1.push((path.to_string(), text.to_string()));
            Ok(())
        }
    }

    fn change(path: &str, diagnostics: Vec<usize>) -> FileChange {
        FileChange {
            path: path.to_string(),
            original: "struct A;".to_string(),
            fixed: "struct B;".to_string(),
            diagnostics,
        }
    }

    #[test]
    fn a_failed_write_fails_its_fixes_and_the_other_files_are_written() {
        let mut plan = Plan {
            outcomes: vec![Outcome::Applied(0), Outcome::Applied(0), Outcome::NoFix],
            files: vec![change("a.rs", vec![0]), change("b.rs", vec![1])],
        };
        let mut writer = FailingFor("a.rs", Vec::new());
        let failures = commit(&mut plan, &mut writer);
        let message = "cannot write `a.rs`: no space left on device; it is left as it was";
        assert_eq!(
            failures,
            vec![WriteFailure {
                path: "a.rs".to_string(),
                message: message.to_string()
            }]
        );
        assert_eq!(writer.1, vec![("b.rs".to_string(), "struct B;".to_string())]);
        assert_eq!(
            plan.outcomes,
            vec![
                Outcome::Failed {
                    fix: 0,
                    reason: message.to_string()
                },
                Outcome::Applied(0),
                Outcome::NoFix
            ]
        );
        assert_eq!(plan.files, vec![change("b.rs", vec![1])]);
    }

    #[test]
    fn an_atomic_write_replaces_the_text_and_keeps_the_permissions() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = dir.path().join("a.rs");
        std::fs::write(&path, "struct A;").expect("written");
        write_atomically(&path, "struct B;").expect("replaced");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "struct B;");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("listed")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.rs")]);
    }

    #[test]
    fn a_read_only_file_is_not_replaced() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = dir.path().join("a.rs");
        std::fs::write(&path, "struct A;").expect("written");
        let mut permissions = std::fs::metadata(&path).expect("metadata").permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&path, permissions).expect("read-only");
        let err = write_atomically(&path, "struct B;").expect_err("refused");
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "struct A;");
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_folder_leaves_the_file_intact() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("temporary folder");
        let path = dir.path().join("a.rs");
        std::fs::write(&path, "struct A;").expect("written");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o555)).expect("read-only folder");
        // Root may write anyway; the test is only meaningful when the folder refuses.
        let refused = tempfile::tempfile_in(dir.path()).is_err();
        let result = write_atomically(&path, "struct B;");
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).expect("writable again");
        if refused {
            assert_eq!(result.expect_err("refused").kind(), io::ErrorKind::PermissionDenied);
            assert_eq!(std::fs::read_to_string(&path).expect("read"), "struct A;");
        }
    }
}
