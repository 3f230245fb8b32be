//! `harness emit`: the CUDA C program that launches every lowered kernel with its
//! configuration and buffers sized from the analysis, and the manifest of predictions.

use crate::bounds::{buffer_needs, BufferNeed, INDEX_FILL_RANGE, SLICE_ELEMENTS, UNBOUNDED_BYTES};
use crate::lower::{
    host_program, instantiate_kernels_launched_by, lower_file, LoweredKernel, Param, Workspace, PRELUDE,
};
use crate::manifest::{BufferRecord, LaunchRecord, Manifest, NotLoweredRecord, PredictedAccess, SCHEMA};
use kernel_lint_analyzer::algebra::interval::{iteration_bound, Interval};
use kernel_lint_analyzer::algebra::{Atom, Predicate};
use kernel_lint_analyzer::interpret::Access;
use kernel_lint_analyzer::model::kernel::Kernel;
use kernel_lint_analyzer::workspace::CrateFeatures;
use kernel_lint_analyzer::{
    CrateUse, FileError, LaunchPlan, MemorySpace, ModulePath, ModuleSource, Program, ResolvedLaunch, SourceFile,
};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Threads a 1D launch covers when the configuration gives no grid.
pub const DEFAULT_THREADS: u32 = 1 << 20;
/// The most bytes one buffer of a launch is given: a launch that needs more is scaled down.
pub const MAX_BUFFER_BYTES: u64 = 1 << 30;
/// The most bytes all buffers of one launch are given together.
pub const MAX_LAUNCH_BYTES: u64 = 2 << 30;
/// The most requests (one access of one warp) a launch is planned to make: the profiler
/// replays each launch several times, and a launch far past this outlasts any time limit.
pub const MAX_LAUNCH_REQUESTS: f64 = (1u64 << 28) as f64;
/// The value of a defaulted parameter when some access's extent cannot be bounded: small, so
/// that whatever product of parameters sizes that access stays within its buffer.
pub const UNBOUNDED_DEFAULT: i64 = 1 << 10;

/// The generated program and what it launches.
#[derive(Debug, Clone)]
pub struct Emitted {
    /// CUDA C++ source of the whole program.
    pub program: String,
    /// Launches and predictions.
    pub manifest: Manifest,
    /// Files that could not be parsed.
    pub errors: Vec<FileError>,
    /// The pieces of the program, to write the program of some of its launches.
    pub parts: ProgramParts,
}

/// One launch ready to be written: the kernel, its launch and its analysis.
pub struct PlannedLaunch {
    /// Namespace of the file.
    pub namespace: String,
    /// The lowered kernel.
    pub kernel: LoweredKernel,
    /// The launch.
    pub launch: ResolvedLaunch,
    /// Its accesses under this launch.
    pub accesses: Vec<Access>,
    /// Buffer needs by array.
    pub buffers: BTreeMap<String, BufferNeed>,
    /// The manifest record.
    pub record: LaunchRecord,
    /// Why the launch cannot be made even scaled down (its buffers exceed the caps), if so.
    pub oversized: Option<String>,
}

/// The files of a run: each with the module it is, the files whose kernels are lowered first
/// and then those read for their items only, and which crates each crate uses.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Every file with its module.
    pub inputs: Vec<ModuleSource>,
    /// How many of the first inputs have their kernels lowered.
    pub reported: usize,
    /// Which crates each crate uses, so that names resolve across crates.
    pub uses: Vec<CrateUse>,
    /// The features each crate is compiled with, which decide its `#[cfg]`s.
    pub features: CrateFeatures,
}

impl Sources {
    /// Files lowered each on its own, as the root of a crate of its own.
    pub fn standalone(files: &[SourceFile]) -> Sources {
        Sources {
            inputs: files.iter().cloned().map(ModuleSource::standalone).collect(),
            reported: files.len(),
            uses: Vec::new(),
            features: CrateFeatures::new(),
        }
    }
}

/// The parsed and lowered files of a run, from which launches are planned.
pub struct LoweredSet {
    program: Program,
    files: Vec<LoweredUnit>,
    /// Files that could not be parsed.
    pub errors: Vec<FileError>,
    /// Kernels that could not be lowered.
    pub not_lowered: Vec<NotLoweredRecord>,
    /// The CUDA C++ of every file (prelude included).
    pub code: String,
}

struct LoweredUnit {
    file: usize,
    kernels: Vec<Kernel>,
    lowered: Vec<LoweredKernel>,
    namespace: String,
    common: String,
    close: String,
}

impl LoweredSet {
    /// Parses and lowers every file; kernels use `plan` for their default launch.
    pub fn new(files: &[SourceFile], plan: &LaunchPlan) -> LoweredSet {
        LoweredSet::from_sources(&Sources::standalone(files), plan)
    }

    /// Parses every file, resolving names across modules and crates, and lowers the kernels of
    /// the reported ones with every item they need wherever it is defined.
    pub fn from_sources(sources: &Sources, plan: &LaunchPlan) -> LoweredSet {
        let modules: Vec<ModulePath> = sources.inputs.iter().map(|i| i.module.clone()).collect();
        let program = Program::parse_configured(sources.inputs.clone(), &sources.uses, &sources.features);
        let files = program.files();
        let workspace = Workspace {
            files,
            syntax: (0..files.len()).map(|i| program.syntax(i).ok()).collect(),
            modules: &modules,
        };
        let mut errors = Vec::new();
        let mut units = Vec::new();
        let mut not_lowered = Vec::new();
        let mut code = String::from(PRELUDE);
        code.push_str(CHECK_MACRO);
        for (i, file) in files.iter().enumerate().take(sources.reported) {
            let (syntax, scope) = match (program.syntax(i), program.scope(i)) {
                (Ok(syntax), Some(scope)) => (syntax, scope),
                (Err(e), _) => {
                    errors.push(e.clone());
                    continue;
                }
                (Ok(_), None) => continue,
            };
            let namespace = format!("kl_file{i}");
            let (kernels, _) = program.kernels(i, plan);
            let host = kernels
                .iter()
                .any(|k| !k.item.sig.generics.params.is_empty())
                .then(|| host_program(&file.path))
                .flatten();
            let kernels = instantiate_kernels_launched_by(syntax, host.as_ref(), kernels);
            // A defect met while lowering one file leaves its kernels listed, with the defect;
            // the other files are still lowered.
            let lowered = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                lower_file(&workspace, i, syntax, scope, &kernels, &namespace)
            })) {
                Ok(lowered) => lowered,
                Err(panic) => {
                    let what = kernel_lint_analyzer::panic_message(panic.as_ref());
                    not_lowered.extend(kernels.iter().map(|k| NotLoweredRecord {
                        kernel: k.name.clone(),
                        file: file.path.clone(),
                        line: k.span.line,
                        column: k.span.column,
                        reason: format!("internal error while lowering this file: {what}"),
                    }));
                    continue;
                }
            };
            code.push_str(&lowered.code);
            for failure in &lowered.not_lowered {
                not_lowered.push(NotLoweredRecord {
                    kernel: failure.kernel.clone(),
                    file: file.path.clone(),
                    line: failure.span.line,
                    column: failure.span.column,
                    reason: failure.reason.clone(),
                });
            }
            units.push(LoweredUnit {
                file: i,
                kernels,
                lowered: lowered.kernels,
                namespace,
                common: lowered.common,
                close: lowered.close,
            });
        }
        code.push_str("#line 1 \"kernel-lint-driver.cu\"\n");
        drop(workspace);
        LoweredSet {
            program,
            files: units,
            errors,
            not_lowered,
            code,
        }
    }

    /// Every lowered kernel with its file, in source order.
    pub fn kernels(&self) -> impl Iterator<Item = (&SourceFile, &Kernel)> {
        let files = self.program.files();
        self.files.iter().flat_map(move |u| {
            u.lowered
                .iter()
                .filter_map(move |l| Some((&files[u.file], u.kernels.iter().find(|k| k.name == l.name)?)))
        })
    }

    /// Plans one launch of a lowered kernel; `None` when no such kernel was lowered.
    pub fn plan(&self, file: &str, kernel: &str, launch: ResolvedLaunch, index: usize) -> Option<PlannedLaunch> {
        let files = self.program.files();
        let unit = self.files.iter().find(|u| files[u.file].path == file)?;
        let lowered = unit.lowered.iter().find(|l| l.name == kernel)?;
        let kernel = unit.kernels.iter().find(|k| k.name == kernel)?;
        Some(plan_launch(
            &self.program,
            unit.file,
            kernel,
            lowered,
            launch,
            &unit.namespace,
            index,
        ))
    }
}

/// Lowers, plans and writes the program for a set of files, each on its own: one launch per
/// configuration entry of each kernel, else from its hint, its host launches or the default.
pub fn emit(files: &[SourceFile], plan: &LaunchPlan) -> Emitted {
    emit_sources(&Sources::standalone(files), plan)
}

/// Lowers, plans and writes the program for the reported files of a workspace: one launch per
/// configuration entry of each kernel, else from its hint, else one per distinct launch its
/// host code makes, else the default.
pub fn emit_sources(sources: &Sources, plan: &LaunchPlan) -> Emitted {
    let mut set = LoweredSet::from_sources(sources, plan);
    let mut launches: Vec<PlannedLaunch> = Vec::new();
    let targets: Vec<(usize, String, Kernel)> = set
        .files
        .iter()
        .flat_map(|u| {
            let path = set.program.files()[u.file].path.clone();
            u.lowered
                .iter()
                .filter_map(move |l| u.kernels.iter().find(|k| k.name == l.name))
                .map(move |k| (u.file, path.clone(), k.clone()))
        })
        .collect();
    for (file, path, kernel) in targets {
        for (launch, notes) in launches_of(&set.program, file, &kernel, plan) {
            let index = launches.len();
            match set.plan(&path, &kernel.name, launch, index) {
                Some(mut planned) if planned.oversized.is_none() => {
                    planned.record.notes.splice(0..0, notes);
                    launches.push(planned)
                }
                Some(planned) => set.not_lowered.push(NotLoweredRecord {
                    kernel: kernel.name.clone(),
                    file: path.clone(),
                    line: kernel.span.line,
                    column: kernel.span.column,
                    reason: planned.oversized.unwrap_or_default(),
                }),
                None => {}
            }
        }
    }
    let parts = ProgramParts {
        head: format!("{PRELUDE}{CHECK_MACRO}"),
        units: set
            .files
            .iter()
            .map(|u| UnitCode {
                namespace: u.namespace.clone(),
                common: u.common.clone(),
                close: u.close.clone(),
                kernels: u.lowered.iter().map(|k| (k.name.clone(), k.code.clone())).collect(),
            })
            .collect(),
        launches: launches
            .iter()
            .map(|planned| LaunchCode {
                position: planned.record.index,
                namespace: planned.namespace.clone(),
                kernel: planned.record.kernel.clone(),
                launcher: launcher(planned, &LaunchMode::Once),
                call: format!("{}::kl_launch_{}();", planned.namespace, planned.record.index),
            })
            .collect(),
    };
    let all: Vec<usize> = (0..launches.len()).collect();
    let program = parts.program(&all);
    let manifest = Manifest {
        schema: SCHEMA.to_string(),
        launches: launches.into_iter().map(|l| l.record).collect(),
        not_lowered: set.not_lowered,
    };
    Emitted {
        program,
        manifest,
        errors: set.errors,
        parts,
    }
}

/// The pieces of an emitted program: the prelude, each file's shared code and kernels, and
/// each launch's launcher, from which the program of any subset of the launches is written.
#[derive(Debug, Clone, Default)]
pub struct ProgramParts {
    head: String,
    units: Vec<UnitCode>,
    launches: Vec<LaunchCode>,
}

#[derive(Debug, Clone)]
struct UnitCode {
    namespace: String,
    common: String,
    close: String,
    kernels: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
struct LaunchCode {
    /// Position among the emitted launches.
    position: usize,
    namespace: String,
    kernel: String,
    launcher: String,
    call: String,
}

impl ProgramParts {
    /// The prelude every program of these parts starts with (the runtime the lowered code
    /// calls), the same for every program.
    pub fn head(&self) -> &str {
        &self.head
    }

    /// The program that makes the launches at these positions (in the order given), with the
    /// files and kernels they need and no others.
    pub fn program(&self, launches: &[usize]) -> String {
        let kept = self.kept(launches);
        let mut program = self.head.clone();
        for unit in &self.units {
            program.push_str(&unit_code(unit, &kept));
        }
        program.push_str(DRIVER_LINE);
        for launch in &kept {
            program.push_str(&launch.launcher);
        }
        program.push_str(&main_code(&kept));
        program
    }

    /// The same program cut into at most `pieces` translation units that compile apart (each
    /// with the prelude, some files' code and those files' launchers) and a `main` that calls
    /// the launchers: the units of a large program build in parallel.
    pub fn split(&self, launches: &[usize], pieces: usize) -> SplitProgram {
        let kept = self.kept(launches);
        let used: Vec<&UnitCode> = self
            .units
            .iter()
            .filter(|u| kept.iter().any(|l| l.namespace == u.namespace))
            .collect();
        let per_piece = used.len().div_ceil(pieces.max(1)).max(1);
        let units = used
            .chunks(per_piece)
            .map(|group| {
                let mut code = self.head.clone();
                for unit in group {
                    code.push_str(&unit_code(unit, &kept));
                }
                code.push_str(DRIVER_LINE);
                for launch in kept.iter().filter(|l| group.iter().any(|u| u.namespace == l.namespace)) {
                    code.push_str(&launch.launcher);
                }
                code
            })
            .collect();
        let mut main = String::from("#include <cstdio>\n#include <cstdlib>\n");
        main.push_str(DRIVER_LINE);
        for launch in &kept {
            let declared = launch.call.trim_end_matches(';').trim_end_matches("()");
            if let Some((namespace, name)) = declared.rsplit_once("::") {
                let _ = writeln!(main, "namespace {namespace} {{ void {name}(); }}");
            }
        }
        main.push_str(&main_code(&kept));
        SplitProgram { units, main }
    }

    fn kept(&self, launches: &[usize]) -> Vec<&LaunchCode> {
        launches.iter().filter_map(|&i| self.launches.get(i)).collect()
    }

    /// The kernels launched, in launch order, each with the positions of its launches.
    fn kernels(&self) -> Vec<((&str, &str), Vec<usize>)> {
        let mut out: Vec<((&str, &str), Vec<usize>)> = Vec::new();
        for (i, launch) in self.launches.iter().enumerate() {
            let key = (launch.namespace.as_str(), launch.kernel.as_str());
            match out.iter_mut().find(|(k, _)| *k == key) {
                Some((_, positions)) => positions.push(i),
                None => out.push((key, vec![i])),
            }
        }
        out
    }
}

/// A program as translation units that compile apart, and the `main` that links them.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitProgram {
    /// Each a whole CUDA source: prelude, the code of some files, their launchers.
    pub units: Vec<String>,
    /// Declares every launcher and calls them in launch order.
    pub main: String,
}

/// Where the emitted driver code starts: its lines are not the kernels' source.
const DRIVER_LINE: &str = "#line 1 \"kernel-lint-driver.cu\"\n";

/// Environment variable naming, comma-separated, the emitted launch positions a program skips:
/// a launch that fails at run time is left out without building the program again.
pub const SKIP_VARIABLE: &str = "KERNEL_LINT_SKIP";

/// A file's shared code and the kept launches' kernels of it; empty when none is kept.
fn unit_code(unit: &UnitCode, kept: &[&LaunchCode]) -> String {
    let kernels: Vec<&(String, String)> = unit
        .kernels
        .iter()
        .filter(|(name, _)| kept.iter().any(|l| l.namespace == unit.namespace && &l.kernel == name))
        .collect();
    if kernels.is_empty() {
        return String::new();
    }
    let mut code = unit.common.clone();
    for (_, kernel) in kernels {
        code.push_str(kernel);
    }
    code.push_str(&unit.close);
    code
}

/// `main`: each launch in order unless the skip variable names its emitted position.
fn main_code(kept: &[&LaunchCode]) -> String {
    let mut code = format!(
        "static bool kl_skipped(int position) {{\n\
         \x20 const char* list = getenv(\"{SKIP_VARIABLE}\");\n\
         \x20 while (list != nullptr && *list != '\\0') {{\n\
         \x20   char* end = nullptr;\n\
         \x20   if (strtol(list, &end, 10) == position) return true;\n\
         \x20   list = (*end == ',') ? end + 1 : nullptr;\n\
         \x20 }}\n\
         \x20 return false;\n\
         }}\n\
         int main() {{\n\
         \x20 int ran = 0;\n"
    );
    for launch in kept {
        let _ = writeln!(
            code,
            "  if (!kl_skipped({})) {{ {} ran++; }}",
            launch.position, launch.call
        );
    }
    code.push_str("  printf(\"kernel-lint harness: %d launches ok\\n\", ran);\n  return 0;\n}\n");
    code
}

/// A kernel left out of the build because the compiler rejects its twin.
#[derive(Debug, Clone, PartialEq)]
pub struct BuildFailure {
    /// Source file as given.
    pub file: String,
    /// Kernel name.
    pub kernel: String,
    /// The compiler's first error lines for the kernel's own program.
    pub message: String,
}

/// The program of the launches that build, and what was left out.
#[derive(Debug, Clone)]
pub struct Surviving {
    /// The program built last (that of the surviving launches).
    pub program: String,
    /// The manifest of the surviving launches, renumbered in launch order; the kernels left out
    /// are listed as not lowered.
    pub manifest: Manifest,
    /// Kernels left out, in launch order.
    pub failures: Vec<BuildFailure>,
    /// Why even the program of the surviving launches does not build, if it does not.
    pub error: Option<String>,
    /// The positions, among the emitted launches, of those kept.
    pub kept: Vec<usize>,
}

/// What a program writes to its standard error before each launch, followed by the launch's
/// position among the emitted ones.
pub const LAUNCH_MARK: &str = "kernel-lint launch ";

/// The emitted positions kept and the manifest without the launch at `position` of
/// `manifest` (a launch that failed at run time), listed as not measured with `reason`. The
/// built program stays: it skips the positions no longer kept (see [`SKIP_VARIABLE`]).
pub fn without_launch(kept: &[usize], manifest: &Manifest, position: usize, reason: &str) -> (Vec<usize>, Manifest) {
    let rest: Vec<usize> = kept
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != position)
        .map(|(_, &k)| k)
        .collect();
    let mut next = manifest.clone();
    if let Some(failed) = manifest.launches.get(position) {
        next.not_lowered.push(NotLoweredRecord {
            kernel: failed.kernel.clone(),
            file: failed.file.clone(),
            line: failed.line,
            column: 0,
            reason: reason.to_string(),
        });
    }
    next.launches = manifest
        .launches
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != position)
        .enumerate()
        .map(|(index, (_, record))| LaunchRecord {
            index,
            ..record.clone()
        })
        .collect();
    (rest, next)
}

/// Lines of compiler output kept per failing kernel.
const FAILURE_LINES: usize = 4;

/// Builds the program of every launch with `compile`; when it fails, builds each kernel's own
/// program (its file's shared code, the kernel, its launchers and a `main`), leaves out the
/// kernels whose program fails and builds the program of the rest. `compile` is given a batch of
/// launch sets, one program each, which it may build in parallel, and answers for each in
/// order. When [`Surviving::error`] is `None`, the last program built was that of
/// [`Surviving::kept`].
pub fn build_surviving(
    emitted: &Emitted,
    mut compile: impl FnMut(&[Vec<usize>]) -> Vec<Result<(), String>>,
) -> Surviving {
    let parts = &emitted.parts;
    let all: Vec<usize> = (0..parts.launches.len()).collect();
    let whole = match build_one(&mut compile, all.clone()) {
        Ok(()) => {
            return Surviving {
                program: emitted.program.clone(),
                manifest: emitted.manifest.clone(),
                failures: Vec::new(),
                error: None,
                kept: all,
            }
        }
        Err(message) => message,
    };
    let mut failures = Vec::new();
    let mut dropped: Vec<usize> = Vec::new();
    // The compiler names the Rust file of each error (the twins' `#line`s): the kernels of
    // those files are built alone first, and the others only if the rest still fails.
    let named = |positions: &Vec<usize>| {
        positions
            .first()
            .and_then(|&i| emitted.manifest.launches.get(i))
            .is_some_and(|r| whole.contains(&format!("{}(", r.file)))
    };
    let (suspects, others): (Vec<_>, Vec<_>) = parts.kernels().into_iter().partition(|(_, p)| named(p));
    let mut candidates = suspects;
    if !candidates.is_empty() {
        let rest: Vec<usize> = all
            .iter()
            .copied()
            .filter(|i| !candidates.iter().any(|(_, p)| p.contains(i)))
            .collect();
        if rest.is_empty() || build_one(&mut compile, rest).is_err() {
            candidates.extend(others);
        }
    } else {
        candidates = others;
    }
    let alone: Vec<Vec<usize>> = candidates.iter().map(|(_, positions)| positions.clone()).collect();
    let answers = compile(&alone);
    for (positions, answer) in alone.into_iter().zip(answers) {
        if let Err(message) = answer {
            let Some(record) = positions.first().and_then(|&i| emitted.manifest.launches.get(i)) else {
                continue;
            };
            failures.push(BuildFailure {
                file: record.file.clone(),
                kernel: record.kernel.clone(),
                message: first_error_lines(&message),
            });
            dropped.extend(positions);
        }
    }
    let rest: Vec<usize> = all.into_iter().filter(|i| !dropped.contains(i)).collect();
    let mut manifest = emitted.manifest.clone();
    manifest.launches = rest
        .iter()
        .filter_map(|&i| emitted.manifest.launches.get(i))
        .enumerate()
        .map(|(index, record)| LaunchRecord {
            index,
            ..record.clone()
        })
        .collect();
    for failure in &failures {
        let record = emitted
            .manifest
            .launches
            .iter()
            .find(|l| l.file == failure.file && l.kernel == failure.kernel);
        manifest.not_lowered.push(NotLoweredRecord {
            kernel: failure.kernel.clone(),
            file: failure.file.clone(),
            line: record.map_or(0, |r| r.line),
            column: 0,
            reason: format!(
                "the compiler rejects its twin: {}",
                failure.message.lines().next().unwrap_or_default()
            ),
        });
    }
    let program = parts.program(&rest);
    let error = if failures.is_empty() {
        // Every kernel builds alone: the whole program's failure stands.
        Some(first_error_lines(&whole))
    } else if rest.is_empty() {
        Some("no kernel's twin compiles".to_string())
    } else {
        build_one(&mut compile, rest.clone())
            .err()
            .map(|e| first_error_lines(&e))
    };
    Surviving {
        program,
        manifest,
        failures,
        error,
        kept: rest,
    }
}

/// Builds one program with a batch compiler.
fn build_one(
    compile: &mut impl FnMut(&[Vec<usize>]) -> Vec<Result<(), String>>,
    launches: Vec<usize>,
) -> Result<(), String> {
    compile(&[launches])
        .pop()
        .unwrap_or_else(|| Err("the compiler gave no answer".to_string()))
}

/// The first lines of compiler output that name an error, else its first lines.
fn first_error_lines(message: &str) -> String {
    let lines: Vec<&str> = message
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    let errors: Vec<&str> = lines.iter().copied().filter(|l| l.contains("error")).collect();
    let chosen = if errors.is_empty() { lines } else { errors };
    chosen.into_iter().take(FAILURE_LINES).collect::<Vec<_>>().join("\n")
}

const CHECK_MACRO: &str = "#define KL_CHECK(x) do { cudaError_t kl_err = (x); if (kl_err != cudaSuccess) { \
fprintf(stderr, \"CUDA error %s in %s\\n\", cudaGetErrorString(kl_err), #x); exit(1); } } while (0)\n";

/// The launches of one kernel: one per configuration entry, or one from its hint or default.
/// The launches of a kernel, in the order the analysis takes them: every configuration entry,
/// else the hint, else one per distinct launch read from host code (with its host-known
/// scalar arguments), else the default; each with notes on what of the host was not used.
fn launches_of(
    program: &Program,
    file: usize,
    kernel: &Kernel,
    plan: &LaunchPlan,
) -> Vec<(ResolvedLaunch, Vec<String>)> {
    let path = program.files().get(file).map_or("", |f| f.path.as_str());
    let specs = plan.find_all(path, &kernel.name);
    if specs.is_empty() {
        return program
            .launches_of(file, kernel, plan)
            .into_iter()
            .map(|l| (l.launch, l.notes))
            .collect();
    }
    specs
        .into_iter()
        .map(|spec| {
            let launch = ResolvedLaunch {
                block: spec.block.unwrap_or(kernel.launch.block),
                grid: spec.grid,
                block_source: kernel.launch.block_source,
                params: spec.params.clone(),
                float_params: spec.float_params.clone(),
                unknown_block: match spec.block {
                    Some(_) => [false; 3],
                    None => kernel.launch.unknown_block,
                },
            };
            (launch, Vec::new())
        })
        .collect()
}

/// Completes a launch (grid, parameter values), analyzes the kernel under it and sizes buffers.
#[allow(clippy::too_many_arguments)]
fn plan_launch(
    program: &Program,
    file: usize,
    kernel: &Kernel,
    lowered: &LoweredKernel,
    mut launch: ResolvedLaunch,
    namespace: &str,
    index: usize,
) -> PlannedLaunch {
    let [bx, by, _] = launch.block;
    let grid = *launch.grid.get_or_insert_with(|| {
        if by > 1 {
            [1024u32.div_ceil(bx).max(1), 1024u32.div_ceil(by).max(1), 1]
        } else {
            [(DEFAULT_THREADS / (bx * by).max(1)).max(1), 1, 1]
        }
    });
    // A cooperative or clustered launch takes only some grids.
    let fitted = lowered.needs.fit_grid(grid);
    let grid = match &fitted {
        Some((fitted, _)) => *launch.grid.insert(*fitted),
        None => grid,
    };
    // Every line a kernel prints passes through each of the profiler's replays: a printing
    // kernel runs a few blocks, or its launch outlasts any time limit.
    let printing = lowered.code.contains("printf(") && grid.iter().product::<u32>() > PRINTING_BLOCKS;
    let grid = if printing {
        *launch.grid.insert([grid[0].min(PRINTING_BLOCKS), 1, 1])
    } else {
        grid
    };
    let mut defaulted = Vec::new();
    let default_value = i64::from(grid[0]) * i64::from(bx);
    for (param, c_type) in scalar_params_typed(&lowered.params, "") {
        if !launch.params.contains_key(&param) {
            let value = narrow_max(&c_type).map_or(default_value, |max| default_value.min(max));
            launch.params.insert(param.clone(), value);
            defaulted.push(param);
        }
    }
    let mut analysis = program.analyze(file, kernel, &launch);
    let mut buffers = launch_buffers(&analysis.body.accesses, &launch, &lowered.params);
    let mut notes: Vec<String> = Vec::new();
    // An extent that cannot be bounded may be a product of defaulted sizes (`row * k + i`):
    // those are kept small, so that the buffer given covers it.
    if let Some((array, why)) = buffers
        .iter()
        .find_map(|(a, n)| Some((a.clone(), n.unbounded.clone()?)))
    {
        let shrunk: Vec<String> = defaulted
            .iter()
            .filter(|p| launch.params.get(*p).is_some_and(|v| *v > UNBOUNDED_DEFAULT))
            .cloned()
            .collect();
        if !shrunk.is_empty() {
            for param in &shrunk {
                launch.params.insert(param.clone(), UNBOUNDED_DEFAULT);
            }
            analysis = program.analyze(file, kernel, &launch);
            buffers = launch_buffers(&analysis.body.accesses, &launch, &lowered.params);
            notes.push(format!(
                "defaulted {} to {UNBOUNDED_DEFAULT}: {why} (`{array}`), so the sizes that may enter it are kept small",
                shrunk.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
            ));
        }
    }
    // Scale the launch down until its buffers fit: halve the largest grid extent (the block
    // keeps its shape) and every defaulted parameter, then analyze again.
    let asked = (grid, launch.params.clone());
    let first = allocations(&lowered.params, &buffers);
    let mut grid = grid;
    let mut oversized = None;
    loop {
        let (total, largest) = allocations(&lowered.params, &buffers);
        if total <= MAX_LAUNCH_BYTES && largest.1 <= MAX_BUFFER_BYTES {
            break;
        }
        let mut changed = false;
        if let Some(axis) = (0..3)
            .filter(|&a| grid[a] > 1)
            .max_by_key(|&a| (grid[a], std::cmp::Reverse(a)))
        {
            grid[axis] /= 2;
            changed = true;
        }
        for param in &defaulted {
            if let Some(value) = launch.params.get_mut(param).filter(|v| **v > 1) {
                *value /= 2;
                changed = true;
            }
        }
        if !changed {
            oversized = Some(format!(
                "its buffers need {total} bytes (`{}`: {} bytes) even scaled down, over the cap of {MAX_BUFFER_BYTES} bytes a buffer and {MAX_LAUNCH_BYTES} a launch",
                largest.0, largest.1
            ));
            break;
        }
        launch.grid = Some(grid);
        analysis = program.analyze(file, kernel, &launch);
        buffers = launch_buffers(&analysis.body.accesses, &launch, &lowered.params);
    }
    let sized = (grid, launch.params.clone());
    // A launch of too much work is made on fewer blocks (its block keeps its shape): the
    // figures per request do not depend on how many blocks run.
    if oversized.is_none() && fitted.is_none() {
        let before = (grid, planned_requests(&analysis.body.accesses, &launch));
        let mut requests = before.1;
        while requests > MAX_LAUNCH_REQUESTS {
            let Some(axis) = (0..3)
                .filter(|&a| grid[a] > 1)
                .max_by_key(|&a| (grid[a], std::cmp::Reverse(a)))
            else {
                break;
            };
            grid[axis] /= 2;
            launch.grid = Some(grid);
            analysis = program.analyze(file, kernel, &launch);
            requests = planned_requests(&analysis.body.accesses, &launch);
        }
        if grid != before.0 {
            buffers = launch_buffers(&analysis.body.accesses, &launch, &lowered.params);
            notes.push(format!(
                "launched on grid {grid:?} rather than {:?}: its {:.3e} requests would outlast the profiler's replays (at most {MAX_LAUNCH_REQUESTS:.3e} a launch)",
                before.0, before.1
            ));
        }
    }
    notes.extend(fitted.into_iter().map(|(_, why)| why));
    if printing {
        notes.push(format!(
            "prints from its threads: launched with {} blocks, as every printed line passes through each replay of the profiler",
            grid[0]
        ));
    }
    notes.extend(crate::lower::space_data_notes(&lowered.params, &launch.params));
    if lowered.needs.dynamic_shared_bytes > 0 {
        notes.push(format!(
            "launched with {} bytes of dynamic shared memory: the largest literal `shared_mem_bytes` of the file's launches, at least {} (the most without opting in), as the launch's own size is not read here",
            lowered.needs.dynamic_shared_bytes,
            crate::lower::DEFAULT_DYNAMIC_SHARED_BYTES
        ));
    }
    if oversized.is_none() && sized != asked {
        let mut changes = Vec::new();
        if sized.0 != asked.0 {
            changes.push(format!("grid {:?} to {:?}", asked.0, sized.0));
        }
        for param in &defaulted {
            let (from, to) = (asked.1.get(param), sized.1.get(param));
            if from != to {
                changes.push(format!(
                    "defaulted `{param}` {} to {}",
                    from.copied().unwrap_or_default(),
                    to.copied().unwrap_or_default()
                ));
            }
        }
        notes.push(format!(
            "scaled down to fit the device: its buffers needed {} bytes (`{}`: {} bytes), over the cap of {MAX_BUFFER_BYTES} bytes a buffer and {MAX_LAUNCH_BYTES} a launch; {}",
            first.0,
            first.1 .0,
            first.1 .1,
            changes.join(", ")
        ));
    }
    let body = analysis.body;
    let accesses: Vec<PredictedAccess> = body
        .accesses
        .iter()
        .zip(&analysis.predictions)
        .zip(&analysis.banks)
        .map(|((access, prediction), banks)| PredictedAccess {
            line: lowered.attributed_line(access.span),
            source_line: access.span.line,
            column: access.span.column,
            array: access.array.clone(),
            op: access.op.as_str().to_string(),
            space: match access.space {
                MemorySpace::Global => "global",
                MemorySpace::Shared => "shared",
                MemorySpace::Constant => "constant",
            }
            .to_string(),
            elem_bytes: access.width,
            class: prediction.as_ref().map(|p| p.class.as_str().to_string()),
            // A profiler averages every request, a block's tail warp's too.
            sectors_per_request: prediction
                .as_ref()
                .and_then(|p| p.block_average_sectors_per_request.or(p.sectors_per_request)),
            ideal_sectors_per_request: prediction.as_ref().and_then(|p| p.ideal_sectors_per_request),
            executions_per_warp: executions_per_warp(access, &launch),
            block_footprint_sectors: prediction.as_ref().and_then(|p| p.block_footprint_sectors),
            upper_bound: prediction.as_ref().is_some_and(|p| p.upper_bound),
            wavefronts_per_request: banks.as_ref().and_then(|b| b.wavefronts_per_request),
            ideal_wavefronts_per_request: banks.as_ref().and_then(|b| b.ideal_wavefronts_per_request),
        })
        .collect();
    let warps = f64::from(grid.iter().product::<u32>()) * f64::from(launch.block.iter().product::<u32>().div_ceil(32));
    let predicted_sectors = accesses
        .iter()
        .filter(|a: &&PredictedAccess| a.space == "global")
        .map(|a| Some(a.sectors_per_request? * a.executions_per_warp? * warps))
        .sum::<Option<f64>>();
    let blocks = f64::from(grid.iter().product::<u32>());
    let predicted_dram_bytes = accesses
        .iter()
        .filter(|a: &&PredictedAccess| a.space == "global")
        .map(|a| Some(a.block_footprint_sectors? * 32.0 * a.executions_per_warp? * blocks))
        .sum::<Option<f64>>();
    let record = LaunchRecord {
        index,
        kernel: kernel.name.clone(),
        file: program.files()[file].path.clone(),
        line: kernel.span.line,
        block: launch.block,
        grid,
        params: launch.params.clone(),
        float_params: launch.float_params.clone(),
        defaulted,
        buffers: buffers
            .iter()
            .map(|(array, need)| BufferRecord {
                array: array.clone(),
                bytes: need.bytes,
                unbounded: need.unbounded.clone(),
                index_array: need.index_array,
            })
            .collect(),
        accesses,
        predicted_sectors,
        predicted_dram_bytes,
        notes,
    };
    PlannedLaunch {
        namespace: namespace.to_string(),
        kernel: lowered.clone(),
        launch,
        accesses: body.accesses,
        buffers,
        record,
        oversized,
    }
}

/// The requests a launch makes: over its global accesses, how often each warp executes one,
/// times its warps; an access whose count is not known counts once a warp.
fn planned_requests(accesses: &[Access], launch: &ResolvedLaunch) -> f64 {
    let warps = launch.grid.map_or(1.0, |g| f64::from(g.iter().product::<u32>()))
        * f64::from(launch.block.iter().product::<u32>().div_ceil(32));
    accesses
        .iter()
        .filter(|a| a.space == MemorySpace::Global)
        .map(|a| executions_per_warp(a, launch).unwrap_or(1.0) * warps)
        .sum()
}

/// The buffers of a launch: those its predicted accesses need, and for each pointer or slice
/// the analysis sees no access of, the size given to an unbounded one: the kernel may still
/// reach it (an atomic through a cast reference), and an unused one costs only memory.
fn launch_buffers(accesses: &[Access], launch: &ResolvedLaunch, params: &[Param]) -> BTreeMap<String, BufferNeed> {
    fn walk(params: &[Param], prefix: &str, needs: &mut BTreeMap<String, BufferNeed>) {
        for param in params {
            let array = format!("{prefix}{}", param.name());
            match param {
                Param::Slice { .. } | Param::Pointer { .. } => {
                    needs.entry(array).or_insert(BufferNeed {
                        bytes: UNBOUNDED_BYTES,
                        unbounded: None,
                        index_array: false,
                        accessed: false,
                    });
                }
                Param::Struct { fields, .. } => walk(fields, &format!("{array}."), needs),
                Param::Scalar { .. } => {}
            }
        }
    }
    let mut needs = buffer_needs(accesses, launch);
    walk(params, "", &mut needs);
    needs
}

/// The bytes the launcher allocates for one pointer or slice parameter.
fn allocation_bytes(param: &Param, array: &str, buffers: &BTreeMap<String, BufferNeed>) -> u64 {
    let bytes = buffers.get(array).map_or(256, |n| n.bytes);
    match param {
        Param::Slice { elem_bytes, .. } => bytes.max((SLICE_ELEMENTS as u64).saturating_mul(*elem_bytes)),
        _ => bytes,
    }
}

/// The bytes a launch allocates in all, and its largest buffer with its size.
fn allocations(params: &[Param], buffers: &BTreeMap<String, BufferNeed>) -> (u64, (String, u64)) {
    fn walk(params: &[Param], prefix: &str, buffers: &BTreeMap<String, BufferNeed>, out: &mut Vec<(String, u64)>) {
        for param in params {
            let array = format!("{prefix}{}", param.name());
            match param {
                Param::Slice { .. } | Param::Pointer { .. } => {
                    let bytes = allocation_bytes(param, &array, buffers);
                    out.push((array, bytes));
                }
                Param::Struct { fields, .. } => walk(fields, &format!("{array}."), buffers, out),
                Param::Scalar { .. } => {}
            }
        }
    }
    let mut sizes = Vec::new();
    walk(params, "", buffers, &mut sizes);
    let total = sizes.iter().fold(0u64, |sum, (_, b)| sum.saturating_add(*b));
    let largest = sizes.into_iter().fold(
        (String::new(), 0u64),
        |best, next| if next.1 > best.1 { next } else { best },
    );
    (total, largest)
}

/// The most blocks a kernel that prints is launched with.
pub const PRINTING_BLOCKS: u32 = 2;

/// The integer scalar parameters a kernel takes (struct fields as `p.n`), each with its C type.
fn scalar_params_typed(params: &[Param], prefix: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for p in params {
        match p {
            Param::Scalar {
                name,
                float: false,
                c_type,
                ..
            } => out.push((format!("{prefix}{name}"), c_type.clone())),
            Param::Struct { name, fields, .. } => out.extend(scalar_params_typed(fields, &format!("{prefix}{name}."))),
            _ => {}
        }
    }
    out
}

/// The largest value of a narrow C integer type: a defaulted parameter of that type is held to
/// it, as the thread count would wrap (a `u16` of 1048576 is 0).
fn narrow_max(c_type: &str) -> Option<i64> {
    match c_type {
        "unsigned short" => Some(i64::from(u16::MAX)),
        "short" => Some(i64::from(i16::MAX)),
        "unsigned char" => Some(i64::from(u8::MAX)),
        "signed char" | "char" => Some(i64::from(i8::MAX)),
        "bool" => Some(1),
        _ => None,
    }
}

/// How many times one warp runs an access: the product of the trip counts of the loops whose
/// guards it runs under.
pub fn executions_per_warp(access: &Access, launch: &ResolvedLaunch) -> Option<f64> {
    let base = |a: &Atom| -> Option<Interval> {
        Some(match a {
            Atom::ThreadIdx(axis) => Interval::new(0, i64::from(launch.block[axis.index()]) - 1),
            Atom::BlockIdx(axis) => Interval::new(0, i64::from(launch.grid?[axis.index()]) - 1),
            Atom::GridDim(axis) => Interval::point(i64::from(launch.grid?[axis.index()])),
            Atom::BlockDim(axis) => Interval::point(i64::from(launch.block[axis.index()])),
            Atom::Param(name) => Interval::point(*launch.params.get(name)?),
            Atom::Len(_) => Interval::point(SLICE_ELEMENTS),
            _ => return None,
        })
    };
    let mut iters: Vec<Atom> = Vec::new();
    for guard in &access.guards {
        if let Predicate::Cmp(_, l, r) = guard {
            for side in [l, r] {
                side.visit_atoms(&mut |a| {
                    if matches!(a, Atom::Iter(..)) && !iters.contains(a) {
                        iters.push(a.clone());
                    }
                });
            }
        }
    }
    let mut product = 1.0;
    for iter in iters {
        product *= (iteration_bound(&iter, &access.guards, &base)? + 1) as f64;
    }
    Some(product)
}

const INTEGER_TYPES: &[&str] = &[
    "unsigned char",
    "signed char",
    "unsigned short",
    "short",
    "unsigned int",
    "int",
    "unsigned long long",
    "long long",
];

/// How a launcher runs its kernel.
pub enum LaunchMode {
    /// Once, checked (for measurement).
    Once,
    /// Warm-ups, then timed runs with CUDA events; prints `timing,<label>,<median ms>,<min ms>,<runs>`.
    /// With `KL_PROFILE_ONCE` set in the environment it runs once, untimed (for ncu).
    Timed { label: String, warmups: u32, runs: u32 },
}

/// The host function that allocates, fills, launches and frees for one launch.
pub fn launcher(planned: &PlannedLaunch, mode: &LaunchMode) -> String {
    let record = &planned.record;
    let mut out = String::new();
    let name = match mode {
        LaunchMode::Once => "kl_launch",
        LaunchMode::Timed { .. } => "kl_bench",
    };
    let _ = writeln!(
        out,
        "namespace {} {{\nvoid {name}_{}() {{",
        planned.namespace, record.index
    );
    let _ = writeln!(
        out,
        "  // {} at {}:{}, block {:?}, grid {:?}",
        record.kernel, record.file, record.line, record.block, record.grid
    );
    if matches!(mode, LaunchMode::Once) {
        // Says which launch runs, so that one failing at run time can be left out.
        let _ = writeln!(out, "  fprintf(stderr, \"{LAUNCH_MARK}{}\\n\");", record.index);
    }
    let mut frees = Vec::new();
    let mut args = Vec::new();
    for param in &planned.kernel.params {
        args.push(argument(param, "", planned, &mut out, &mut frees));
    }
    let [gx, gy, gz] = record.grid;
    let [bx, by, bz] = record.block;
    let call = if planned.kernel.needs.plain() {
        format!(
            "{}<<<dim3({gx}u, {gy}u, {gz}u), dim3({bx}u, {by}u, {bz}u)>>>({})",
            record.kernel,
            args.join(", ")
        )
    } else {
        planned
            .kernel
            .needs
            .launch_call(&record.kernel, record.grid, record.block, &args)
    };
    match mode {
        LaunchMode::Once => {
            if planned.kernel.needs.plain() {
                let _ = writeln!(out, "  {call};");
            } else {
                let _ = writeln!(out, "  KL_CHECK({call});");
            }
            out.push_str("  KL_CHECK(cudaGetLastError());\n  KL_CHECK(cudaDeviceSynchronize());\n");
        }
        LaunchMode::Timed { label, warmups, runs } => {
            let _ = writeln!(
                out,
                "  const bool once = getenv(\"KL_PROFILE_ONCE\") != nullptr;\n  \
                 for (unsigned i = 0; i < (once ? 1u : {warmups}u); ++i) {call};\n  \
                 KL_CHECK(cudaGetLastError());\n  KL_CHECK(cudaDeviceSynchronize());\n  \
                 std::vector<float> times;\n  cudaEvent_t start, stop;\n  \
                 KL_CHECK(cudaEventCreate(&start));\n  KL_CHECK(cudaEventCreate(&stop));\n  \
                 for (unsigned i = 0; i < (once ? 0u : {runs}u); ++i) {{\n    \
                 KL_CHECK(cudaEventRecord(start));\n    {call};\n    KL_CHECK(cudaEventRecord(stop));\n    \
                 KL_CHECK(cudaEventSynchronize(stop));\n    float ms = 0.0f;\n    \
                 KL_CHECK(cudaEventElapsedTime(&ms, start, stop));\n    times.push_back(ms);\n  }}\n  \
                 KL_CHECK(cudaGetLastError());\n  std::sort(times.begin(), times.end());\n  \
                 if (!times.empty()) printf(\"timing,{label},%.6f,%.6f,%zu\\n\", times[times.size() / 2], times[0], times.size());\n  \
                 KL_CHECK(cudaEventDestroy(start));\n  KL_CHECK(cudaEventDestroy(stop));"
            );
        }
    }
    for f in frees {
        let _ = writeln!(out, "  KL_CHECK(cudaFree({f}));");
    }
    out.push_str("}\n}\n");
    out
}

/// Writes the host code for one parameter and returns the argument expression.
fn argument(param: &Param, prefix: &str, planned: &PlannedLaunch, out: &mut String, frees: &mut Vec<String>) -> String {
    let array = format!("{prefix}{}", param.name());
    let var = array.replace('.', "_");
    match param {
        Param::Slice { elem, elem_bytes, .. } | Param::Pointer { elem, elem_bytes, .. } => {
            let need = planned.buffers.get(&array);
            let bytes = allocation_bytes(param, &array, &planned.buffers);
            let elements = bytes / elem_bytes.max(&1);
            // A slice the analysis sees no access of keeps the usual length (a loop over it,
            // `iter().sum()`, runs as long as before); only its allocation is generous.
            let length = if need.is_some_and(|n| !n.accessed) {
                elements.min(SLICE_ELEMENTS as u64)
            } else {
                elements
            };
            let _ = writeln!(out, "  {elem}* {var} = nullptr;");
            // A struct whose layout the analyzer leaves to rustc (it holds an enum with data)
            // may be larger in the twin than the figure used here: as many elements, each whole.
            let bytes = if elem.ends_with('*')
                || INTEGER_TYPES.contains(&elem.as_str())
                || elem == "float"
                || elem == "double"
                || elem == "bool"
            {
                format!("{bytes}ull")
            } else {
                let whole = format!("{elements}ull * sizeof({elem})");
                format!("({bytes}ull > {whole} ? {bytes}ull : {whole})")
            };
            let _ = writeln!(out, "  KL_CHECK(cudaMalloc((void**)&{var}, {bytes}));");
            let _ = writeln!(out, "  KL_CHECK(cudaMemset({var}, 0, {bytes}));");
            if need.is_some_and(|n| n.index_array) && INTEGER_TYPES.contains(&elem.as_str()) {
                let _ = writeln!(
                    out,
                    "  {{ std::vector<{elem}> host({elements}ull); for (unsigned long long i = 0; i < host.size(); ++i) host[i] = ({elem})((i * 2654435761ull) % {INDEX_FILL_RANGE}ull);\n    KL_CHECK(cudaMemcpy({var}, host.data(), host.size() * sizeof({elem}), cudaMemcpyHostToDevice)); }}"
                );
            }
            frees.push(var.clone());
            if matches!(param, Param::Slice { .. }) {
                format!("{var}, {length}ull")
            } else {
                var
            }
        }
        Param::Scalar { c_type, float, .. } => {
            if *float {
                // The configured value, else 1: a float never sizes a buffer.
                let value = (planned.launch.float_params.get(&array).copied())
                    .or_else(|| planned.launch.params.get(&array).map(|&v| v as f64))
                    .filter(|v| v.is_finite())
                    .unwrap_or(1.0);
                format!("({c_type}){value:?}")
            } else {
                let value = planned.launch.params.get(&array).copied().unwrap_or(1);
                format!("({c_type}){value}ll")
            }
        }
        Param::Struct { c_type, fields, .. } => {
            let _ = writeln!(out, "  {c_type} {var}{{}};");
            for field in fields {
                let value = argument(field, &format!("{array}."), planned, out, frees);
                let member = field.name();
                let value = value.split(", ").next().unwrap_or(&value).to_string();
                let _ = writeln!(out, "  {var}.{member} = {value};");
            }
            var
        }
    }
}
