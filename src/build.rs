//! Builds emitted programs with nvcc: each program's translation units compile in parallel,
//! one process per core, then each program links.

use kernel_lint_harness::driver::SplitProgram;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// nvcc and the options every translation unit is built with.
pub struct Nvcc<'a> {
    pub program: &'a Path,
    pub arch: &'a str,
    /// Folder for the units and objects.
    pub dir: PathBuf,
    /// Where a batch of one program puts its executable.
    pub binary: PathBuf,
}

impl Nvcc<'_> {
    /// Builds each program of the batch; the answer for each is `Ok`, or the compiler's
    /// messages. A batch of one program links to [`Nvcc::binary`]; larger batches only check
    /// that each program builds.
    pub fn build(&self, programs: &[SplitProgram]) -> Vec<Result<(), String>> {
        if let Err(e) = std::fs::create_dir_all(&self.dir) {
            let message = format!("cannot create `{}`: {e}", self.dir.display());
            return programs.iter().map(|_| Err(message.clone())).collect();
        }
        // Every unit and every `main` of the batch is one compile task.
        let mut tasks: Vec<(usize, PathBuf, PathBuf)> = Vec::new();
        let mut written: Vec<Result<(), String>> = Vec::new();
        for (p, program) in programs.iter().enumerate() {
            let sources = program.units.iter().chain(std::iter::once(&program.main));
            let mut ok = Ok(());
            for (u, text) in sources.enumerate() {
                let source = self.dir.join(format!("p{p}-u{u}.cu"));
                if let Err(e) = std::fs::write(&source, text) {
                    ok = Err(format!("cannot write `{}`: {e}", source.display()));
                }
                tasks.push((p, source.clone(), source.with_extension("o")));
            }
            written.push(ok);
        }
        let failures: Mutex<Vec<Vec<String>>> = Mutex::new(vec![Vec::new(); programs.len()]);
        let next = AtomicUsize::new(0);
        let workers = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(tasks.len());
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    while let Some((p, source, object)) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if written[*p].is_err() {
                            continue;
                        }
                        let mut command = Command::new(self.program);
                        command
                            .args([
                                "-O3",
                                "-lineinfo",
                                "-std=c++17",
                                &format!("-arch={}", self.arch),
                                "-c",
                                "-o",
                            ])
                            .arg(object)
                            .arg(source);
                        if let Err(message) = run(&mut command) {
                            if let Ok(mut failures) = failures.lock() {
                                failures[*p].push(message);
                            }
                        }
                    }
                });
            }
        });
        let failures = failures.into_inner().unwrap_or_default();
        written
            .into_iter()
            .zip(failures)
            .enumerate()
            .map(|(p, (written, failed))| {
                written?;
                if !failed.is_empty() {
                    return Err(failed.concat());
                }
                let binary = if programs.len() == 1 {
                    self.binary.clone()
                } else {
                    self.dir.join(format!("p{p}"))
                };
                let objects = tasks.iter().filter(|(q, ..)| *q == p).map(|(_, _, object)| object);
                let mut link = Command::new(self.program);
                link.arg(format!("-arch={}", self.arch))
                    .arg("-o")
                    .arg(binary)
                    .args(objects);
                run(&mut link)
            })
            .collect()
    }
}

/// Runs a command; its output when it fails.
fn run(command: &mut Command) -> Result<(), String> {
    let output = command.output().map_err(|e| format!("cannot start nvcc: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&output.stderr),
            String::from_utf8_lossy(&output.stdout)
        ))
    }
}
