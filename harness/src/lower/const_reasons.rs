//! Why a constant's definition was not lowered, so that a kernel naming it can say so instead
//! of only saying that the definition is missing.

use std::cell::RefCell;
use std::collections::HashMap;

thread_local! {
    static REASONS: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
}

/// Records why `name` is not lowered; a later pass (the constants naming statics) knows better.
pub(super) fn record(name: &str, reason: impl Into<String>) {
    REASONS.with(|r| {
        r.borrow_mut().insert(name.to_string(), reason.into());
    });
}

/// Forgets the reasons of an earlier file: constant names repeat across files.
pub(super) fn clear() {
    REASONS.with(|r| r.borrow_mut().clear());
}

/// The message for a use of `name`, whose definition was not lowered.
pub(super) fn undefined(name: &str) -> String {
    let why = REASONS.with(|r| r.borrow().get(name).cloned());
    match why {
        Some(why) => format!("`{name}` names a constant whose definition is not lowered: {why}"),
        None => format!("`{name}` names a constant or static whose definition is not lowered"),
    }
}

/// The reason of a constant that waits on others which never got defined.
pub(super) fn waiting(names: &[String]) -> String {
    let inner = names.first().map(|n| {
        REASONS
            .with(|r| r.borrow().get(n).cloned())
            .map(|why| format!("`{n}` is not lowered ({why})"))
            .unwrap_or_else(|| format!("`{n}` is not lowered"))
    });
    inner.unwrap_or_else(|| "it names a constant that is not lowered".to_string())
}
