//! Configuration: launch settings per kernel and lint levels, from `kernel-lint.toml` or the
//! `kernel-lint` metadata of Cargo.toml, with command-line levels on top.
//!
//! `--config FILE` gives every file one configuration. Otherwise each analyzed file gets the
//! configuration of its crate: the nearest `kernel-lint.toml` from the file's folder up to the
//! workspace root, else the `[package.metadata.kernel-lint]` of the nearest Cargo.toml and the
//! `[workspace.metadata.kernel-lint]` of the workspace root. A file in no cargo package gets the
//! configuration found from the current folder.

use crate::error::{io_message, CliError, Location, Problem};
use crate::settings::Settings;
use kernel_lint_analyzer::{Dim3, LaunchPlan, LaunchSpec};
use kernel_lint_lints::{Level, LintLevels};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The configuration file looked for beside the analyzed files.
pub const FILE_NAME: &str = "kernel-lint.toml";

/// The most threads a block may hold.
const MAX_BLOCK_THREADS: i64 = 1024;

/// What the analysis of one file runs with.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Launch settings by kernel.
    pub plan: LaunchPlan,
    /// Lint levels, command line included.
    pub levels: LintLevels,
    /// The tables its kernel entries come from, by index into [`Configs::tables`].
    pub tables: Vec<usize>,
    /// Findings too cheap to report, command line included.
    pub thresholds: kernel_lint_lints::Thresholds,
    /// `exclude` patterns of every table that applies: files found under them are not reported.
    pub exclude: Vec<Exclude>,
    /// `[kernel-allow]`: the lints (by code, or `all`) silenced in kernels of each name.
    pub kernel_allow: BTreeMap<String, BTreeSet<String>>,
}

/// A pattern of `exclude`: a glob over paths relative to the folder of its configuration
/// (`*` stays within a folder, `**` crosses folders); a folder it matches excludes all below.
#[derive(Debug, Clone)]
pub struct Exclude {
    /// The pattern as written.
    pub written: String,
    /// The folder it is relative to.
    folder: PathBuf,
    matcher: globset::GlobMatcher,
}

impl Config {
    /// The `exclude` pattern that matches `path` (or a folder above it), if any.
    pub fn excluded_by(&self, path: &Path) -> Option<&Exclude> {
        let path = resolved(path);
        self.exclude.iter().find(|pattern| {
            path.strip_prefix(&pattern.folder).is_ok_and(|relative| {
                relative
                    .ancestors()
                    .any(|p| !p.as_os_str().is_empty() && pattern.matcher.is_match(p))
            })
        })
    }

    /// Whether `[kernel-allow]` silences lint `code` in kernels named `kernel`.
    pub fn allows_in_kernel(&self, kernel: &str, code: &str) -> bool {
        self.kernel_allow
            .get(kernel)
            .is_some_and(|lints| lints.contains("all") || lints.contains(code))
    }
}

/// One table of settings as read: a `kernel-lint.toml`, or the `kernel-lint` metadata of a
/// manifest's package or workspace.
#[derive(Debug, Clone)]
pub struct Table {
    /// The file, as printed.
    pub display: String,
    /// The `[[kernel]]` entries, in order.
    pub entries: Vec<Entry>,
    /// The `[lints]` settings, in order.
    lints: Vec<(String, Level, String)>,
    /// The `[thresholds]` settings.
    thresholds: kernel_lint_lints::Thresholds,
    /// The settings of the run as a whole.
    run: RunSettings,
    /// The `exclude` patterns.
    exclude: Vec<Exclude>,
    /// The `[kernel-allow]` entries: kernel name and lint code (or `all`).
    kernel_allow: Vec<(String, String)>,
}

/// Settings of a run rather than of a file: read from `--config`, else from the configuration
/// found from the current folder; the command line wins over each.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunSettings {
    /// `cache-dir`, made absolute against the folder of the file that sets it.
    pub cache_dir: Option<PathBuf>,
    /// `max-file-size`.
    pub max_file_size: Option<crate::limits::MaxFileSize>,
    /// `file-time-budget`.
    pub file_time_budget: Option<crate::limits::FileTimeBudget>,
    /// `jobs`.
    pub jobs: Option<u16>,
}

impl RunSettings {
    /// Each key of `over` that is set wins.
    fn overlay(&mut self, over: &RunSettings) {
        self.cache_dir = over.cache_dir.clone().or(self.cache_dir.take());
        self.max_file_size = over.max_file_size.or(self.max_file_size);
        self.file_time_budget = over.file_time_budget.or(self.file_time_budget);
        self.jobs = over.jobs.or(self.jobs);
    }
}

/// A `[[kernel]]` entry and where its parts are written.
#[derive(Debug, Clone)]
pub struct Entry {
    /// What it says.
    pub spec: LaunchSpec,
    /// The `name` value.
    pub name_at: Location,
    /// The `file` value, when given.
    pub file_at: Option<Location>,
    /// Each parameter value, in name order.
    pub params: Vec<ParamSite>,
}

/// A value given under `[kernel.params]`.
#[derive(Debug, Clone)]
pub struct ParamSite {
    /// The parameter name (`n`, or `p.n` for a struct field).
    pub name: String,
    /// The value.
    pub value: ParamValue,
    /// Where the name is written.
    pub name_at: Location,
    /// Where the value is written.
    pub value_at: Location,
}

/// A parameter value: an integer takes part in index arithmetic, a float is only recorded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamValue {
    /// `n = 4096`.
    Int(i64),
    /// `alpha = 2.0`.
    Float(f64),
}

/// A value under `[kernel.params]` as written: a number, or the fields of a struct parameter
/// (`p.n = 4`, or `[kernel.params.p]`).
#[derive(Debug)]
enum RawParam {
    Value(ParamValue),
    /// toml gives no place to a table made by a dotted key, so values are not `Spanned`: the
    /// place of a value is found after its name.
    Fields(Vec<(String, RawParam)>),
}

impl<'de> Deserialize<'de> for RawParam {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Number;
        impl<'de> Visitor<'de> for Number {
            type Value = RawParam;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an integer or a float")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawParam, E> {
                Ok(RawParam::Value(ParamValue::Int(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawParam, E> {
                i64::try_from(v)
                    .map(|v| RawParam::Value(ParamValue::Int(v)))
                    .map_err(|_| E::custom(format!("{v} is too large")))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<RawParam, E> {
                Ok(RawParam::Value(ParamValue::Float(v)))
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<RawParam, A::Error> {
                let mut fields = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    fields.push((key, map.next_value::<RawParam>()?));
                }
                Ok(RawParam::Fields(fields))
            }
        }
        deserializer.deserialize_any(Number)
    }
}

/// Every configuration a run uses, and the tables they are made of.
#[derive(Debug, Clone, Default)]
pub struct Configs {
    /// The tables read, each once.
    pub tables: Vec<Table>,
    /// The configurations, in the order files first used them.
    pub configs: Vec<Config>,
    /// Whether `--config` gave the one configuration of every file.
    pub explicit: bool,
}

impl Configs {
    /// The configuration at an index given by [`Resolver::config_for`].
    pub fn get(&self, index: usize) -> Option<&Config> {
        self.configs.get(index)
    }

    /// The one launch plan of a set of files, for the harness, which builds one program: an
    /// error when the files use different configurations.
    pub fn single_plan(&self, used: impl IntoIterator<Item = usize>) -> Result<LaunchPlan, CliError> {
        let mut used: Vec<usize> = used.into_iter().collect();
        used.sort_unstable();
        used.dedup();
        match used.as_slice() {
            [] => Ok(LaunchPlan::default()),
            [one] => Ok(self.get(*one).map(|c| c.plan.clone()).unwrap_or_default()),
            several => {
                let mut names: Vec<String> = several
                    .iter()
                    .filter_map(|&i| self.get(i))
                    .flat_map(|c| c.tables.iter().filter_map(|&t| self.tables.get(t)))
                    .map(|t| format!("`{}`", t.display))
                    .collect();
                names.sort();
                names.dedup();
                let names = if names.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", names.join(", "))
                };
                Err(CliError::Config(format!(
                    "the files given use different configurations{names}: give one with `--config`, \
                     or one crate at a time"
                )))
            }
        }
    }
}

/// The sections of a Cargo.toml that may hold a configuration; everything else is ignored.
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

/// The file format (also the table under `metadata.kernel-lint`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(rename = "cache-dir")]
    cache_dir: Option<Spanned<String>>,
    #[serde(rename = "max-file-size")]
    max_file_size: Option<Spanned<String>>,
    #[serde(rename = "file-time-budget")]
    file_time_budget: Option<Spanned<String>>,
    jobs: Option<Spanned<i64>>,
    #[serde(default)]
    kernel: Vec<RawKernel>,
    #[serde(default)]
    lints: BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    thresholds: crate::thresholds::RawThresholds,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
    #[serde(default, rename = "kernel-allow")]
    kernel_allow: BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKernel {
    name: Spanned<String>,
    file: Option<Spanned<String>>,
    block: Option<Spanned<Vec<i64>>>,
    grid: Option<Spanned<Vec<i64>>>,
    #[serde(default)]
    params: BTreeMap<Spanned<String>, RawParam>,
}

/// A configuration text and the path it is reported under.
#[derive(Debug, Clone)]
struct Text {
    display: String,
    text: String,
    /// The folder of the file, against which the paths it gives are read.
    folder: PathBuf,
}

impl Text {
    fn read(path: &Path, display: String, what: &str) -> Result<Text, String> {
        let folder = resolved(path).parent().map(Path::to_path_buf).unwrap_or_default();
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(Text { display, text, folder }),
            Err(err) => Err(format!("cannot read {what} `{display}`: {}", io_message(&err))),
        }
    }

    /// The place of a byte offset.
    fn location(&self, offset: usize) -> Location {
        let (line, column) = line_column(&self.text, offset);
        Location {
            path: self.display.clone(),
            line,
            column,
        }
    }

    /// `path:line:column: message` for a byte range of the text.
    fn error_at(&self, span: Option<Range<usize>>, message: &str) -> String {
        match span {
            Some(span) => format!("{}: {message}", self.location(span.start)),
            None => format!("{}: {message}", self.display),
        }
    }

    /// The offset of the value in `key = value`, given where the key ends.
    fn value_after(&self, key_end: usize) -> Option<usize> {
        let rest = self.text.get(key_end..)?;
        let after_key = rest.trim_start_matches([' ', '\t']);
        let after_equals = after_key.strip_prefix('=')?.trim_start_matches([' ', '\t']);
        Some(self.text.len() - after_equals.len())
    }

    fn parse<T: for<'de> Deserialize<'de>>(&self) -> Result<T, String> {
        toml::from_str(&self.text).map_err(|err| self.error_at(err.span(), err.message()))
    }
}

/// The tables that make one configuration: kernels are looked up in the first order, levels
/// applied in the second (later ones win).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    kernels: Vec<usize>,
    levels: Vec<usize>,
}

/// The tables of one Cargo.toml.
#[derive(Debug, Clone, Copy, Default)]
struct ManifestTables {
    package: Option<usize>,
    workspace: Option<usize>,
    /// Whether it has a `[workspace]` section.
    is_workspace: bool,
}

/// Finds the configuration of each file, reading every file of settings once.
#[derive(Debug)]
pub struct Resolver<'a> {
    settings: &'a Settings,
    configs: Configs,
    keys: BTreeMap<Key, usize>,
    /// `kernel-lint.toml` files read, by resolved path.
    files: BTreeMap<PathBuf, usize>,
    /// Cargo.toml files read, by resolved path; `None` when not valid TOML (cargo says so).
    manifests: BTreeMap<PathBuf, Option<ManifestTables>>,
    /// The `--config` table, when given.
    explicit: Option<usize>,
    /// The configuration found from the current folder, once asked for.
    from_current_dir: Option<Key>,
}

impl<'a> Resolver<'a> {
    /// Starts a resolution: reads `--config` when given and checks the level flags, so that
    /// their errors come first.
    pub fn new(settings: &'a Settings) -> Result<Resolver<'a>, CliError> {
        for (level, key) in &settings.levels {
            LintLevels::default()
                .set(key, *level)
                .map_err(|err| flag_error(&err, *level))?;
        }
        let mut resolver = Resolver {
            settings,
            configs: Configs::default(),
            keys: BTreeMap::new(),
            files: BTreeMap::new(),
            manifests: BTreeMap::new(),
            explicit: None,
            from_current_dir: None,
        };
        if let Some(path) = &settings.config {
            let text = Text::read(path, path.display().to_string(), "configuration").map_err(CliError::Config)?;
            let raw: RawConfig = text.parse().map_err(CliError::Config)?;
            resolver.explicit = Some(resolver.push_table(&raw, &text)?);
            resolver.configs.explicit = true;
        }
        Ok(resolver)
    }

    /// The index of the configuration of a file, reading what it needs on first use.
    pub fn config_for(&mut self, file: &Path) -> Result<usize, CliError> {
        let key = match self.explicit {
            Some(table) => Key {
                kernels: vec![table],
                levels: vec![table],
            },
            None => self.key_for(file)?,
        };
        if let Some(&index) = self.keys.get(&key) {
            return Ok(index);
        }
        let config = self.build(&key)?;
        self.configs.configs.push(config);
        let index = self.configs.configs.len() - 1;
        self.keys.insert(key, index);
        Ok(index)
    }

    /// The run's settings: those of `--config`, else of the configuration found from the
    /// current folder (a package's keys win over its workspace's).
    pub fn run_settings(&mut self) -> Result<RunSettings, CliError> {
        let tables = match self.explicit {
            Some(table) => vec![table],
            None => self.current_dir_key()?.levels,
        };
        let mut settings = RunSettings::default();
        for table in tables.iter().filter_map(|&t| self.configs.tables.get(t)) {
            settings.overlay(&table.run);
        }
        Ok(settings)
    }

    /// Every configuration resolved.
    pub fn finish(self) -> Configs {
        self.configs
    }

    fn build(&self, key: &Key) -> Result<Config, CliError> {
        let mut config = Config {
            tables: key.kernels.clone(),
            ..Config::default()
        };
        for table in key.kernels.iter().filter_map(|&t| self.configs.tables.get(t)) {
            config.plan.specs.extend(table.entries.iter().map(|e| e.spec.clone()));
        }
        for table in key.levels.iter().filter_map(|&t| self.configs.tables.get(t)) {
            for (key, level, at) in &table.lints {
                config
                    .levels
                    .set(key, *level)
                    .map_err(|err| CliError::Config(format!("{at}: {err}")))?;
            }
        }
        for (level, key) in &self.settings.levels {
            config.levels.set(key, *level).map_err(|err| flag_error(&err, *level))?;
        }
        for table in key.levels.iter().filter_map(|&t| self.configs.tables.get(t)) {
            crate::thresholds::overlay(&mut config.thresholds, &table.thresholds);
            config.exclude.extend(table.exclude.iter().cloned());
            for (kernel, lint) in &table.kernel_allow {
                config
                    .kernel_allow
                    .entry(kernel.clone())
                    .or_default()
                    .insert(lint.clone());
            }
        }
        crate::thresholds::overlay(&mut config.thresholds, &self.settings.thresholds);
        Ok(config)
    }

    /// The tables of a file's crate, or of the current folder when it is in no crate.
    fn key_for(&mut self, file: &Path) -> Result<Key, CliError> {
        let file = resolved(file);
        let Some(dir) = file.parent() else {
            return self.current_dir_key();
        };
        let Some(package) = find_upwards(dir) else {
            return self.current_dir_key();
        };
        let workspace = self.workspace_of(&package)?;
        let root = workspace.as_deref().unwrap_or(&package).parent();
        for folder in dir.ancestors() {
            let candidate = folder.join(FILE_NAME);
            if candidate.is_file() {
                let table = self.file_table(&candidate)?;
                return Ok(Key {
                    kernels: vec![table],
                    levels: vec![table],
                });
            }
            if Some(folder) == root {
                break;
            }
        }
        self.manifest_key(&package, workspace.as_deref())
    }

    /// The configuration found from the current folder: `kernel-lint.toml` there, else the
    /// metadata of the nearest Cargo.toml (or `--manifest-path`) and of its workspace.
    fn current_dir_key(&mut self) -> Result<Key, CliError> {
        if let Some(key) = &self.from_current_dir {
            return Ok(key.clone());
        }
        let key = if Path::new(FILE_NAME).is_file() {
            let table = self.file_table(&resolved(Path::new(FILE_NAME)))?;
            Key {
                kernels: vec![table],
                levels: vec![table],
            }
        } else {
            let nearest = match &self.settings.manifest_path {
                Some(path) => Some(resolved(path)),
                None => std::env::current_dir().ok().and_then(|cwd| find_upwards(&cwd)),
            };
            match nearest {
                Some(manifest) => {
                    let workspace = self.workspace_of(&manifest)?;
                    self.manifest_key(&manifest, workspace.as_deref())?
                }
                None => Key {
                    kernels: Vec::new(),
                    levels: Vec::new(),
                },
            }
        };
        self.from_current_dir = Some(key.clone());
        Ok(key)
    }

    /// The package's entries are found first and its levels win over the workspace's.
    fn manifest_key(&mut self, package: &Path, workspace: Option<&Path>) -> Result<Key, CliError> {
        let package = self.manifest(package)?.and_then(|m| m.package);
        let workspace = match workspace {
            Some(path) => self.manifest(path)?.and_then(|m| m.workspace),
            None => None,
        };
        Ok(Key {
            kernels: package.into_iter().chain(workspace).collect(),
            levels: workspace.into_iter().chain(package).collect(),
        })
    }

    /// The manifest of the workspace a package's manifest belongs to: itself when it has a
    /// `[workspace]` section, else the nearest one above that has.
    fn workspace_of(&mut self, package: &Path) -> Result<Option<PathBuf>, CliError> {
        if self.manifest(package)?.is_some_and(|m| m.is_workspace) {
            return Ok(Some(package.to_path_buf()));
        }
        for dir in package.parent().into_iter().flat_map(Path::ancestors).skip(1) {
            let candidate = dir.join("Cargo.toml");
            if candidate.is_file() && self.manifest(&candidate)?.is_some_and(|m| m.is_workspace) {
                return Ok(Some(candidate));
            }
        }
        Ok(None)
    }

    fn file_table(&mut self, path: &Path) -> Result<usize, CliError> {
        if let Some(&table) = self.files.get(path) {
            return Ok(table);
        }
        let text = Text::read(path, display_path(path), "configuration").map_err(CliError::Config)?;
        let raw: RawConfig = text.parse().map_err(CliError::Config)?;
        let table = self.push_table(&raw, &text)?;
        self.files.insert(path.to_path_buf(), table);
        Ok(table)
    }

    fn manifest(&mut self, path: &Path) -> Result<Option<ManifestTables>, CliError> {
        if let Some(tables) = self.manifests.get(path) {
            return Ok(*tables);
        }
        let text = Text::read(path, display_path(path), "manifest").map_err(CliError::Config)?;
        let tables = if text.text.parse::<toml::Table>().is_err() {
            None
        } else {
            let manifest: Manifest = text.parse().map_err(CliError::Config)?;
            let is_workspace = manifest.workspace.is_some();
            let mut section = |s: Option<Section>| -> Result<Option<usize>, CliError> {
                s.and_then(|s| s.metadata)
                    .and_then(|m| m.kernel_lint)
                    .map(|raw| self.push_table(&raw, &text))
                    .transpose()
            };
            let package = section(manifest.package)?;
            let workspace = section(manifest.workspace)?;
            Some(ManifestTables {
                package,
                workspace,
                is_workspace,
            })
        };
        self.manifests.insert(path.to_path_buf(), tables);
        Ok(tables)
    }

    fn push_table(&mut self, raw: &RawConfig, text: &Text) -> Result<usize, CliError> {
        let table = table(raw, text)?;
        self.configs.tables.push(table);
        Ok(self.configs.tables.len() - 1)
    }
}

/// An unknown lint given to `--allow`, `--warn` or `--deny`.
fn flag_error(err: &str, level: Level) -> CliError {
    CliError::Config(format!("{err} given to --{}", level.as_str()))
}

/// Validates a parsed configuration into a table.
fn table(raw: &RawConfig, text: &Text) -> Result<Table, CliError> {
    let mut entries: Vec<Entry> = Vec::new();
    let mut duplicates = Vec::new();
    for kernel in &raw.kernel {
        let entry = entry(kernel, text).map_err(CliError::Config)?;
        // Entries that differ are launches of their own for the harness; a copy is a mistake.
        if let Some(first) = entries.iter().find(|e| e.spec == entry.spec) {
            let file = entry
                .spec
                .file
                .as_deref()
                .map(|f| format!(" in `{f}`"))
                .unwrap_or_default();
            duplicates.push(Problem {
                at: entry.name_at.clone(),
                message: format!("duplicate entry for kernel `{}`{file}", entry.spec.kernel),
                note: Some((first.name_at.clone(), "the first entry is here".to_string())),
            });
        }
        entries.push(entry);
    }
    if !duplicates.is_empty() {
        return Err(CliError::ConfigProblems(duplicates));
    }
    let mut lints = Vec::new();
    for (key, value) in &raw.lints {
        let level = Level::parse(value.get_ref()).ok_or_else(|| {
            let message = format!(
                "expected `allow`, `note`, `warn` or `deny`, found `{}`",
                value.get_ref()
            );
            CliError::Config(text.error_at(Some(value.span()), &message))
        })?;
        LintLevels::default()
            .set(key.get_ref(), level)
            .map_err(|err| CliError::Config(text.error_at(Some(key.span()), &err)))?;
        lints.push((
            key.get_ref().clone(),
            level,
            text.location(key.span().start).to_string(),
        ));
    }
    let thresholds = raw
        .thresholds
        .validate()
        .map_err(|(span, message)| CliError::Config(text.error_at(Some(span), &message)))?;
    let mut exclude = Vec::new();
    for pattern in &raw.exclude {
        let glob = globset::GlobBuilder::new(pattern.get_ref())
            .literal_separator(true)
            .build()
            .map_err(|err| {
                let message = format!("`{}` is not a glob pattern: {}", pattern.get_ref(), err.kind());
                CliError::Config(text.error_at(Some(pattern.span()), &message))
            })?;
        exclude.push(Exclude {
            written: pattern.get_ref().clone(),
            folder: resolved(&text.folder),
            matcher: glob.compile_matcher(),
        });
    }
    let mut kernel_allow = Vec::new();
    for (kernel, allowed) in &raw.kernel_allow {
        for lint in allowed {
            // Kept by code, however it is written.
            let code = match lint.get_ref().as_str() {
                "all" => "all",
                written => kernel_lint_lints::find(written).map(|l| l.code).ok_or_else(|| {
                    let message = format!("unknown lint `{written}`");
                    CliError::Config(text.error_at(Some(lint.span()), &message))
                })?,
            };
            kernel_allow.push((kernel.get_ref().clone(), code.to_string()));
        }
    }
    Ok(Table {
        display: text.display.clone(),
        entries,
        lints,
        thresholds,
        run: run_settings(raw, text)?,
        exclude,
        kernel_allow,
    })
}

/// The run's settings a table gives, each value checked at its place.
fn run_settings(raw: &RawConfig, text: &Text) -> Result<RunSettings, CliError> {
    let located =
        |value: &Spanned<String>, message: String| CliError::Config(text.error_at(Some(value.span()), &message));
    let max_file_size = raw
        .max_file_size
        .as_ref()
        .map(|v| crate::limits::parse_size(v.get_ref()).map_err(|m| located(v, m)))
        .transpose()?;
    let file_time_budget = raw
        .file_time_budget
        .as_ref()
        .map(|v| crate::limits::parse_duration(v.get_ref()).map_err(|m| located(v, m)))
        .transpose()?;
    let jobs = raw
        .jobs
        .as_ref()
        .map(|v| {
            u16::try_from(*v.get_ref()).ok().filter(|&n| n >= 1).ok_or_else(|| {
                let message = format!("`jobs` is {}, out of range (1 to {})", v.get_ref(), u16::MAX);
                CliError::Config(text.error_at(Some(v.span()), &message))
            })
        })
        .transpose()?;
    let cache_dir = match &raw.cache_dir {
        Some(v) if v.get_ref().trim().is_empty() => {
            return Err(located(v, "`cache-dir` is empty".to_string()));
        }
        Some(v) => Some(text.folder.join(v.get_ref())),
        None => None,
    };
    Ok(RunSettings {
        cache_dir,
        max_file_size,
        file_time_budget,
        jobs,
    })
}

fn entry(kernel: &RawKernel, text: &Text) -> Result<Entry, String> {
    let block = kernel.block.as_ref().map(|b| block(b, text)).transpose()?;
    let grid = kernel.grid.as_ref().map(|g| grid(g, text)).transpose()?;
    let mut spec = LaunchSpec {
        kernel: kernel.name.get_ref().clone(),
        file: kernel.file.as_ref().map(|f| f.get_ref().clone()),
        block,
        grid,
        ..LaunchSpec::default()
    };
    let mut params = Vec::new();
    for (name, value) in &kernel.params {
        let name_at = text.location(name.span().start);
        let value_at = text.location(text.value_after(name.span().end).unwrap_or(name.span().start));
        flatten_param(name.get_ref(), (&name_at, &value_at), value, &mut params);
    }
    params.sort_by(|a, b| a.name.cmp(&b.name));
    for param in &params {
        match param.value {
            ParamValue::Int(v) => {
                spec.params.insert(param.name.clone(), v);
            }
            ParamValue::Float(v) if v.is_finite() => {
                spec.float_params.insert(param.name.clone(), v);
            }
            ParamValue::Float(v) => {
                return Err(format!(
                    "{}: parameter `{}` is given {v}, which is not a finite number",
                    param.value_at, param.name
                ));
            }
        }
    }
    Ok(Entry {
        spec,
        name_at: text.location(kernel.name.span().start),
        file_at: kernel.file.as_ref().map(|f| text.location(f.span().start)),
        params,
    })
}

/// The values of a parameter, struct fields named `p.n` and placed at the parameter's name.
fn flatten_param(name: &str, at: (&Location, &Location), value: &RawParam, out: &mut Vec<ParamSite>) {
    match value {
        RawParam::Value(v) => out.push(ParamSite {
            name: name.to_string(),
            value: *v,
            name_at: at.0.clone(),
            value_at: at.1.clone(),
        }),
        RawParam::Fields(fields) => {
            for (field, value) in fields {
                // A field's own value has no place of its own: its parameter's name stands in.
                flatten_param(&format!("{name}.{field}"), (at.0, at.0), value, out);
            }
        }
    }
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

/// The nearest Cargo.toml in a folder or above it.
fn find_upwards(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|dir| dir.join("Cargo.toml"))
        .find(|p| p.is_file())
}

/// A path made absolute with links and `..` resolved, so that walking up its folders is
/// walking up the file system; as given (made absolute) when it cannot be resolved.
fn resolved(path: &Path) -> PathBuf {
    path.canonicalize()
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// A path relative to the current directory when it lies under it.
fn display_path(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let bases = cwd
        .iter()
        .cloned()
        .chain(cwd.as_ref().and_then(|c| c.canonicalize().ok()));
    bases
        .filter_map(|base| path.strip_prefix(base).ok().map(Path::to_path_buf))
        .find(|rel| !rel.as_os_str().is_empty())
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
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

    fn parse_table(text: &str) -> Result<Table, CliError> {
        let text = Text {
            display: "k.toml".into(),
            text: text.into(),
            folder: PathBuf::from("/cfg"),
        };
        let raw: RawConfig = text.parse().map_err(CliError::Config)?;
        table(&raw, &text)
    }

    fn parse(text: &str) -> Result<Config, String> {
        let table = parse_table(text).map_err(|e| e.to_string())?;
        let mut levels = LintLevels::default();
        for (key, level, _) in &table.lints {
            levels.set(key, *level)?;
        }
        Ok(Config {
            plan: LaunchPlan {
                specs: table.entries.iter().map(|e| e.spec.clone()).collect(),
            },
            levels,
            tables: vec![0],
            thresholds: table.thresholds,
            ..Config::default()
        })
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
    fn float_parameters_are_recorded_apart_from_integers() {
        let text = "[[kernel]]\nname = \"k\"\n[kernel.params]\nalpha = 2.0\nn = 64\nbeta = -1.5e-3\n";
        let table = parse_table(text).unwrap_or_else(|e| panic!("{e}"));
        let spec = &table.entries[0].spec;
        assert_eq!(spec.params, BTreeMap::from([("n".to_string(), 64)]));
        assert_eq!(
            spec.float_params,
            BTreeMap::from([("alpha".to_string(), 2.0), ("beta".to_string(), -1.5e-3)])
        );
        let sites: Vec<(String, String, String)> = table.entries[0]
            .params
            .iter()
            .map(|p| (p.name.clone(), p.name_at.to_string(), p.value_at.to_string()))
            .collect();
        assert_eq!(
            sites,
            [
                ("alpha".to_string(), "k.toml:4:1".to_string(), "k.toml:4:9".to_string()),
                ("beta".to_string(), "k.toml:6:1".to_string(), "k.toml:6:8".to_string()),
                ("n".to_string(), "k.toml:5:1".to_string(), "k.toml:5:5".to_string()),
            ]
        );
        let err = parse_table("[[kernel]]\nname = \"k\"\n[kernel.params]\nalpha = nan\n").err();
        assert_eq!(
            err.map(|e| e.to_string()).unwrap_or_default(),
            "k.toml:4:9: parameter `alpha` is given NaN, which is not a finite number"
        );
    }

    #[test]
    fn struct_fields_are_named_with_a_dot() {
        let text = "[[kernel]]\nname = \"k\"\n[kernel.params]\np.n = 4\n\"q.m\" = 2\n[kernel.params.r]\nw = 1.5\n";
        let table = parse_table(text).unwrap_or_else(|e| panic!("{e}"));
        let spec = &table.entries[0].spec;
        assert_eq!(
            spec.params,
            BTreeMap::from([("p.n".to_string(), 4), ("q.m".to_string(), 2)])
        );
        assert_eq!(spec.float_params, BTreeMap::from([("r.w".to_string(), 1.5)]));
        let at: Vec<String> = table.entries[0].params.iter().map(|p| p.name_at.to_string()).collect();
        assert_eq!(at, ["k.toml:4:1", "k.toml:5:1", "k.toml:6:16"]);
    }

    #[test]
    fn a_copied_entry_is_an_error_at_the_copy_with_a_note_on_the_first() {
        let entry = "[[kernel]]\nname = \"k\"\nfile = \"src/a.rs\"\nblock = [64]\n";
        let err = parse_table(&format!("{entry}{entry}")).err();
        assert_eq!(
            err.map(|e| e.to_string()).unwrap_or_default(),
            "k.toml:6:8: duplicate entry for kernel `k` in `src/a.rs`\nnote: k.toml:2:8: the first entry is here"
        );
        // Entries that differ are separate launches (the harness runs each one).
        let launches =
            "[[kernel]]\nname = \"k\"\n[kernel.params]\nn = 1\n[[kernel]]\nname = \"k\"\n[kernel.params]\nn = 2\n";
        assert!(parse_table(launches).is_ok());
    }

    #[test]
    fn run_settings_are_read_at_their_place_and_later_tables_win() {
        let text = "cache-dir = \"target/kl\"\nmax-file-size = \"1MiB\"\nfile-time-budget = \"250ms\"\njobs = 3\n";
        let table = parse_table(text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            table.run,
            RunSettings {
                cache_dir: Some(PathBuf::from("/cfg/target/kl")),
                max_file_size: Some(crate::limits::MaxFileSize(Some(1_048_576))),
                file_time_budget: Some(crate::limits::FileTimeBudget(Some(std::time::Duration::from_millis(
                    250
                )))),
                jobs: Some(3),
            }
        );
        let mut settings = table.run.clone();
        let package = parse_table("jobs = 1\n").unwrap_or_else(|e| panic!("{e}"));
        settings.overlay(&package.run);
        assert_eq!(settings.jobs, Some(1));
        assert_eq!(settings.cache_dir, Some(PathBuf::from("/cfg/target/kl")));
        let err = |text: &str| parse_table(text).err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(
            err("jobs = 70000\n"),
            "k.toml:1:8: `jobs` is 70000, out of range (1 to 65535)"
        );
        assert_eq!(err("cache-dir = \" \"\n"), "k.toml:1:13: `cache-dir` is empty");
        assert_eq!(
            err("max-file-size = \"1 parsec\"\n"),
            "k.toml:1:17: unknown unit `parsec` (use B, kB, MB, GB, KiB, MiB, GiB or `none`)"
        );
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
