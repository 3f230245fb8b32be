//! How many times one warp makes an access in one run of its kernel: the product of the trip
//! counts of the loops around it, when every one of them is a range the launch bounds.

use super::Access;
use crate::algebra::interval::{iteration_bound, Interval};
use crate::algebra::{Atom, Predicate};
use crate::model::launch::ResolvedLaunch;

/// The requests one warp makes for an access, or `None` when a loop around it has no count
/// the launch and the configured parameters give (a `while`, a range with an unknown end).
pub fn requests_per_warp(access: &Access, launch: &ResolvedLaunch) -> Option<f64> {
    let range = |a: &Atom| -> Option<Interval> {
        Some(match a {
            Atom::ThreadIdx(axis) => Interval::new(0, i64::from(launch.block[axis.index()]) - 1),
            Atom::BlockIdx(axis) => Interval::new(0, i64::from(launch.grid?[axis.index()]) - 1),
            Atom::GridDim(axis) => Interval::point(i64::from(launch.grid?[axis.index()])),
            Atom::BlockDim(axis) => Interval::point(i64::from(launch.block[axis.index()])),
            Atom::Param(name) => Interval::point(*launch.params.get(name)?),
            _ => return None,
        })
    };
    let mut iters: Vec<Atom> = Vec::new();
    for guard in &access.guards {
        if let Predicate::Cmp(..) = guard {
            guard.visit_atoms(&mut |a| {
                if matches!(a, Atom::Iter(..)) && !iters.contains(a) {
                    iters.push(a.clone());
                }
            });
        }
    }
    // A loop with no counter bound by a guard (`while`, `loop`) has no count.
    if iters.len() < access.loop_depth as usize {
        return None;
    }
    let mut product = 1.0;
    for iter in iters {
        product *= (iteration_bound(&iter, &access.guards, &range)?.max(-1) + 1) as f64;
    }
    Some(product)
}

#[cfg(test)]
mod tests {
    use crate::{analyze_source, LaunchPlan, LaunchSpec, SourceFile};

    /// `(index, loop depth, requests per warp)` of each access of a kernel under a launch.
    fn counts(body: &str, params: &[(&str, i64)]) -> Vec<(String, u32, Option<f64>)> {
        let source = format!("#[kernel] pub unsafe fn k(a: &[f32], c: *mut f32, n: usize) {{ let i = thread::index_1d() as usize; {body} }}");
        let file = SourceFile::new("t.rs", source);
        let plan = LaunchPlan {
            specs: vec![LaunchSpec {
                kernel: "k".to_string(),
                block: Some([128, 1, 1]),
                grid: Some([8, 1, 1]),
                params: params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                ..LaunchSpec::default()
            }],
        };
        let report = analyze_source(&file, &plan).expect("parses");
        report.kernels[0]
            .accesses
            .iter()
            .map(|a| (a.index.clone(), a.loop_depth, a.requests_per_warp))
            .collect()
    }

    #[test]
    fn ranges_multiply_and_other_loops_have_no_count() {
        let found = counts(
            "let x = a[i]; for j in 0..4 { for k in (0..n).step_by(2) { *c.add(i + j + k) = x; } } while x > 0.0 { let y = a[i + 1]; }",
            &[("n", 10)],
        );
        assert_eq!(
            found,
            [
                ("i".to_string(), 0, Some(1.0)),
                ("i + j + k".to_string(), 2, Some(20.0)),
                ("i + 1".to_string(), 1, None),
            ]
        );
        let unknown_end = counts("for j in 0..n { let y = a[i + j]; }", &[]);
        assert_eq!(unknown_end, [("i + j".to_string(), 1, None)]);
    }
}
