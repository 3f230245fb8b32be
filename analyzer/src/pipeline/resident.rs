//! Programs kept for the many small analyses that follow the main one: each rewrite is
//! analyzed again with a file or two of the run's files changed (a variant of them). Syntax
//! trees cannot leave the thread that parsed them, so an analysis thread keeps the program it
//! last analyzed, built from the run's files, and swaps in only the files a variant changes
//! ([`Program::swap_file`]), swapping back those the previous variant changed: an analysis
//! costs the changed files, not the workspace.
//!
//! Variants are analyzed on the calling thread when it is one of the analysis threads of
//! [`pool`] (the main analysis and [`in_parallel`] run there), else on one resident thread
//! started for the whole process.

use super::incremental::FileState;
use super::{CrateUse, ModuleSource, Program, ANALYSIS_STACK_BYTES};
use crate::model::launch::LaunchPlan;
use crate::parse::scan::{scan_recent, Reach};
use crate::parse::{parse_file, ParsedFile};
use crate::source::{FileError, SourceFile};
use crate::workspace::CrateFeatures;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex, OnceLock};

type Task = Box<dyn FnOnce() + Send>;

/// The files of a run, kept whole once so that each analysis of a variant names only the
/// files it changes.
pub struct BaseInputs {
    /// Tells these inputs apart from every other of the process.
    id: u64,
    inputs: Vec<ModuleSource>,
    uses: Vec<CrateUse>,
    features: CrateFeatures,
    plans: Vec<LaunchPlan>,
    /// Files parsed whatever their bytes hold (named on their own).
    named: Vec<usize>,
}

static NEXT_BASE: AtomicU64 = AtomicU64::new(0);

impl BaseInputs {
    /// The run's files with the modules they are, the crates each crate uses, the features
    /// they are compiled with and each file's launch plan (the last one stands for any file
    /// beyond the list).
    pub fn new(
        inputs: Vec<ModuleSource>,
        uses: &[CrateUse],
        features: &CrateFeatures,
        plans: Vec<LaunchPlan>,
    ) -> Arc<BaseInputs> {
        BaseInputs::named(inputs, uses, features, plans, Vec::new())
    }

    /// Like [`BaseInputs::new`], with the files `named` (indices) parsed whatever their bytes
    /// hold: files given on their own, whose syntax is checked.
    pub fn named(
        inputs: Vec<ModuleSource>,
        uses: &[CrateUse],
        features: &CrateFeatures,
        plans: Vec<LaunchPlan>,
        named: Vec<usize>,
    ) -> Arc<BaseInputs> {
        Arc::new(BaseInputs {
            id: NEXT_BASE.fetch_add(1, Ordering::Relaxed),
            inputs,
            uses: uses.to_vec(),
            features: features.clone(),
            plans,
            named,
        })
    }

    /// The files, in input order.
    pub fn inputs(&self) -> &[ModuleSource] {
        &self.inputs
    }

    /// The index of the file printed as `path`.
    pub fn position(&self, path: &str) -> Option<usize> {
        self.inputs.iter().position(|i| i.source.path == path)
    }

    pub(super) fn plan(&self, file: usize) -> Option<&LaunchPlan> {
        self.plans.get(file).or(self.plans.last())
    }
}

/// The program an analysis thread analyzed last, and what it was built from.
struct Kept {
    base: Arc<BaseInputs>,
    program: Program,
    /// Which files must be parsed, followed on as changed files write new names.
    reach: Reach,
    /// The files whose text differs from the base's now.
    changed: BTreeSet<usize>,
    /// The base's parse of each file swapped out, for when it comes back.
    shelved: HashMap<usize, FileState>,
}

impl Kept {
    fn new(base: &Arc<BaseInputs>) -> Kept {
        let reach = super::reach(&base.inputs, &base.uses, &base.named);
        let program = Program::parse_needed(base.inputs.clone(), &base.uses, &base.features, reach.needed());
        Kept {
            base: Arc::clone(base),
            program,
            reach,
            changed: BTreeSet::new(),
            shelved: HashMap::new(),
        }
    }

    /// Makes the program that of the base with `changed` in place of those files' texts.
    fn become_variant(&mut self, changed: BTreeMap<usize, SourceFile>) {
        let base = Arc::clone(&self.base);
        let changed: BTreeMap<usize, SourceFile> = changed
            .into_iter()
            .filter(|(i, file)| base.inputs.get(*i).is_some_and(|b| b.source.text != file.text))
            .collect();
        let touched: BTreeSet<usize> = self.changed.iter().chain(changed.keys()).copied().collect();
        let mut changed = changed;
        let now: BTreeSet<usize> = changed.keys().copied().collect();
        for &i in &touched {
            let wanted = changed.remove(&i).unwrap_or_else(|| base.inputs[i].source.clone());
            if self.program.files[i].text == wanted.text {
                continue;
            }
            let incoming = match (now.contains(&i), self.shelved.remove(&i)) {
                (false, Some(shelved)) => shelved,
                (_, shelved) => {
                    if let Some(shelved) = shelved {
                        self.shelved.insert(i, shelved);
                    }
                    let parsed = parse_file(&wanted);
                    (wanted, parsed)
                }
            };
            self.reach.change(i, &scan_recent(&incoming.0.text));
            let was_deferred = self.program.deferred[i];
            if let Some(out) = self.program.swap_file(i, incoming) {
                // A file not parsed before has no parse to keep.
                if !was_deferred && out.0.text == base.inputs[i].source.text {
                    self.shelved.insert(i, out);
                }
            }
        }
        // The new names may reach files not parsed yet.
        let late: Vec<usize> = (0..self.program.files.len())
            .filter(|&i| self.reach.needed()[i] && self.program.deferred[i])
            .collect();
        for i in late {
            let source = self.program.files[i].clone();
            let parsed = parse_file(&source);
            self.program.swap_file(i, (source, parsed));
        }
        self.changed = now;
    }
}

thread_local! {
    /// Whether this thread analyzes variants itself, keeping its program between them.
    static IN_PLACE: Cell<bool> = const { Cell::new(false) };
    /// The program of this thread: only threads that analyze in place keep one.
    static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
}

/// The syntax this thread's kept program holds of a file whose text is `text`, when it parsed
/// whole: the drafts of rewrites that follow the analysis on this thread read the same files.
/// A text with an interpreter line or a byte-order mark is left to syn, whose offsets differ.
pub fn kept_syntax(text: &str) -> Option<Rc<syn::File>> {
    if text.starts_with("#!") || text.starts_with('\u{feff}') {
        return None;
    }
    let whole = |parsed: &Result<ParsedFile, FileError>| match parsed {
        Ok(parsed) if parsed.skipped.is_empty() => Some(Rc::clone(&parsed.syntax)),
        _ => None,
    };
    KEPT.with(|cell| {
        let kept = cell.try_borrow().ok()?;
        let kept = kept.as_ref()?;
        let program = &kept.program;
        let current = (0..program.files.len())
            .find(|&i| !program.deferred[i] && program.files[i].text == text)
            .and_then(|i| whole(&program.parsed[i]));
        current.or_else(|| {
            (kept.shelved.values())
                .find(|(source, _)| source.text == text)
                .and_then(|(_, parsed)| whole(parsed))
        })
    })
}

/// Runs `work` on the program of `base` with the files of `changed` (by index) in place of
/// theirs: on this thread when it keeps programs, else on the resident thread; the message of
/// its panic, or why the thread is gone, when it fails.
pub(super) fn with_variant<R: Send + 'static>(
    base: &Arc<BaseInputs>,
    changed: Vec<(usize, SourceFile)>,
    work: impl FnOnce(&Program, &BaseInputs) -> R + Send + 'static,
) -> Result<R, String> {
    if IN_PLACE.with(Cell::get) {
        return catch_unwind(AssertUnwindSafe(|| here(base, changed, work)))
            .map_err(|panic| super::panic_message(panic.as_ref()));
    }
    let base = Arc::clone(base);
    run(move || here(&base, changed, work))
}

/// Runs `work` here on the program of `base` with the files of `changed` in place of theirs,
/// kept on this thread for the next call.
pub(super) fn here<R>(
    base: &Arc<BaseInputs>,
    changed: Vec<(usize, SourceFile)>,
    work: impl FnOnce(&Program, &BaseInputs) -> R,
) -> R {
    let mut kept = match KEPT.with(|cell| cell.borrow_mut().take()) {
        Some(kept) if kept.base.id == base.id => kept,
        _ => Kept::new(base),
    };
    kept.become_variant(changed.into_iter().collect());
    let result = work(&kept.program, &kept.base);
    KEPT.with(|cell| *cell.borrow_mut() = Some(kept));
    result
}

/// The pool of analysis threads for `jobs` workers, made once per process and size: its
/// threads keep their programs between the main analysis and the proofs that follow it.
pub(super) fn pool(jobs: usize) -> Result<Arc<rayon::ThreadPool>, String> {
    static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS.lock().map_err(|_| "the analysis threads stopped".to_string())?;
    if let Some((_, pool)) = pools.iter().find(|(size, _)| *size == jobs) {
        return Ok(Arc::clone(pool));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .stack_size(ANALYSIS_STACK_BYTES)
        .thread_name(|i| format!("kernel-lint-worker-{i}"))
        .start_handler(|_| IN_PLACE.with(|cell| cell.set(true)))
        .build()
        .map_err(|e| format!("cannot start the analysis: {e}"))?;
    let pool = Arc::new(pool);
    pools.push((jobs, Arc::clone(&pool)));
    Ok(pool)
}

/// Runs `work` on each item over `jobs` analysis threads (at least one), each with a stack
/// deep enough for any analysis and its own kept program for the variants it analyzes (the
/// one the main analysis left there, when it ran on as many workers); the results come back
/// in item order, whatever the number of threads, with the message of a panic in place of the
/// result of an item whose work panicked.
pub fn in_parallel<T: Send, R: Send>(
    items: Vec<T>,
    jobs: usize,
    work: impl Fn(T) -> R + Sync,
) -> Vec<Result<R, String>> {
    use rayon::prelude::*;
    let one =
        |item: T| catch_unwind(AssertUnwindSafe(|| work(item))).map_err(|panic| super::panic_message(panic.as_ref()));
    match pool(jobs.max(1)) {
        Ok(pool) => pool.install(|| items.into_par_iter().with_max_len(1).map(one).collect()),
        // No thread could start: the work is done here, its analyses on the resident thread.
        Err(_) => items.into_iter().map(one).collect(),
    }
}

static RESIDENT: OnceLock<Option<Mutex<Sender<Task>>>> = OnceLock::new();

/// Runs `work` on the resident thread and returns what it returns, or the message of its
/// panic; `Err` too when the thread cannot be started.
fn run<R: Send + 'static>(work: impl FnOnce() -> R + Send + 'static) -> Result<R, String> {
    let sender = RESIDENT
        .get_or_init(start)
        .as_ref()
        .ok_or("cannot start the analysis thread")?;
    let (reply, answer) = channel();
    let task: Task = Box::new(move || {
        let outcome = catch_unwind(AssertUnwindSafe(work)).map_err(|panic| super::panic_message(panic.as_ref()));
        let _ = reply.send(outcome);
    });
    sender
        .lock()
        .map_err(|_| "the analysis thread stopped".to_string())?
        .send(task)
        .map_err(|_| "the analysis thread stopped".to_string())?;
    answer.recv().map_err(|_| "the analysis thread stopped".to_string())?
}

fn start() -> Option<Mutex<Sender<Task>>> {
    let (sender, tasks) = channel::<Task>();
    std::thread::Builder::new()
        .name("kernel-lint-resident-analysis".into())
        .stack_size(ANALYSIS_STACK_BYTES)
        .spawn(move || {
            IN_PLACE.with(|cell| cell.set(true));
            for task in tasks {
                task();
            }
        })
        .ok()?;
    Some(Mutex::new(sender))
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "use crate::helpers::load;\n\
        #[kernel]\n\
        pub unsafe fn k(a: &[f32], out: *mut f32) {\n\
            let i = thread::index_1d() as usize;\n\
            *out.add(i) = load(a, i);\n\
        }\n";

    fn inputs(helper: &str) -> Vec<ModuleSource> {
        vec![
            ModuleSource {
                source: SourceFile::new("src/lib.rs", KERNEL),
                module: vec!["k".into()],
                also_in: Vec::new(),
            },
            ModuleSource {
                source: SourceFile::new("src/helpers.rs", helper),
                module: vec!["k".into(), "helpers".into()],
                also_in: Vec::new(),
            },
        ]
    }

    fn sectors(base: &Arc<BaseInputs>, changed: Vec<(usize, SourceFile)>) -> Vec<Option<f64>> {
        let reports = super::super::analyze_variant(base, changed, &[0], None).reports;
        let report = reports.into_iter().next().expect("one report").expect("analyzed");
        (report.kernels[0].accesses.iter())
            .map(|a| a.prediction.as_ref().and_then(|p| p.sectors_per_request))
            .collect()
    }

    const COALESCED: &str = "pub fn load(a: &[f32], i: usize) -> f32 { a[i] }\n";
    const STRIDED: &str = "pub fn load(a: &[f32], i: usize) -> f32 { a[i * 8] }\n";

    /// The kernel and `helper` as the run's files, under the default plan.
    fn base_of(helper: &str) -> Arc<BaseInputs> {
        BaseInputs::new(inputs(helper), &[], &CrateFeatures::new(), vec![LaunchPlan::default()])
    }

    #[test]
    fn variants_are_analyzed_as_fresh_programs_whatever_came_before() {
        let base = base_of(COALESCED);
        let strided_base = base_of(STRIDED);
        let fresh = sectors(&base, Vec::new());
        let fresh_strided = sectors(&strided_base, Vec::new());
        assert_ne!(fresh, fresh_strided);
        // The helper changed, then back: each answer is the fresh program's.
        let change = vec![(1, SourceFile::new("src/helpers.rs", STRIDED))];
        assert_eq!(sectors(&base, change.clone()), fresh_strided);
        assert_eq!(sectors(&base, Vec::new()), fresh);
        assert_eq!(sectors(&base, change), fresh_strided);
        // Another base on the same thread, then the first again.
        assert_eq!(sectors(&strided_base, Vec::new()), fresh_strided);
        assert_eq!(sectors(&base, Vec::new()), fresh);
    }

    #[test]
    fn the_kept_program_lends_its_syntax_of_a_text_it_parsed_whole() {
        let base = base_of(COALESCED);
        let held = here(&base, Vec::new(), |program, _| {
            Rc::clone(program.parsed[1].as_ref().map(|p| &p.syntax).expect("parsed"))
        });
        let lent = kept_syntax(COALESCED).expect("the helper's text");
        assert!(Rc::ptr_eq(&held, &lent));
        assert!(kept_syntax(STRIDED).is_none(), "a text no file has");
        // Swapped out by a variant, the first text is still lent from its shelved parse.
        here(&base, vec![(1, SourceFile::new("src/helpers.rs", STRIDED))], |_, _| ());
        assert!(Rc::ptr_eq(&kept_syntax(COALESCED).expect("shelved"), &held));
        assert!(kept_syntax(STRIDED).is_some());
        // A file with an item syn cannot parse is left to syn.
        let broken = format!("{COALESCED}fn broken() -> {{}}\n");
        here(
            &base,
            vec![(1, SourceFile::new("src/helpers.rs", broken.clone()))],
            |_, _| (),
        );
        assert!(kept_syntax(&broken).is_none());
    }

    #[test]
    fn in_parallel_keeps_item_order_and_reports_a_panic_in_its_place() {
        for jobs in [1, 2, 3] {
            let out = in_parallel((0..20).collect(), jobs, |i: u32| {
                assert!(i != 7, "item seven fails");
                i * 2
            });
            assert_eq!(out.len(), 20);
            for (i, result) in out.iter().enumerate() {
                match result {
                    Ok(v) => assert_eq!(*v, 2 * i as u32),
                    Err(message) => {
                        assert_eq!(i, 7);
                        assert_eq!(message, "item seven fails");
                    }
                }
            }
            assert!(out[7].is_err());
        }
    }
}
