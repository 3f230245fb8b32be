//! Generated CUDA C++ checked as host C++ with g++ against the stand-in CUDA header of
//! `tests/support`, for the tests of the harness's emitted programs.

use std::path::Path;
use std::process::Command;

/// Compiles generated CUDA C++ as host C++: kernel launches become plain calls.
pub fn check_with_gxx(program: &Path) {
    let Some(gxx) = xtask::external::program("g++", None, "apt-get install g++", "compiling the emitted C++") else {
        return;
    };
    let text = std::fs::read_to_string(program).expect("program");
    let mut host = String::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("<<<") {
        host.push_str(&rest[..start]);
        let end = rest[start..].find(">>>").expect("launch closes") + start + 3;
        rest = &rest[end..];
    }
    host.push_str(rest);
    let host_file = program.with_extension("host.cpp");
    std::fs::write(&host_file, host).expect("written");
    let output = Command::new(gxx)
        .args(["-std=c++17", "-fsyntax-only", "-I"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support"))
        .arg(&host_file)
        .output()
        .expect("g++ runs");
    assert!(
        output.status.success(),
        "g++ rejects {}:\n{}",
        program.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}
