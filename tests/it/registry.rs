//! crates.io dependencies read from the local cargo registry: a kernel that reads and writes
//! its buffers through a trait a registry crate implements for slices is analyzed through
//! that crate's source (the version `Cargo.lock` pins, its features deciding its `#[cfg]`s),
//! each access shown at the kernel's call (or at the argument that hands the dependency the
//! place it reads); a dependency device code names whose source is
//! absent is one warning naming it; one only host code names is not read and not warned about.
//! A git dependency is read from cargo's checkout of its repository, or named as absent.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const ACCESSOR: &str = r#"#![no_std]
/// Element access that may skip bounds checks.
pub trait Slots<T> {
    fn load(&self, id: usize) -> T;
    fn store(&mut self, id: usize, value: T);
}

impl<T: Copy> Slots<T> for [T] {
    fn load(&self, id: usize) -> T {
        #[cfg(feature = "unchecked")]
        return unsafe { *self.get_unchecked(3 * id) };
        #[cfg(not(feature = "unchecked"))]
        return self[id];
    }

    fn store(&mut self, id: usize, value: T) {
        self[id] = value;
    }
}

/// Counts one more at a place the caller picks.
pub fn bump(count: &mut u32) {
    *count += 1;
}
"#;

const KERNEL: &str = r#"#![no_std]
use slots::Slots;
use spirv_std::glam::UVec3;
use spirv_std::spirv;

#[spirv(compute(threads(64)))]
pub fn gather_even(
    #[spirv(global_invocation_id)] gid: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] dst: &mut [f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] src: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] counts: &mut [u32],
) {
    let i = gid.x as usize;
    let v = src.load(2 * i);
    dst.store(i, v + missing::bias());
    slots::bump(
        &mut counts[4 * i],
    );
}
"#;

const HOST: &str = "pub fn upload() { hostonly::send(); }\n";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("folder made");
    std::fs::write(path, text).expect("file written");
}

/// A cargo home holding `slots` 0.3.0 (and 0.4.0, which the lock file does not pick), and a
/// package whose kernel uses it and names the absent `missing`.
fn setup(home: &Path, package: &Path) {
    for version in ["0.3.0", "0.4.0"] {
        let dir = home.join(format!("registry/src/index.crates.io-0000000000000000/slots-{version}"));
        let manifest = format!(
            "[package]\nname = \"slots\"\nversion = \"{version}\"\nedition = \"2021\"\n\n[features]\nunchecked = []\nspirv = []\n"
        );
        write(&dir.join("Cargo.toml"), &manifest);
        // The newer version's accessor reads twice as far apart: picking it would show.
        let text = if version == "0.3.0" {
            ACCESSOR.to_string()
        } else {
            ACCESSOR.replace("return self[id];", "return self[2 * id];")
        };
        write(&dir.join("src/lib.rs"), &text);
    }
    let manifest = "[package]\nname = \"shaders\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                    [dependencies]\nslots = \"0.3\"\nmissing = \"1.2\"\nhostonly = \"2\"\n";
    write(&package.join("Cargo.toml"), manifest);
    let registry = "registry+https://github.com/rust-lang/crates.io-index";
    let lock = format!(
        "version = 4\n\n[[package]]\nname = \"missing\"\nversion = \"1.2.5\"\nsource = \"{registry}\"\n\n\
         [[package]]\nname = \"slots\"\nversion = \"0.3.0\"\nsource = \"{registry}\"\n"
    );
    write(&package.join("Cargo.lock"), &lock);
    write(&package.join("src/lib.rs"), &format!("pub mod host;\n{KERNEL}"));
    write(&package.join("src/host.rs"), HOST);
}

/// `accesses --format json` in `package` with cargo home `home`: the document, and the
/// standard output and error as text.
fn accesses(home: &Path, package: &Path) -> (Value, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(["kernel-lint", "accesses", "--format", "json", "--no-cache"])
        .current_dir(package)
        .env("CARGO_HOME", home)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let doc: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    (doc, stdout, stderr)
}

#[test]
fn a_trait_for_slices_from_the_registry_is_followed_and_shown_at_the_call() {
    let home = tempfile::tempdir().expect("temp");
    let package = tempfile::tempdir().expect("temp");
    setup(home.path(), package.path());
    let (doc, stdout, stderr) = accesses(home.path(), package.path());
    let kernels = doc["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 1, "{stdout}");
    assert_eq!(kernels[0]["name"], "gather_even");
    let accesses: Vec<(u64, u64, &str, &str, &str, f64)> = kernels[0]["accesses"]
        .as_array()
        .expect("accesses")
        .iter()
        .map(|a| {
            (
                a["line"].as_u64().unwrap(),
                a["column"].as_u64().unwrap(),
                a["op"].as_str().unwrap(),
                a["index"].as_str().unwrap(),
                a["class"].as_str().unwrap(),
                a["sectors_per_request"].as_f64().unwrap(),
            )
        })
        .collect();
    // `src.load(2 * i)`: lanes 8 bytes apart through the locked version's `self[id]`, 8
    // sectors (the newer version, or the `unchecked` branch the features leave out, would
    // give 16 or 24); `dst.store(i, ..)`: unit stride, 4 sectors. Both at the kernel's calls.
    // `bump(&mut counts[4 * i])` reads and writes the place it is handed: shown there, a line
    // below the call, 16 bytes apart.
    assert_eq!(
        accesses,
        [
            (15, 13, "load", "src.load(2 * i)", "strided", 8.0),
            (16, 5, "store", "dst.store(i, v + missing::bias())", "coalesced", 4.0),
            (18, 14, "load", "counts[4 * i]", "strided", 16.0),
            (18, 14, "store", "counts[4 * i]", "strided", 16.0),
        ],
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "`missing` 1.2.5 is named by device code and not in the local cargo registry: what kernels use of it stays unknown (`cargo fetch` brings it)"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("hostonly"), "{stderr}");
}

/// A dependency from a git repository is read from cargo's checkout of it, a few folders down
/// (`git/checkouts/REPO-HASH/REV/CRATE`); one whose checkout is not there is named in the
/// warning with its repository.
#[test]
fn a_git_dependency_is_read_from_its_checkout_or_named_as_absent() {
    let home = tempfile::tempdir().expect("temp");
    let package = tempfile::tempdir().expect("temp");
    let checkout = home
        .path()
        .join("git/checkouts/gpu-tools-0123456789abcdef/1a2b3c4/lanes");
    write(
        &checkout.join("Cargo.toml"),
        "[package]\nname = \"lanes\"\nversion = \"0.2.0\"\nedition = \"2021\"\n\n[features]\nspirv = []\n",
    );
    write(
        &checkout.join("src/lib.rs"),
        "#![no_std]\n/// The lane's element, four apart.\npub fn spread(i: usize) -> usize {\n    4 * i\n}\n",
    );
    let manifest = "[package]\nname = \"shaders\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                    [dependencies]\nlanes = { git = \"https://github.com/someone/gpu-tools\" }\n\
                    absent = { git = \"https://github.com/someone/elsewhere.git\" }\n";
    write(&package.path().join("Cargo.toml"), manifest);
    let kernel = r#"#![no_std]
use spirv_std::glam::UVec3;
use spirv_std::spirv;

#[spirv(compute(threads(64)))]
pub fn spread_out(
    #[spirv(global_invocation_id)] gid: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] dst: &mut [f32],
) {
    dst[lanes::spread(gid.x as usize)] = absent::value();
}
"#;
    write(&package.path().join("src/lib.rs"), kernel);
    let (doc, stdout, stderr) = accesses(home.path(), package.path());
    let access = &doc["kernels"][0]["accesses"][0];
    assert_eq!(doc["kernels"][0]["name"], "spread_out");
    assert_eq!(
        (access["class"].as_str(), access["sectors_per_request"].as_f64()),
        (Some("strided"), Some(16.0)),
        "{stdout}"
    );
    assert!(
        stderr.contains(
            "`absent` (`git https://github.com/someone/elsewhere.git`) is named by device code and not in the local cargo registry"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("`lanes`"), "{stderr}");
}

/// A `no_std` crate from the registry that device code names only in a helper module, and the
/// crate it re-exports: both are loaded, so a generic helper bounded by the re-exported trait
/// (whose supertrait is `Copy`) reaches the methods of a wrapper implemented for `T: Copy`.
#[test]
fn a_no_std_registry_crate_and_the_crate_it_re_exports_resolve_a_helpers_bound() {
    let home = tempfile::tempdir().expect("temp");
    let package = tempfile::tempdir().expect("temp");
    let registry = home.path().join("registry/src/index.crates.io-0000000000000000");
    write(
        &registry.join("facade-0.1.0/Cargo.toml"),
        "[package]\nname = \"facade\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nnumbers = \"0.2\"\n",
    );
    write(
        &registry.join("facade-0.1.0/src/lib.rs"),
        "#![no_std]\npub mod traits {\n    pub use numbers::*;\n}\n",
    );
    write(
        &registry.join("numbers-0.2.0/Cargo.toml"),
        "[package]\nname = \"numbers\"\nversion = \"0.2.0\"\nedition = \"2021\"\n",
    );
    write(
        &registry.join("numbers-0.2.0/src/lib.rs"),
        "#![cfg_attr(not(feature = \"std\"), no_std)]\npub trait Real: Copy {}\nimpl Real for f32 {}\n",
    );
    write(
        &package.path().join("Cargo.toml"),
        "[package]\nname = \"kernels\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nfacade = \"0.1\"\n",
    );
    let lib = r#"#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]
mod grid;

#[no_mangle]
pub unsafe extern "ptx-kernel" fn copy_rows(src: *const f32, dst: *mut f32, width: usize) {
    grid::copy(src, dst, width);
}
"#;
    let grid = r#"use core::arch::nvptx::*;
use facade::traits::Real;

pub struct Plane<T> {
    base: *const T,
    width: usize,
}

impl<T: Copy> Plane<T> {
    pub fn new(base: *const T, width: usize) -> Self {
        Self { base, width }
    }

    pub fn get(&self, col: usize, row: usize) -> T {
        unsafe { self.base.add(col + row * self.width).read() }
    }
}

pub struct Line<T> {
    base: *const T,
}

impl<T: Copy> Line<T> {
    pub fn new(base: *const T) -> Self {
        Self { base }
    }

    pub fn get(&self, i: usize) -> T {
        unsafe { self.base.add(2 * i).read() }
    }
}

pub unsafe fn copy<T: Real>(src: *const T, dst: *mut T, width: usize) {
    let col = (_block_dim_x() * _block_idx_x() + _thread_idx_x()) as usize;
    let plane = Plane::new(src, width);
    *dst.add(col) = plane.get(col, 3);
}
"#;
    write(&package.path().join("src/lib.rs"), lib);
    write(&package.path().join("src/grid.rs"), grid);
    let (doc, stdout, stderr) = accesses(home.path(), package.path());
    assert_eq!(doc["kernels"][0]["name"], "copy_rows", "{stdout}");
    let found: Vec<(&str, &str, &str, f64)> = doc["kernels"][0]["accesses"]
        .as_array()
        .expect("accesses")
        .iter()
        .map(|a| {
            (
                a["op"].as_str().unwrap(),
                a["index"].as_str().unwrap(),
                a["class"].as_str().unwrap(),
                a["sectors_per_request"].as_f64().unwrap_or(-1.0),
            )
        })
        .collect();
    // `Plane::get` reads row 3 at consecutive columns: 5 sectors, as a row of a width not
    // known to keep rows aligned starts anywhere; the store is unit stride.
    assert_eq!(
        found,
        [
            ("load", "col + row * self.width", "misaligned", 5.0),
            ("store", "col", "coalesced", 4.0)
        ],
        "{stdout}\n{stderr}"
    );
    assert!(!stderr.contains("numbers"), "{stderr}");
}
