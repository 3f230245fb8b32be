//! The one pipeline from source text to reports: parse every file, index the items of every
//! module, find kernels, interpret each body (following helpers across modules and crates),
//! predict each global access and the banks of each shared one. The CLI and the harness both run it.

use crate::interpret::{interpret, KernelBody, MemorySpace, Sources};
use crate::model::items::{FunctionKey, FunctionRef, ItemIndex, ModulePath};
use crate::model::kernel::{find_kernels, find_kernels_where, find_unanalyzed, kernel_names, Build, Kernel};
use crate::model::launch::{LaunchPlan, ResolvedLaunch};
use crate::model::launch_sites::{self, ConstAnswers, HostLaunch, KernelLaunch};
use crate::model::layout::Scope;
use crate::model::semantics::{Dependency, LazySemantics, Semantics};
use crate::parse::{parse_file, ParsedFile};
use crate::report::{AccessReport, CallSite, FileReport, KernelReport};
use crate::source::{FileError, SourceFile, Span, Unsupported};
use crate::warp::predict::predict;
use crate::warp::shared::{predict_banks, BankPrediction};
use crate::warp::variants::{fold_variants, spans_rows, Variants};
use crate::warp::verdict::Prediction;
use crate::workspace::CrateFeatures;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::{catch_unwind, AssertUnwindSafe};

mod incremental;
mod resident;
mod workers;
pub use resident::{in_parallel, kept_syntax, BaseInputs};
pub use workers::{analyze_variant, analyze_wanted, Progress, Variant};

/// Stack for the analysis: syn and the interpreter recurse as deep as the source nests.
const ANALYSIS_STACK_BYTES: usize = 256 << 20;

/// One input file and the module it is: `[crate]` for a crate root, `[crate, a, b]` for
/// `crate::a::b`.
#[derive(Debug, Clone)]
pub struct ModuleSource {
    /// The file.
    pub source: SourceFile,
    /// Its module path.
    pub module: ModulePath,
    /// The other crates whose module trees reach it too (their root module names): their
    /// features may pick other `cfg_attr`s of its kernels.
    pub also_in: Vec<String>,
}

impl ModuleSource {
    /// A file analyzed on its own: the root of a crate of its own.
    pub fn standalone(source: SourceFile) -> ModuleSource {
        let module = vec![source.path.clone()];
        ModuleSource::new(source, module)
    }

    /// A file of one crate, module `module`.
    pub fn new(source: SourceFile, module: ModulePath) -> ModuleSource {
        ModuleSource {
            source,
            module,
            also_in: Vec::new(),
        }
    }
}

/// That code of crate `from` names crate `root` as `name` (a path dependency of its package,
/// or the package's library seen from its binaries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateUse {
    /// The crate whose code uses the other.
    pub from: String,
    /// The name its code uses (`common`, or the rename in `Cargo.toml`).
    pub name: String,
    /// The used crate's root module name.
    pub root: String,
}

/// Every input file parsed and every module's items indexed, ready to analyze any kernel
/// under any launch.
pub struct Program {
    files: Vec<SourceFile>,
    parsed: Vec<Result<ParsedFile, FileError>>,
    /// Files not parsed: no entry point, launch or hint can be in them and no name of a
    /// parsed file reaches them ([`needed_files`]), so they hold nothing to analyze; their
    /// report is empty.
    deferred: Vec<bool>,
    modules: Vec<ModulePath>,
    /// Per file, the other crates that compile it ([`ModuleSource::also_in`]).
    also_in: Vec<Vec<String>>,
    index: ItemIndex,
    /// The host launches of every file, by kernel name.
    launches: BTreeMap<String, Vec<HostLaunch>>,
    /// How many kernels of all files have each name.
    kernel_names: BTreeMap<String, usize>,
    /// The names of each file's kernels, so that one file's can be taken back out.
    file_kernels: Vec<Vec<String>>,
    /// Each file's host launches, the constants they read and every name those constants'
    /// values may depend on, while the constants still hold.
    file_launches: Vec<Option<FileLaunches>>,
    /// Which crates each crate uses, and the features each is compiled with: the crate graph
    /// the Rust semantics are loaded with.
    uses: Vec<CrateUse>,
    features: CrateFeatures,
    /// Rust semantics of the files, made when the interpreter first asks.
    semantics: std::cell::OnceCell<Semantics>,
}

/// The host launches of a file, the constants they read with their values, and the names
/// those values may depend on ([`Scope::const_words`]).
type FileLaunches = (Vec<HostLaunch>, ConstAnswers, BTreeSet<String>);

/// A kernel's interpreted body and the prediction for each of its accesses, in order.
pub struct KernelAnalysis {
    /// Accesses with their address polynomials, and what was not analyzed.
    pub body: KernelBody,
    /// One per access: the prediction of a global access, `None` for shared memory.
    pub predictions: Vec<Option<Prediction>>,
    /// One per access: the banks of a shared-memory access, `None` for the other spaces.
    pub banks: Vec<Option<BankPrediction>>,
}

impl Program {
    /// Parses every file and indexes the items of those that parse; each crate sees only
    /// itself.
    pub fn parse(inputs: Vec<ModuleSource>) -> Program {
        Program::parse_with(inputs, &[])
    }

    /// Parses every file and indexes the items of those that parse; crates see the crates
    /// `uses` says they use.
    pub fn parse_with(inputs: Vec<ModuleSource>, uses: &[CrateUse]) -> Program {
        Program::parse_configured(inputs, uses, &CrateFeatures::new())
    }

    /// Like [`Program::parse_with`], with the features each crate is compiled with deciding
    /// its `#[cfg]`s.
    pub fn parse_configured(inputs: Vec<ModuleSource>, uses: &[CrateUse], features: &CrateFeatures) -> Program {
        let all = vec![true; inputs.len()];
        Program::parse_needed(inputs, uses, features, &all)
    }

    /// Like [`Program::parse_configured`], parsing and indexing only the files `needed` marks
    /// (all beyond its end); the others are not parsed, and their reports are empty.
    pub fn parse_needed(
        inputs: Vec<ModuleSource>,
        uses: &[CrateUse],
        features: &CrateFeatures,
        needed: &[bool],
    ) -> Program {
        let mut program = Program {
            files: Vec::with_capacity(inputs.len()),
            parsed: Vec::with_capacity(inputs.len()),
            deferred: Vec::with_capacity(inputs.len()),
            modules: Vec::with_capacity(inputs.len()),
            also_in: Vec::with_capacity(inputs.len()),
            index: ItemIndex::default(),
            launches: BTreeMap::new(),
            kernel_names: BTreeMap::new(),
            file_kernels: Vec::new(),
            file_launches: Vec::new(),
            uses: uses.to_vec(),
            features: features.clone(),
            semantics: std::cell::OnceCell::new(),
        };
        for u in uses {
            program.index.add_dependency(&u.from, &u.name, &u.root);
        }
        for (krate, enabled) in features {
            program.index.set_features(krate, enabled.clone());
        }
        for (i, input) in inputs.into_iter().enumerate() {
            let deferred = !needed.get(i).copied().unwrap_or(true);
            let parsed = if deferred {
                Err(FileError::without_span(
                    &input.source.path,
                    "not parsed: nothing in it is analyzed",
                ))
            } else {
                parse_file(&input.source)
            };
            program.deferred.push(deferred);
            if let Ok(parsed) = &parsed {
                program.index.add_file(input.module.clone(), i, &parsed.syntax);
            }
            program.files.push(input.source);
            program.parsed.push(parsed);
            program.modules.push(input.module);
            program.also_in.push(input.also_in);
        }
        // Launches are read once every module is indexed: their values may name constants of
        // any crate.
        program.link();
        program
    }

    /// Reads the host launches and counts the kernel names of every parsed file.
    fn link(&mut self) {
        self.read_launches(None, None);
        self.kernel_names.clear();
        self.file_kernels.clear();
        for file in 0..self.files.len() {
            let names = self.syntax(file).map(|s| kernel_names(&s.items)).unwrap_or_default();
            for name in &names {
                *self.kernel_names.entry(name.clone()).or_default() += 1;
            }
            self.file_kernels.push(names);
        }
    }

    /// The host launches of every parsed file by kernel, in file order: each file's as read
    /// before while the constants its launches read keep their values, else read again. With
    /// `touched` (the names a change defined or defines now), a file whose constants depend
    /// on none of them is not even asked; file `reread` (a file with a new text) always is.
    /// The launches by kernel are gathered again only when a file's launches changed.
    fn read_launches(&mut self, touched: Option<&BTreeSet<String>>, reread: Option<usize>) {
        self.file_launches.resize_with(self.files.len(), || None);
        let mut changed = false;
        for file in 0..self.files.len() {
            let scope = self.scope(file);
            if let Some((_, answers, words)) = &self.file_launches[file] {
                let kept = touched.is_some_and(|t| t.is_disjoint(words)) || launch_sites::answers_hold(answers, scope);
                if kept && reread != Some(file) {
                    continue;
                }
            }
            let found = match (self.files.get(file), self.syntax(file)) {
                (Some(source), Ok(syntax)) => {
                    let (launches, answers) = launch_sites::scan_recorded(source, syntax, scope);
                    let mut words = BTreeSet::new();
                    if let Some(scope) = scope {
                        for path in answers.paths() {
                            scope.const_words(path, &mut words);
                        }
                    }
                    Some((launches, answers, words))
                }
                _ => None,
            };
            let before = self.file_launches[file]
                .as_ref()
                .map_or(&[][..], |(l, ..)| l.as_slice());
            changed |= before != found.as_ref().map_or(&[][..], |(l, ..)| l.as_slice());
            self.file_launches[file] = found;
        }
        if !changed {
            return;
        }
        self.launches.clear();
        for (found, ..) in self.file_launches.iter().flatten() {
            for launch in found {
                self.launches
                    .entry(launch.kernel.clone())
                    .or_default()
                    .push(launch.clone());
            }
        }
    }

    /// The launches kernel `kernel` of file `file` is analyzed under, with the host launch
    /// each was read from and notes on the host launches not used: configuration, hint, the
    /// distinct launches found on the host, else the default.
    pub fn launches_of(&self, file: usize, kernel: &Kernel, plan: &LaunchPlan) -> Vec<KernelLaunch> {
        let path = self.files.get(file).map_or("", |f| f.path.as_str());
        let spec = plan.find(path, &kernel.name);
        let host = self.launches.get(&kernel.name).map_or(&[][..], Vec::as_slice);
        let same_name = self.kernel_names.get(&kernel.name).copied().unwrap_or(1);
        launch_sites::resolve(kernel, spec, host, same_name)
    }

    /// The input files, in input order.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// The syntax tree of file `file`, or why it could not be parsed.
    pub fn syntax(&self, file: usize) -> Result<&syn::File, &FileError> {
        match self.parsed.get(file) {
            Some(Ok(parsed)) => Ok(&parsed.syntax),
            Some(Err(err)) => Err(err),
            None => Err(&NO_SUCH_FILE),
        }
    }

    /// Types, constants and paths as file `file` sees them.
    pub fn scope(&self, file: usize) -> Option<Scope<'_>> {
        let module = self.index.module_key(self.modules.get(file)?)?;
        Some(Scope::new(&self.index, module))
    }

    /// The kernels of file `file` with the launch the plan, a hint or the default gives each,
    /// and the problems found on the way (a malformed hint, say).
    pub fn kernels(&self, file: usize, plan: &LaunchPlan) -> (Vec<Kernel>, Vec<Unsupported>) {
        let mut unsupported = Vec::new();
        let kernels = match (self.files.get(file), self.syntax(file)) {
            (Some(source), Ok(syntax)) => find_kernels(source, syntax, plan, &self.builds(file), &mut unsupported),
            _ => Vec::new(),
        };
        (kernels, unsupported)
    }

    /// The crates that compile file `file`, the one it is analyzed as first, with their
    /// features where known.
    fn builds(&self, file: usize) -> Vec<Build<'_>> {
        let primary = self.modules.get(file).and_then(|m| m.first());
        let others = self.also_in.get(file).into_iter().flatten();
        primary
            .into_iter()
            .chain(others)
            .map(|krate| Build {
                krate,
                features: self.features.get(krate),
            })
            .collect()
    }

    /// Interprets one kernel of file `file` under a launch and predicts its global accesses.
    pub fn analyze(&self, file: usize, kernel: &Kernel, launch: &ResolvedLaunch) -> KernelAnalysis {
        let mut analyzed = kernel.clone();
        analyzed.launch = launch.clone();
        let build = || self.build_semantics();
        // A CubeCL kernel is generic over its element traits and read through the cube model:
        // semantics that do not instantiate generics would be loaded for nothing.
        let cube = crate::model::cubecl::is_launch_entry(&kernel.item);
        let sources = Sources {
            files: &self.files,
            index: &self.index,
            semantics: (!cube).then_some(LazySemantics {
                cell: &self.semantics,
                build: &build,
            }),
        };
        let body = match (self.syntax(file), self.modules.get(file)) {
            (Ok(syntax), Some(module)) => {
                let mut module = module.clone();
                module.extend(kernel.inline_module.iter().cloned());
                interpret(sources, file, &module, syntax, &analyzed)
            }
            _ => KernelBody::default(),
        };
        let predictions = body
            .accesses
            .iter()
            .map(|access| (access.space == MemorySpace::Global).then(|| predict(access, launch)))
            .collect();
        let banks = body
            .accesses
            .iter()
            .map(|access| (access.space == MemorySpace::Shared).then(|| predict_banks(access, launch)))
            .collect();
        KernelAnalysis {
            body,
            predictions,
            banks,
        }
    }

    /// [`Program::analyze`] under one launch; where the analysis assumed a value of it (a block
    /// nothing gives, for a kernel whose addresses use a slower thread index; extents the launch
    /// sets at run time; CubeCL line sizes), the kernel is analyzed under other values too and
    /// each access whose verdict or figure changes gets a case per value.
    pub fn analyze_launch(&self, file: usize, kernel: &Kernel, launch: &KernelLaunch) -> KernelAnalysis {
        let mut analysis = self.analyze(file, kernel, &launch.launch);
        let body = &analysis.body;
        let Some(choices) = Variants::of(
            &launch.launch,
            spans_rows(&body.accesses),
            &body.assumed_line_sizes,
            &kernel.build_blocks,
        ) else {
            return analysis;
        };
        let others: Vec<KernelAnalysis> = choices
            .others
            .iter()
            .map(|(other, _)| self.analyze(file, kernel, other))
            .collect();
        let accesses = &analysis.body.accesses;
        for (i, prediction) in analysis.predictions.iter_mut().enumerate() {
            let Some(prediction) = prediction else { continue };
            let access = &accesses[i];
            let under: Vec<Option<&Prediction>> = others
                .iter()
                .map(|other| {
                    let same = other.body.accesses.iter().position(|b| {
                        b.span == access.span && b.op == access.op && b.file == access.file && b.via == access.via
                    });
                    same.and_then(|j| other.predictions.get(j)?.as_ref())
                })
                .collect();
            fold_variants(prediction, &choices, &under);
        }
        analysis
    }

    /// The Rust semantics of every file, with the crate graph the index was given.
    fn build_semantics(&self) -> Semantics {
        let dependencies = self.uses.iter().map(|u| Dependency {
            from: &u.from,
            name: &u.name,
            root: &u.root,
        });
        let kernel_files: Vec<bool> = (0..self.files.len())
            .map(|f| self.file_kernels.get(f).is_some_and(|k| !k.is_empty()))
            .collect();
        Semantics::new(&self.files, &self.modules, dependencies, &self.features, &kernel_files)
    }

    /// The report of every kernel of file `file` under the launch the plan resolves for it.
    pub fn report(&self, file: usize, plan: &LaunchPlan) -> Result<FileReport, FileError> {
        self.report_of(file, plan, None)
    }

    /// Like [`Program::report`], with only the kernels named `only` analyzed when given (the
    /// file's other kernels are left out of the report).
    pub fn report_of(&self, file: usize, plan: &LaunchPlan, only: Option<&str>) -> Result<FileReport, FileError> {
        self.report_where(file, plan, |name| only.is_none_or(|only| only == name))
    }

    /// Like [`Program::report`], with only the kernels whose name is in `names` analyzed (the
    /// file's other kernels are left out of the report; its file-level findings are all there).
    pub fn report_of_names(
        &self,
        file: usize,
        plan: &LaunchPlan,
        names: &BTreeSet<String>,
    ) -> Result<FileReport, FileError> {
        self.report_where(file, plan, |name| names.contains(name))
    }

    /// The functions of the item index that the analysis of kernel `kernel` of file `file` may
    /// follow or look into ([`ItemIndex::reachable`]); `None` when its module is not indexed.
    /// An edit of any other function cannot change the kernel's report.
    pub fn reachable_from(&self, file: usize, kernel: &Kernel) -> Option<BTreeSet<FunctionKey>> {
        let mut module = self.modules.get(file)?.clone();
        module.extend(kernel.inline_module.iter().cloned());
        let module = self.index.module_key(&module)?;
        Some(self.index.reachable(&FunctionRef {
            module,
            file,
            name: kernel.name.clone(),
            self_type: None,
            sig: &kernel.item.sig,
            block: &kernel.item.block,
        }))
    }

    fn report_where(
        &self,
        file: usize,
        plan: &LaunchPlan,
        wanted: impl Fn(&str) -> bool,
    ) -> Result<FileReport, FileError> {
        let source = self.files.get(file).ok_or_else(|| NO_SUCH_FILE.clone())?;
        if self.deferred.get(file).copied().unwrap_or(false) {
            // Its bytes hold no kernel, launch or hint and no analyzed file names what it
            // defines: there is nothing to analyze, and its syntax is the compiler's to check.
            return Ok(FileReport {
                path: source.path.clone(),
                kernels: Vec::new(),
                unsupported: Vec::new(),
                unanalyzed: Vec::new(),
                errors: Vec::new(),
            });
        }
        let parsed = self
            .parsed
            .get(file)
            .ok_or_else(|| NO_SUCH_FILE.clone())?
            .as_ref()
            .map_err(Clone::clone)?;
        let syntax = &parsed.syntax;
        let unanalyzed = find_unanalyzed(source, syntax);
        let mut unsupported = Vec::new();
        let kernels = find_kernels_where(source, syntax, plan, &self.builds(file), &mut unsupported, wanted);
        let mut reports = Vec::with_capacity(kernels.len());
        let mut ran_out = false;
        for kernel in kernels {
            for launch in self.launches_of(file, &kernel, plan) {
                // A defect in the analysis of one kernel is reported for its file; the other
                // files are still analyzed. A kernel the time budget stops is a kernel without
                // figures, noted as such: the tool's limit is not an error in the user's code.
                let analysis = match catch_unwind(AssertUnwindSafe(|| self.analyze_launch(file, &kernel, &launch))) {
                    Ok(analysis) => analysis,
                    Err(panic) if crate::budget::is_exhausted(panic.as_ref()) => {
                        crate::budget::resume();
                        let message = crate::budget::stopped_kernel(&kernel.name, ran_out);
                        ran_out = true;
                        KernelAnalysis::not_analyzed(kernel.span, message)
                    }
                    Err(panic) => return Err(internal_error(&source.path, panic.as_ref())),
                };
                let mut analyzed = kernel.clone();
                analyzed.launch = launch.launch;
                let mut report = analysis.report(analyzed, file, &self.files);
                report.launch_site = launch.site;
                report.launch_notes = launch.notes;
                reports.push(report);
            }
        }
        let mut errors = parsed.skipped.clone();
        for (name, span) in crate::model::kernel::find_bodiless(source, &syntax.items) {
            errors.push(FileError::at(
                &source.path,
                format!("kernel `{name}` has no body; it is not analyzed"),
                span,
            ));
        }
        Ok(FileReport {
            path: source.path.clone(),
            kernels: reports,
            unsupported,
            unanalyzed,
            errors,
        })
    }
}

/// Which inputs a program must parse ([`Program::parse_needed`]): every crate root, those
/// whose bytes may hold a kernel entry point, a launch or a hint, the files that define a
/// name one of them writes (and so on), and the files of the modules above them, through
/// which paths resolve. The others cannot change any kernel's analysis.
pub fn needed_files(inputs: &[ModuleSource], uses: &[CrateUse]) -> Vec<bool> {
    reach(inputs, uses, &[]).needed().to_vec()
}

/// The closure behind [`needed_files`], with the files `named` needed too, to be followed on
/// as files change.
fn reach(inputs: &[ModuleSource], uses: &[CrateUse], named: &[usize]) -> crate::parse::scan::Reach {
    use crate::parse::scan::{scan, FileScan, Reach};
    let scans: Vec<FileScan> = inputs.iter().map(|i| scan(&i.source.text)).collect();
    let scans: Vec<&FileScan> = scans.iter().collect();
    let modules: Vec<ModulePath> = inputs.iter().map(|i| i.module.clone()).collect();
    // A crate root is always read: a file given alone is one, and its syntax is checked. A
    // crates.io dependency's files are read only when a needed file names what they define.
    let mut seeds: Vec<bool> = (scans.iter().zip(&modules).zip(inputs))
        .map(|((s, m), i)| !crate::workspace::is_registry_source(&i.source.path) && (s.entry || m.len() == 1))
        .collect();
    for &i in named {
        if let Some(seed) = seeds.get_mut(i) {
            *seed = true;
        }
    }
    let names: Vec<(String, String)> = uses.iter().map(|u| (u.name.clone(), u.root.clone())).collect();
    Reach::new(&scans, &modules, &seeds, &names)
}

/// The error of a file index that is out of range (a caller's mistake, never the user's).
static NO_SUCH_FILE: FileError = FileError {
    path: String::new(),
    message: String::new(),
    span: None,
};

fn internal_error(path: &str, panic: &(dyn std::any::Any + Send)) -> FileError {
    FileError::without_span(
        path,
        format!("internal error while analyzing this file: {}", panic_message(panic)),
    )
}

/// The message a panic was raised with, when it is text.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

impl KernelAnalysis {
    /// A kernel with no access analyzed, for the reason `message` at `span`.
    fn not_analyzed(span: Span, message: String) -> KernelAnalysis {
        KernelAnalysis {
            body: KernelBody {
                accesses: Vec::new(),
                unsupported: vec![Unsupported {
                    span,
                    file: None,
                    message,
                }],
                assumed_line_sizes: Vec::new(),
                instantiated: Vec::new(),
            },
            predictions: Vec::new(),
            banks: Vec::new(),
        }
    }

    /// The report of this analysis of a kernel of file `file`, for lints and renderers.
    pub fn report(self, kernel: Kernel, file: usize, files: &[SourceFile]) -> KernelReport {
        let path = |i: usize| files.get(i).map_or_else(String::new, |f| f.path.clone());
        let instantiated = self.body.instantiated;
        let accesses = self
            .body
            .accesses
            .into_iter()
            .zip(self.predictions)
            .zip(self.banks)
            .map(|((access, prediction), banks)| AccessReport {
                requests_per_warp: crate::interpret::trips::requests_per_warp(&access, &kernel.launch),
                span: access.span,
                index_span: access.index_span,
                array: access.array,
                index: access.index_text,
                op: access.op,
                space: access.space,
                elem_bytes: access.width,
                field_of: access.field_of,
                prediction,
                banks,
                file: (access.file != file).then(|| path(access.file)),
                via: access
                    .via
                    .into_iter()
                    .map(|frame| CallSite {
                        callee: frame.callee,
                        file: path(frame.file),
                        span: frame.span,
                    })
                    .collect(),
                loop_depth: access.loop_depth,
            })
            .collect();
        let item = files.get(file).map_or(kernel.span, |f| f.span_of_node(&kernel.item));
        KernelReport {
            name: kernel.name,
            span: kernel.span,
            item,
            launch: kernel.launch,
            launch_site: None,
            launch_notes: Vec::new(),
            instantiated,
            params: kernel.params,
            accesses,
            unsupported: self.body.unsupported,
        }
    }
}

/// Parses and analyzes a set of files, each under its launch plan (`plans[i]` for input `i`,
/// the last one for any input beyond): the report of each file, in input order, or why it
/// could not be analyzed.
///
/// Runs on a thread of its own with a stack deep enough for any input the parser accepts; a
/// failure inside the analysis is returned as an error rather than taking the process down.
pub fn analyze_program(
    inputs: Vec<ModuleSource>,
    uses: &[CrateUse],
    plans: &[&LaunchPlan],
) -> Vec<Result<FileReport, FileError>> {
    analyze_configured(inputs, uses, &CrateFeatures::new(), plans)
}

/// Like [`analyze_program`], with the features each crate is compiled with deciding its `#[cfg]`s.
pub fn analyze_configured(
    inputs: Vec<ModuleSource>,
    uses: &[CrateUse],
    features: &CrateFeatures,
    plans: &[&LaunchPlan],
) -> Vec<Result<FileReport, FileError>> {
    let paths: Vec<String> = inputs.iter().map(|i| i.source.path.clone()).collect();
    let outcome = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("kernel-lint-analysis".into())
            .stack_size(ANALYSIS_STACK_BYTES)
            .spawn_scoped(scope, move || {
                let program = Program::parse_configured(inputs, uses, features);
                let default = LaunchPlan::default();
                (0..program.files.len())
                    .map(|i| {
                        let plan = plans.get(i).or(plans.last()).copied().unwrap_or(&default);
                        crate::budget::within(&program.files[i].path, || program.report(i, plan))
                    })
                    .collect::<Vec<_>>()
            })
            .map(|handle| handle.join())
    });
    match outcome {
        Ok(Ok(reports)) => reports,
        Ok(Err(panic)) => paths.iter().map(|p| Err(internal_error(p, panic.as_ref()))).collect(),
        Err(spawn) => paths
            .iter()
            .map(|p| {
                Err(FileError::without_span(
                    p,
                    format!("cannot start the analysis: {spawn}"),
                ))
            })
            .collect(),
    }
}

/// Analyzes every kernel of one source file, on its own, under the given launch plan.
pub fn analyze_source(file: &SourceFile, plan: &LaunchPlan) -> Result<FileReport, FileError> {
    analyze_program(vec![ModuleSource::standalone(file.clone())], &[], &[plan])
        .pop()
        .unwrap_or_else(|| Err(NO_SUCH_FILE.clone()))
}
