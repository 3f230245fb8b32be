//! The limits of one file: its size, read before its text, and a time budget for its
//! analysis. The deadline is checked cooperatively in the
//! long loops (statements walked, loop bodies walked again, launch points and warps
//! enumerated); once it has passed, the file's analysis unwinds to [`within`], which turns it
//! into an error for that file, and the run goes on with the next one.

use crate::source::FileError;
use std::cell::Cell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The budget of one file unless set otherwise: 10 s; a debug build of the tool analyzes about
/// twenty times slower, so it allows twenty times as long rather than stop files a release
/// build finishes.
pub const DEFAULT_FILE_TIME_BUDGET: Duration = if cfg!(debug_assertions) {
    Duration::from_secs(200)
} else {
    Duration::from_secs(10)
};

/// The largest file read unless set otherwise: 10 MB.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 10_000_000;

/// The largest file read, in bytes; `u64::MAX` for none.
static MAX_FILE_SIZE: AtomicU64 = AtomicU64::new(DEFAULT_MAX_FILE_SIZE);

/// Sets the largest file read from now on, in this process; `None` for no limit.
pub fn set_max_file_size(bytes: Option<u64>) {
    MAX_FILE_SIZE.store(bytes.unwrap_or(u64::MAX), Ordering::Relaxed);
}

/// The largest file read; `None` for no limit.
pub fn max_file_size() -> Option<u64> {
    match MAX_FILE_SIZE.load(Ordering::Relaxed) {
        u64::MAX => None,
        bytes => Some(bytes),
    }
}

/// Why a file of `bytes` bytes is not read, when it is over the limit.
pub fn over_size_limit(bytes: u64) -> Option<String> {
    let limit = max_file_size()?;
    (bytes > limit).then(|| {
        format!(
            "file is {}, over the {} limit (`--max-file-size` raises it)",
            describe_size(bytes),
            describe_size(limit)
        )
    })
}

/// A size as a person writes it: `52.4 MB`, `10 MB`, `512 kB`, `900 bytes`.
pub fn describe_size(bytes: u64) -> String {
    let scaled = |unit: u64, name: &str| {
        if bytes.is_multiple_of(unit) {
            format!("{} {name}", bytes / unit)
        } else {
            format!("{:.1} {name}", bytes as f64 / unit as f64)
        }
    };
    if bytes >= 1_000_000_000 {
        scaled(1_000_000_000, "GB")
    } else if bytes >= 1_000_000 {
        scaled(1_000_000, "MB")
    } else if bytes >= 1000 {
        scaled(1000, "kB")
    } else {
        format!("{bytes} bytes")
    }
}

/// The budget in milliseconds; `u64::MAX` for none.
static FILE_TIME_BUDGET_MS: AtomicU64 = AtomicU64::new(DEFAULT_FILE_TIME_BUDGET.as_millis() as u64);

/// Reading the clock costs more than the work between two checks: read it every this many.
const CHECK_EVERY: u32 = 64;

thread_local! {
    /// The deadline of the file analyzed on this thread, and the checks made so far.
    static DEADLINE: Cell<Option<(Instant, u32)>> = const { Cell::new(None) };
    /// The deadline that ran out, kept while its unwind is on the way, so that the analysis
    /// that caught it can go on under it ([`resume`]).
    static SPENT: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// What the analysis of a file unwinds with when its deadline has passed; never a panic, so
/// no panic message is printed.
#[derive(Debug)]
pub struct Exhausted;

/// Sets the budget of every file analyzed from now on, in this process; `None` for no limit.
pub fn set_file_time_budget(budget: Option<Duration>) {
    let ms = budget.map_or(u64::MAX, |b| u64::try_from(b.as_millis()).unwrap_or(u64::MAX - 1));
    FILE_TIME_BUDGET_MS.store(ms, Ordering::Relaxed);
}

/// The budget of one file; `None` for no limit.
pub fn file_time_budget() -> Option<Duration> {
    match FILE_TIME_BUDGET_MS.load(Ordering::Relaxed) {
        u64::MAX => None,
        ms => Some(Duration::from_millis(ms)),
    }
}

/// Checks the deadline of the file analyzed on this thread, if any: past it, unwinds to
/// [`within`].
pub fn tick() {
    DEADLINE.with(|deadline| {
        let Some((at, checks)) = deadline.get() else {
            return;
        };
        deadline.set(Some((at, checks.wrapping_add(1))));
        if checks.is_multiple_of(CHECK_EVERY) && Instant::now() >= at {
            // Code that runs while unwinding must not stop again.
            deadline.set(None);
            SPENT.with(|spent| spent.set(Some(at)));
            resume_unwind(Box::new(Exhausted));
        }
    });
}

/// After a caught stop, puts the spent deadline back: what the file's analysis does next stops
/// at its first check, so one kernel past the budget does not let the others run unbounded.
pub fn resume() {
    if let Some(at) = SPENT.with(Cell::take) {
        DEADLINE.with(|deadline| deadline.set(Some((at, 0))));
    }
}

/// Whether a caught unwind is the budget running out rather than a defect.
pub fn is_exhausted(payload: &(dyn std::any::Any + Send)) -> bool {
    payload.is::<Exhausted>()
}

/// Runs the analysis of file `path` under the budget: past the deadline, its error says so.
pub fn within<T>(path: &str, analysis: impl FnOnce() -> Result<T, FileError>) -> Result<T, FileError> {
    let Some(at) = file_time_budget().and_then(|budget| Instant::now().checked_add(budget)) else {
        return analysis();
    };
    let outer = DEADLINE.with(|deadline| deadline.replace(Some((at, 0))));
    let result = catch_unwind(AssertUnwindSafe(analysis));
    DEADLINE.with(|deadline| deadline.set(outer));
    SPENT.with(|spent| spent.set(None));
    match result {
        Ok(result) => result,
        Err(payload) if is_exhausted(payload.as_ref()) => Err(FileError::without_span(path, stopped())),
        Err(payload) => resume_unwind(payload),
    }
}

/// The message of a file whose budget ran out outside the analysis of its kernels.
pub fn stopped() -> String {
    let budget = describe(file_time_budget().unwrap_or(Duration::ZERO));
    format!("analysis stopped after {budget} (time budget, `--file-time-budget`)")
}

/// Why kernel `kernel` has no figures: the file's time budget ran out in it, or before it
/// (`earlier`, in a kernel analyzed before).
pub fn stopped_kernel(kernel: &str, earlier: bool) -> String {
    let budget = describe(file_time_budget().unwrap_or(Duration::ZERO));
    if earlier {
        format!(
            "`fn {kernel}` is not analyzed: the file's time budget ({budget}, `--file-time-budget`) ran out before it"
        )
    } else {
        format!("the analysis of `fn {kernel}` stopped after {budget}, the file's time budget (`--file-time-budget`); its accesses have no figures")
    }
}

/// Whether an error message is [`stopped`]'s: the outcome of a race with the clock, not of
/// the input, so it is never kept for a later run.
pub fn is_stop(message: &str) -> bool {
    message.ends_with("(time budget, `--file-time-budget`)")
}

/// A duration as a person writes it: `10 s`, `1.5 s`, `250 ms`.
pub fn describe(budget: Duration) -> String {
    let ms = budget.as_millis();
    if ms >= 1000 && ms.is_multiple_of(100) {
        let tenths = ms / 100;
        if tenths.is_multiple_of(10) {
            format!("{} s", tenths / 10)
        } else {
            format!("{}.{} s", tenths / 10, tenths % 10)
        }
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_written() {
        assert_eq!(describe(Duration::from_secs(10)), "10 s");
        assert_eq!(describe(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(describe(Duration::from_millis(250)), "250 ms");
        assert_eq!(describe(Duration::from_millis(1234)), "1234 ms");
        assert_eq!(describe(Duration::ZERO), "0 ms");
        assert_eq!(describe_size(50 << 20), "52.4 MB");
        assert_eq!(describe_size(10_000_000), "10 MB");
        assert_eq!(describe_size(512_000), "512 kB");
        assert_eq!(describe_size(900), "900 bytes");
    }

    #[test]
    fn without_a_deadline_ticks_do_nothing() {
        tick();
        let result: Result<u32, FileError> = Ok(3);
        assert_eq!(result, Ok(3));
    }
}
