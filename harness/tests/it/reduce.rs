//! The reducer on a recorded Nsight Compute export (the first five launches of the seed
//! fixtures on an H200): launch boundaries across per-file sections, per-line sums, and the
//! figures the hardware measured.

use kernel_lint_harness::reduce::{read_csv, reduce, write_csv};

fn rows() -> Vec<kernel_lint_harness::reduce::MeasuredRow> {
    reduce(include_str!("../data/ncu-source-export.csv")).expect("the recorded export reduces")
}

#[test]
fn launches_are_split_and_named() {
    let rows = rows();
    let launches: Vec<(usize, &str)> = rows.iter().map(|r| (r.launch, r.kernel.as_str())).collect();
    let mut distinct = launches.clone();
    distinct.dedup();
    assert_eq!(
        distinct,
        [
            (0, "test_inner_struct"),
            (1, "test_inner_array"),
            (2, "update_particles_aos"),
            (3, "update_particles_soa"),
            (4, "broadcast_block")
        ]
    );
    assert!(rows.iter().all(|r| r.space == "global"));
    assert!(rows[0].file.ends_with("fixtures/seeds/aos_soa.rs"));
}

#[test]
fn per_line_figures_match_the_hardware() {
    let rows = rows();
    let find = |launch: usize, line: usize, op: &str| {
        rows.iter()
            .find(|r| r.launch == launch && r.line == line && r.op == op)
            .expect("row present")
    };
    let aos = find(2, 74, "load");
    assert_eq!(
        (aos.requests, aos.sectors, aos.ideal_sectors, aos.access_bytes),
        (16384, 393216, 65536, 4)
    );
    assert_eq!(aos.sectors_per_request(), 24.0);
    assert_eq!(aos.source, "let vx = (*p.add(idx)).vx; //~ KL002 sectors=24");
    assert_eq!(find(0, 49, "store").sectors_per_request(), 8.0);
    assert_eq!(find(1, 60, "load").sectors_per_request(), 4.0);
    let broadcast = find(4, 8, "load");
    assert_eq!(
        (broadcast.sectors_per_request(), broadcast.ideal_sectors_per_request()),
        (1.0, 1.0)
    );
    assert_eq!(rows.len(), 16);
}

#[test]
fn rows_survive_a_csv_round_trip() {
    let rows = rows();
    let text = write_csv(&rows).expect("written");
    assert!(text.starts_with(
        "launch,kernel,file,line,space,op,access_bytes,instructions,requests,sectors,ideal_sectors,wavefronts,ideal_wavefronts,source\n"
    ));
    assert_eq!(read_csv(&text).expect("read back"), rows);
}

#[test]
fn something_else_than_an_export_is_an_error() {
    let err = reduce("\"ID\",\"Metric Name\"\n\"0\",\"dram__bytes_read.sum\"\n").unwrap_err();
    assert_eq!(err, "no `Line No` header: not an `ncu --page source --csv` export");
}
