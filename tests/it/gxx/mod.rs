//! Generated CUDA C++ checked as host C++ with g++ against the stand-in CUDA header of
//! `tests/support`, for the tests of the harness's emitted programs.

use std::path::Path;
use xtask::cxx::{as_host, HostCxx};

/// Compiles generated CUDA C++ as host C++: kernel launches become plain calls.
pub fn check_with_gxx(program: &Path) {
    let Some(gxx) = xtask::external::program("g++", None, "apt-get install g++", "compiling the emitted C++") else {
        return;
    };
    let text = std::fs::read_to_string(program).expect("program");
    let host_file = program.with_extension("host.cpp");
    std::fs::write(&host_file, as_host(&text)).expect("written");
    let cxx = HostCxx::new(
        gxx,
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support"),
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("cxx"),
    );
    let output = cxx.compile(&["-fsyntax-only"], &host_file);
    assert!(
        output.status.success(),
        "g++ rejects {}:\n{}",
        program.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A check includes the precompiled form of the program's own leading `#include` lines and
/// nothing else: a program that needs a header it does not include is still rejected.
#[test]
fn each_program_is_checked_with_its_own_includes() {
    let Some(gxx) = xtask::external::program("g++", None, "apt-get install g++", "compiling C++") else {
        return;
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let cxx = HostCxx::new(gxx, dir.path().join("include"), dir.path().join("scratch"));
    std::fs::create_dir_all(dir.path().join("include")).expect("a folder");
    let check = |name: &str, text: &str| {
        let file = dir.path().join(name);
        std::fs::write(&file, text).expect("written");
        cxx.compile(&["-fsyntax-only"], &file)
    };
    let with = check(
        "with.cpp",
        "#include <vector>\nint f() { std::vector<int> v; return (int)v.size(); }\n",
    );
    assert!(with.status.success(), "{}", String::from_utf8_lossy(&with.stderr));
    let without = check(
        "without.cpp",
        "#include <cstdio>\nint f() { std::vector<int> v; return 0; }\n",
    );
    assert!(!without.status.success(), "a program without <vector> is accepted");
    assert!(String::from_utf8_lossy(&without.stderr).contains("vector"));
    // Both preludes were precompiled, each once.
    let built: Vec<_> = std::fs::read_dir(dir.path().join("scratch"))
        .expect("the scratch folder")
        .flatten()
        .filter(|e| e.path().join("prelude.h.gch").is_file())
        .collect();
    assert_eq!(built.len(), 2);
}
