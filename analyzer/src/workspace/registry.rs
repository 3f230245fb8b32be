//! The sources of crates.io dependencies, where cargo left them: `registry/src/*/NAME-VERSION`
//! under the cargo home (and of git dependencies, in cargo's `git/checkouts`). The version is the one `Cargo.lock` pins, else the newest one present
//! that the requirement accepts (what an offline `cargo build` would pick). Nothing is ever
//! downloaded: a source that is not there is reported as absent.

use semver::{Version, VersionReq};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Crates whose items kernel-lint models itself (thread indices, slices, vectors, numbers):
/// their own source, when present, is stubs or host code that must not be followed.
pub const MODELLED_CRATES: &[&str] = &[
    "cuda_std",
    "cuda_device",
    "nvptx_builtins",
    "ptx_support",
    "core",
    "std",
    "glam",
    "vek",
    "nalgebra",
];

/// Whether the analysis reads a registry crate's source: not a crate it models, nor a
/// dialect's own crate (`spirv_std`, `cubecl_*`, whose builtins each dialect maps by path).
pub fn is_loaded_from_registry(crate_name: &str) -> bool {
    let dialect = ["spirv_std", "cubecl", "cuda_core", "cuda_host", "cuda_macros", "cudarc"]
        .iter()
        .any(|d| crate_name == *d || crate_name.starts_with(&format!("{d}_")));
    !dialect && !MODELLED_CRATES.contains(&crate_name)
}

/// Whether a path is a file of a crates.io dependency's source in a cargo registry
/// (`…/registry/src/INDEX/NAME-VERSION/…`): code the user does not edit.
pub fn is_registry_source(path: &str) -> bool {
    let path = path.replace('\\', "/");
    path.split("/registry/src/")
        .nth(1)
        .is_some_and(|rest| rest.matches('/').count() >= 2)
}

/// Where a registry dependency's source is, or why it is not there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegistrySource {
    /// The package folder (holding its `Cargo.toml`) and its version.
    Found { dir: PathBuf, version: Version },
    /// `Cargo.lock` pins this version, and the local registry does not hold it.
    Absent { version: Version },
    /// Neither the lock file nor the local registry has a version the requirement accepts.
    Unknown,
}

/// The local registry's package folders and the lock files read, each read once.
#[derive(Debug, Default)]
pub struct Registry {
    home: Option<PathBuf>,
    /// Every `NAME-VERSION` folder of every index under `registry/src`, by package name;
    /// listed at the first question.
    packages: Option<BTreeMap<String, Vec<(Version, PathBuf)>>>,
    /// The registry packages of each workspace's `Cargo.lock`, by workspace folder.
    locks: BTreeMap<PathBuf, BTreeMap<String, Vec<Version>>>,
}

impl Registry {
    /// The registry under cargo home `home` (`None`: no registry, every source absent).
    pub fn new(home: Option<PathBuf>) -> Registry {
        Registry {
            home,
            ..Registry::default()
        }
    }

    /// The cargo home as cargo finds it: `$CARGO_HOME`, else `.cargo` in the home folder.
    pub fn default_home() -> Option<PathBuf> {
        if let Some(home) = std::env::var_os("CARGO_HOME").filter(|h| !h.is_empty()) {
            return Some(PathBuf::from(home));
        }
        std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|h| PathBuf::from(h).join(".cargo"))
    }

    /// The source of package `package` that the workspace in folder `workspace` uses for the
    /// requirement `requirement` (`"0.3"`, `"=1.2.3"`, `"*"`).
    pub fn locate(&mut self, workspace: &Path, package: &str, requirement: &str) -> RegistrySource {
        let requirement = VersionReq::parse(requirement).unwrap_or(VersionReq::STAR);
        let locked: Vec<Version> = self
            .lock(workspace)
            .get(package)
            .map(|versions| versions.iter().filter(|v| requirement.matches(v)).cloned().collect())
            .unwrap_or_default();
        let present = self.packages().get(package).map_or(&[][..], Vec::as_slice);
        if let Some(version) = locked.iter().max() {
            return match present.iter().find(|(v, _)| v == version) {
                Some((version, dir)) => RegistrySource::Found {
                    dir: dir.clone(),
                    version: version.clone(),
                },
                None => RegistrySource::Absent {
                    version: version.clone(),
                },
            };
        }
        let newest = present
            .iter()
            .filter(|(v, _)| requirement.matches(v))
            .max_by(|a, b| a.0.cmp(&b.0));
        match newest {
            Some((version, dir)) => RegistrySource::Found {
                dir: dir.clone(),
                version: version.clone(),
            },
            None => RegistrySource::Unknown,
        }
    }

    /// The source of package `package` from the git repository at `url`, where cargo checks
    /// repositories out (`git/checkouts/NAME-HASH/REV/` under its home, `NAME` the
    /// repository's name in lower case): the checkout of the revision the lock file of the
    /// workspace at `lock_dir` pins when it is there, else the first checkout holding a
    /// manifest of that package, a few folders deep.
    pub fn locate_git(&mut self, lock_dir: &Path, package: &str, url: &str) -> RegistrySource {
        let Some(home) = self.home.clone() else {
            return RegistrySource::Unknown;
        };
        let repository = url
            .trim_end_matches('/')
            .trim_end_matches(".git")
            .rsplit('/')
            .next()
            .unwrap_or(url)
            .to_lowercase();
        let prefix = format!("{repository}-");
        let pinned = locked_git_revision(&lock_dir.join("Cargo.lock"), package);
        let checkouts = read_dir(&home.join("git").join("checkouts"));
        let mut revisions: Vec<PathBuf> = checkouts
            .iter()
            .filter(|d| {
                d.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.to_lowercase().starts_with(&prefix))
            })
            .flat_map(|repo| read_dir(repo))
            .collect();
        // The pinned revision first: cargo names its folder by the commit's short hash.
        revisions.sort_by_key(|r| {
            let name = r.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            let is_pinned = pinned
                .as_ref()
                .is_some_and(|p| !name.is_empty() && p.starts_with(&name));
            (!is_pinned, name)
        });
        for revision in revisions {
            if let Some(dir) = package_dir(&revision, package, 3) {
                let version = package_version(&dir).unwrap_or_else(|| Version::new(0, 0, 0));
                return RegistrySource::Found { dir, version };
            }
        }
        RegistrySource::Unknown
    }

    fn lock(&mut self, workspace: &Path) -> &BTreeMap<String, Vec<Version>> {
        self.locks
            .entry(workspace.to_path_buf())
            .or_insert_with(|| read_lock(&workspace.join("Cargo.lock")))
    }

    fn packages(&mut self) -> &BTreeMap<String, Vec<(Version, PathBuf)>> {
        let home = self.home.clone();
        self.packages.get_or_insert_with(|| {
            let mut packages: BTreeMap<String, Vec<(Version, PathBuf)>> = BTreeMap::new();
            let Some(src) = home.map(|h| h.join("registry").join("src")) else {
                return packages;
            };
            for index in read_dir(&src) {
                for dir in read_dir(&index) {
                    let Some(folder) = dir.file_name().and_then(|n| n.to_str()) else {
                        continue;
                    };
                    if let Some((name, version)) = split_folder(folder) {
                        packages
                            .entry(name.to_string())
                            .or_default()
                            .push((version, dir.clone()));
                    }
                }
            }
            packages
        })
    }
}

/// The folder under `dir` (it, or up to `depth` levels below) whose `Cargo.toml` declares
/// package `package`.
fn package_dir(dir: &Path, package: &str, depth: usize) -> Option<PathBuf> {
    let declares = |dir: &Path| {
        let text = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
        let manifest = text.parse::<toml::Table>().ok()?;
        let name = manifest.get("package")?.get("name")?.as_str()?;
        Some(name == package)
    };
    if declares(dir) == Some(true) {
        return Some(dir.to_path_buf());
    }
    if depth == 0 {
        return None;
    }
    read_dir(dir)
        .into_iter()
        .filter(|d| !d.file_name().is_some_and(|n| n == "target" || n == ".git"))
        .find_map(|d| package_dir(&d, package, depth - 1))
}

/// The version a package's manifest declares, when it is a plain version.
fn package_version(dir: &Path) -> Option<Version> {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let manifest = text.parse::<toml::Table>().ok()?;
    Version::parse(manifest.get("package")?.get("version")?.as_str()?).ok()
}

/// The folders in `dir`, sorted; none when it cannot be read.
fn read_dir(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// `khal-std-0.3.0` is `khal-std` at 0.3.0; `foo-1.0.0-beta.1` is `foo` at 1.0.0-beta.1.
fn split_folder(folder: &str) -> Option<(&str, Version)> {
    folder.match_indices('-').find_map(|(at, _)| {
        let rest = &folder[at + 1..];
        if !rest.starts_with(|c: char| c.is_ascii_digit()) {
            return None;
        }
        Version::parse(rest).ok().map(|v| (&folder[..at], v))
    })
}

/// The crates.io packages a `Cargo.lock` pins, by name; none when it is absent or unreadable.
fn read_lock(path: &Path) -> BTreeMap<String, Vec<Version>> {
    let mut out: BTreeMap<String, Vec<Version>> = BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(path) else {
        return out;
    };
    let Ok(lock) = text.parse::<toml::Table>() else {
        return out;
    };
    let packages = lock.get("package").and_then(toml::Value::as_array);
    for package in packages.into_iter().flatten() {
        let get = |key: &str| package.get(key).and_then(toml::Value::as_str);
        let from_registry = get("source").is_some_and(|s| s.starts_with("registry+") || s.starts_with("sparse+"));
        if let (Some(name), Some(version), true) = (get("name"), get("version"), from_registry) {
            if let Ok(version) = Version::parse(version) {
                out.entry(name.to_string()).or_default().push(version);
            }
        }
    }
    out
}

/// The commit a lock file pins package `package` at, when it comes from git
/// (`source = "git+URL?branch=main#COMMIT"`).
fn locked_git_revision(path: &Path, package: &str) -> Option<String> {
    let lock = std::fs::read_to_string(path).ok()?.parse::<toml::Table>().ok()?;
    let packages = lock.get("package").and_then(toml::Value::as_array)?;
    packages.iter().find_map(|p| {
        let get = |key: &str| p.get(key).and_then(toml::Value::as_str);
        let source = get("source").filter(|s| s.starts_with("git+"))?;
        (get("name") == Some(package)).then(|| source.rsplit('#').next().map(str::to_string))?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_split_at_the_version() {
        assert_eq!(
            split_folder("khal-std-0.3.0"),
            Some(("khal-std", Version::new(0, 3, 0)))
        );
        let beta = split_folder("foo-bar-1.0.0-beta.1").unwrap();
        assert_eq!((beta.0, beta.1.to_string().as_str()), ("foo-bar", "1.0.0-beta.1"));
        assert_eq!(split_folder("no-version"), None);
    }

    #[test]
    fn the_lock_decides_else_the_newest_accepted() {
        let home = tempfile::tempdir().unwrap();
        let index = home.path().join("registry/src/index.crates.io-0000");
        for folder in ["num-0.2.1", "num-0.2.7", "num-0.3.0", "half-2.4.1"] {
            std::fs::create_dir_all(index.join(folder)).unwrap();
        }
        let ws = tempfile::tempdir().unwrap();
        let lock = "version = 4\n\n[[package]]\nname = \"num\"\nversion = \"0.2.1\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n[[package]]\nname = \"half\"\nversion = \"2.5.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
        std::fs::write(ws.path().join("Cargo.lock"), lock).unwrap();
        let mut registry = Registry::new(Some(home.path().to_path_buf()));
        let found = |dir: &str, v: &str| RegistrySource::Found {
            dir: index.join(dir),
            version: Version::parse(v).unwrap(),
        };
        assert_eq!(registry.locate(ws.path(), "num", "0.2"), found("num-0.2.1", "0.2.1"));
        assert_eq!(
            registry.locate(ws.path(), "half", "2"),
            RegistrySource::Absent {
                version: Version::new(2, 5, 0)
            }
        );
        let unlocked = tempfile::tempdir().unwrap();
        assert_eq!(
            registry.locate(unlocked.path(), "num", "0.2"),
            found("num-0.2.7", "0.2.7")
        );
        assert_eq!(
            registry.locate(unlocked.path(), "num", "*"),
            found("num-0.3.0", "0.3.0")
        );
        assert_eq!(registry.locate(unlocked.path(), "rand", "0.8"), RegistrySource::Unknown);
    }

    #[test]
    fn a_git_dependency_is_the_checkout_of_the_locked_commit() {
        let home = tempfile::tempdir().unwrap();
        // Cargo names a checkout by the repository in lower case and the commit's short hash.
        let repo = home.path().join("git/checkouts/rust-kit-1a2b3c4d5e6f7a8b");
        for (rev, version) in [("aaaaaaa", "0.1.0"), ("bbbbbbb", "0.2.0")] {
            let dir = repo.join(rev).join("crates/kit-core");
            std::fs::create_dir_all(&dir).unwrap();
            let manifest = format!("[package]\nname = \"kit-core\"\nversion = \"{version}\"\n");
            std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        }
        let ws = tempfile::tempdir().unwrap();
        let lock = "version = 4\n\n[[package]]\nname = \"kit-core\"\nversion = \"0.2.0\"\nsource = \"git+https://github.com/Some-Org/Rust-Kit?branch=main#bbbbbbbcafe\"\n";
        std::fs::write(ws.path().join("Cargo.lock"), lock).unwrap();
        let mut registry = Registry::new(Some(home.path().to_path_buf()));
        let url = "https://github.com/Some-Org/Rust-Kit";
        assert_eq!(
            registry.locate_git(ws.path(), "kit-core", url),
            RegistrySource::Found {
                dir: repo.join("bbbbbbb/crates/kit-core"),
                version: Version::new(0, 2, 0),
            }
        );
        // Without a lock, the first checkout that holds the package.
        let unlocked = tempfile::tempdir().unwrap();
        assert_eq!(
            registry.locate_git(unlocked.path(), "kit-core", url),
            RegistrySource::Found {
                dir: repo.join("aaaaaaa/crates/kit-core"),
                version: Version::new(0, 1, 0),
            }
        );
        assert_eq!(registry.locate_git(ws.path(), "other", url), RegistrySource::Unknown);
    }

    #[test]
    fn registry_sources_are_told_by_their_path() {
        assert!(is_registry_source(
            "/home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/khal-std-0.3.0/src/index.rs"
        ));
        assert!(!is_registry_source("crates/registry/src/lib.rs"));
        assert!(!is_registry_source("src/lib.rs"));
    }

    #[test]
    fn dialect_and_modelled_crates_are_not_loaded() {
        assert!(is_loaded_from_registry("khal_std"));
        assert!(is_loaded_from_registry("num_traits"));
        for name in ["spirv_std", "cubecl", "cubecl_core", "cuda_std", "glam"] {
            assert!(!is_loaded_from_registry(name), "{name}");
        }
    }
}
