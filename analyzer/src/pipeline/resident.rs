//! One analysis thread kept for the whole process, for the many small analyses that follow the
//! main one (each rewrite is analyzed again with its files changed). Syntax trees cannot leave
//! the thread that parsed them, so the thread keeps the files it parsed, by path and text, and
//! parses again only what changed: a rewrite's analysis costs the changed files, not the
//! workspace.

use super::ANALYSIS_STACK_BYTES;
use crate::parse::scan::{scan as scan_text, FileScan};
use crate::parse::{parse_file, ParsedFile};
use crate::source::{FileError, SourceFile};
use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

type Task = Box<dyn FnOnce() + Send>;

/// A parse kept with the text it was parsed from, by path.
type Kept = HashMap<String, (String, Result<ParsedFile, FileError>)>;

/// A byte scan kept with the text it was made from, by path.
type Scanned = HashMap<String, (String, Rc<FileScan>)>;

thread_local! {
    /// The parsed files of this thread, by path: only the resident thread keeps any.
    static PARSED: RefCell<Option<Kept>> = const { RefCell::new(None) };
    /// The byte scans of this thread, by path: only the resident thread keeps any.
    static SCANNED: RefCell<Option<Scanned>> = const { RefCell::new(None) };
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

static RESIDENT: OnceLock<Option<Mutex<Sender<Task>>>> = OnceLock::new();

/// `file` parsed: from this thread's kept files when its text is the same, else parsed now
/// (and kept, on the resident thread).
pub(super) fn parse(file: &SourceFile) -> Result<ParsedFile, FileError> {
    PARSED.with(|cell| {
        let mut kept = cell.borrow_mut();
        let Some(kept) = kept.as_mut() else {
            return parse_file(file);
        };
        if let Some((text, parsed)) = kept.get(&file.path) {
            if *text == file.text {
                return parsed.clone();
            }
        }
        let parsed = parse_file(file);
        kept.insert(file.path.clone(), (file.text.clone(), parsed.clone()));
        parsed
    })
}

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
            PARSED.with(|cell| *cell.borrow_mut() = Some(HashMap::new()));
            SCANNED.with(|cell| *cell.borrow_mut() = Some(HashMap::new()));
            for task in tasks {
                task();
            }
        })
        .ok()?;
    Some(Mutex::new(sender))
}
