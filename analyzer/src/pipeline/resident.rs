//! One analysis thread kept for the whole process, for the many small analyses that follow the
//! main one (each rewrite is analyzed again with a file or two changed). Syntax trees cannot
//! leave the thread that parsed them, so the thread keeps the program it last analyzed and
//! swaps in only the files whose text differs ([`Program::swap_file`]): a rewrite's analysis
//! costs the changed files, not the workspace.

use super::incremental::FileState;
use super::{needed_files, CrateUse, ModuleSource, Program, ANALYSIS_STACK_BYTES};
use crate::model::items::ModulePath;
use crate::parse::parse_file;
use crate::parse::scan::{scan as scan_text, FileScan};
use crate::source::SourceFile;
use crate::workspace::CrateFeatures;
use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

type Task = Box<dyn FnOnce() + Send>;

/// A byte scan kept with the text it was made from, by path.
type Scanned = HashMap<String, (String, Rc<FileScan>)>;

/// The program the resident thread analyzed last, and what it was built from.
struct Kept {
    paths: Vec<String>,
    modules: Vec<ModulePath>,
    uses: Vec<CrateUse>,
    features: CrateFeatures,
    program: Program,
    /// A digest of each file's text when the program was built.
    first: Vec<u64>,
    /// Files swapped out that had that first text, with their parse, for when it comes back.
    shelved: HashMap<usize, FileState>,
}

thread_local! {
    /// The byte scans of this thread, by path: only the resident thread keeps any.
    static SCANNED: RefCell<Option<Scanned>> = const { RefCell::new(None) };
    /// The program of this thread: only the resident thread keeps one.
    static KEPT: RefCell<Option<Kept>> = const { RefCell::new(None) };
}

/// `file` scanned ([`crate::parse::scan`]): from this thread's kept scans when its text is
/// the same, else scanned now (and kept, on the resident thread).
pub(super) fn scan(file: &SourceFile) -> Rc<FileScan> {
    SCANNED.with(|cell| {
        let mut kept = cell.borrow_mut();
        let Some(kept) = kept.as_mut() else {
            return Rc::new(scan_text(&file.text));
        };
        if let Some((text, scanned)) = kept.get(&file.path) {
            if *text == file.text {
                return Rc::clone(scanned);
            }
        }
        let scanned = Rc::new(scan_text(&file.text));
        kept.insert(file.path.clone(), (file.text.clone(), Rc::clone(&scanned)));
        scanned
    })
}

fn digest(text: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

/// Runs `work` on the program of `inputs`: the kept one with the files that differ swapped
/// in when it was built from the same files, modules, crates and features; else one parsed
/// now, which is then kept (on the resident thread; elsewhere nothing is kept).
pub(super) fn with_program<R>(
    inputs: Vec<ModuleSource>,
    uses: &[CrateUse],
    features: &CrateFeatures,
    work: impl FnOnce(&Program) -> R,
) -> R {
    let needed = needed_files(&inputs, uses);
    let resident = SCANNED.with(|cell| cell.borrow().is_some());
    let mut slot = KEPT.with(|cell| cell.borrow_mut().take());
    let reusable = slot.as_ref().is_some_and(|kept| {
        kept.uses == uses
            && kept.features == *features
            && kept.paths.len() == inputs.len()
            && inputs
                .iter()
                .zip(kept.paths.iter().zip(&kept.modules))
                .all(|(input, (path, module))| input.source.path == *path && input.module == *module)
    });
    let kept = match slot.take() {
        Some(mut kept) if reusable => {
            for (i, input) in inputs.into_iter().enumerate() {
                let differs = input.source.text != kept.program.files[i].text;
                if !(differs || needed[i] && kept.program.deferred[i]) {
                    continue;
                }
                let incoming = match kept.shelved.remove(&i) {
                    Some(shelved) if shelved.0.text == input.source.text => shelved,
                    other => {
                        if let Some(other) = other {
                            kept.shelved.insert(i, other);
                        }
                        let parsed = parse_file(&input.source);
                        (input.source, parsed)
                    }
                };
                // A file not parsed yet has no parse to keep.
                let was_deferred = kept.program.deferred[i];
                if let Some(out) = kept.program.swap_file(i, incoming) {
                    if !was_deferred && digest(&out.0.text) == kept.first[i] {
                        kept.shelved.insert(i, out);
                    }
                }
            }
            kept
        }
        _ => {
            let paths = inputs.iter().map(|i| i.source.path.clone()).collect();
            let modules = inputs.iter().map(|i| i.module.clone()).collect();
            let first = inputs.iter().map(|i| digest(&i.source.text)).collect();
            let program = Program::parse_needed(inputs, uses, features, &needed);
            Kept {
                paths,
                modules,
                uses: uses.to_vec(),
                features: features.clone(),
                program,
                first,
                shelved: HashMap::new(),
            }
        }
    };
    let result = work(&kept.program);
    if resident {
        KEPT.with(|cell| *cell.borrow_mut() = Some(kept));
    }
    result
}

static RESIDENT: OnceLock<Option<Mutex<Sender<Task>>>> = OnceLock::new();

/// Runs `work` on the resident thread and returns what it returns, or the message of its
/// panic; `Err` too when the thread cannot be started.
pub(super) fn run<R: Send + 'static>(work: impl FnOnce() -> R + Send + 'static) -> Result<R, String> {
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
            SCANNED.with(|cell| *cell.borrow_mut() = Some(HashMap::new()));
            for task in tasks {
                task();
            }
        })
        .ok()?;
    Some(Mutex::new(sender))
}
