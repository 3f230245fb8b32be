//! What the lowering tests share: the generated program checked as host C++ with g++ against
//! the stand-in CUDA header of `tests/support`.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver::{self, Emitted};
use std::path::Path;
use std::process::Command;
use xtask::cxx::{as_host, HostCxx};

fn fingerprint(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// g++ with the stand-in headers, or `None` after saying that the C++ checks are skipped.
fn gxx() -> Option<HostCxx> {
    let gxx = xtask::external::program("g++", None, "apt-get install g++", "compiling the emitted C++")?;
    Some(HostCxx::new(
        gxx,
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/support"),
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("cxx"),
    ))
}

/// The programs g++ accepted in this run, by fingerprint: tests that emit the same sources
/// under the same plan need the same check once.
static ACCEPTED: std::sync::Mutex<std::collections::BTreeSet<u64>> =
    std::sync::Mutex::new(std::collections::BTreeSet::new());

/// Compiles a generated program as host C++ (kernel launches become plain calls).
#[allow(dead_code)] // Not every test file checks whole programs.
pub fn check_with_gxx(program: &str) {
    let Some(gxx) = gxx() else {
        return;
    };
    let print = fingerprint(program);
    if ACCEPTED.lock().is_ok_and(|accepted| accepted.contains(&print)) {
        return;
    }
    let file = host_file(program);
    let output = gxx.compile(&["-fsyntax-only"], &file);
    assert!(
        output.status.success(),
        "g++ rejects the program:\n{}\n{program}",
        String::from_utf8_lossy(&output.stderr)
    );
    if let Ok(mut accepted) = ACCEPTED.lock() {
        accepted.insert(print);
    }
}

/// Compiles translation units as host C++ and links them into one relocatable object: a
/// symbol defined by two units fails the link.
#[allow(dead_code)] // Not every test file builds split programs.
pub fn link_with_gxx(units: &[&str]) {
    let Some(gxx) = gxx() else {
        return;
    };
    let mut objects = Vec::new();
    for unit in units {
        let file = host_file(unit);
        let object = file.with_extension("o");
        let object_arg = object.to_string_lossy().into_owned();
        let output = gxx.compile(&["-c", "-o", &object_arg], &file);
        assert!(
            output.status.success(),
            "g++ rejects the unit:\n{}\n{unit}",
            String::from_utf8_lossy(&output.stderr)
        );
        objects.push(object);
    }
    let linked = objects[0].with_extension("linked.o");
    let output = Command::new(gxx.program())
        .args(["-r", "-nostdlib", "-o"])
        .arg(&linked)
        .args(&objects)
        .output()
        .expect("g++ links");
    assert!(
        output.status.success(),
        "the units do not link:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The program as a host C++ file (kernel launches become plain calls).
fn host_file(program: &str) -> std::path::PathBuf {
    let host = as_host(program);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lowering");
    std::fs::create_dir_all(&dir).expect("directory");
    // One file a program: tests run in parallel, and two of them may write the same program
    // while g++ reads it, so each is written whole under a name of its own and renamed.
    let file = dir.join(format!("program-{:016x}.cpp", fingerprint(&host)));
    let own = dir.join(format!(
        "program-{:016x}.{}.{:?}.tmp",
        fingerprint(&host),
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&own, host).expect("written");
    std::fs::rename(&own, &file).expect("renamed");
    file
}

/// The definition of one kernel in a program, up to the next kernel.
#[allow(dead_code)] // Not every test file looks into single kernels.
pub fn kernel<'a>(program: &'a str, name: &str) -> &'a str {
    let start = program
        .find(&format!("__global__ void {name}("))
        .unwrap_or_else(|| panic!("`{name}` is defined:\n{program}"));
    let rest = &program[start..];
    let end = rest[1..].find("__global__").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

/// The program of one file `k.rs` under the default launch plan.
#[allow(dead_code)] // Not every test file emits a single file.
pub fn emit_one(text: &str) -> Emitted {
    driver::emit(&[SourceFile::new("k.rs", text)], &LaunchPlan::default())
}

/// Every kernel of the program was found and lowered: at least one launch, none left out.
#[allow(dead_code)] // Not every test file lowers all its kernels.
pub fn assert_every_kernel_lowered(emitted: &Emitted) {
    assert!(!emitted.manifest.launches.is_empty(), "no kernel was found");
    let missing: Vec<_> = emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (&n.kernel, &n.reason))
        .collect();
    assert!(missing.is_empty(), "{missing:?}");
}
