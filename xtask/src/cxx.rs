//! The emitted CUDA programs checked as host C++ with g++ against a host-only stand-in for the
//! CUDA runtime header. Every program starts with the same `#include` lines, whose parsing is
//! most of g++'s time: they are compiled once into a precompiled header that each check
//! includes first. The program still includes them itself (each header is guarded), so a
//! program that lacks an include fails as it would alone.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// What every check passes to g++ besides its files.
const STANDARD: &str = "-std=c++17";

/// g++ with the folder of the stand-in headers and a folder for its precompiled headers.
pub struct HostCxx {
    gxx: PathBuf,
    include: PathBuf,
    scratch: PathBuf,
}

/// A program as host C++: each launch `f<<<grid, block>>>(args)` becomes the call `f(args)`.
pub fn as_host(program: &str) -> String {
    let mut host = String::new();
    let mut rest = program;
    while let Some(start) = rest.find("<<<") {
        host.push_str(&rest[..start]);
        let end = rest[start..].find(">>>").expect("a launch closes") + start + 3;
        rest = &rest[end..];
    }
    host.push_str(rest);
    host
}

impl HostCxx {
    /// Checks with `gxx`, headers from `include`, precompiled headers kept under `scratch`.
    pub fn new(gxx: PathBuf, include: PathBuf, scratch: PathBuf) -> HostCxx {
        HostCxx { gxx, include, scratch }
    }

    /// The g++ program itself, for what else is run with it (a link).
    pub fn program(&self) -> &Path {
        &self.gxx
    }

    /// g++ on `file` with `args` (`-fsyntax-only`, or `-c -o ..`), the file's leading
    /// `#include` lines precompiled where g++ could precompile them.
    pub fn compile(&self, args: &[&str], file: &Path) -> Output {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let mut command = Command::new(&self.gxx);
        command.arg(STANDARD).args(args).arg("-I").arg(&self.include);
        if let Some(prelude) = self.prelude(&text) {
            command.arg("-include").arg(prelude);
        }
        command.arg(file).output().expect("g++ runs")
    }

    /// The precompiled header of the `#include` lines `text` starts with, built once for
    /// those lines and these headers' bytes; `None` when there are none or g++ fails on them
    /// alone (the check then parses them as written).
    fn prelude(&self, text: &str) -> Option<PathBuf> {
        static BUILT: Mutex<BTreeMap<u64, Option<PathBuf>>> = Mutex::new(BTreeMap::new());
        let includes: String = text
            .lines()
            .take_while(|line| line.starts_with("#include"))
            .map(|line| format!("{line}\n"))
            .collect();
        if includes.is_empty() {
            return None;
        }
        let key = self.key(&includes);
        let mut built = BUILT.lock().ok()?;
        if let Some(found) = built.get(&key) {
            return found.clone();
        }
        let found = self.build(&includes, key);
        built.insert(key, found.clone());
        found
    }

    /// The lines, the headers of the include folder and g++ itself: a precompiled header
    /// built from other bytes is another file.
    fn key(&self, includes: &str) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        includes.hash(&mut hasher);
        self.gxx.hash(&mut hasher);
        let mut headers: Vec<PathBuf> = std::fs::read_dir(&self.include)
            .map(|entries| entries.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        headers.sort();
        for header in headers {
            header.hash(&mut hasher);
            std::fs::read(&header).unwrap_or_default().hash(&mut hasher);
        }
        hasher.finish()
    }

    /// Builds `prelude.h` and its `.gch` in a folder of their own, renamed into place whole
    /// (other test processes may build the same one at once).
    fn build(&self, includes: &str, key: u64) -> Option<PathBuf> {
        let done = self.scratch.join(format!("prelude-{key:016x}"));
        let header = done.join("prelude.h");
        if done.join("prelude.h.gch").is_file() {
            return Some(header);
        }
        let own = self.scratch.join(format!(
            "prelude-{key:016x}.{}.{:?}.tmp",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&own).ok()?;
        std::fs::write(own.join("prelude.h"), includes).ok()?;
        let output = Command::new(&self.gxx)
            .arg(STANDARD)
            .args(["-x", "c++-header", "-I"])
            .arg(&self.include)
            .arg(own.join("prelude.h"))
            .arg("-o")
            .arg(own.join("prelude.h.gch"))
            .output()
            .ok()?;
        if !output.status.success() {
            let _ = std::fs::remove_dir_all(&own);
            return None;
        }
        if std::fs::rename(&own, &done).is_err() {
            // Another process put the same one in place first.
            let _ = std::fs::remove_dir_all(&own);
        }
        done.join("prelude.h.gch").is_file().then_some(header)
    }
}
