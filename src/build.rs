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
        let mut tasks: Vec<(usize, PathBuf, PathBuf, String)> = Vec::new();
        let mut written: Vec<Result<(), String>> = Vec::new();
        for (p, program) in programs.iter().enumerate() {
            let sources = program.units.iter().chain(std::iter::once(&program.main));
            let mut ok = Ok(());
            for (u, text) in sources.enumerate() {
                let source = self.dir.join(format!("p{p}-u{u}.cu"));
                if let Err(e) = std::fs::write(&source, text) {
                    ok = Err(format!("cannot write `{}`: {e}", source.display()));
                }
                tasks.push((
                    p,
                    source.clone(),
                    source.with_extension("o"),
                    unit_arch(self.arch, text),
                ));
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
                    while let Some((p, source, object, arch)) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) {
                        if written[*p].is_err() {
                            continue;
                        }
                        let mut command = Command::new(self.program);
                        command
                            .args(["-O3", "-lineinfo", "-std=c++17"])
                            .args(target_flags(arch))
                            .args(["-c", "-o"])
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
                let objects = tasks.iter().filter(|(q, ..)| *q == p).map(|(_, _, object, _)| object);
                let mut link = Command::new(self.program);
                link.args(target_flags(self.arch)).arg("-o").arg(binary).args(objects);
                run(&mut link)
            })
            .collect()
    }
}

/// nvcc's flags for a target: `sm_90a` names its virtual architecture too (`compute_90a`), as
/// `-arch=sm_90a` alone gives PTX for `compute_90` under CUDA 13, where ptxas then refuses the
/// arch-specific instructions.
pub fn target_flags(arch: &str) -> [String; 2] {
    match arch.strip_prefix("sm_") {
        Some(number) => ["-gencode".to_string(), format!("arch=compute_{number},code={arch}")],
        None => ["-arch".to_string(), arch.to_string()],
    }
}

/// The target a unit compiles for: the warpgroup MMA instructions exist only in the
/// arch-specific target, so a unit that uses them builds for `sm_90a` where `sm_90` was asked.
fn unit_arch(arch: &str, text: &str) -> String {
    let specific = ["KL_PTX_FENCE(\"wgmma.", "wgmma_wait_group<", "kl::wgmma_mma"]
        .iter()
        .any(|m| text.contains(m));
    if specific && arch == "sm_90" {
        "sm_90a".to_string()
    } else {
        arch.to_string()
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

#[cfg(test)]
mod tests {
    use super::{target_flags, unit_arch};

    #[test]
    fn units_with_warpgroup_mma_build_for_the_arch_specific_target() {
        let wgmma = "KL_PTX_FENCE(\"wgmma.fence.sync.aligned;\");";
        assert_eq!(unit_arch("sm_90", wgmma), "sm_90a");
        assert_eq!(target_flags("sm_90a"), ["-gencode", "arch=compute_90a,code=sm_90a"]);
        assert_eq!(target_flags("sm_90"), ["-gencode", "arch=compute_90,code=sm_90"]);
        assert_eq!(target_flags("native"), ["-arch", "native"]);
        assert_eq!(
            unit_arch("sm_90", "kl::wgmma_mma_m64n64k16_f32_bf16(a, 0, 0);"),
            "sm_90a"
        );
        assert_eq!(unit_arch("sm_90", "x = 1;"), "sm_90");
        assert_eq!(unit_arch("sm_90a", wgmma), "sm_90a");
        assert_eq!(unit_arch("sm_100a", wgmma), "sm_100a");
    }
}
