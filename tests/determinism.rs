//! The same input gives the same bytes on every run and on every thread: unknowns are numbered
//! in a defined order, never in a hash map's.

use kernel_lint_analyzer::{analyze_source, LaunchPlan, SourceFile};

/// Several variables reassigned on both branches of lane-dependent `if`s: each merge creates
/// fresh unknowns, whose numbering decides the order of terms and cases.
const MERGES: &str = r#"
#[kernel]
pub unsafe fn merges(a: &[f32], out: *mut f32, n: usize, stride: usize, pitch: usize) {
    let i = thread::index_1d() as usize;
    let mut row = i / 16;
    let mut col = i % 16;
    let mut base = 0;
    let mut step = stride;
    let mut lane = i;
    if i % 3 == 0 {
        row = row + 1; col = col * 2; base = n; step = pitch; lane = 2 * i;
    } else {
        row = row + 2; col = col * 3; base = 2 * n; step = stride + 1; lane = i + 1;
    }
    let v = a[row * pitch + col + base + step * lane];
    if n > 4 {
        lane = lane + col; step = step * 2;
    } else {
        lane = lane + row; step = step + 3;
    }
    *out.add(base + step * i + lane) = v;
    *out.add(i * stride + 7) = a[i * pitch + row];
}
"#;

fn render() -> String {
    let report = analyze_source(&SourceFile::new("merges.rs", MERGES), &LaunchPlan::default()).expect("parses");
    assert_eq!(report.kernels.len(), 1);
    assert_eq!(report.kernels[0].accesses.len(), 4, "every access analyzed");
    serde_json::to_string(&report).expect("serializes")
}

#[test]
fn output_is_the_same_bytes_on_every_run_and_thread() {
    let first = render();
    for _ in 0..16 {
        assert_eq!(render(), first);
    }
    let threads: Vec<_> = (0..4).map(|_| std::thread::spawn(render)).collect();
    for thread in threads {
        assert_eq!(thread.join().expect("thread finishes"), first);
    }
}
