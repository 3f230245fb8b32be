//! The discovery engine: workspace members, crates, and the module tree of every target.

use super::manifest::{crate_name, io_reason, DependencySource, Manifest};
use super::modules::{extract, ModItem};
use super::paths::{
    absolute, as_given, display, expand_member, identity, is_glob, normalize, sorted_entries, EntryKind,
};
use super::registry::{is_loaded_from_registry, Registry, RegistrySource};
use super::{
    Crate, CrateLocation, Declaration, DependencyKind, FileProblem, Membership, Options, PathDependency, SourceEntry,
    TargetKind, WarningKind, Workspace, WorkspaceError, WorkspaceWarning,
};
use crate::source::{SourceFile, Span};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Deepest folder nesting walked for files given as a plain folder.
const FOLDER_DEPTH: usize = 32;

/// Everything read so far; one per call of the public API.
pub struct Discovery {
    base: PathBuf,
    max_depth: usize,
    max_memberships: usize,
    manifests: BTreeMap<PathBuf, Result<Rc<Manifest>, WorkspaceError>>,
    members: BTreeMap<PathBuf, Vec<PathBuf>>,
    walked: BTreeSet<PathBuf>,
    roots: Vec<PathBuf>,
    crates: Vec<Crate>,
    crate_by_manifest: BTreeMap<PathBuf, usize>,
    files: Vec<SourceEntry>,
    file_index: BTreeMap<PathBuf, usize>,
    items: BTreeMap<PathBuf, Rc<Vec<ModItem>>>,
    warnings: Vec<WorkspaceWarning>,
    warned: BTreeSet<(WarningKind, PathBuf, Option<Span>, String)>,
    membership_count: usize,
    registry: Registry,
    /// The crates.io dependencies of each crate, located: taken once its code names them.
    registry_wanted: BTreeMap<usize, Vec<RegistryWanted>>,
}

/// A crates.io dependency of a crate, and where its source is.
/// Where a dependency that is not a path comes from.
enum Requirement {
    /// crates.io, by version requirement.
    Version(String),
    /// A git repository, by URL.
    Git(String),
}

struct RegistryWanted {
    /// The name the crate's code uses for it: the key when `package =` renames it, else the
    /// package name in Rust spelling until its library's own name is read.
    name: String,
    renamed: bool,
    package: String,
    platform: Option<String>,
    requirement: String,
    source: RegistrySource,
}

/// Who is walking: the crate target (or standalone root) the modules belong to.
struct Walk {
    crate_index: Option<usize>,
    target_index: Option<usize>,
    crate_name: String,
    /// Files being read, innermost last: a `#[path]` back into one of them is a cycle.
    stack: Vec<PathBuf>,
    /// Every file index this walk reached, in order.
    reached: Vec<usize>,
}

/// rustc's module directory: where `mod x;` looks, and the non-mod-rs file name to insert first.
#[derive(Clone)]
struct Place {
    dir: PathBuf,
    relative: Option<String>,
}

/// How a module is reached: its path, the cfgs on the way, its `mod` item and nesting.
#[derive(Clone)]
struct Reach {
    module_path: String,
    cfg: Vec<String>,
    declared_at: Option<Declaration>,
    depth: usize,
}

impl Discovery {
    /// Nothing read yet; paths resolve and display from the options' base folder.
    pub fn new(options: &Options) -> Discovery {
        let base = std::fs::canonicalize(&options.base_dir).unwrap_or_else(|_| normalize(&options.base_dir));
        Discovery {
            base,
            max_depth: options.max_depth,
            max_memberships: options.max_memberships,
            manifests: BTreeMap::new(),
            members: BTreeMap::new(),
            walked: BTreeSet::new(),
            roots: Vec::new(),
            crates: Vec::new(),
            crate_by_manifest: BTreeMap::new(),
            files: Vec::new(),
            file_index: BTreeMap::new(),
            items: BTreeMap::new(),
            warnings: Vec::new(),
            warned: BTreeSet::new(),
            membership_count: 0,
            registry: Registry::new(options.cargo_home.clone()),
            registry_wanted: BTreeMap::new(),
        }
    }

    /// The whole workspace of a manifest (or of the folder holding one).
    pub fn discover(mut self, manifest: &Path) -> Result<Workspace, WorkspaceError> {
        let mut path = identity(manifest, &self.base);
        if path.is_dir() {
            path = identity(&path.join("Cargo.toml"), &self.base);
        }
        let package = self.manifest(&path, false)?;
        let root = self.workspace_root_of(&package);
        self.walk_workspace(&root)?;
        // Path dependencies outside the workspace's folder are read for their items only.
        let folder = root.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut selected: Vec<usize> = (0..self.files.len())
            .filter(|&i| self.files[i].path.starts_with(&folder))
            .collect();
        // Kernel crates are often left out of the host's workspace (`exclude`d, built for the
        // device by a build script): when no member holds a kernel, the packages nested in its
        // folder outside it are read, each through its own tree, as for a folder given.
        let holds_kernel = selected
            .iter()
            .any(|&i| std::fs::read_to_string(&self.files[i].path).is_ok_and(|text| holds_device_code(&text)));
        if !holds_kernel && kernel_file_under(&folder, 0) {
            self.select_nested_packages(&folder, 0, &mut selected);
        }
        Ok(self.finish(&selected, Vec::new(), false))
    }

    /// The files under the given paths; see [`Workspace::for_paths`].
    pub fn for_paths(mut self, paths: &[PathBuf]) -> Workspace {
        let mut selected = Vec::new();
        let mut errors = Vec::new();
        for given in paths {
            let path = absolute(given, &self.base);
            match std::fs::metadata(&path) {
                Err(err) => errors.push(WorkspaceError::NotFound {
                    path: given.clone(),
                    message: io_reason(&err),
                }),
                // A FIFO or device given would block the read: named, never opened.
                Ok(meta) if !meta.is_dir() && !meta.is_file() => errors.push(WorkspaceError::NotFound {
                    path: given.clone(),
                    message: "not a regular file".to_string(),
                }),
                Ok(meta) => {
                    let mut id = identity(&path, &self.base);
                    // A manifest given stands for its package folder.
                    if id.file_name().is_some_and(|name| name == "Cargo.toml") {
                        id.pop();
                    }
                    if meta.is_dir() || !id.is_file() {
                        if self.select_in_trees(&id, &mut selected) {
                            self.select_nested_packages(&id, 0, &mut selected);
                        } else {
                            self.select_folder(&id, 0, &mut selected);
                        }
                    } else {
                        self.select_file(&id, &mut selected);
                    }
                }
            }
        }
        let mut seen = BTreeSet::new();
        selected.retain(|index| seen.insert(*index));
        // A file given by a relative path, or found under a folder given so, is shown as the
        // user wrote its path (`../a/src/lib.rs`); absolute paths keep their usual display.
        for given in paths.iter().filter(|p| p.is_relative()) {
            let mut id = identity(&absolute(given, &self.base), &self.base);
            if id.file_name().is_some_and(|name| name == "Cargo.toml") {
                id.pop();
            }
            let written = as_given(given);
            for &index in &selected {
                let file = &mut self.files[index];
                if file.path == id {
                    file.display = written.clone();
                } else if let Ok(rest) = file.path.strip_prefix(&id) {
                    let rest = as_given(rest);
                    file.display = if written == "." {
                        rest
                    } else {
                        format!("{written}/{rest}")
                    };
                }
            }
        }
        self.finish(&selected, errors, true)
    }

    /// The package and workspace root of a file or folder.
    pub fn locate(&mut self, path: &Path) -> Result<CrateLocation, WorkspaceError> {
        let start = if path.is_dir() {
            path
        } else {
            path.parent().unwrap_or(path)
        };
        for dir in start.ancestors() {
            let candidate = dir.join("Cargo.toml");
            if !candidate.is_file() {
                continue;
            }
            let manifest = self.manifest(&identity(&candidate, &self.base), true)?;
            return Ok(if manifest.package.is_some() {
                CrateLocation {
                    package_manifest: Some(manifest.path.clone()),
                    workspace_manifest: self.workspace_root_of(&manifest),
                }
            } else {
                CrateLocation {
                    package_manifest: None,
                    workspace_manifest: manifest.path.clone(),
                }
            });
        }
        Err(WorkspaceError::NoManifest {
            path: path.to_path_buf(),
            message: "no Cargo.toml in this folder or any folder above it".to_string(),
        })
    }

    fn finish(mut self, selected: &[usize], errors: Vec<WorkspaceError>, filter_warnings: bool) -> Workspace {
        let files: Vec<SourceEntry> = selected
            .iter()
            .filter_map(|&index| self.files.get(index).cloned())
            .map(|mut file| {
                file.standalone = file.memberships.first().is_some_and(|m| m.crate_index.is_none());
                file
            })
            .collect();
        let chosen: BTreeSet<usize> = selected.iter().copied().collect();
        let context: Vec<SourceEntry> = self
            .files
            .iter()
            .enumerate()
            .filter(|(index, file)| {
                !chosen.contains(index) && file.memberships.first().is_some_and(|m| m.crate_index.is_some())
            })
            .map(|(_, file)| file.clone())
            .collect();
        if filter_warnings {
            // Source warnings only for the files asked about; manifest ones always.
            let chosen: BTreeSet<&PathBuf> = files.iter().map(|f| &f.path).collect();
            self.warnings
                .retain(|w| w.kind.is_manifest() || chosen.contains(&w.path));
        }
        Workspace {
            roots: self.roots,
            crates: self.crates,
            files,
            context,
            warnings: self.warnings,
            errors,
        }
    }

    // ---- manifests and members ----

    /// A manifest by canonical path, read once; a failure is warned about when `warn` is set.
    fn manifest(&mut self, path: &Path, warn: bool) -> Result<Rc<Manifest>, WorkspaceError> {
        let result = match self.manifests.get(path) {
            Some(result) => result.clone(),
            None => {
                let result = Manifest::read(path).map(Rc::new);
                self.manifests.insert(path.to_path_buf(), result.clone());
                result
            }
        };
        if let (Err(err), true) = (&result, warn) {
            self.warn(WarningKind::UnreadableManifest, path, None, err.message().to_string());
        }
        result
    }

    /// The root manifest of a package's workspace: itself when it has `[workspace]` or no
    /// ancestor workspace counts it as a member.
    fn workspace_root_of(&mut self, package: &Manifest) -> PathBuf {
        if package.workspace.is_some() || package.package.is_none() {
            return package.path.clone();
        }
        if let Some(dir) = package.package.as_ref().and_then(|p| p.workspace.clone()) {
            let root = identity(&dir.join("Cargo.toml"), &self.base);
            if self.manifest(&root, true).is_ok() {
                return root;
            }
        }
        for dir in package.dir.ancestors().skip(1) {
            let candidate = dir.join("Cargo.toml");
            if !candidate.is_file() {
                continue;
            }
            let candidate = identity(&candidate, &self.base);
            let Ok(manifest) = self.manifest(&candidate, true) else {
                continue;
            };
            if manifest.workspace.is_none() {
                continue;
            }
            if let Ok(members) = self.members_of(&candidate) {
                if members.contains(&package.path) {
                    return candidate;
                }
            }
        }
        package.path.clone()
    }

    /// The member manifests of a workspace root, in cargo's order: `members` as listed (globs
    /// sorted), each followed by its local path dependencies, then the root package.
    fn members_of(&mut self, root_path: &Path) -> Result<Vec<PathBuf>, WorkspaceError> {
        if let Some(members) = self.members.get(root_path) {
            return Ok(members.clone());
        }
        let root = self.manifest(root_path, false)?;
        let mut members = Vec::new();
        if let Some(section) = &root.workspace {
            for pattern in &section.members {
                let dirs = expand_member(&root.dir, pattern);
                if dirs.is_empty() {
                    let message = format!("workspace member pattern `{pattern}` matches no folder");
                    self.warn(WarningKind::MissingMember, &root.path, None, message);
                }
                for dir in dirs {
                    let manifest = dir.join("Cargo.toml");
                    if manifest.is_file() {
                        self.add_member(&root, &manifest, false, &mut members);
                    } else if !self.excluded(&root, &manifest) {
                        let message = format!("workspace member `{}` has no Cargo.toml", display(&dir, &self.base));
                        self.warn(WarningKind::MissingMember, &root.path, None, message);
                    }
                }
            }
        }
        if root.package.is_some() {
            self.add_member(&root, &root.path, false, &mut members);
        }
        self.members.insert(root.path.clone(), members.clone());
        Ok(members)
    }

    fn add_member(&mut self, root: &Manifest, manifest: &Path, is_path_dep: bool, members: &mut Vec<PathBuf>) {
        let path = identity(manifest, &self.base);
        if members.contains(&path) {
            return;
        }
        // Cargo takes in path dependencies only from inside the workspace folder.
        let inside = path.parent().is_some_and(|dir| dir.starts_with(&root.dir));
        if (is_path_dep && !inside) || self.excluded(root, &path) {
            return;
        }
        let Ok(package) = self.manifest(&path, true) else {
            return;
        };
        if package.package.is_none() {
            return;
        }
        members.push(path.clone());
        for spec in &package.dependencies {
            let Some((dir, _)) = self.dependency_dir(spec, root) else {
                continue;
            };
            let dep_manifest = dir.join("Cargo.toml");
            if dep_manifest.is_file() {
                self.add_member(root, &dep_manifest, true, members);
            } else if dir.starts_with(&root.dir) {
                let message = format!(
                    "path dependency `{}` has no Cargo.toml at {}",
                    spec.key,
                    display(&normalize(&dir), &self.base)
                );
                self.warn(WarningKind::MissingPathDependency, &path, None, message);
            }
        }
    }

    /// Whether `exclude` leaves the manifest out, as cargo decides it (an explicit member wins).
    fn excluded(&self, root: &Manifest, manifest: &Path) -> bool {
        let Some(section) = &root.workspace else {
            return false;
        };
        let under = |entry: &String| manifest.starts_with(normalize(&root.dir.join(entry)));
        section.exclude.iter().any(under) && !section.members.iter().filter(|m| !is_glob(m)).any(under)
    }

    /// The folder a path or workspace-inherited dependency points to, and its `package` rename.
    fn dependency_dir(&self, spec: &super::DependencySpec, root: &Manifest) -> Option<(PathBuf, Option<String>)> {
        match &spec.source {
            DependencySource::Path(dir) => Some((dir.clone(), spec.package.clone())),
            DependencySource::Workspace => {
                let inherited = inherited(spec, root)?;
                match &inherited.source {
                    DependencySource::Path(dir) => {
                        Some((dir.clone(), inherited.package.clone().or_else(|| spec.package.clone())))
                    }
                    DependencySource::Workspace | DependencySource::Registry(_) | DependencySource::Git(_) => None,
                }
            }
            DependencySource::Registry(_) | DependencySource::Git(_) => None,
        }
    }

    /// The package and version requirement of a crates.io dependency, also one inherited from
    /// `[workspace.dependencies]`.
    fn registry_requirement(spec: &super::DependencySpec, root: &Manifest) -> Option<(String, Requirement)> {
        let wanted = |source: &DependencySource| match source {
            DependencySource::Registry(requirement) => Some(Requirement::Version(requirement.clone())),
            DependencySource::Git(url) => Some(Requirement::Git(url.clone())),
            _ => None,
        };
        let (requirement, package) = match &spec.source {
            DependencySource::Workspace => {
                let inherited = inherited(spec, root)?;
                let requirement = wanted(&inherited.source)?;
                (requirement, inherited.package.clone().or_else(|| spec.package.clone()))
            }
            source => (wanted(source)?, spec.package.clone()),
        };
        Some((package.unwrap_or_else(|| spec.key.clone()), requirement))
    }

    /// The crates.io and git dependencies of a manifest's normal dependencies, located with the
    /// lock file of the workspace at `lock_dir`.
    fn registry_wanted_of(&mut self, manifest: &Manifest, root: &Manifest, lock_dir: &Path) -> Vec<RegistryWanted> {
        let mut wanted = Vec::new();
        for spec in manifest
            .dependencies
            .iter()
            .filter(|s| s.kind == DependencyKind::Normal)
        {
            let Some((package, requirement)) = Self::registry_requirement(spec, root) else {
                continue;
            };
            let (source, requirement) = match requirement {
                Requirement::Version(v) => (self.registry.locate(lock_dir, &package, &v), v),
                Requirement::Git(url) => (self.registry.locate_git(lock_dir, &package, &url), format!("git {url}")),
            };
            wanted.push(RegistryWanted {
                name: crate_name(&spec.key),
                renamed: spec.package.is_some(),
                package,
                platform: spec.platform.clone(),
                requirement,
                source,
            });
        }
        wanted
    }

    /// The crates of a workspace, registered once each.
    fn crates_of(&mut self, root_path: &Path) -> Result<Vec<usize>, WorkspaceError> {
        let members = self.members_of(root_path)?;
        let root = self.manifest(root_path, false)?;
        let edition = root.workspace.as_ref().and_then(|w| w.edition.clone());
        let mut out = Vec::new();
        for member in members {
            if let Some(&index) = self.crate_by_manifest.get(&member) {
                out.push(index);
                continue;
            }
            let Ok(manifest) = self.manifest(&member, true) else {
                continue;
            };
            let Some(package) = &manifest.package else {
                continue;
            };
            let mut path_dependencies = Vec::new();
            let wanted = self.registry_wanted_of(&manifest, &root, &root.dir);
            for spec in &manifest.dependencies {
                let Some((dir, rename)) = self.dependency_dir(spec, &root) else {
                    continue;
                };
                let dep = self
                    .manifest(&identity(&dir.join("Cargo.toml"), &self.base), false)
                    .ok();
                let package_name = dep
                    .as_ref()
                    .and_then(|m| m.package_name().map(str::to_string))
                    .or_else(|| rename.clone())
                    .unwrap_or_else(|| spec.key.clone());
                // A `package =` rename makes the key the name in code; otherwise the lib's name.
                let name = match (&rename, &dep) {
                    (None, Some(dep)) => dep.lib_crate_name().unwrap_or_else(|| crate_name(&spec.key)),
                    _ => crate_name(&spec.key),
                };
                path_dependencies.push(PathDependency {
                    name,
                    package: package_name,
                    kind: spec.kind,
                    platform: spec.platform.clone(),
                    manifest_dir: identity(&dir, &self.base),
                });
            }
            let index = self.crates.len();
            self.crates.push(Crate {
                name: package.name.clone(),
                manifest_path: manifest.path.clone(),
                manifest_dir: manifest.dir.clone(),
                workspace_root: root.dir.clone(),
                targets: manifest.targets(edition.as_deref()),
                path_dependencies,
            });
            self.crate_by_manifest.insert(member, index);
            self.registry_wanted.insert(index, wanted);
            out.push(index);
        }
        Ok(out)
    }

    /// Registers a workspace's crates and follows every target's module tree, once.
    fn walk_workspace(&mut self, root_path: &Path) -> Result<(), WorkspaceError> {
        if self.walked.contains(root_path) {
            return Ok(());
        }
        let crates = self.crates_of(root_path)?;
        self.walked.insert(root_path.to_path_buf());
        self.roots.push(root_path.to_path_buf());
        for &crate_index in &crates {
            self.walk_crate(crate_index);
        }
        for &crate_index in &crates {
            self.take_registry_dependencies(crate_index);
        }
        // Kernels use types and helpers of the crates they depend on by path: walk those
        // crates' workspaces too (each once), so that their names resolve.
        let dependencies: Vec<PathBuf> = self
            .crates
            .iter()
            .flat_map(|c| &c.path_dependencies)
            .filter(|d| d.kind != DependencyKind::Dev)
            .map(|d| d.manifest_dir.clone())
            .collect();
        for dir in dependencies {
            if self.crates.iter().any(|c| c.manifest_dir == dir) {
                continue;
            }
            if let Ok(location) = self.locate(&dir) {
                // An unreadable dependency was warned about; its names stay unresolved.
                let _ = self.walk_workspace(&location.workspace_manifest);
            }
        }
        Ok(())
    }

    /// Follows the module tree of every target of a registered crate.
    fn walk_crate(&mut self, crate_index: usize) {
        let targets = self.crates[crate_index].targets.clone();
        let manifest = self.crates[crate_index].manifest_path.clone();
        for (target_index, target) in targets.iter().enumerate() {
            if !target.root.is_file() {
                let message = format!(
                    "the {} target `{}` has no root file {}",
                    target.kind.as_str(),
                    target.name,
                    display(&target.root, &self.base)
                );
                self.warn(WarningKind::MissingTargetRoot, &manifest, None, message);
                continue;
            }
            let mut walk = Walk {
                crate_index: Some(crate_index),
                target_index: Some(target_index),
                crate_name: target.crate_name.clone(),
                stack: Vec::new(),
                reached: Vec::new(),
            };
            self.walk_root(&mut walk, &target.root);
        }
    }

    /// The crates.io dependencies that a crate's device code names (`name::` in a file holding
    /// a kernel), loaded from the local registry for their items only: their library's module
    /// tree, and the dependencies it names in turn. Those whose source is not there are one
    /// warning.
    fn take_registry_dependencies(&mut self, crate_index: usize) {
        if self.registry_wanted.get(&crate_index).is_none_or(Vec::is_empty) {
            return;
        }
        // A crate built only for the device (`#![no_std]`, or `no_std` on the device target):
        // every module of it is device code (the kernel's argument types and helpers may live
        // beside the kernel file, not under it), and so is any `no_std` crate it names. In a
        // host crate, `no_std` by a feature or not (CubeCL's kernels are expanded on the
        // host), only the kernel files count.
        let no_std_root = (self.crates[crate_index].lib())
            .and_then(|lib| std::fs::read_to_string(&lib.root).ok())
            .is_some_and(|root| built_for_device(&root));
        let modules: Vec<(String, String)> = (self.files.iter())
            .flat_map(|f| {
                let m = f.memberships.iter().find(|m| m.crate_index == Some(crate_index));
                m.map(|m| (m.module_path.clone(), f.path.clone()))
            })
            .filter_map(|(module, path)| Some((module, std::fs::read_to_string(path).ok()?)))
            .collect();
        let kernel_modules: Vec<&str> = (modules.iter())
            .filter(|(_, text)| holds_device_code(text))
            .map(|(module, _)| module.as_str())
            .collect();
        // CubeCL's `#[cube]` kernels are expanded on the host: a crate of them is a host crate.
        let no_std = no_std_root && modules.iter().any(|(_, text)| compiled_for_device(text));
        let device_code = |module: &str| no_std || kernel_modules.contains(&module);
        let texts: Vec<String> = (modules.iter())
            .filter(|(module, _)| device_code(module))
            .map(|(_, text)| text.clone())
            .collect();
        let lock_dir = self.crates[crate_index].workspace_root.clone();
        self.load_registry_dependencies(crate_index, &texts, &lock_dir, no_std, 0);
    }

    /// Loads the registry dependencies of crate `crate_index` that `texts` name and that are
    /// written for a device (any `no_std` one too, for a crate compiled for the device);
    /// `depth` counts the registry crates on the way (a re-exported dependency of a registry
    /// crate is loaded too, a few levels deep).
    fn load_registry_dependencies(
        &mut self,
        crate_index: usize,
        texts: &[String],
        lock_dir: &Path,
        device_crate: bool,
        depth: usize,
    ) {
        let wanted = self.registry_wanted.remove(&crate_index).unwrap_or_default();
        if wanted.is_empty() || texts.is_empty() {
            return;
        }
        let named = |name: &str| {
            texts.iter().any(|t| {
                t.match_indices(name).any(|(at, _)| {
                    let before = t[..at].chars().next_back();
                    let boundary = !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
                    boundary && t[at + name.len()..].starts_with("::")
                })
            })
        };
        let manifest = self.crates[crate_index].manifest_path.clone();
        let mut absent = Vec::new();
        for dependency in wanted {
            let dir = match dependency.source {
                RegistrySource::Found { dir, .. } => dir,
                _ if !named(&dependency.name) || !is_loaded_from_registry(&dependency.name) => continue,
                RegistrySource::Absent { version } => {
                    absent.push(format!("`{}` {version}", dependency.package));
                    continue;
                }
                RegistrySource::Unknown => {
                    absent.push(format!("`{}` (`{}`)", dependency.package, dependency.requirement));
                    continue;
                }
            };
            let Ok(dep) = self.manifest(&dir.join("Cargo.toml"), false) else {
                continue;
            };
            let Some(lib) = dep.targets(None).into_iter().find(|t| t.kind == TargetKind::Lib) else {
                continue;
            };
            let name = if dependency.renamed {
                dependency.name.clone()
            } else {
                lib.crate_name.clone()
            };
            let proc_macro = lib.crate_types.iter().any(|t| t == "proc-macro");
            let root_text = std::fs::read_to_string(&lib.root).unwrap_or_default();
            let device = written_for_device(&dep) || (device_crate && declares_no_std(&root_text));
            if proc_macro || !device || !is_loaded_from_registry(&lib.crate_name) || !named(&name) {
                continue;
            }
            let index = match self.crate_by_manifest.get(&dep.path) {
                Some(&index) => index,
                None => {
                    let index = self.crates.len();
                    self.crates.push(Crate {
                        name: dep.package_name().unwrap_or(&dependency.package).to_string(),
                        manifest_path: dep.path.clone(),
                        manifest_dir: dep.dir.clone(),
                        workspace_root: dep.dir.clone(),
                        targets: vec![lib],
                        path_dependencies: Vec::new(),
                    });
                    self.crate_by_manifest.insert(dep.path.clone(), index);
                    self.walk_crate(index);
                    // What its root re-exports of its own dependencies (`num::traits` is
                    // `num_traits`) is part of the names kernels use.
                    if depth < MAX_REGISTRY_DEPTH {
                        let nested = self.registry_wanted_of(&dep, &dep, lock_dir);
                        self.registry_wanted.insert(index, nested);
                        self.load_registry_dependencies(
                            index,
                            std::slice::from_ref(&root_text),
                            lock_dir,
                            device_crate,
                            depth + 1,
                        );
                    }
                    index
                }
            };
            let package = self.crates[index].name.clone();
            let known = self.crates[crate_index]
                .path_dependencies
                .iter()
                .any(|d| d.manifest_dir == dep.dir && d.name == name);
            if known {
                continue;
            }
            self.crates[crate_index].path_dependencies.push(PathDependency {
                name,
                package,
                kind: DependencyKind::Normal,
                platform: dependency.platform,
                manifest_dir: dep.dir.clone(),
            });
        }
        absent.sort();
        absent.dedup();
        // A registry crate's own dependencies are its build's business, not the user's.
        if !absent.is_empty() && depth == 0 {
            let (them, are) = if absent.len() == 1 {
                ("it", "is")
            } else {
                ("them", "are")
            };
            let message = format!(
                "{} {are} named by device code and not in the local cargo registry: what kernels use of {them} stays unknown (`cargo fetch` brings {them})",
                absent.join(", ")
            );
            self.warn(WarningKind::MissingRegistrySource, &manifest, None, message);
        }
    }

    // ---- selection for paths given ----

    /// Selects the module-tree files under a folder from its workspace; false when there are none.
    fn select_in_trees(&mut self, dir: &Path, selected: &mut Vec<usize>) -> bool {
        let Ok(location) = self.locate(dir) else {
            return false;
        };
        if self.walk_workspace(&location.workspace_manifest).is_err() {
            return false;
        }
        let before = selected.len();
        for (index, file) in self.files.iter().enumerate() {
            let in_tree = file.memberships.iter().any(|m| m.crate_index.is_some());
            if in_tree && file.path.starts_with(dir) {
                selected.push(index);
            }
        }
        selected.len() > before
    }

    /// Packages nested in a selected package's folder but outside its workspace, such as a
    /// kernel crate that the host crate's build script compiles: each through its own tree.
    fn select_nested_packages(&mut self, dir: &Path, depth: usize, selected: &mut Vec<usize>) {
        if depth >= FOLDER_DEPTH {
            return;
        }
        for (name, path, kind) in sorted_entries(dir) {
            if name.starts_with('.') || name == "target" || !matches!(kind, EntryKind::Dir) {
                continue;
            }
            let path = identity(&path, &self.base);
            let reached = selected.iter().any(|&i| self.files[i].path.starts_with(&path));
            if path.join("Cargo.toml").is_file() && !reached && self.select_in_trees(&path, selected) {
                continue;
            }
            self.select_nested_packages(&path, depth + 1, selected);
        }
    }

    /// A folder no module tree reaches into: its packages through their trees, its other `.rs`
    /// files as standalone roots. Hidden folders and `target` are skipped.
    fn select_folder(&mut self, dir: &Path, depth: usize, selected: &mut Vec<usize>) {
        for (name, path, kind) in sorted_entries(dir) {
            if name.starts_with('.') {
                continue;
            }
            match kind {
                EntryKind::Dir if name != "target" && depth < FOLDER_DEPTH => {
                    let path = identity(&path, &self.base);
                    let has_manifest = path.join("Cargo.toml").is_file();
                    if !has_manifest || !self.select_in_trees(&path, selected) {
                        self.select_folder(&path, depth + 1, selected);
                    }
                }
                EntryKind::File if name.ends_with(".rs") => {
                    let path = identity(&path, &self.base);
                    self.select_reached_or_standalone(&path, selected);
                }
                _ => {}
            }
        }
    }

    /// A file given by path: from its workspace's trees, else as a standalone root.
    fn select_file(&mut self, path: &Path, selected: &mut Vec<usize>) {
        if let Ok(location) = self.locate(path) {
            // An unreadable root was warned about; the file is then standalone.
            let _ = self.walk_workspace(&location.workspace_manifest);
        }
        self.select_reached_or_standalone(path, selected);
    }

    fn select_reached_or_standalone(&mut self, path: &Path, selected: &mut Vec<usize>) {
        let reached = self
            .file_index
            .get(path)
            .copied()
            .filter(|&index| !self.files[index].memberships.is_empty());
        match reached {
            Some(index) => selected.push(index),
            None => {
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let mut walk = Walk {
                    crate_index: None,
                    target_index: None,
                    crate_name: crate_name(&stem),
                    stack: Vec::new(),
                    reached: Vec::new(),
                };
                self.walk_root(&mut walk, path);
                selected.extend(walk.reached);
            }
        }
    }

    // ---- module trees ----

    fn walk_root(&mut self, walk: &mut Walk, root: &Path) {
        let place = Place {
            dir: root.parent().map(Path::to_path_buf).unwrap_or_default(),
            relative: None,
        };
        let reach = Reach {
            module_path: "crate".to_string(),
            cfg: Vec::new(),
            declared_at: None,
            depth: 0,
        };
        self.visit_file(walk, root, &place, &reach);
    }

    /// Records a file as the module `reach` describes and follows its `mod` items.
    fn visit_file(&mut self, walk: &mut Walk, file: &Path, place: &Place, reach: &Reach) {
        if self.membership_count >= self.max_memberships {
            let message = format!("stopped after {} modules", self.max_memberships);
            let at = reach
                .declared_at
                .as_ref()
                .map(|d| d.path.clone())
                .unwrap_or_else(|| file.to_path_buf());
            self.warn(WarningKind::MembershipLimit, &at, None, message);
            return;
        }
        let id = identity(file, &self.base);
        let index = self.entry(&id);
        let membership = Membership {
            crate_index: walk.crate_index,
            target_index: walk.target_index,
            crate_name: walk.crate_name.clone(),
            module_path: reach.module_path.clone(),
            declared_at: reach.declared_at.clone(),
            cfg: reach.cfg.clone(),
        };
        let known = self.files[index].memberships.iter().any(|m| {
            (m.crate_index, m.target_index, &m.module_path, &m.crate_name)
                == (
                    walk.crate_index,
                    walk.target_index,
                    &reach.module_path,
                    &walk.crate_name,
                )
        });
        if known {
            return;
        }
        self.files[index].memberships.push(membership);
        self.membership_count += 1;
        walk.reached.push(index);
        let items = self.items.get(&id).cloned().unwrap_or_default();
        walk.stack.push(id.clone());
        for item in items.iter() {
            self.visit_item(walk, item, &id, place, reach);
        }
        walk.stack.pop();
    }

    /// Follows one `mod` item declared in `file`, whose module is at `place` and `reach`.
    fn visit_item(&mut self, walk: &mut Walk, item: &ModItem, file: &Path, place: &Place, parent: &Reach) {
        if let Some(included) = &item.include {
            self.visit_include(walk, included, item, file, parent);
            return;
        }
        if parent.depth + 1 > self.max_depth {
            let message = format!(
                "modules nest deeper than {}; `{}` is not followed",
                self.max_depth, item.ident
            );
            self.warn(WarningKind::DepthLimit, file, Some(item.span), message);
            return;
        }
        let module_path = format!("{}::{}", parent.module_path, item.ident);
        let mut cfg = parent.cfg.clone();
        cfg.extend(item.cfg.iter().cloned());
        let reach = |extra: Option<&String>, declared_at: Option<Declaration>| Reach {
            module_path: module_path.clone(),
            cfg: cfg.iter().chain(extra).cloned().collect(),
            declared_at,
            depth: parent.depth + 1,
        };
        if let Some(body) = &item.body {
            // An inline module is a directory level: its name, or its `#[path]` as a folder.
            let own = match &item.path {
                Some(path) => place.dir.join(path),
                None => {
                    let mut dir = place.dir.clone();
                    dir.extend(&place.relative);
                    dir.join(&item.name)
                }
            };
            let mut places = vec![(own, None)];
            places.extend(
                item.cfg_paths
                    .iter()
                    .map(|(pred, path)| (place.dir.join(path), Some(pred))),
            );
            let mut seen = BTreeSet::new();
            for (dir, extra) in places {
                if !seen.insert(normalize(&dir)) {
                    continue;
                }
                let inner = Place { dir, relative: None };
                let inner_reach = reach(extra, parent.declared_at.clone());
                for child in body {
                    self.visit_item(walk, child, file, &inner, &inner_reach);
                }
            }
            return;
        }
        let mut tried = Vec::new();
        let mut found: Vec<(PathBuf, Place, Option<&String>)> = Vec::new();
        match &item.path {
            // `#[path]` is relative to the declaring file's folder; the file acts as a mod.rs.
            Some(path) => {
                let candidate = place.dir.join(path);
                if candidate.is_file() {
                    found.push((candidate.clone(), mod_rs_place(&candidate), None));
                }
                tried.push(candidate);
            }
            None => {
                let mut dir = place.dir.clone();
                dir.extend(&place.relative);
                let flat = dir.join(format!("{}.rs", item.name));
                let nested = dir.join(&item.name).join("mod.rs");
                match (flat.is_file(), nested.is_file()) {
                    (true, nested_too) => {
                        if nested_too {
                            let message = format!(
                                "both {} and {} exist for module `{}`; rustc rejects this, {} is taken",
                                self.shown(&flat),
                                self.shown(&nested),
                                item.ident,
                                self.shown(&flat)
                            );
                            self.warn(WarningKind::AmbiguousModuleFile, file, Some(item.span), message);
                        }
                        let child = Place {
                            dir,
                            relative: Some(item.name.clone()),
                        };
                        found.push((flat.clone(), child, None));
                    }
                    (false, true) => found.push((nested.clone(), mod_rs_place(&nested), None)),
                    (false, false) => {}
                }
                tried.push(flat);
                tried.push(nested);
            }
        }
        for (pred, path) in &item.cfg_paths {
            let candidate = place.dir.join(path);
            if candidate.is_file() {
                found.push((candidate.clone(), mod_rs_place(&candidate), Some(pred)));
            } else {
                tried.push(candidate);
            }
        }
        if found.is_empty() {
            let looked: Vec<String> = tried.iter().map(|p| self.shown(p)).collect();
            let message = format!(
                "no file for module `{}`: looked for {}",
                item.ident,
                looked.join(" and ")
            );
            self.warn(WarningKind::MissingModuleFile, file, Some(item.span), message);
            return;
        }
        let declared_at = Declaration {
            path: file.to_path_buf(),
            display: display(file, &self.base),
            span: item.span,
        };
        let mut seen = BTreeSet::new();
        for (candidate, child_place, extra) in found {
            let id = identity(&candidate, &self.base);
            if !seen.insert(id.clone()) {
                continue;
            }
            if walk.stack.contains(&id) {
                let message = format!(
                    "module `{}` leads back to {}, which is already being read; not followed again",
                    item.ident,
                    display(&id, &self.base)
                );
                self.warn(WarningKind::ModuleCycle, file, Some(item.span), message);
                continue;
            }
            self.visit_file(walk, &candidate, &child_place, &reach(extra, Some(declared_at.clone())));
        }
    }

    /// Follows `include!("x.rs")` written in `file`: `x.rs` (relative to `file`'s folder) is
    /// part of the same module, so it is recorded with the including module's path; its own
    /// `mod` items are looked for from its folder, as from a `mod.rs` (rustc's rule).
    fn visit_include(&mut self, walk: &mut Walk, included: &str, item: &ModItem, file: &Path, parent: &Reach) {
        let candidate = file.parent().unwrap_or(Path::new("")).join(included);
        if !candidate.is_file() {
            let message = format!(
                "no file for `include!(\"{included}\")`: looked for {}",
                self.shown(&candidate)
            );
            self.warn(WarningKind::MissingModuleFile, file, Some(item.span), message);
            return;
        }
        let id = identity(&candidate, &self.base);
        if walk.stack.contains(&id) {
            let message = format!(
                "`include!(\"{included}\")` leads back to {}, which is already being read; not followed again",
                display(&id, &self.base)
            );
            self.warn(WarningKind::ModuleCycle, file, Some(item.span), message);
            return;
        }
        let reach = Reach {
            module_path: parent.module_path.clone(),
            cfg: parent.cfg.iter().chain(&item.cfg).cloned().collect(),
            declared_at: Some(Declaration {
                path: file.to_path_buf(),
                display: display(file, &self.base),
                span: item.span,
            }),
            depth: parent.depth,
        };
        self.visit_file(walk, &candidate, &mod_rs_place(&candidate), &reach);
    }

    /// The entry of a file, read and parsed the first time it is reached.
    fn entry(&mut self, id: &Path) -> usize {
        if let Some(&index) = self.file_index.get(id) {
            return index;
        }
        let shown = display(id, &self.base);
        // A FIFO or device would block the read or never end; a huge file would stall it.
        let refused = match std::fs::metadata(id) {
            Ok(meta) if !meta.is_file() => Some("not a regular file".to_string()),
            Ok(meta) => crate::budget::over_size_limit(meta.len()),
            Err(_) => None,
        };
        let read = match refused {
            Some(message) => Err(Err(message)),
            None => std::fs::read(id).map_err(Ok),
        };
        let (items, problem) = match read {
            Err(Err(message)) => (Vec::new(), Some(FileProblem { message, span: None })),
            Err(Ok(err)) => (
                Vec::new(),
                Some(FileProblem {
                    message: format!("cannot read the file: {}", io_reason(&err)),
                    span: None,
                }),
            ),
            Ok(bytes) => match String::from_utf8(bytes) {
                Err(err) => (
                    Vec::new(),
                    Some(FileProblem {
                        message: format!("file is not valid UTF-8 (at byte {})", err.utf8_error().valid_up_to()),
                        span: None,
                    }),
                ),
                Ok(text) => extract(&SourceFile::new(shown.clone(), text)),
            },
        };
        let index = self.files.len();
        self.files.push(SourceEntry {
            path: id.to_path_buf(),
            display: shown,
            standalone: false,
            memberships: Vec::new(),
            problem,
        });
        self.file_index.insert(id.to_path_buf(), index);
        self.items.insert(id.to_path_buf(), Rc::new(items));
        index
    }

    /// A path as printed in messages: its identity relative to the base.
    fn shown(&self, path: &Path) -> String {
        display(&identity(path, &self.base), &self.base)
    }

    fn warn(&mut self, kind: WarningKind, path: &Path, span: Option<Span>, message: String) {
        if !self.warned.insert((kind, path.to_path_buf(), span, message.clone())) {
            return;
        }
        self.warnings.push(WorkspaceWarning {
            kind,
            path: path.to_path_buf(),
            display: display(path, &self.base),
            span,
            message,
        });
    }
}

/// The `[workspace.dependencies]` entry a `workspace = true` dependency inherits.
fn inherited<'m>(spec: &super::DependencySpec, root: &'m Manifest) -> Option<&'m super::DependencySpec> {
    (root.workspace.as_ref()?.dependencies.iter()).find(|d| d.key == spec.key)
}

/// Whether a crates.io package is written for GPU code: a feature, a dependency or a target
/// table of its manifest names a GPU target or dialect (`cuda = []`, `spirv-std`,
/// `cfg(target_arch = "spirv")`). Only those are read: a general-purpose crate (`itertools`,
/// `serde`) has nothing kernels index through, and reading it would cost every run.
fn written_for_device(manifest: &Manifest) -> bool {
    let gpu = |text: &str| {
        let text = text.to_ascii_lowercase();
        ["spirv", "nvptx", "cuda", "cubecl", "ptx"]
            .iter()
            .any(|w| text.contains(w))
    };
    let table = |key: &str| manifest.table.get(key).and_then(toml::Value::as_table);
    let features = table("features").into_iter().flatten().any(|(name, enables)| {
        gpu(name)
            || enables
                .as_array()
                .is_some_and(|a| a.iter().filter_map(toml::Value::as_str).any(gpu))
    });
    let dependencies = manifest.dependencies.iter().any(|d| gpu(&d.key));
    let targets = table("target").into_iter().flatten().any(|(platform, _)| gpu(platform));
    features || dependencies || targets
}

/// Whether a `.rs` file under `dir` (hidden folders and `target` skipped) holds a kernel.
fn kernel_file_under(dir: &Path, depth: usize) -> bool {
    sorted_entries(dir).into_iter().any(|(name, path, kind)| match kind {
        _ if name.starts_with('.') => false,
        EntryKind::Dir => name != "target" && depth < FOLDER_DEPTH && kernel_file_under(&path, depth + 1),
        EntryKind::File => {
            name.ends_with(".rs") && std::fs::read_to_string(&path).is_ok_and(|text| holds_device_code(&text))
        }
        _ => false,
    })
}

/// How many registry crates deep the dependencies a registry crate re-exports are loaded.
const MAX_REGISTRY_DEPTH: usize = 2;

/// Whether a library's root file makes it a device crate: `#![no_std]` plainly, or under a
/// `cfg_attr` on the target (`target_arch = "spirv"`, `target_os = "cuda"`), not a feature.
fn built_for_device(root: &str) -> bool {
    root.lines().map(str::trim).any(|line| {
        line.starts_with("#![")
            && line.contains("no_std")
            && !line.starts_with("#![doc")
            && (line.starts_with("#![no_std]") || line.contains("target_arch") || line.contains("target_os"))
    })
}

/// Whether a library's root file declares `#![no_std]`, plainly or under a `cfg_attr`: a crate
/// device code can use.
fn declares_no_std(root: &str) -> bool {
    root.lines().map(str::trim).any(|line| {
        line.starts_with("#![") && line.contains("no_std") && !line.contains("no_std_") && !line.starts_with("#![doc")
    })
}

/// Whether a file's text may hold a kernel rustc compiles for the device (`#[kernel]`,
/// `extern "ptx-kernel"`, `#[spirv(..)]`), not CubeCL's host-expanded `#[cube]`.
fn compiled_for_device(text: &str) -> bool {
    ["kernel]", "kernel)]", "spirv(", "ptx-kernel"]
        .iter()
        .any(|marker| text.contains(marker))
}

/// Whether a file's text may hold device code: a kernel attribute or entry point of any dialect
/// (`#[kernel]`, `#[cfg_attr(.., kernel)]`, `#[spirv(compute ..)]`, `#[cube]`, `extern "ptx-kernel"`).
fn holds_device_code(text: &str) -> bool {
    compiled_for_device(text) || text.contains("#[cube")
}

/// The module directory of a file that acts as a `mod.rs`: its own folder.
fn mod_rs_place(file: &Path) -> Place {
    Place {
        dir: file.parent().map(Path::to_path_buf).unwrap_or_default(),
        relative: None,
    }
}
