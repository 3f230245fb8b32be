//! `core::cmp::Ordering` as a C++ enum with Rust's discriminants (`Less` is -1), so that
//! `ordering as i32` and matches on its variants read as in Rust.

use super::Context;
use syn::Type;

/// The enum, outside `kl` so that `Ordering::Less` names it as in Rust.
#[macro_export]
macro_rules! ordering_prelude {
    () => {
        r#"enum class Ordering : signed char { Less = -1, Equal = 0, Greater = 1 };
"#
    };
}

impl Context<'_> {
    /// `Ordering`, `core::cmp::Ordering`: the prelude's enum; the atomics' `Ordering` is none.
    pub(super) fn ordering_type(&self, ty: &Type) -> Option<String> {
        let Type::Path(p) = ty else { return None };
        let segments: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        let plain = match segments.as_slice() {
            [one] => one == "Ordering",
            [.., cmp, last] => cmp == "cmp" && last == "Ordering",
            [] => false,
        };
        plain.then(|| "::Ordering".to_string())
    }
}

/// `Ordering::Less`, `core::cmp::Ordering::Greater`: the prelude enum's value.
pub(super) fn ordering_value(path: &syn::Path) -> Option<String> {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let [.., ty, variant] = segments.as_slice() else {
        return None;
    };
    let cmp = segments.len() == 2 || segments[segments.len() - 3] == "cmp";
    (ty == "Ordering" && cmp && matches!(variant.as_str(), "Less" | "Equal" | "Greater"))
        .then(|| format!("::Ordering::{variant}"))
}
