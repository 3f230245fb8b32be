//! Configuration: launch settings per kernel and lint levels, from `kernel-lint.toml` or the
//! `kernel-lint` metadata of Cargo.toml, with command-line levels on top.

use crate::cli::GlobalArgs;
use crate::error::io_message;
use kernel_lint_analyzer::{Dim3, LaunchPlan, LaunchSpec};
use kernel_lint_lints::{Level, LintLevels};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The configuration file looked for in the current directory.
pub const FILE_NAME: &str = "kernel-lint.toml";

/// The most threads a block may hold.
const MAX_BLOCK_THREADS: i64 = 1024;

/// What the analysis runs with.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Launch settings by kernel.
    pub plan: LaunchPlan,
    /// Lint levels, command line included.
    pub levels: LintLevels,
}

/// The file format (also the table under `metadata.kernel-lint`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    kernel: Vec<RawKernel>,
    #[serde(default)]
    lints: BTreeMap<Spanned<String>, Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKernel {
    name: String,
    file: Option<String>,
    block: Option<Spanned<Vec<i64>>>,
    grid: Option<Spanned<Vec<i64>>>,
    #[serde(default)]
    params: BTreeMap<String, i64>,
}

/// The parts of a Cargo.toml that may hold a configuration; everything else is ignored.
#[derive(Debug, Deserialize)]
struct Manifest {
    package: Option<Section>,
    workspace: Option<Section>,
}

#[derive(Debug, Deserialize)]
struct Section {
    metadata: Option<Metadata>,
}

#[derive(Debug, Deserialize)]
struct Metadata {
    #[serde(rename = "kernel-lint")]
    kernel_lint: Option<RawConfig>,
}

/// A configuration text and the path it is reported under.
#[derive(Debug, Clone)]
struct Text {
    display: String,
    text: String,
}

impl Text {
    fn read(path: &Path, display: String, what: &str) -> Result<Text, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(Text { display, text }),
            Err(err) => Err(format!("cannot read {what} `{display}`: {}", io_message(&err))),
        }
    }

    /// `path:line:column: message` for a byte range of the text.
    fn error_at(&self, span: Option<Range<usize>>, message: &str) -> String {
        match span {
            Some(span) => {
                let (line, column) = line_column(&self.text, span.start);
                format!("{}:{line}:{column}: {message}", self.display)
            }
            None => format!("{}: {message}", self.display),
        }
    }

    fn parse<T: for<'de> Deserialize<'de>>(&self) -> Result<T, String> {
        toml::from_str(&self.text).map_err(|err| self.error_at(err.span(), err.message()))
    }
}

/// Loads the configuration and applies the command-line levels on top.
pub fn load(args: &GlobalArgs) -> Result<Config, String> {
    let mut config = Config::default();
    if let Some(path) = &args.config {
        let text = Text::read(path, path.display().to_string(), "configuration")?;
        let raw: RawConfig = text.parse()?;
        apply(&mut config, &raw, &text)?;
    } else if Path::new(FILE_NAME).is_file() {
        let text = Text::read(Path::new(FILE_NAME), FILE_NAME.to_string(), "configuration")?;
        let raw: RawConfig = text.parse()?;
        apply(&mut config, &raw, &text)?;
    } else {
        load_manifests(&mut config, args.manifest_path.as_deref())?;
    }
    for (level, key) in &args.level_flags {
        config
            .levels
            .set(key, *level)
            .map_err(|err| format!("{err} given to --{}", level.as_str()))?;
    }
    Ok(config)
}

/// The package's and the workspace's `kernel-lint` metadata: the package's kernel entries are
/// found first and its levels win.
fn load_manifests(config: &mut Config, manifest_path: Option<&Path>) -> Result<(), String> {
    let nearest = match manifest_path {
        Some(path) => Some(path.to_path_buf()),
        None => std::env::current_dir().ok().and_then(|cwd| find_upwards(&cwd)),
    };
    let Some(nearest) = nearest else { return Ok(()) };
    let Some((text, manifest)) = read_manifest(&nearest)? else {
        return Ok(());
    };
    let package = manifest
        .package
        .and_then(|s| s.metadata)
        .and_then(|m| m.kernel_lint)
        .map(|c| (c, text.clone()));
    let workspace = match manifest.workspace {
        Some(section) => section.metadata.and_then(|m| m.kernel_lint).map(|c| (c, text)),
        None => workspace_above(&nearest)?,
    };
    for (raw, text) in package.iter().chain(&workspace) {
        apply_kernels(&mut config.plan, raw, text)?;
    }
    for (raw, text) in workspace.iter().chain(&package) {
        apply_levels(&mut config.levels, raw, text)?;
    }
    Ok(())
}

/// The configuration of the workspace root above a member package's manifest, if any.
fn workspace_above(manifest: &Path) -> Result<Option<(RawConfig, Text)>, String> {
    for dir in manifest.parent().into_iter().flat_map(Path::ancestors).skip(1) {
        let candidate = dir.join("Cargo.toml");
        if !candidate.is_file() {
            continue;
        }
        if let Some((
            text,
            Manifest {
                workspace: Some(section),
                ..
            },
        )) = read_manifest(&candidate)?
        {
            return Ok(section.metadata.and_then(|m| m.kernel_lint).map(|c| (c, text)));
        }
    }
    Ok(None)
}

/// A Cargo.toml and its configuration parts; `None` when it is not valid TOML at all (cargo
/// reports that better).
fn read_manifest(path: &Path) -> Result<Option<(Text, Manifest)>, String> {
    let text = Text::read(path, display_path(path), "manifest")?;
    if text.text.parse::<toml::Table>().is_err() {
        return Ok(None);
    }
    let manifest: Manifest = text.parse()?;
    Ok(Some((text, manifest)))
}

fn find_upwards(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .find(|p| p.is_file())
}

/// A path relative to the current directory when it lies under it.
fn display_path(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}

/// Adds a parsed configuration's kernels and levels, validating them.
fn apply(config: &mut Config, raw: &RawConfig, text: &Text) -> Result<(), String> {
    apply_kernels(&mut config.plan, raw, text)?;
    apply_levels(&mut config.levels, raw, text)
}

fn apply_kernels(plan: &mut LaunchPlan, raw: &RawConfig, text: &Text) -> Result<(), String> {
    for kernel in &raw.kernel {
        let block = kernel.block.as_ref().map(|b| block(b, text)).transpose()?;
        let grid = kernel.grid.as_ref().map(|g| grid(g, text)).transpose()?;
        plan.specs.push(LaunchSpec {
            kernel: kernel.name.clone(),
            file: kernel.file.clone(),
            block,
            grid,
            params: kernel.params.clone(),
        });
    }
    Ok(())
}

fn apply_levels(levels: &mut LintLevels, raw: &RawConfig, text: &Text) -> Result<(), String> {
    for (key, value) in &raw.lints {
        let level = Level::parse(value.get_ref()).ok_or_else(|| {
            let message = format!(
                "expected `allow`, `note`, `warn` or `deny`, found `{}`",
                value.get_ref()
            );
            text.error_at(Some(value.span()), &message)
        })?;
        levels
            .set(key.get_ref(), level)
            .map_err(|err| text.error_at(Some(key.span()), &err))?;
    }
    Ok(())
}

fn extents(value: &Spanned<Vec<i64>>, what: &str, max: i64, text: &Text) -> Result<Dim3, String> {
    let error = |message: String| text.error_at(Some(value.span()), &message);
    let values = value.get_ref();
    if values.is_empty() || values.len() > 3 {
        return Err(error(format!("a {what} has 1 to 3 extents, found {}", values.len())));
    }
    let mut dims = [1u32; 3];
    for (slot, &v) in dims.iter_mut().zip(values) {
        *slot = u32::try_from(v)
            .ok()
            .filter(|&d| d >= 1 && i64::from(d) <= max)
            .ok_or_else(|| error(format!("{what} extent {v} is out of range (1 to {max})")))?;
    }
    Ok(dims)
}

fn block(value: &Spanned<Vec<i64>>, text: &Text) -> Result<Dim3, String> {
    let dims = extents(value, "block", MAX_BLOCK_THREADS, text)?;
    let threads: i64 = dims.iter().map(|&d| i64::from(d)).product();
    if threads > MAX_BLOCK_THREADS {
        let message = format!("a block holds at most {MAX_BLOCK_THREADS} threads, found {threads}");
        return Err(text.error_at(Some(value.span()), &message));
    }
    Ok(dims)
}

fn grid(value: &Spanned<Vec<i64>>, text: &Text) -> Result<Dim3, String> {
    extents(value, "grid", i64::from(i32::MAX), text)
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, String> {
        let text = Text {
            display: "k.toml".into(),
            text: text.into(),
        };
        let raw: RawConfig = text.parse()?;
        let mut config = Config::default();
        apply(&mut config, &raw, &text)?;
        Ok(config)
    }

    #[test]
    fn full_entry() {
        let config = parse(
            "[[kernel]]\nname = \"k\"\nfile = \"src/a.rs\"\nblock = [16, 16]\ngrid = [4]\n\
             [kernel.params]\noffset = 11\n[lints]\nKL005 = \"warn\"\n",
        );
        let config = config.unwrap_or_else(|e| panic!("{e}"));
        let spec = &config.plan.specs[0];
        assert_eq!(spec.kernel, "k");
        assert_eq!(spec.file.as_deref(), Some("src/a.rs"));
        assert_eq!(spec.block, Some([16, 16, 1]));
        assert_eq!(spec.grid, Some([4, 1, 1]));
        assert_eq!(spec.params.get("offset"), Some(&11));
        let lint = kernel_lint_lints::find("KL005").map(|l| config.levels.level(l));
        assert_eq!(lint, Some(Level::Warn));
    }

    #[test]
    fn errors_name_file_line_and_column() {
        let err = |text: &str| parse(text).err().unwrap_or_default();
        assert_eq!(
            err("[[kernel]]\nname = \"k\"\nblock = []\n"),
            "k.toml:3:9: a block has 1 to 3 extents, found 0"
        );
        assert_eq!(
            err("[[kernel]]\nname = \"k\"\nblock = [0]\n"),
            "k.toml:3:9: block extent 0 is out of range (1 to 1024)"
        );
        assert!(err("[[kernel]]\nname = \"k\"\nblock = [64, 64]\n").contains("at most 1024 threads"));
        assert!(err("[[kernel]]\nname = \"k\"\ngrid = [-1]\n").starts_with("k.toml:3:8: grid extent -1"));
        assert!(err("[lints]\nKL001 = \"off\"\n").starts_with("k.toml:2:9: expected"));
        assert!(err("[[kernel]]\nname = \"k\"\n[kernel.params]\nn = \"x\"\n").starts_with("k.toml:4:5:"));
        assert!(err("oops").starts_with("k.toml:1:"));
    }

    #[test]
    fn line_column_counts_characters() {
        assert_eq!(line_column("ab\ncé d", 7), (2, 4));
        assert_eq!(line_column("ab", 99), (1, 3));
    }

    proptest::proptest! {
        #[test]
        fn never_panics(text in "\\PC{0,200}") {
            let _ = parse(&text);
        }
    }
}
