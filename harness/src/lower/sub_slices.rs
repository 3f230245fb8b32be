//! Loops over a part of an array or slice, `for b in &blocks[1..]`: the elements from the
//! start of the range, after the bounds check that slicing makes.

use super::{Context, Lowered, Scope};
use syn::Expr;

/// `kl::sub_len`: the length of `[start, end)` of `n` elements, trapping where Rust's slicing
/// panics.
#[macro_export]
#[doc(hidden)]
macro_rules! sub_slices_prelude {
    () => {
        r#"namespace kl {
template <typename S, typename E, typename L> __device__ unsigned long long sub_len(S start, E end, L n) {
  if ((unsigned long long)start > (unsigned long long)end || (unsigned long long)end > (unsigned long long)n) __trap();
  return (unsigned long long)end - (unsigned long long)start; }
}
"#
    };
}

/// `&a` and `&a[s..e]` (or `a[s..e]`): the collection named and the range of it, if any;
/// a reference yields references to the elements.
pub(super) fn parts<'e>(e: &'e Expr, by_reference: &mut bool) -> (&'e Expr, Option<&'e syn::ExprRange>) {
    let mut e = e;
    if let Expr::Reference(r) = e {
        *by_reference = true;
        e = &r.expr;
    }
    if let Expr::Index(index) = e {
        if let Expr::Range(range) = &*index.index {
            if !matches!(range.limits, syn::RangeLimits::Closed(_)) {
                return (&index.expr, Some(range));
            }
        }
    }
    (e, None)
}

impl Context<'_> {
    /// The first element and the length of `range` of the C collection `base` of `len`
    /// elements.
    pub(super) fn sub_slice_walk(
        &self,
        range: &syn::ExprRange,
        base: &str,
        len: &str,
        scope: &mut Scope,
    ) -> Lowered<(String, String)> {
        let start = match &range.start {
            Some(s) => self.expr(s, scope)?,
            None => "0".to_string(),
        };
        let end = match &range.end {
            Some(e) => self.expr(e, scope)?,
            None => len.to_string(),
        };
        Ok((
            format!("(&{base}[{start}])"),
            format!("kl::sub_len({start}, {end}, {len})"),
        ))
    }
}
