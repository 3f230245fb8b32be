//! Which source files make up the crates of a cargo workspace, found the way cargo and rustc
//! find them rather than by walking folders.
//!
//! Manifests are read directly (no `cargo metadata`: it needs the pinned toolchain, the network
//! or a whole checkout). Each target's module tree is followed from its root file through `mod`
//! items, `#[path]`, inline modules, `#[cfg]`-gated and `cfg_if!` modules, so a file no crate
//! compiles is never analyzed, and a file two crates share through `#[path]` is analyzed once.
//!
//! Paths given on the command line ([`Workspace::for_paths`]): a file is taken from its
//! workspace's trees, else as a standalone root; a folder gives the tree files under it, and when
//! there are none (a folder of loose kernels) its packages through their trees and its other
//! `.rs` files as standalone roots, skipping hidden folders and `target`.

mod discovery;
mod features;
mod manifest;
mod modules;
/// The `mod` items of a file, with their `#[cfg]`s.
pub(crate) use modules::{extract as mod_items, ModItem};
mod paths;
mod registry;
#[cfg(test)]
mod tests;

use crate::source::Span;
use discovery::Discovery;
use std::fmt;
use std::path::{Path, PathBuf};

pub use features::{enabled_features, CrateFeatures};
pub use manifest::{crate_name, DependencySource, DependencySpec, Manifest, Package, WorkspaceSection};
pub use paths::normalize;
pub use registry::{is_loaded_from_registry, is_registry_source, Registry, RegistrySource, MODELLED_CRATES};

/// How discovery resolves, prints and bounds what it reads.
#[derive(Debug, Clone)]
pub struct Options {
    /// Folder relative paths are resolved against and displayed from (the working directory).
    pub base_dir: PathBuf,
    /// Deepest module nesting followed before a warning stops it.
    pub max_depth: usize,
    /// Most (file, module) memberships recorded before a warning stops the walk.
    pub max_memberships: usize,
    /// The cargo home whose `registry/src` holds the sources of crates.io dependencies
    /// (`None`: they are not read).
    pub cargo_home: Option<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            base_dir: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            max_depth: 64,
            max_memberships: 100_000,
            cargo_home: Registry::default_home(),
        }
    }
}

impl Options {
    /// Default bounds, displaying and resolving paths from `base_dir`.
    pub fn with_base(base_dir: impl Into<PathBuf>) -> Self {
        Options {
            base_dir: base_dir.into(),
            ..Options::default()
        }
    }
}

/// The crates found and the source files their module trees reach, each file once.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    /// Root manifests of the workspaces whose module trees were followed, in the order met.
    pub roots: Vec<PathBuf>,
    /// Every package of those workspaces; memberships point into this list.
    pub crates: Vec<Crate>,
    /// The source files to analyze, deduplicated, in the order first reached.
    pub files: Vec<SourceEntry>,
    /// The other files of the crates walked to reach them: not reported on, but read so that
    /// names resolve as they do in the whole workspace.
    pub context: Vec<SourceEntry>,
    /// Problems that leave the run usable: missing module files, unreadable member manifests.
    pub warnings: Vec<WorkspaceWarning>,
    /// Paths given that could not be used at all (only from [`Workspace::for_paths`]).
    pub errors: Vec<WorkspaceError>,
}

/// One package of a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crate {
    /// `package.name`, as written.
    pub name: String,
    /// Its `Cargo.toml`, canonical.
    pub manifest_path: PathBuf,
    /// The folder of its `Cargo.toml`.
    pub manifest_dir: PathBuf,
    /// The folder of its workspace's root manifest.
    pub workspace_root: PathBuf,
    /// Its targets: lib, bins, examples, tests, benches, build script, in that order.
    pub targets: Vec<Target>,
    /// Its dependencies whose source is read: local packages by path, and the crates.io
    /// packages its device code uses, from the local cargo registry.
    pub path_dependencies: Vec<PathDependency>,
}

impl Crate {
    /// The library target, if it has one.
    pub fn lib(&self) -> Option<&Target> {
        self.targets.iter().find(|t| t.kind == TargetKind::Lib)
    }
}

/// One compiled target of a package: a crate root file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// What it builds.
    pub kind: TargetKind,
    /// Its name as cargo knows it.
    pub name: String,
    /// Its name in Rust paths (`-` → `_`).
    pub crate_name: String,
    /// Its root source file, absolute and normalized (it may be missing; a warning then says so).
    pub root: PathBuf,
    /// `crate-type` (`cdylib`, `rlib`, ...; `proc-macro`), else `lib` for a library and `bin` otherwise.
    pub crate_types: Vec<String>,
}

/// The kinds of cargo target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TargetKind {
    /// `[lib]` or `src/lib.rs`.
    Lib,
    /// `[[bin]]`, `src/main.rs`, `src/bin/*`.
    Bin,
    /// `[[example]]`, `examples/*`.
    Example,
    /// `[[test]]`, `tests/*`.
    Test,
    /// `[[bench]]`, `benches/*`.
    Bench,
    /// `package.build` or `build.rs`.
    BuildScript,
}

impl TargetKind {
    /// The lowercase word cargo uses for it.
    pub fn as_str(self) -> &'static str {
        match self {
            TargetKind::Lib => "lib",
            TargetKind::Bin => "bin",
            TargetKind::Example => "example",
            TargetKind::Test => "test",
            TargetKind::Bench => "bench",
            TargetKind::BuildScript => "build script",
        }
    }
}

/// A dependency whose source is read: a local package through `path = ...` (directly or via
/// the workspace), or a crates.io package in the local cargo registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathDependency {
    /// The name it is used by in code: the renaming key, else the dependency's library name.
    pub name: String,
    /// The depended-on package's real name.
    pub package: String,
    /// Which dependency table it is in.
    pub kind: DependencyKind,
    /// The `[target.'...']` platform it is limited to, if any.
    pub platform: Option<String>,
    /// The depended-on package's folder, canonical when it exists.
    pub manifest_dir: PathBuf,
}

/// The dependency tables of a manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DependencyKind {
    /// `[dependencies]`.
    Normal,
    /// `[dev-dependencies]`.
    Dev,
    /// `[build-dependencies]`.
    Build,
}

/// One source file to analyze, with every module it is reached as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceEntry {
    /// Canonical path: the file's identity.
    pub path: PathBuf,
    /// Path to print: relative to the base folder without `.` or `..`, else absolute.
    pub display: String,
    /// Whether no crate target reaches it: it was given as a path and is a root module of its own.
    pub standalone: bool,
    /// The modules it is, first the one it is analyzed as, then the others that reach it too.
    pub memberships: Vec<Membership>,
    /// Why it could not be read, or its `mod` items parsed, if so (it is still listed, for the
    /// error to be reported); a file with no `mod` or `include` in its text is not parsed here.
    pub problem: Option<FileProblem>,
}

impl SourceEntry {
    /// The module the file is analyzed as.
    pub fn primary(&self) -> Option<&Membership> {
        self.memberships.first()
    }
}

/// A file's place in one crate's module tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Membership {
    /// Index into [`Workspace::crates`]; `None` for a standalone root file.
    pub crate_index: Option<usize>,
    /// Index into that crate's targets.
    pub target_index: Option<usize>,
    /// The crate name of the target (for a standalone file, its stem).
    pub crate_name: String,
    /// The module path, `crate` for a root, e.g. `crate::kernels::blur`.
    pub module_path: String,
    /// The `mod` item that brought it in; `None` for a root.
    pub declared_at: Option<Declaration>,
    /// `#[cfg]` predicates (and `cfg_attr` path predicates) on the way from the root.
    pub cfg: Vec<String>,
}

/// Where a `mod` item is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The declaring file, canonical.
    pub path: PathBuf,
    /// The declaring file as printed.
    pub display: String,
    /// The `mod name` tokens.
    pub span: Span,
}

/// Why a listed source file could not be read or parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    /// What went wrong.
    pub message: String,
    /// Where, when known.
    pub span: Option<Span>,
}

/// A problem that does not stop discovery, with where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceWarning {
    /// What kind of problem.
    pub kind: WarningKind,
    /// The file it is in (a source file or a manifest), canonical.
    pub path: PathBuf,
    /// That file as printed.
    pub display: String,
    /// Where in it, when known.
    pub span: Option<Span>,
    /// One lowercase sentence.
    pub message: String,
}

impl fmt::Display for WorkspaceWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.span {
            Some(span) => write!(f, "{}:{}:{}: {}", self.display, span.line, span.column, self.message),
            None => write!(f, "{}: {}", self.display, self.message),
        }
    }
}

/// The kinds of [`WorkspaceWarning`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WarningKind {
    /// `mod x;` with neither `x.rs` nor `x/mod.rs` (nor its `#[path]`) present.
    MissingModuleFile,
    /// `mod x;` with both `x.rs` and `x/mod.rs` present; `x.rs` is taken.
    AmbiguousModuleFile,
    /// A `#[path]` that leads back to a file already being read.
    ModuleCycle,
    /// Modules nested deeper than [`Options::max_depth`].
    DepthLimit,
    /// More memberships than [`Options::max_memberships`].
    MembershipLimit,
    /// A target whose root file does not exist.
    MissingTargetRoot,
    /// A manifest that cannot be read or parsed.
    UnreadableManifest,
    /// A workspace member folder without a `Cargo.toml`, or a pattern matching none.
    MissingMember,
    /// A path dependency inside the workspace without a `Cargo.toml`.
    MissingPathDependency,
    /// A crates.io dependency the code names whose source is not in the local cargo registry.
    MissingRegistrySource,
}

impl WarningKind {
    /// Whether the warning is about a manifest rather than a source file.
    pub fn is_manifest(self) -> bool {
        matches!(
            self,
            WarningKind::MissingTargetRoot
                | WarningKind::UnreadableManifest
                | WarningKind::MissingMember
                | WarningKind::MissingPathDependency
                | WarningKind::MissingRegistrySource
        )
    }
}

/// Why a manifest or a given path could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkspaceError {
    /// A file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A manifest is not valid TOML or lacks what cargo requires.
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// No `Cargo.toml` in the folder or any above it.
    NoManifest {
        /// Where the search started.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A path given does not exist.
    NotFound {
        /// The path as given.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// Discovery itself failed (a bug), reported instead of taking the process down.
    Internal {
        /// What was being discovered.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

impl WorkspaceError {
    /// The file or folder the error is about.
    pub fn path(&self) -> &Path {
        match self {
            WorkspaceError::Io { path, .. }
            | WorkspaceError::Manifest { path, .. }
            | WorkspaceError::NoManifest { path, .. }
            | WorkspaceError::NotFound { path, .. }
            | WorkspaceError::Internal { path, .. } => path,
        }
    }

    /// What went wrong.
    pub fn message(&self) -> &str {
        match self {
            WorkspaceError::Io { message, .. }
            | WorkspaceError::Manifest { message, .. }
            | WorkspaceError::NoManifest { message, .. }
            | WorkspaceError::NotFound { message, .. }
            | WorkspaceError::Internal { message, .. } => message,
        }
    }
}

impl fmt::Display for WorkspaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path().display(), self.message())
    }
}

impl std::error::Error for WorkspaceError {}

/// The package and workspace a path belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateLocation {
    /// The nearest `Cargo.toml` with `[package]` at or above the path; `None` in a virtual root.
    pub package_manifest: Option<PathBuf>,
    /// The root manifest of its workspace (the package's own manifest when it has none).
    pub workspace_manifest: PathBuf,
}

/// Finds the package and workspace root of a file or folder (see [`CrateLocation`]).
pub fn locate(path: &Path) -> Result<CrateLocation, WorkspaceError> {
    let options = Options::default();
    let path = paths::identity(path, &options.base_dir);
    Discovery::new(&options).locate(&path)
}

impl Workspace {
    /// Every crate of the workspace of `manifest` (a `Cargo.toml` or its folder), with all files.
    pub fn discover(manifest: &Path) -> Result<Workspace, WorkspaceError> {
        Workspace::discover_with(manifest, &Options::default())
    }

    /// [`Workspace::discover`] with explicit options.
    pub fn discover_with(manifest: &Path, options: &Options) -> Result<Workspace, WorkspaceError> {
        let manifest = manifest.to_path_buf();
        with_large_stack(&manifest, || Discovery::new(options).discover(&manifest))?
    }

    /// The files under each path given, through their crates' module trees; others as standalone roots.
    pub fn for_paths(paths: &[PathBuf]) -> Workspace {
        Workspace::for_paths_with(paths, &Options::default())
    }

    /// [`Workspace::for_paths`] with explicit options.
    pub fn for_paths_with(paths: &[PathBuf], options: &Options) -> Workspace {
        let what = paths.first().cloned().unwrap_or_default();
        with_large_stack(&what, || Discovery::new(options).for_paths(paths)).unwrap_or_else(|err| Workspace {
            errors: vec![err],
            ..Workspace::default()
        })
    }

    /// The file with this canonical path or display path.
    pub fn file(&self, path: &Path) -> Option<&SourceEntry> {
        self.files
            .iter()
            .find(|f| f.path == path || Path::new(&f.display) == path)
    }
}

/// Stack for discovery: syn recurses as deep as the source nests.
const DISCOVERY_STACK_BYTES: usize = 256 << 20;

/// Runs `work` on a thread with a large stack, turning a panic into an error about `what`.
fn with_large_stack<T: Send>(what: &Path, work: impl FnOnce() -> T + Send) -> Result<T, WorkspaceError> {
    let internal = |message: String| WorkspaceError::Internal {
        path: what.to_path_buf(),
        message,
    };
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("kernel-lint-workspace".into())
            .stack_size(DISCOVERY_STACK_BYTES)
            .spawn_scoped(scope, work)
            .map_err(|err| internal(format!("cannot start discovery: {err}")))?;
        handle.join().map_err(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            internal(format!("internal error while discovering the workspace: {what}"))
        })
    })
}
