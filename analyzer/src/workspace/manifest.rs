//! Reading a `Cargo.toml` the way cargo reads it, without running cargo.

use super::paths::{normalize, sorted_entries, EntryKind};
use super::{DependencyKind, Target, TargetKind, WorkspaceError};
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// One `Cargo.toml`, read but not yet tied to a workspace.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// The manifest file, absolute and normalized.
    pub path: PathBuf,
    /// The folder holding it: the package root.
    pub dir: PathBuf,
    /// `[package]`, absent in a virtual manifest.
    pub package: Option<Package>,
    /// `[workspace]`, when this manifest is a workspace root.
    pub workspace: Option<WorkspaceSection>,
    /// Dependencies that name a path, a registry version or inherit from the workspace, of every
    /// kind and platform.
    pub dependencies: Vec<DependencySpec>,
    pub(super) table: Table,
}

/// The parts of `[package]` that decide targets and workspace membership.
#[derive(Debug, Clone)]
pub struct Package {
    /// `package.name`.
    pub name: String,
    /// `package.edition` when written out; `None` when inherited or absent.
    pub edition: Option<String>,
    /// Whether `edition.workspace = true`.
    pub edition_inherited: bool,
    /// `package.workspace`: the workspace root folder, when the package names it.
    pub workspace: Option<PathBuf>,
}

/// `[workspace]` of a root manifest.
#[derive(Debug, Clone, Default)]
pub struct WorkspaceSection {
    /// `members`, as written (globs unexpanded).
    pub members: Vec<String>,
    /// `exclude`, as written.
    pub exclude: Vec<String>,
    /// `[workspace.dependencies]` entries with a path or a registry version, paths resolved
    /// against the root folder.
    pub dependencies: Vec<DependencySpec>,
    /// `[workspace.package] edition`, inherited by members that ask for it.
    pub edition: Option<String>,
}

/// One dependency entry that matters for finding crates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DependencySpec {
    /// The key in the dependency table: the name the crate is known by in code, before `-` → `_`.
    pub key: String,
    /// `package = "..."`: the real package name when the key renames it.
    pub package: Option<String>,
    /// Which table it is in.
    pub kind: DependencyKind,
    /// The `cfg(...)` or triple of a `[target.'...'.dependencies]` table.
    pub platform: Option<String>,
    /// Where it comes from.
    pub source: DependencySource,
}

/// Where a dependency entry points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DependencySource {
    /// `path = "..."`: the dependency's package folder, absolute and normalized.
    Path(PathBuf),
    /// `workspace = true`: look the key up in `[workspace.dependencies]`.
    Workspace,
    /// `name = "1.2"` or `version = "1.2"` without a path or git source: a package of the
    /// crates.io registry, by its version requirement.
    Registry(String),
    /// `git = "https://.."`: a repository cargo checks out under its home, by URL.
    Git(String),
}

impl Manifest {
    /// Reads and parses a manifest; `path` must name the `Cargo.toml` file itself.
    pub fn read(path: &Path) -> Result<Manifest, WorkspaceError> {
        let path = normalize(path);
        let text = std::fs::read_to_string(&path).map_err(|err| WorkspaceError::Io {
            path: path.clone(),
            message: format!("cannot read the manifest: {}", io_reason(&err)),
        })?;
        Manifest::parse(&path, &text)
    }

    /// Parses manifest text as if read from `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Manifest, WorkspaceError> {
        let path = normalize(path);
        let invalid = |message: String| WorkspaceError::Manifest {
            path: path.clone(),
            message,
        };
        let table: Table = text
            .parse()
            .map_err(|err: toml::de::Error| invalid(format!("invalid TOML: {}", err.message())))?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let package = match table.get("package") {
            None => None,
            Some(Value::Table(package)) => {
                let name = match package.get("name") {
                    Some(Value::String(name)) if !name.is_empty() => name.clone(),
                    _ => return Err(invalid("`[package]` has no `name`".to_string())),
                };
                Some(Package {
                    name,
                    edition: package.get("edition").and_then(Value::as_str).map(str::to_string),
                    edition_inherited: inherits(package.get("edition")),
                    workspace: package
                        .get("workspace")
                        .and_then(Value::as_str)
                        .map(|p| normalize(&dir.join(p))),
                })
            }
            Some(_) => return Err(invalid("`package` is not a table".to_string())),
        };
        let workspace = match table.get("workspace") {
            None => None,
            Some(Value::Table(ws)) => Some(WorkspaceSection {
                members: strings(ws.get("members")),
                exclude: strings(ws.get("exclude")),
                dependencies: ws
                    .get("dependencies")
                    .and_then(Value::as_table)
                    .map(|deps| dependency_table(deps, &dir, DependencyKind::Normal, None))
                    .unwrap_or_default(),
                edition: ws
                    .get("package")
                    .and_then(|p| p.get("edition"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
            }),
            Some(_) => return Err(invalid("`workspace` is not a table".to_string())),
        };
        if package.is_none() && workspace.is_none() {
            return Err(invalid("neither `[package]` nor `[workspace]` is present".to_string()));
        }
        let dependencies = if package.is_some() {
            all_dependencies(&table, &dir)
        } else {
            Vec::new()
        };
        Ok(Manifest {
            path,
            dir,
            package,
            workspace,
            dependencies,
            table,
        })
    }

    /// The package's name, if it is a package.
    pub fn package_name(&self) -> Option<&str> {
        self.package.as_ref().map(|p| p.name.as_str())
    }

    /// The name its library is linked under: `[lib] name`, else the package name with `-` → `_`.
    pub fn lib_crate_name(&self) -> Option<String> {
        let explicit = self
            .table
            .get("lib")
            .and_then(|lib| lib.get("name"))
            .and_then(Value::as_str);
        explicit
            .map(str::to_string)
            .or_else(|| self.package_name().map(crate_name))
    }

    /// The package's targets with cargo's defaults and auto-discovery (`workspace_edition`: the root's).
    pub fn targets(&self, workspace_edition: Option<&str>) -> Vec<Target> {
        let Some(package) = &self.package else {
            return Vec::new();
        };
        let edition = match (&package.edition, package.edition_inherited) {
            (Some(edition), _) => edition.as_str(),
            (None, true) => workspace_edition.unwrap_or("2015"),
            (None, false) => "2015",
        };
        let section = self.table.get("package").and_then(Value::as_table);
        let auto = |key: &str| section.and_then(|s| s.get(key)).and_then(Value::as_bool);
        let mut targets = Vec::new();
        targets.extend(self.lib_target(auto("autolib")));

        let mut main = Vec::new();
        if self.dir.join("src/main.rs").is_file() {
            main.push((package.name.clone(), self.dir.join("src/main.rs")));
        }
        main.extend(infer_from_directory(&self.dir.join("src/bin")));
        let kinds = [
            (TargetKind::Bin, "bin", "autobins", main),
            (
                TargetKind::Example,
                "example",
                "autoexamples",
                infer_from_directory(&self.dir.join("examples")),
            ),
            (
                TargetKind::Test,
                "test",
                "autotests",
                infer_from_directory(&self.dir.join("tests")),
            ),
            (
                TargetKind::Bench,
                "bench",
                "autobenches",
                infer_from_directory(&self.dir.join("benches")),
            ),
        ];
        for (kind, key, auto_key, inferred) in kinds {
            targets.extend(self.kind_targets(kind, key, auto(auto_key), edition, inferred));
        }
        targets.extend(self.build_script());
        targets
    }

    fn lib_target(&self, autolib: Option<bool>) -> Option<Target> {
        let default = self.dir.join("src/lib.rs");
        let name = self.lib_crate_name()?;
        match self.table.get("lib").and_then(Value::as_table) {
            Some(lib) => {
                let root = lib
                    .get("path")
                    .and_then(Value::as_str)
                    .map_or(default, |p| normalize(&self.dir.join(p)));
                let mut lib_target = target(TargetKind::Lib, name, root);
                lib_target.crate_types = crate_types(lib).unwrap_or(lib_target.crate_types);
                Some(lib_target)
            }
            None if autolib != Some(false) && default.is_file() => Some(target(TargetKind::Lib, name, default)),
            None => None,
        }
    }

    /// Explicit `[[bin]]`-style entries, then the inferred ones whose name and path are not taken.
    fn kind_targets(
        &self,
        kind: TargetKind,
        key: &str,
        auto: Option<bool>,
        edition: &str,
        inferred: Vec<(String, PathBuf)>,
    ) -> Vec<Target> {
        let explicit: Vec<&Table> = self
            .table
            .get(key)
            .and_then(Value::as_array)
            .map(|entries| entries.iter().filter_map(Value::as_table).collect())
            .unwrap_or_default();
        if explicit.is_empty() {
            return if auto == Some(false) {
                Vec::new()
            } else {
                inferred
                    .into_iter()
                    .map(|(name, root)| target(kind, name, root))
                    .collect()
            };
        }
        let mut out = Vec::new();
        let mut taken_paths = Vec::new();
        for entry in explicit {
            let declared_path = entry.get("path").and_then(Value::as_str);
            let name = match (entry.get("name").and_then(Value::as_str), declared_path) {
                (Some(name), _) => name.to_string(),
                // Cargo insists on a name; the file stem is the name it would suggest.
                (None, Some(path)) => match Path::new(path).file_stem().and_then(|s| s.to_str()) {
                    Some(stem) => stem.to_string(),
                    None => continue,
                },
                (None, None) => continue,
            };
            let root = match declared_path {
                Some(path) => {
                    let root = normalize(&self.dir.join(path));
                    taken_paths.push(root.clone());
                    root
                }
                None => self.default_target_path(kind, &name, &inferred),
            };
            let mut explicit_target = target(kind, name, root);
            explicit_target.crate_types = crate_types(entry).unwrap_or(explicit_target.crate_types);
            out.push(explicit_target);
        }
        // Edition 2015 turns inference off as soon as one target of the kind is listed.
        let discover = auto.unwrap_or(edition != "2015");
        if discover {
            for (name, root) in inferred {
                if !out.iter().any(|t| t.name == name) && !taken_paths.contains(&root) {
                    out.push(target(kind, name, root));
                }
            }
        }
        out
    }

    /// Where an explicit target without `path` lives: the inferred file of that name, else the
    /// conventional spot (which may not exist, and is then reported).
    fn default_target_path(&self, kind: TargetKind, name: &str, inferred: &[(String, PathBuf)]) -> PathBuf {
        if let Some((_, path)) = inferred.iter().find(|(n, _)| n == name) {
            return path.clone();
        }
        let folder = match kind {
            TargetKind::Bin => "src/bin",
            TargetKind::Example => "examples",
            TargetKind::Test => "tests",
            TargetKind::Bench => "benches",
            TargetKind::Lib | TargetKind::BuildScript => "src",
        };
        let file = self.dir.join(folder).join(format!("{name}.rs"));
        let nested = self.dir.join(folder).join(name).join("main.rs");
        if !file.is_file() && nested.is_file() {
            nested
        } else {
            file
        }
    }

    fn build_script(&self) -> Option<Target> {
        let package = self.table.get("package")?;
        let root = match package.get("build") {
            Some(Value::String(path)) => normalize(&self.dir.join(path)),
            Some(Value::Boolean(false)) => return None,
            _ => Some(self.dir.join("build.rs")).filter(|p| p.is_file())?,
        };
        // Cargo names the target after the script's file stem.
        let stem = root
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Some(target(TargetKind::BuildScript, format!("build-script-{stem}"), root))
    }
}

/// A package or target name as it appears in Rust paths.
pub fn crate_name(name: &str) -> String {
    name.replace('-', "_")
}

fn target(kind: TargetKind, name: String, root: PathBuf) -> Target {
    let default_type = if kind == TargetKind::Lib { "lib" } else { "bin" };
    Target {
        kind,
        crate_name: crate_name(&name),
        name,
        root,
        crate_types: vec![default_type.to_string()],
    }
}

/// `crate-type = [...]`, or `proc-macro = true`, of a target table.
fn crate_types(entry: &Table) -> Option<Vec<String>> {
    let proc_macro = ["proc-macro", "proc_macro"]
        .iter()
        .any(|key| entry.get(*key).and_then(Value::as_bool) == Some(true));
    if proc_macro {
        return Some(vec!["proc-macro".to_string()]);
    }
    let types = entry.get("crate-type").or_else(|| entry.get("crate_type"))?;
    Some(strings(Some(types)))
}

/// Targets cargo infers from a folder: `*.rs` files and subfolders holding `main.rs`, by name.
fn infer_from_directory(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for (name, path, kind) in sorted_entries(dir) {
        match kind {
            EntryKind::File => {
                if let Some(stem) = name.strip_suffix(".rs") {
                    out.push((stem.to_string(), path));
                }
            }
            EntryKind::Dir if path.join("main.rs").is_file() => out.push((name, path.join("main.rs"))),
            _ => {}
        }
    }
    out
}

fn inherits(value: Option<&Value>) -> bool {
    value
        .and_then(|v| v.get("workspace"))
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}

/// Every path, registry or workspace-inherited dependency: top-level tables first, then by
/// platform; by kind and key within each.
fn all_dependencies(table: &Table, dir: &Path) -> Vec<DependencySpec> {
    let mut out = Vec::new();
    let mut collect = |section: &Table, platform: Option<&str>| {
        for (names, kind) in [
            (&["dependencies"][..], DependencyKind::Normal),
            (&["dev-dependencies", "dev_dependencies"][..], DependencyKind::Dev),
            (&["build-dependencies", "build_dependencies"][..], DependencyKind::Build),
        ] {
            for name in names {
                if let Some(deps) = section.get(*name).and_then(Value::as_table) {
                    out.extend(dependency_table(deps, dir, kind, platform));
                }
            }
        }
    };
    collect(table, None);
    if let Some(platforms) = table.get("target").and_then(Value::as_table) {
        for (platform, section) in platforms {
            if let Some(section) = section.as_table() {
                collect(section, Some(platform));
            }
        }
    }
    // One order whether or not the TOML table keeps the document's order.
    out.sort_by(|a, b| (&a.platform, a.kind, &a.key).cmp(&(&b.platform, b.kind, &b.key)));
    out
}

fn dependency_table(deps: &Table, dir: &Path, kind: DependencyKind, platform: Option<&str>) -> Vec<DependencySpec> {
    let mut out = Vec::new();
    for (key, entry) in deps {
        let entry = match entry {
            Value::String(version) => {
                out.push(DependencySpec {
                    key: key.clone(),
                    package: None,
                    kind,
                    platform: platform.map(str::to_string),
                    source: DependencySource::Registry(version.clone()),
                });
                continue;
            }
            Value::Table(entry) => entry,
            _ => continue,
        };
        let source = if let Some(path) = entry.get("path").and_then(Value::as_str) {
            DependencySource::Path(normalize(&dir.join(path)))
        } else if entry.get("workspace").and_then(Value::as_bool) == Some(true) {
            DependencySource::Workspace
        } else if let Some(url) = entry.get("git").and_then(Value::as_str) {
            DependencySource::Git(url.to_string())
        } else if entry.contains_key("registry") {
            // Another registry: not where the local crates.io sources are.
            continue;
        } else {
            let version = entry.get("version").and_then(Value::as_str).unwrap_or("*");
            DependencySource::Registry(version.to_string())
        };
        out.push(DependencySpec {
            key: key.clone(),
            package: entry.get("package").and_then(Value::as_str).map(str::to_string),
            kind,
            platform: platform.map(str::to_string),
            source,
        });
    }
    out
}

/// A short lowercase reason for an I/O failure.
pub fn io_reason(err: &std::io::Error) -> String {
    match err.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => err.to_string(),
    }
}
