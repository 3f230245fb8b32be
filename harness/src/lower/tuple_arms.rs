//! A tuple-valued `if`: C++'s `?:` needs both arms of one type, where Rust unifies
//! `(ptr, k)` with `(null(), 0)` through the binding's declared type.

/// `c ? a : b` with the arm that holds a null pointer or literal converted to the other's type.
pub(super) fn same_type_arms(cond: &str, then: &str, otherwise: &str) -> String {
    // A lambda may not appear inside `decltype`.
    let has_lambda = |s: &str| s.contains("[&") || s.contains("[=") || s.contains("[]");
    if has_lambda(then) || has_lambda(otherwise) {
        format!("(({cond}) ? ({then}) : ({otherwise}))")
    } else if then.contains("nullptr") && !otherwise.contains("nullptr") {
        format!("(({cond}) ? (decltype({otherwise}))({then}) : ({otherwise}))")
    } else {
        format!("(({cond}) ? ({then}) : (decltype({then}))({otherwise}))")
    }
}
