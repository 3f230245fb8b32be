//! What the lowering tests share: the generated program checked as host C++ with g++ against
//! the stand-in CUDA header of `tests/support`.

use std::path::Path;
use std::process::Command;

fn fingerprint(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// Compiles a generated program as host C++ (kernel launches become plain calls).
pub fn check_with_gxx(program: &str) {
    let mut host = String::new();
    let mut rest = program;
    while let Some(start) = rest.find("<<<") {
        host.push_str(&rest[..start]);
        let end = rest[start..].find(">>>").expect("launch closes") + start + 3;
        rest = &rest[end..];
    }
    host.push_str(rest);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lowering");
    std::fs::create_dir_all(&dir).expect("directory");
    // One file a program: tests run in parallel.
    let file = dir.join(format!("program-{:016x}.cpp", fingerprint(&host)));
    std::fs::write(&file, host).expect("written");
    let support = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/support");
    let output = Command::new("g++")
        .args(["-std=c++17", "-fsyntax-only", "-I"])
        .arg(support)
        .arg(&file)
        .output()
        .expect("g++ runs");
    assert!(
        output.status.success(),
        "g++ rejects the program:\n{}\n{program}",
        String::from_utf8_lossy(&output.stderr)
    );
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
