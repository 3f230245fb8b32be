//! The `harness` and `validate` commands: glue between the CLI, the harness crate and the
//! CUDA tools (nvcc, ncu) on the machine.

use crate::build::Nvcc;
use crate::cli::{BenchArgs, CompareArgs, EmitArgs, HarnessCommand, ReduceArgs, TableFormat, ValidateArgs};
use crate::error::CliError;
use crate::exit::Status;
use crate::fix::engine::{self, Options, Texts};
use crate::output::print;
use crate::session::Outcome;
use crate::session::Session;
use kernel_lint_analyzer::{ModuleSource, SourceFile};
use kernel_lint_harness::{bench, compare, driver, manifest::Manifest, reduce, shared};
use kernel_lint_lints::Diagnostic;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Runs a `harness` subcommand.
pub fn run(session: &Session, command: &HarnessCommand) -> Result<Status, CliError> {
    match command {
        HarnessCommand::Emit(args) => emit(session, args).map(|emitted| emitted.status),
        HarnessCommand::Reduce(args) => reduce_export(args),
        HarnessCommand::Compare(args) => compare_files(args),
        HarnessCommand::Bench(args) => run_bench(session, args),
    }
}

/// Whether the findings' rewrites are wanted (the benchmark of the tool's own rewrites), or
/// only the files and their reports (a program to emit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Rewrites,
    Reports,
}

/// The analysis of the sources under `paths`; files that do not parse are reported, and
/// [`sources`] skips them.
fn analyzed(session: &Session, paths: &[PathBuf], wanted: Wanted) -> Result<Outcome, CliError> {
    let outcome = match wanted {
        Wanted::Rewrites => session.check_fresh(paths)?,
        Wanted::Reports => session.accesses_fresh(paths)?,
    };
    for err in outcome.errors() {
        eprintln!("error: {err}");
    }
    Ok(outcome)
}

/// The sources that parsed.
fn sources(outcome: &Outcome) -> Vec<SourceFile> {
    outcome.analyzed().map(|a| a.source.clone()).collect()
}

/// The analyzed files, then those read for their items, each with the module the analysis
/// gave it, and the crates each crate uses: names resolve as they did for `check`.
fn workspace_sources(outcome: &Outcome) -> driver::Sources {
    let module_of = |source: &SourceFile| {
        outcome
            .modules
            .iter()
            .find(|(path, _)| *path == source.path)
            .map_or_else(|| vec![source.path.clone()], |(_, module)| module.clone())
    };
    let reported = sources(outcome);
    let count = reported.len();
    let inputs = reported
        .into_iter()
        .chain(outcome.context.iter().cloned())
        .map(|source| ModuleSource {
            module: module_of(&source),
            source,
            also_in: Vec::new(),
        })
        .collect();
    driver::Sources {
        inputs,
        reported: count,
        uses: outcome.uses.clone(),
        features: outcome.features.clone(),
    }
}

fn write(path: &Path, text: &str) -> Result<(), CliError> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| CliError::write(parent, &e))?;
    }
    std::fs::write(path, text).map_err(|e| CliError::write(path, &e))
}

fn read(path: &Path) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| CliError::read(path, &e))
}

fn to_json(value: &impl serde::Serialize, path: &Path) -> Result<String, CliError> {
    serde_json::to_string_pretty(value).map_err(|e| CliError::malformed(path, e))
}

/// What `harness emit` wrote.
struct EmitOutcome {
    /// The program and its manifest.
    emitted: driver::Emitted,
    /// [`Status::Failed`] when some input could not be read or parsed, else clean.
    status: Status,
}

/// `harness emit`: writes `kernels.cu` and `manifest.json` for every kernel that lowers, even
/// when some input could not be read or parsed (the status then fails).
fn emit(session: &Session, args: &EmitArgs) -> Result<EmitOutcome, CliError> {
    let outcome = analyzed(session, &args.paths, Wanted::Reports)?;
    let failed_inputs = outcome.errors().next().is_some();
    // One program holds every launch, so the files must agree on one configuration.
    let plan = outcome.configs.single_plan(outcome.analyzed().map(|a| a.config))?;
    let emitted = driver::emit_sources(&workspace_sources(&outcome), &plan);
    for err in &emitted.errors {
        eprintln!("error: {err}");
    }
    let manifest_json = to_json(&emitted.manifest, &args.out.join("manifest.json"))?;
    write(&args.out.join("kernels.cu"), &emitted.program)?;
    write(&args.out.join("manifest.json"), &manifest_json)?;
    let m = &emitted.manifest;
    eprintln!(
        "wrote {} launches of {} kernels to {}",
        m.launches.len(),
        {
            let mut names: Vec<(&str, &str)> = m
                .launches
                .iter()
                .map(|l| (l.file.as_str(), l.kernel.as_str()))
                .collect();
            names.dedup();
            names.len()
        },
        args.out.join("kernels.cu").display()
    );
    for n in &m.not_lowered {
        eprintln!(
            "not lowered: {}:{}:{}: `{}`: {}",
            n.file, n.line, n.column, n.kernel, n.reason
        );
    }
    for launch in &m.launches {
        for buffer in launch.buffers.iter().filter(|b| b.unbounded.is_some()) {
            eprintln!(
                "note: {} `{}`: {} ({} bytes allocated)",
                launch.kernel,
                buffer.array,
                buffer.unbounded.as_deref().unwrap_or_default(),
                buffer.bytes
            );
        }
        for note in &launch.notes {
            eprintln!("note: {} (launch {}): {note}", launch.kernel, launch.index);
        }
    }
    let status = if failed_inputs || !emitted.errors.is_empty() {
        Status::Failed
    } else {
        Status::Clean
    };
    Ok(EmitOutcome { emitted, status })
}

/// Stops `validate` before building when no launch was emitted: there is nothing to measure.
fn measurable(manifest: &Manifest) -> Result<(), CliError> {
    if manifest.launches.is_empty() {
        return Err(CliError::NothingToMeasure(
            manifest
                .not_lowered
                .iter()
                .map(|n| format!("{}:{}:{}: `{}`: {}", n.file, n.line, n.column, n.kernel, n.reason))
                .collect(),
        ));
    }
    Ok(())
}

fn reduce_export(args: &ReduceArgs) -> Result<Status, CliError> {
    let export = read(&args.export)?;
    let rows = reduce::reduce(&export).map_err(|e| CliError::malformed(&args.export, e))?;
    let csv = reduce::write_csv(&rows).map_err(|e| CliError::malformed(&args.export, e))?;
    match &args.out {
        Some(path) => write(path, &csv)?,
        None => print(&csv)?,
    }
    Ok(Status::Clean)
}

fn compare_files(args: &CompareArgs) -> Result<Status, CliError> {
    let manifest: Manifest = serde_json::from_str(&read(&args.manifest)?)
        .map_err(|e| CliError::malformed(&args.manifest, format!("not a harness manifest: {e}")))?;
    let measured = reduce::read_csv(&read(&args.measured)?).map_err(|e| CliError::malformed(&args.measured, e))?;
    let comparison = compare::compare(&manifest, &measured);
    let text = match args.format.unwrap_or_default() {
        TableFormat::Human => comparison.render() + &shared::render(&shared::compare_lines(&manifest, &measured)),
        TableFormat::Json => to_json(&comparison, &args.manifest)? + "\n",
    };
    print(&text)?;
    Ok(threshold(&comparison, args.min_exact))
}

fn threshold(comparison: &compare::Comparison, min_exact: f64) -> Status {
    if comparison.exact_fraction() + 1e-9 < min_exact {
        eprintln!(
            "error: {:.1}% of measured accesses are exact, below the threshold of {:.1}%",
            comparison.exact_fraction() * 100.0,
            min_exact * 100.0
        );
        Status::Findings
    } else {
        Status::Clean
    }
}

/// The CUDA tools `validate` and `bench --run` need; an error lists the missing ones.
fn cuda_tools() -> Result<(PathBuf, PathBuf), CliError> {
    let find = |name: &str| {
        let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        dirs.push(PathBuf::from("/usr/local/cuda/bin"));
        dirs.into_iter().map(|d| d.join(name)).find(|p| p.is_file())
    };
    match (find("nvcc"), find("ncu")) {
        (Some(nvcc), Some(ncu)) => Ok((nvcc, ncu)),
        (nvcc, ncu) => {
            let missing: Vec<&str> = [
                ("nvcc (the CUDA compiler)", nvcc.is_none()),
                ("ncu (Nsight Compute)", ncu.is_none()),
            ]
            .into_iter()
            .filter_map(|(name, missing)| missing.then_some(name))
            .collect();
            Err(CliError::MissingTools(missing))
        }
    }
}

/// Runs a tool, streaming nothing; returns its stdout or reports its failure.
fn tool(step: &str, command: &mut Command) -> Result<String, CliError> {
    eprintln!("{step}");
    let program = format!("{:?}", command.get_program());
    let output = command.output().map_err(|e| CliError::Tool {
        program: program.clone(),
        message: format!("cannot start: {e}"),
    })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        return Err(CliError::Tool {
            program,
            message: format!("failed ({}):\n{stdout}{stderr}", output.status),
        });
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn nvcc(nvcc: &Path, arch: &str, source: &Path, binary: &Path) -> Command {
    let mut c = Command::new(nvcc);
    c.args(["-O3", "-lineinfo", "-std=c++17"])
        .args(crate::build::target_flags(arch))
        .arg("-o")
        .arg(binary)
        .arg(source);
    c
}

/// How a profiling run ended.
enum Profiled {
    /// The profiler exited, with its output.
    Finished {
        success: bool,
        status: String,
        output: String,
    },
    /// No launch finished within the time given: the profiler was stopped.
    Stalled { output: String },
}

/// How long the profiler may take to write its report once the program it profiles is stopped.
const PROFILER_GRACE: Duration = Duration::from_secs(60);

/// Kills every process of the profiler's group but the profiler itself (the group's leader):
/// the program under it, which has stalled.
#[cfg(unix)]
fn stop_profiled_program(leader: u32) {
    let Ok(listed) = Command::new("pgrep").args(["-g", &leader.to_string()]).output() else {
        return;
    };
    for pid in String::from_utf8_lossy(&listed.stdout).split_whitespace() {
        if pid != leader.to_string() {
            let _ = Command::new("kill").args(["-KILL", pid]).stderr(Stdio::null()).status();
        }
    }
}

/// Runs the profiler, stopping it when the program starts no new launch for `stall`; its
/// output (with the program's launch marks) is kept either way.
fn profile(command: &mut Command, stall: Duration) -> std::io::Result<Profiled> {
    // Its own process group, so that stopping it stops the program it profiles too.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(command, 0);
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let lines = Arc::new(Mutex::new((String::new(), Instant::now())));
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(|stream| {
        let lines = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if let Ok(mut shared) = lines.lock() {
                    if line.contains(driver::LAUNCH_MARK) {
                        shared.1 = Instant::now();
                    }
                    shared.0.push_str(&line);
                    shared.0.push('\n');
                }
            }
        })
    })
    .collect();
    let ended = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        let since = lines.lock().map_or(Duration::ZERO, |shared| shared.1.elapsed());
        if since > stall {
            // The program is stopped first and the profiler given time to write what it
            // measured of the launches before; then the whole group goes.
            #[cfg(unix)]
            {
                stop_profiled_program(child.id());
                let waited = Instant::now();
                while waited.elapsed() < PROFILER_GRACE && child.try_wait()?.is_none() {
                    std::thread::sleep(Duration::from_millis(200));
                }
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", child.id())])
                    .stderr(Stdio::null())
                    .status();
            }
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    // After a stop, a stream may stay open in a process outside the group: not waited for.
    if ended.is_some() {
        for reader in readers {
            let _ = reader.join();
        }
    }
    let output = lines.lock().map(|shared| shared.0.clone()).unwrap_or_default();
    Ok(match ended {
        Some(status) => Profiled::Finished {
            success: status.success(),
            status: status.to_string(),
            output,
        },
        None => Profiled::Stalled { output },
    })
}

/// Launches left out for failing at run time before `validate` gives up.
const MAX_FAILED_LAUNCHES: usize = 8;

/// The emitted positions of the launches the program started, in order, from the line it
/// writes before each launch.
fn launches_started(output: &str) -> Vec<usize> {
    output
        .lines()
        .filter_map(|line| line.trim().strip_prefix(driver::LAUNCH_MARK)?.trim().parse().ok())
        .collect()
}

/// The emitted position of the launch the program started last, from the line it writes
/// before each launch.
fn last_launch(output: &str) -> Option<usize> {
    output
        .lines()
        .rev()
        .find_map(|line| line.trim().strip_prefix(driver::LAUNCH_MARK)?.trim().parse().ok())
}

/// `validate`: emit, build, measure with Nsight Compute, reduce and compare.
pub fn validate(session: &Session, args: &ValidateArgs) -> Result<Status, CliError> {
    {
        let (nvcc_path, ncu) = cuda_tools()?;
        eprintln!("[1/5] lowering the kernels");
        let EmitOutcome { emitted, status } = emit(
            session,
            &EmitArgs {
                paths: args.paths.clone(),
                out: args.out.clone(),
            },
        )?;
        measurable(&emitted.manifest)?;
        let binary = args.out.join("kernels");
        eprintln!("[2/5] building with nvcc");
        let nvcc = Nvcc {
            program: &nvcc_path,
            arch: &args.arch,
            dir: args.out.join("build"),
            binary: binary.clone(),
        };
        let pieces = std::thread::available_parallelism().map_or(1, |n| n.get());
        let built = driver::build_surviving(&emitted, |batch| {
            let programs: Vec<_> = batch
                .iter()
                .map(|launches| emitted.parts.split(launches, pieces))
                .collect();
            nvcc.build(&programs)
        });
        for failure in &built.failures {
            eprintln!(
                "error: `{}` in {} left out, nvcc rejects its twin:\n{}",
                failure.kernel, failure.file, failure.message
            );
        }
        if let Some(message) = built.error {
            return Err(CliError::Tool {
                program: format!("{nvcc_path:?}"),
                message: format!("failed:\n{message}"),
            });
        }
        let mut manifest = built.manifest;
        let mut kept = built.kept;
        let mut status = if built.failures.is_empty() {
            status
        } else {
            Status::Failed
        };
        eprintln!("[3/5] profiling with Nsight Compute (SourceCounters)");
        // A launch that fails at run time ends the program, one that never finishes stalls it:
        // it is left out and the program runs again. After a failure, the report holds the
        // launches before it, so the next run starts after them. A stalled program is stopped
        // under the profiler, which then writes the same partial report where it can.
        let mut failed_launches = 0;
        let mut reports: Vec<(PathBuf, Vec<usize>)> = Vec::new();
        loop {
            let done: Vec<usize> = reports.iter().flat_map(|(_, ran)| ran.iter().copied()).collect();
            // Every launch left ran before a failure: the profiler, given none, would write
            // no report.
            if !reports.is_empty() && kept.iter().all(|k| done.contains(k)) {
                break;
            }
            let skipped: Vec<String> = (0..emitted.manifest.launches.len())
                .filter(|i| !kept.contains(i) || done.contains(i))
                .map(|i| i.to_string())
                .collect();
            let report = args.out.join(format!("report-{}", reports.len() + failed_launches));
            let mut command = Command::new(&ncu);
            command
                .env(driver::SKIP_VARIABLE, skipped.join(","))
                .args(["--section", "SourceCounters", "--import-source", "yes", "-f", "-o"])
                .arg(&report)
                .arg(&binary);
            let profiled =
                profile(&mut command, Duration::from_secs(args.launch_timeout)).map_err(|e| CliError::Tool {
                    program: format!("{ncu:?}"),
                    message: format!("cannot start: {e}"),
                })?;
            let (text, ended, stalled) = match profiled {
                Profiled::Finished {
                    success: true, output, ..
                } => {
                    reports.push((report, launches_started(&output)));
                    break;
                }
                Profiled::Finished { output, status, .. } => (output, status, false),
                Profiled::Stalled { output } => {
                    (output, format!("no launch finished in {} s", args.launch_timeout), true)
                }
            };
            let failed = last_launch(&text).and_then(|emitted_at| kept.iter().position(|&k| k == emitted_at));
            let (Some(position), true) = (failed, failed_launches < MAX_FAILED_LAUNCHES) else {
                return Err(CliError::Tool {
                    program: format!("{ncu:?}"),
                    message: format!("failed ({ended}):\n{text}"),
                });
            };
            failed_launches += 1;
            status = Status::Failed;
            if report.with_extension("ncu-rep").is_file() {
                let mut ran = launches_started(&text);
                ran.pop();
                if !ran.is_empty() {
                    reports.push((report, ran));
                }
            }
            let launch = &manifest.launches[position];
            let reason = if stalled {
                format!("its launch runs past {} s under Nsight Compute", args.launch_timeout)
            } else {
                "its launch fails at run time: the program stops there".to_string()
            };
            eprintln!(
                "error: `{}` in {} (launch {position}): {reason}; measuring the others without it",
                launch.kernel, launch.file
            );
            // What the program said of the failure (the CUDA error and the call that met it).
            for line in text.lines().filter(|l| l.starts_with("CUDA error")).take(2) {
                eprintln!("  {line}");
            }
            let (rest, next) = driver::without_launch(&kept, &manifest, position, &reason);
            (kept, manifest) = (rest, next);
            measurable(&manifest)?;
            eprintln!("[3/5] profiling again");
        }
        if status == Status::Failed {
            let manifest_path = args.out.join("manifest.json");
            write(&manifest_path, &to_json(&manifest, &manifest_path)?)?;
        }
        eprintln!("[4/5] exporting the source page");
        let export_path = args.out.join("source.csv");
        let mut exports = String::new();
        let mut rows = Vec::new();
        for (report, ran) in &reports {
            let export = tool(
                &format!("  {}", report.display()),
                Command::new(&ncu)
                    .arg("-i")
                    .arg(report.with_extension("ncu-rep"))
                    .args(["--page", "source", "--csv", "--print-source", "cuda,sass"]),
            )?;
            // Each report numbers its launches from 0: they become the manifest's positions.
            for mut row in reduce::reduce(&export).map_err(|e| CliError::malformed(&export_path, e))? {
                let Some(position) = ran.get(row.launch).and_then(|at| kept.iter().position(|k| k == at)) else {
                    continue;
                };
                row.launch = position;
                rows.push(row);
            }
            exports.push_str(&export);
        }
        write(&export_path, &exports)?;
        eprintln!("[5/5] comparing");
        write(
            &args.out.join("measured.csv"),
            &reduce::write_csv(&rows).map_err(|e| CliError::malformed(&export_path, e))?,
        )?;
        let comparison = compare::compare(&manifest, &rows);
        print(&comparison.render())?;
        print(&shared::render(&shared::compare_lines(&manifest, &rows)))?;
        let measured = threshold(&comparison, args.min_exact);
        Ok(if status == Status::Failed { status } else { measured })
    }
}

fn run_bench(session: &Session, args: &BenchArgs) -> Result<Status, CliError> {
    let pairs = bench::parse_pairs(&read(&args.pairs)?).map_err(|e| CliError::malformed(&args.pairs, e))?;
    // The tool's rewrites are proven only when a pair measures one.
    let wanted = if pairs
        .pair
        .iter()
        .any(|p| p.before.rewrite.is_some() || p.after.rewrite.is_some())
    {
        Wanted::Rewrites
    } else {
        Wanted::Reports
    };
    let outcome = analyzed(session, &args.paths, wanted)?;
    let mut files = sources(&outcome);
    let mut problems = Vec::new();
    for side in pairs.pair.iter().flat_map(|p| [&p.before, &p.after]) {
        if let Some(n) = side.rewrite {
            match rewritten(&outcome, &side.kernel, &side.file, n) {
                Ok(source) => files.push(source),
                Err(problem) => problems.push(problem),
            }
        }
    }
    let mut plan = bench::plan(&files, &pairs);
    plan.problems.splice(0..0, problems);
    for problem in &plan.problems {
        eprintln!("warning: {problem}");
    }
    let source = args.out.join("bench.cu");
    write(&source, &plan.program)?;
    let manifest_path = args.out.join("bench-manifest.json");
    write(&manifest_path, &to_json(&plan.manifest, &manifest_path)?)?;
    eprintln!("wrote {} pairs to {}", plan.manifest.pairs.len(), source.display());
    if !args.run {
        return Ok(Status::Clean);
    }
    let (nvcc_path, ncu) = cuda_tools()?;
    let binary = args.out.join("bench");
    tool(
        "[1/3] building with nvcc",
        &mut nvcc(&nvcc_path, &args.arch, &source, &binary),
    )?;
    let timings = tool(
        "[2/3] timing (median of 25 runs after 3 warm-ups)",
        &mut Command::new(&binary),
    )?;
    write(&args.out.join("timings.csv"), &timings)?;
    let metrics = tool(
        "[3/3] profiling sectors and DRAM bytes with Nsight Compute",
        Command::new(&ncu)
            .env("KL_PROFILE_ONCE", "1")
            .args(["--csv", "--metrics", &bench::METRICS.join(",")])
            .arg(&binary),
    )?;
    // ncu prints its own lines before the CSV.
    let csv_start = metrics.find("\"ID\"").unwrap_or(0);
    write(&args.out.join("metrics.csv"), &metrics[csv_start..])?;
    let table = bench::table(
        &plan.manifest,
        &bench::parse_timings(&timings),
        &bench::parse_metrics(&metrics[csv_start..])
            .map_err(|e| CliError::malformed(&args.out.join("metrics.csv"), e))?,
    );
    write(&args.out.join("pairs.md"), &table)?;
    print(&table)?;
    Ok(Status::Clean)
}

/// The text of `file` with kernel-lint's own rewrites of `kernel` applied, as `fix
/// --unsafe-fixes` would apply them, taking each finding's `n`-th rewrite where it has one:
/// a file of its own for the benchmark.
fn rewritten(outcome: &Outcome, kernel: &str, file: &str, n: usize) -> Result<SourceFile, String> {
    let source = outcome
        .analyzed()
        .map(|a| &a.source)
        .find(|s| s.path.replace('\\', "/").ends_with(file))
        .ok_or_else(|| format!("rewrite of `{kernel}`: no analyzed file ends with `{file}`"))?;
    let mut diagnostics: Vec<Diagnostic> = outcome
        .analyzed()
        .flat_map(|a| a.diagnostics.iter())
        .filter(|d| d.kernel == kernel && d.file == source.path && !d.fixes.is_empty())
        .cloned()
        .collect();
    for d in &mut diagnostics {
        // The n-th rewrite first; a finding with fewer keeps its last.
        let chosen = (n.max(1) - 1).min(d.fixes.len() - 1);
        let fix = d.fixes.remove(chosen);
        d.fixes = vec![fix];
    }
    if diagnostics.is_empty() {
        return Err(format!(
            "rewrite of `{kernel}` in `{file}`: no finding of the kernel has a rewrite"
        ));
    }
    let texts = Texts::from([(source.path.clone(), Ok(source.text.clone()))]);
    let plan = engine::plan(&diagnostics, &texts, Options { unsafe_fixes: true });
    if let Some(other) = plan.files.iter().find(|c| c.path != source.path) {
        return Err(format!(
            "rewrite of `{kernel}` also edits `{}`: only single-file rewrites are benchmarked",
            other.path
        ));
    }
    let change = plan
        .files
        .first()
        .ok_or_else(|| format!("rewrite of `{kernel}` in `{file}`: its rewrites could not be applied"))?;
    Ok(SourceFile::new(
        bench::rewritten_path(&source.path, kernel, n),
        change.fixed.clone(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_lint_harness::manifest::{NotLoweredRecord, SCHEMA};

    fn manifest(not_lowered: Vec<NotLoweredRecord>) -> Manifest {
        Manifest {
            schema: SCHEMA.to_string(),
            launches: Vec::new(),
            not_lowered,
        }
    }

    #[test]
    fn nothing_lowered_is_nothing_to_measure_with_each_reason() {
        let err = measurable(&manifest(vec![NotLoweredRecord {
            kernel: "k".to_string(),
            file: "a.rs".to_string(),
            line: 3,
            column: 5,
            reason: "call to `primitive_index` is not lowered: no helper or builtin of that name".to_string(),
        }]))
        .expect_err("nothing to measure");
        assert_eq!(
            err.to_string(),
            "nothing to measure: no kernel could be lowered\n  not lowered: a.rs:3:5: `k`: call to \
             `primitive_index` is not lowered: no helper or builtin of that name"
        );
        assert!(measurable(&manifest(Vec::new())).is_err());
    }

    #[test]
    fn one_launch_is_something_to_measure() {
        let files = [SourceFile::new(
            "k.rs",
            "#[kernel]\npub unsafe fn k(a: *mut f32) {\n    *a.add(thread::index_1d() as usize) = 1.0;\n}\n",
        )];
        let emitted = driver::emit(&files, &Default::default());
        assert_eq!(emitted.manifest.launches.len(), 1, "{:?}", emitted.manifest.not_lowered);
        assert!(measurable(&emitted.manifest).is_ok());
    }

    #[cfg(unix)]
    #[test]
    fn a_program_that_stalls_is_stopped_with_its_output_kept() {
        let mut stalls = Command::new("sh");
        stalls.args([
            "-c",
            // The marks go to the program's standard error, as the driver writes them.
            "echo '==PROF== Connected'; echo 'kernel-lint launch 0' >&2; echo 'kernel-lint launch 1' >&2; sleep 30",
        ]);
        match profile(&mut stalls, Duration::from_millis(500)).expect("sh runs") {
            Profiled::Stalled { output } => assert_eq!(last_launch(&output), Some(1), "{output}"),
            Profiled::Finished { .. } => panic!("the program should have been stopped"),
        }
        // The stalled program (here `sleep`) is stopped, not the profiler (the shell), which
        // goes on to write its report.
        let report = std::env::temp_dir().join(format!("kernel-lint-stall-{}.ncu-rep", std::process::id()));
        let _ = std::fs::remove_file(&report);
        let mut profiler = Command::new("sh");
        profiler.args([
            "-c",
            &format!(
                "echo 'kernel-lint launch 4' >&2; sleep 30; echo measured > {}",
                report.display()
            ),
        ]);
        match profile(&mut profiler, Duration::from_millis(500)).expect("sh runs") {
            Profiled::Stalled { output } => assert_eq!(last_launch(&output), Some(4), "{output}"),
            Profiled::Finished { .. } => panic!("the program should have been stopped"),
        }
        assert_eq!(
            std::fs::read_to_string(&report).expect("the report is written"),
            "measured\n"
        );
        let _ = std::fs::remove_file(&report);
        let mut fails = Command::new("sh");
        fails.args(["-c", "echo 'kernel-lint launch 2'; exit 3"]);
        match profile(&mut fails, Duration::from_secs(60)).expect("sh runs") {
            Profiled::Finished { success, output, .. } => {
                assert!(!success);
                assert_eq!(last_launch(&output), Some(2));
            }
            Profiled::Stalled { .. } => panic!("the program ended by itself"),
        }
    }

    #[test]
    fn a_launch_failing_at_run_time_is_left_out_and_the_others_kept() {
        let files = [SourceFile::new(
            "k.rs",
            "#[kernel]\npub unsafe fn a(x: *mut f32) {\n    *x.add(thread::index_1d() as usize) = 1.0;\n}\n\
             #[kernel]\npub unsafe fn b(x: *mut f32) {\n    *x.add(thread::index_1d() as usize) = 2.0;\n}\n\
             #[kernel]\npub unsafe fn c(x: *mut f32) {\n    *x.add(thread::index_1d() as usize) = 3.0;\n}\n",
        )];
        let emitted = driver::emit(&files, &Default::default());
        assert_eq!(emitted.manifest.launches.len(), 3);
        assert!(emitted
            .program
            .contains("fprintf(stderr, \"kernel-lint launch 1\\n\");"));
        // What Nsight Compute passes on of the program's output when launch 1 fails.
        let output = "==PROF== Connected\nkernel-lint launch 0\n==PROF== Profiling \"a\" - 0: 100%\n\
                      kernel-lint launch 1\nCUDA error an illegal memory access was encountered\n";
        assert_eq!(last_launch(output), Some(1));
        assert_eq!(launches_started(output), vec![0, 1]);
        assert_eq!(last_launch("==PROF== Connected\n"), None);
        let kept = vec![0, 1, 2];
        let (rest, manifest) = driver::without_launch(&kept, &emitted.manifest, 1, "fails");
        assert_eq!(rest, vec![0, 2]);
        let names: Vec<(usize, &str)> = manifest.launches.iter().map(|l| (l.index, l.kernel.as_str())).collect();
        assert_eq!(names, vec![(0, "a"), (1, "c")]);
        assert_eq!(
            manifest
                .not_lowered
                .last()
                .map(|n| (n.kernel.as_str(), n.reason.as_str())),
            Some(("b", "fails"))
        );
        // The program stays as built: it is told to skip launch 1.
        assert!(emitted
            .program
            .contains("if (!kl_skipped(1)) { kl_file0::kl_launch_1(); ran++; }"));
    }
}
