//! Lane-strided loops, proven by re-analysis: the warp-per-row reduction, the plain loop
//! interchange, and the reasons either is declined.

use kernel_lint_analyzer::{LaunchPlan, LaunchSpec};
use kernel_lint_lints::Diagnostic;
use std::collections::BTreeMap;

use crate::support;

/// The findings of `source`, each kernel launched with blocks of 256 threads and 4096 rows of
/// 256 columns (the seed's launch), with the rewrites attached.
fn rewritten(source: &str) -> Vec<Diagnostic> {
    let syntax = syn::parse_file(source).expect("parses");
    let kernels = syntax.items.iter().filter_map(|i| match i {
        syn::Item::Fn(f) => Some(f.sig.ident.to_string()),
        _ => None,
    });
    let plan = LaunchPlan {
        specs: kernels
            .map(|kernel| LaunchSpec {
                kernel,
                file: None,
                block: Some([256, 1, 1]),
                grid: Some([16, 1, 1]),
                params: BTreeMap::from([("rows".to_string(), 4096), ("cols".to_string(), 256)]),
                float_params: BTreeMap::new(),
            })
            .collect(),
    };
    support::rewritten_under(source, &plan)
}

/// The one finding of the kernel `body` (after `let row = ...;`), on `m`.
fn finding(body: &str) -> Diagnostic {
    let source = format!(
        "use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn k(m: &mut [f32], sums: *mut f32, rows: u32, cols: u32) {{
    let row = thread::thread_idx_x() + thread::block_idx_x() * thread::block_dim_x();
{body}
}}
"
    );
    let found: Vec<Diagnostic> = rewritten(&source)
        .into_iter()
        .filter(|d| d.message.contains("`m["))
        .collect();
    assert!(!found.is_empty(), "no finding in {source}");
    found.into_iter().next().expect("one")
}

fn notes(d: &Diagnostic) -> Vec<&str> {
    d.notes
        .iter()
        .filter_map(|n| n.strip_prefix("no rewrite is offered: "))
        .collect()
}

const SEED: &str = "use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
#[allow(improper_ctypes_definitions, clippy::missing_safety_doc)]
pub unsafe fn bad_loop_order(m: &[f32], sums: *mut f32, rows: u32, cols: u32) {
    let row = thread::thread_idx_x() + thread::block_idx_x() * thread::block_dim_x();
    if row < rows {
        let mut s = 0.0f32;
        for col in 0..cols {
            s += m[(row * cols + col) as usize];
        }
        *sums.add(row as usize) = s;
    }
}
";

#[test]
fn a_row_sum_becomes_one_warp_per_row() {
    let found = rewritten(SEED);
    let load = found.iter().find(|d| d.code == "KL004").expect("the loop's load");
    assert_eq!(load.fixes.len(), 1, "{load:#?}");
    let fix = &load.fixes[0];
    assert_eq!(
        fix.title,
        "reduce each row with one warp: its 32 lanes walk `row`'s columns `col` together and combine their partial sums with `warp_shuffle_xor`"
    );
    let gain = fix.gain.as_ref().expect("re-analyzed");
    assert_eq!((gain.sectors_before, gain.sectors_after), (32.0, 4.0));
    let edits: Vec<&str> = fix.edits.iter().map(|e| e.replacement.as_str()).collect();
    assert_eq!(
        edits,
        vec![
            "let thread_index = thread::thread_idx_x() + thread::block_idx_x() * thread::block_dim_x();\n    let row = thread_index / 32;\n    let lane = thread_index % 32;",
            "(lane..cols).step_by(32)",
            "m[(row * cols + col) as usize]",
            "\n        for offset in [16, 8, 4, 2, 1] {\n            s += cuda_std::warp::warp_shuffle_xor(u32::MAX, s, offset, 32).0;\n        }\n        if lane == 0 {\n            *sums.add(row as usize) = s;\n        }",
        ]
    );
    assert_eq!(
        fix.follow_up,
        vec![
            "the launch must now run one warp (32 threads) per row: at least `32 * rows` threads in x (131072 for `rows` = 4096) instead of `rows`, in blocks whose x size is a multiple of 32",
            "the floating-point sum is reassociated: `s` adds the 32 lanes' partial sums in another order than the loop did, so the last bits may differ",
        ]
    );
    assert_eq!(fix.applicability, kernel_lint_lints::Applicability::Unsafe);
}

#[test]
fn an_integer_maximum_keeps_its_type_and_says_nothing_of_rounding() {
    let fix = &finding(
        "    if row >= rows {
        return;
    }
    let mut best = 0u32;
    for col in 0..cols {
        best = best.max(m[(row * cols + col) as usize] as u32);
    }
    *sums.add(row as usize) = best as f32;",
    )
    .fixes[0];
    let gain = fix.gain.as_ref().expect("re-analyzed");
    assert_eq!((gain.sectors_before, gain.sectors_after), (32.0, 4.0));
    assert!(fix.title.contains("partial maxima"), "{}", fix.title);
    assert_eq!(
        fix.edits.last().map(|e| e.replacement.as_str()),
        Some("\n    for offset in [16, 8, 4, 2, 1] {\n        best = best.max(cuda_std::warp::warp_shuffle_xor(u32::MAX, best, offset, 32).0);\n    }\n    if lane == 0 {\n        *sums.add(row as usize) = best as f32;\n    }")
    );
    assert_eq!(fix.follow_up.len(), 1, "{:?}", fix.follow_up);
}

#[test]
fn independent_iterations_are_interchanged() {
    let d = finding(
        "    if row < rows {
        for col in 0..cols {
            m[(row * cols + col) as usize] = m[(row * cols + col) as usize] * 2.0;
        }
    }",
    );
    assert_eq!(d.fixes.len(), 1, "{d:#?}");
    let fix = &d.fixes[0];
    assert_eq!(
        fix.title,
        "interchange the loops: each thread takes a column `col` and loops over the rows `row`"
    );
    let gain = fix.gain.as_ref().expect("re-analyzed");
    assert_eq!((gain.sectors_before, gain.sectors_after), (32.0, 4.0));
    let edits: Vec<&str> = fix.edits.iter().map(|e| e.replacement.as_str()).collect();
    assert_eq!(
        edits,
        vec!["col", "col < cols", "row", "0..rows", "m[(row * cols + col) as usize]"]
    );
    assert_eq!(
        fix.follow_up,
        vec!["the launch must now cover the columns, one thread per column: at least `cols` threads in x (256 for `cols` = 256) instead of one per row (`rows`)"]
    );
}

#[test]
fn loops_that_cannot_be_split_say_why() {
    let cases = [
        (
            "    if row < rows {
        let mut s = 0.0f32;
        for col in 0..cols {
            s = s * 0.5 + m[(row * cols + col) as usize];
        }
        *sums.add(row as usize) = s;
    }",
            "`s` is carried from one iteration to the next by `s = s * 0.5 + m[(row * cols + col) as usize]`, which is not a reduction the rewrite recognizes (`+=`, `min`, `max`): the iterations depend on each other",
        ),
        (
            "    if row < rows {
        let mut s = 0.0f32;
        for col in 0..cols {
            if m[(row * cols + col) as usize] < 0.0 {
                break;
            }
            s += 1.0;
        }
        *sums.add(row as usize) = s;
    }",
            "the loop leaves early (`break`): the iterations are not all run, so they cannot be split among threads",
        ),
        (
            "    if row < rows {
        let mut s = 0.0f32;
        for col in 0..row {
            s += m[(row * cols + col) as usize];
        }
        *sums.add(row as usize) = s;
    }",
            "the loop bound `row` names `row`, not a kernel parameter or constant: it may differ between lanes, and the rewrite needs one column count for every row",
        ),
        (
            "    if row < rows {
        let mut s = 0.0f32;
        for k in 0..cols {
            s += m[(row * cols + 2 * k) as usize];
        }
        *sums.add(row as usize) = s;
    }",
            "the loop index `k` is not the column of `(row * cols + 2 * k) as usize`: the rewrite answers `row * len + k` indexes",
        ),
        (
            "    if row < rows {
        let mut s = 1.0f32;
        for col in 0..cols {
            s += m[(row * cols + col) as usize];
        }
        *sums.add(row as usize) = s;
    }",
            "`s` starts at `1.0f32`, not 0: each of the 32 lanes would add it",
        ),
        (
            "    if row < rows {
        for col in 0..cols {
            m[(row * cols + col) as usize] = m[(row * cols + col + 1) as usize];
        }
    }",
            "`m` is read at `(row * cols + col + 1) as usize` and written at `(row * cols + col) as usize` in the loop: an iteration reads what another writes",
        ),
        (
            "    if row < rows {
        for col in 0..cols {
            m[(row * cols + col) as usize] = 1.0;
            m[(row + col) as usize] = 2.0;
        }
    }",
            "`m[(row + col) as usize]` is written at an element that is not `row * len + col`: iterations could share it",
        ),
    ];
    for (body, reason) in cases {
        let d = finding(body);
        assert!(d.fixes.is_empty(), "{d:#?}");
        assert_eq!(notes(&d), vec![reason], "{body}");
    }
}

#[test]
fn an_access_outside_any_loop_gets_no_draft_from_this_rewrite() {
    let d = finding(
        "    if row < rows {
        *sums.add(row as usize) = m[(row * cols) as usize];
    }",
    );
    assert!(d.fixes.is_empty(), "{d:#?}");
    assert!(notes(&d).is_empty(), "{:?}", d.notes);
}

#[test]
fn a_warp_per_row_that_makes_another_load_worse_is_not_offered() {
    // Naive matrix product: a warp per output would read `b`'s column with 32 rows per request.
    let found = rewritten(
        "use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn gemm(a: &[f32], b: &[f32], c: *mut f32, rows: usize, cols: usize, k: usize) {
    let row = (thread::block_dim_x() * thread::block_idx_x() + thread::thread_idx_x()) as usize;
    let col = (thread::block_dim_y() * thread::block_idx_y() + thread::thread_idx_y()) as usize;
    if row < rows && col < cols {
        let mut sum = 0.0f32;
        for i in 0..k {
            sum += a[row * k + i] * b[i * cols + col];
        }
        *c.add(row * cols + col) = sum;
    }
}
",
    );
    let on_a = found
        .iter()
        .find(|d| d.message.contains("`a[row * k + i]`"))
        .expect("the finding on a");
    assert!(on_a.fixes.is_empty(), "{on_a:#?}");
    assert_eq!(
        notes(on_a),
        vec!["the rewrite makes `b` worse (1 -> 32 sectors per request)"]
    );
}

#[test]
fn a_row_that_is_not_the_global_x_index_is_declined() {
    let found = rewritten(
        "use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn k(m: &[f32], sums: *mut f32, rows: u32, cols: u32) {
    let row = 2 * thread::index_1d();
    if row < rows {
        let mut s = 0.0f32;
        for col in 0..cols {
            s += m[(row * cols + col) as usize];
        }
        *sums.add(row as usize) = s;
    }
}
",
    );
    let d = found.iter().find(|d| d.message.contains("`m[")).expect("the finding");
    assert_eq!(
        notes(d),
        vec!["`row` is set to `2 * thread::index_1d()`, which the rewrite does not read as the thread's global x index (`thread::index_1d()`, `thread_idx_x() + block_idx_x() * block_dim_x()`): the threads' new work could not be laid out from it"]
    );
}

#[test]
fn an_early_return_guard_is_turned_to_the_columns() {
    let d = finding(
        "    if row >= rows {
        return;
    }
    let scale = 0.5f32;
    for col in 0..cols {
        m[(row * cols + col) as usize] = m[(row * cols + col) as usize] * scale;
    }",
    );
    let fix = &d.fixes[0];
    let edits: Vec<&str> = fix.edits.iter().map(|e| e.replacement.as_str()).collect();
    assert_eq!(
        edits,
        vec!["col", "col >= cols", "row", "0..rows", "m[(row * cols + col) as usize]"]
    );
    assert_eq!(
        fix.follow_up,
        vec!["the launch must now cover the columns, one thread per column: at least `cols` threads in x (256 for `cols` = 256) instead of one per row (`rows`)"]
    );
}

#[test]
fn an_array_of_rows_indexed_twice_is_declined() {
    let found = rewritten(
        "use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn k(out: &mut [[f32; 8]], rows: usize) {
    let row = thread::index_1d() as usize;
    if row < rows {
        for i in 0..8 {
            out[row][i] = 1.0;
        }
    }
}
",
    );
    let d = found.iter().find(|d| d.message.contains("`out[")).expect("the finding");
    assert_eq!(
        notes(d),
        vec!["`out[row][i]` is indexed in more than one dimension: the rewrite answers one flat index `row * len + i`"]
    );
}
