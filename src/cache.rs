//! The result cache: what the analysis of a program found, kept on disk so that a run over
//! the same sources, configuration and build of the tool prints the same output without
//! analyzing again.
//!
//! A file's findings depend on files besides its own: helpers and layouts of other modules
//! and crates, the host code whose launches give the block, the features crates are compiled
//! with; the proof of a rewrite analyzes the whole program again, and a suppression comment
//! in one file is used or not by the findings of another. So a result is kept under a key
//! that covers every file the run reads (its path, module and text), each one's
//! configuration, the crate graph and features, the limits and the build of the tool: a
//! change anywhere in what the run reads analyzes again.

use crate::config::{Config, Configs};
use kernel_lint_analyzer::{CrateUse, FileError, FileReport, ModuleSource};
use kernel_lint_lints::Diagnostic;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The cache folder at the workspace root unless configured otherwise.
pub const DEFAULT_DIR: &str = ".kernel-lint-cache";

/// The build of the tool: its version and a digest of the source it was built from, so that
/// a rebuilt tool never reads what another build wrote.
pub const TOOL: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("KERNEL_LINT_SOURCE_DIGEST"));

/// Marks the folder as a cache for backup and archiving tools (<https://bford.info/cachedir/>).
const TAG_NAME: &str = "CACHEDIR.TAG";
const TAG: &str = "Signature: 8a477f597d28d172789f06886806bc55\n\
                   # This file is a cache directory tag created by kernel-lint.\n\
                   # For information about cache directory tags see https://bford.info/cachedir/\n";

/// What one reported file came to: its report and findings, or why it was not analyzed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Kept {
    /// The file, as printed.
    pub path: String,
    /// The report and findings (rewrites included) of a file that was analyzed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub analyzed: Option<(FileReport, Vec<Diagnostic>)>,
    /// Why it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<FileError>,
}

/// One cache file: the results of one set of files under one key.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    tool: String,
    key: String,
    files: Vec<Kept>,
}

/// What a look-up found.
#[derive(Debug)]
pub enum Lookup {
    /// The results kept for this key, one per reported file in input order.
    Hit(Vec<Kept>),
    /// Nothing kept for this key (another key, another build, or no file yet).
    Miss,
    /// A file that cannot be read back; it is written anew after the analysis.
    Unreadable(String),
}

/// The result cache of a run.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

/// What the cache of a program is looked up by: the file naming its set of files, and the
/// key of everything its results depend on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    /// Names the cache file: the paths of the files read, and which are reported.
    pub scope: String,
    /// Everything the results depend on.
    pub key: String,
}

/// The inputs of a program's analysis that its results depend on.
pub struct Inputs<'a> {
    /// Every file read, in input order.
    pub program: &'a [ModuleSource],
    /// For each of them: whether it is reported, and its configuration.
    pub configured: &'a [(bool, usize)],
    /// The configurations.
    pub configs: &'a Configs,
    /// Which crates each crate uses.
    pub uses: &'a [CrateUse],
    /// The features of each crate.
    pub features: &'a kernel_lint_analyzer::workspace::CrateFeatures,
    /// The limits on each file, as the analysis applies them.
    pub limits: String,
}

impl Address {
    /// The address of a program's results built by this build of the tool.
    pub fn of(inputs: &Inputs<'_>) -> Address {
        Address::built_by(TOOL, inputs)
    }

    /// The address of a program's results built by build `tool`.
    fn built_by(tool: &str, inputs: &Inputs<'_>) -> Address {
        let mut scope = Fields::default();
        let mut key = Fields::default();
        key.add(tool);
        key.add(&inputs.limits);
        let fallback = Config::default();
        for (module, &(reported, config)) in inputs.program.iter().zip(inputs.configured) {
            let flag = if reported { "reported" } else { "read" };
            scope.add(&module.source.path);
            scope.add(flag);
            key.add(&module.source.path);
            key.add(flag);
            key.add(&module.module.join("::"));
            key.add(&module.also_in.join(","));
            key.add(&module.source.text);
            key.add(&config_digest(inputs.configs.get(config).unwrap_or(&fallback)));
        }
        key.add(&format!("{:?}", inputs.uses));
        key.add(&format!("{:?}", inputs.features));
        Address {
            scope: scope.hex(),
            key: key.hex(),
        }
    }
}

impl Address {
    /// The address of the same results without their rewrites (what `accesses` prints needs
    /// none), kept in a file of its own so that it never stands in for a run that proves them.
    pub fn without_rewrites(&self) -> Address {
        let mut scope = Fields::default();
        scope.add(&self.scope);
        scope.add("without rewrites");
        let mut key = Fields::default();
        key.add(&self.key);
        key.add("without rewrites");
        Address {
            scope: scope.hex(),
            key: key.hex(),
        }
    }
}

/// Everything in a configuration that changes what a file's analysis reports.
fn config_digest(config: &Config) -> String {
    let levels: Vec<&str> = kernel_lint_lints::LINTS
        .iter()
        .map(|lint| config.levels.level(lint).as_str())
        .collect();
    format!(
        "{:?}|{:?}|{}|{:?}",
        config.plan,
        config.thresholds,
        levels.join(","),
        config.kernel_allow
    )
}

/// A SHA-256 over length-prefixed fields, so that no two lists of fields run together.
#[derive(Default)]
struct Fields(Sha256);

impl Fields {
    fn add(&mut self, field: &str) {
        self.0.update((field.len() as u64).to_le_bytes());
        self.0.update(field.as_bytes());
    }

    fn hex(self) -> String {
        self.0.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl Cache {
    /// The cache in `dir`.
    pub fn new(dir: PathBuf) -> Cache {
        Cache { dir }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of a scope, under a folder per version as the tool's format may change.
    fn file(&self, scope: &str) -> PathBuf {
        self.dir.join(env!("CARGO_PKG_VERSION")).join(format!("{scope}.json"))
    }

    /// The results kept at an address.
    pub fn lookup(&self, address: &Address) -> Lookup {
        let file = self.file(&address.scope);
        let bytes = match std::fs::read(&file) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Lookup::Miss,
            Err(err) => return Lookup::Unreadable(format!("{}: {}", file.display(), crate::error::io_message(&err))),
        };
        match serde_json::from_slice::<Stored>(&bytes) {
            Ok(stored) if stored.tool == TOOL && stored.key == address.key => Lookup::Hit(stored.files),
            Ok(_) => Lookup::Miss,
            Err(err) => Lookup::Unreadable(format!("{}: {err}", file.display())),
        }
    }

    /// Keeps the results of an address, replacing what the scope held: written to a temporary
    /// file renamed over the old one, so that a reader never sees half of it.
    pub fn store(&self, address: &Address, files: Vec<Kept>) -> Result<(), String> {
        let file = self.file(&address.scope);
        let folder = file.parent().unwrap_or(&self.dir).to_path_buf();
        self.prepare(&folder)
            .map_err(|err| format!("{}: {}", self.dir.display(), crate::error::io_message(&err)))?;
        let stored = Stored {
            tool: TOOL.to_string(),
            key: address.key.clone(),
            files,
        };
        let text = serde_json::to_vec(&stored).map_err(|err| err.to_string())?;
        let mut temporary = tempfile::NamedTempFile::new_in(&folder)
            .map_err(|err| format!("{}: {}", folder.display(), crate::error::io_message(&err)))?;
        temporary
            .write_all(&text)
            .and_then(|()| temporary.flush())
            .map_err(|err| format!("{}: {}", file.display(), crate::error::io_message(&err)))?;
        temporary
            .persist(&file)
            .map_err(|err| format!("{}: {}", file.display(), crate::error::io_message(&err.error)))?;
        Ok(())
    }

    /// Creates the folder with its tag and a `.gitignore` that ignores everything in it.
    fn prepare(&self, folder: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(folder)?;
        for (name, text) in [(TAG_NAME, TAG), (".gitignore", "# Created by kernel-lint.\n*\n")] {
            let path = self.dir.join(name);
            if !path.exists() {
                std::fs::write(path, text)?;
            }
        }
        Ok(())
    }

    /// Removes the folder: `Ok(false)` when there is none, an error when it is not a cache of
    /// kernel-lint (so that a mistaken `--cache-dir src` removes nothing).
    pub fn clean(&self) -> Result<bool, String> {
        if !self.dir.exists() {
            return Ok(false);
        }
        let tag = std::fs::read_to_string(self.dir.join(TAG_NAME)).unwrap_or_default();
        if !tag.contains("created by kernel-lint") {
            return Err(format!(
                "`{}` is not a kernel-lint cache (it has no kernel-lint CACHEDIR.TAG); it is not removed",
                self.dir.display()
            ));
        }
        std::fs::remove_dir_all(&self.dir).map(|()| true).map_err(|err| {
            format!(
                "cannot remove `{}`: {}",
                self.dir.display(),
                crate::error::io_message(&err)
            )
        })
    }
}

/// Whether a file's result may be kept: an analysis stopped by the clock or by a defect would
/// not come out the same way again.
pub fn keepable(kept: &Kept) -> bool {
    let errors = kept
        .failed
        .iter()
        .chain(kept.analyzed.iter().flat_map(|(report, _)| &report.errors));
    !errors
        .into_iter()
        .any(|err| kernel_lint_analyzer::budget::is_stop(&err.message) || err.message.starts_with("internal error"))
}

/// The folder of the workspace the current folder (or `--manifest-path`) belongs to: that of
/// the nearest Cargo.toml with a `[workspace]` table, else of the nearest Cargo.toml, else the
/// current folder.
pub fn workspace_root(manifest_path: Option<&Path>) -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    let start = match manifest_path {
        Some(path) => std::path::absolute(path)
            .ok()
            .and_then(|p| p.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| cwd.clone()),
        None => cwd.clone(),
    };
    let manifests: Vec<PathBuf> = start
        .ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .filter(|p| p.is_file())
        .collect();
    let is_workspace = |path: &PathBuf| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.parse::<toml::Table>().ok())
            .is_some_and(|table| table.contains_key("workspace"))
    };
    manifests
        .iter()
        .find(|p| is_workspace(p))
        .or(manifests.first())
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or(cwd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_lint_analyzer::SourceFile;

    fn module(path: &str, text: &str) -> ModuleSource {
        ModuleSource {
            source: SourceFile::new(path, text),
            module: vec!["c".into()],
            also_in: Vec::new(),
        }
    }

    fn address(tool: &str, program: &[ModuleSource], configs: &Configs, limits: &str) -> Address {
        let configured: Vec<(bool, usize)> = program.iter().map(|_| (true, 0)).collect();
        let features = Default::default();
        Address::built_by(
            tool,
            &Inputs {
                program,
                configured: &configured,
                configs,
                uses: &[],
                features: &features,
                limits: limits.to_string(),
            },
        )
    }

    #[test]
    fn the_key_covers_the_build_every_text_the_configuration_and_the_limits() {
        let configs = Configs::default();
        let program = [module("k.rs", "fn k() {}"), module("h.rs", "fn h() {}")];
        let base = address(TOOL, &program, &configs, "10MB");
        assert_eq!(base, address(TOOL, &program, &configs, "10MB"));
        assert_eq!(base.key.len(), 64);
        let other_tool = address("0.0.0+other", &program, &configs, "10MB");
        assert_ne!(other_tool.key, base.key);
        assert_eq!(other_tool.scope, base.scope);
        let helper_changed = [module("k.rs", "fn k() {}"), module("h.rs", "fn h() { }")];
        assert_ne!(address(TOOL, &helper_changed, &configs, "10MB").key, base.key);
        assert_ne!(address(TOOL, &program, &configs, "1MB").key, base.key);
        let mut levels = Configs::default();
        let mut config = Config::default();
        config
            .levels
            .set("KL005", kernel_lint_lints::Level::Warn)
            .unwrap_or_default();
        levels.configs.push(config);
        assert_ne!(address(TOOL, &program, &levels, "10MB").key, base.key);
        // The texts are fields of their own: moving a byte from one file to the next shows.
        let shifted = [module("k.rs", "fn k() {}f"), module("h.rs", "n h() {}")];
        assert_ne!(address(TOOL, &shifted, &configs, "10MB").key, base.key);
    }

    #[test]
    fn a_kept_result_reads_back_as_written_and_a_broken_file_is_unreadable() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = Cache::new(dir.path().join("c"));
        let configs = Configs::default();
        let address = address(TOOL, &[module("k.rs", "")], &configs, "");
        assert!(matches!(cache.lookup(&address), Lookup::Miss));
        let error = FileError::without_span("k.rs", "cannot tokenize");
        let kept = Kept {
            path: "k.rs".into(),
            analyzed: None,
            failed: Some(error.clone()),
        };
        assert_eq!(cache.store(&address, vec![kept]), Ok(()));
        match cache.lookup(&address) {
            Lookup::Hit(files) => assert_eq!(files[0].failed.as_ref(), Some(&error)),
            other => panic!("{other:?}"),
        }
        let tag = std::fs::read_to_string(dir.path().join("c/CACHEDIR.TAG")).unwrap_or_default();
        assert!(tag.starts_with("Signature: 8a477f597d28d172789f06886806bc55\n"));
        let ignore = std::fs::read_to_string(dir.path().join("c/.gitignore")).unwrap_or_default();
        assert_eq!(ignore, "# Created by kernel-lint.\n*\n");
        std::fs::write(cache.file(&address.scope), "{\"tool\": \"0.1").unwrap_or_default();
        assert!(matches!(cache.lookup(&address), Lookup::Unreadable(m) if m.contains("EOF while parsing")));
        assert_eq!(cache.clean(), Ok(true));
        assert!(!dir.path().join("c").exists());
        assert_eq!(cache.clean(), Ok(false));
    }

    #[test]
    fn clean_leaves_a_folder_that_is_no_cache() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("lib.rs"), "").unwrap_or_default();
        let err = Cache::new(dir.path().to_path_buf()).clean().err().unwrap_or_default();
        assert!(err.ends_with("is not a kernel-lint cache (it has no kernel-lint CACHEDIR.TAG); it is not removed"));
        assert!(dir.path().join("lib.rs").exists());
    }

    #[test]
    fn a_stopped_analysis_is_not_kept() {
        let stopped = Kept {
            path: "k.rs".into(),
            analyzed: None,
            failed: Some(FileError::without_span(
                "k.rs",
                "analysis stopped after 10 s in `fn k` (time budget, `--file-time-budget`)",
            )),
        };
        assert!(!keepable(&stopped));
        let parse_error = Kept {
            failed: Some(FileError::without_span("k.rs", "cannot tokenize: unclosed `(`")),
            ..stopped
        };
        assert!(keepable(&parse_error));
    }
}
