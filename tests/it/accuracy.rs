//! Predictions against the hardware: for every global-memory row measured on an H200 for the
//! seed kernels, the Rust translation of the kernel, analyzed with that launch's block and
//! parameters, predicts the measured sectors per request (to two decimals).

use kernel_lint_analyzer::{analyze_source, LaunchPlan, LaunchSpec, SourceFile};
use kernel_lint_analyzer::{MemorySpace, Op};
use std::collections::BTreeMap;
use std::path::Path;

/// CUDA kernel name -> (fixture file, Rust function).
const KERNELS: &[(&str, &str, &str)] = &[
    ("readOffset", "offset.rs", "read_offset"),
    ("writeOffset", "offset.rs", "write_offset"),
    ("readOffsetUnroll4", "offset.rs", "read_offset_unroll4"),
    ("testInnerStruct", "aos_soa.rs", "test_inner_struct"),
    ("testInnerArray", "aos_soa.rs", "test_inner_array"),
    ("updateParticlesAoS", "aos_soa.rs", "update_particles_aos"),
    ("updateParticlesSoA", "aos_soa.rs", "update_particles_soa"),
    ("stridedAccess", "strided.rs", "strided_access"),
    ("vectorizedAccess", "strided.rs", "vectorized_access"),
    ("naiveTranspose", "transpose.rs", "naive_transpose"),
    ("optimizedTranspose", "transpose.rs", "optimized_transpose"),
    ("unpaddedTranspose", "transpose.rs", "unpadded_transpose"),
    ("badLoopOrder", "loop_order.rs", "bad_loop_order"),
    ("goodLoopOrder", "loop_order.rs", "good_loop_order"),
    ("matmulTiled", "matmul.rs", "matmul_tiled"),
    ("processRGBInterleaved", "rgb.rs", "process_rgb_interleaved"),
    ("processRGBPlanar", "rgb.rs", "process_rgb_planar"),
    ("processRGBAVectorized", "rgb.rs", "process_rgba_vectorized"),
    ("simulateOptimized", "particles.rs", "simulate_optimized"),
    ("broadcastBlock", "broadcast.rs", "broadcast_block"),
];

struct Row {
    launch: u32,
    kernel: String,
    grid: [u32; 3],
    block: [u32; 3],
    params: BTreeMap<String, i64>,
    line: u32,
    op: Op,
    sectors_per_request: f64,
    source: String,
}

fn dims(text: &str) -> [u32; 3] {
    let v: Vec<u32> = text.split('x').map(|d| d.parse().expect("extent")).collect();
    [v[0], v[1], v[2]]
}

fn global_rows() -> Vec<Row> {
    rows_of("fixtures/ground-truth/seeds-h200.csv")
}

fn rows_of(csv_path: &str) -> Vec<Row> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut reader = csv::ReaderBuilder::new()
        // The source column (last) is not quoted and may itself contain commas.
        .flexible(true)
        .from_path(root.join(csv_path))
        .expect("ground truth");
    reader
        .records()
        .map(|record| record.expect("a well-formed row"))
        .filter(|cols| &cols[6] == "global")
        .map(|cols| Row {
            launch: cols[0].parse().expect("launch"),
            kernel: cols[1].to_string(),
            grid: dims(&cols[2]),
            block: dims(&cols[3]),
            // Integer parameters only (`dt=0.1` plays no part in addressing).
            params: cols[4]
                .split(';')
                .filter_map(|kv| kv.split_once('='))
                .filter_map(|(k, v)| Some((k.to_lowercase(), v.parse::<i64>().ok()?)))
                .collect(),
            line: cols[5].parse().expect("line"),
            op: if &cols[7] == "load" { Op::Load } else { Op::Store },
            sectors_per_request: cols[11].parse().expect("sectors"),
            source: cols.iter().skip(13).collect::<Vec<_>>().join(","),
        })
        .collect()
}

#[test]
fn every_global_row_of_the_ground_truth_is_predicted() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rows = global_rows();
    let mut launches: BTreeMap<u32, Vec<&Row>> = BTreeMap::new();
    for row in &rows {
        launches.entry(row.launch).or_default().push(row);
    }
    let mut agree = 0;
    let mut wrong = Vec::new();
    for (launch, mut measured) in launches {
        measured.sort_by_key(|r| (r.line, r.op));
        let first = measured[0];
        let (_, file, function) = KERNELS
            .iter()
            .find(|(cuda, _, _)| *cuda == first.kernel)
            .expect("kernel is mapped");
        let path = root.join("fixtures/seeds").join(file);
        let source = SourceFile::new(
            path.display().to_string(),
            std::fs::read_to_string(&path).expect("fixture"),
        );
        let plan = LaunchPlan {
            specs: vec![LaunchSpec {
                kernel: function.to_string(),
                file: None,
                block: Some(first.block),
                grid: Some(first.grid),
                params: first.params.clone(),
                float_params: BTreeMap::new(),
            }],
        };
        let report = analyze_source(&source, &plan).expect("fixture parses");
        let kernel = report
            .kernels
            .iter()
            .find(|k| k.name == *function)
            .expect("kernel found");
        let predicted: Vec<_> = kernel
            .accesses
            .iter()
            .filter(|a| a.space == MemorySpace::Global)
            .collect();
        assert_eq!(
            predicted.len(),
            measured.len(),
            "launch {launch} ({function}): {} global accesses found, {} measured",
            predicted.len(),
            measured.len()
        );
        for (access, row) in predicted.iter().zip(&measured) {
            assert_eq!(
                access.op, row.op,
                "launch {launch} line {}: operation order differs",
                row.line
            );
            let sectors = access.prediction.as_ref().and_then(|p| p.sectors_per_request);
            if sectors.map(|s| (s * 100.0).round()) == Some((row.sectors_per_request * 100.0).round()) {
                agree += 1;
            } else {
                wrong.push(format!(
                    "launch {launch} {} line {} `{}`: predicted {sectors:?}, measured {} ({:?})",
                    row.kernel, row.line, row.source, row.sectors_per_request, access.prediction
                ));
            }
        }
    }
    println!("agreement: {agree} of {} global rows", rows.len());
    assert!(
        wrong.is_empty(),
        "{} of {} rows disagree:\n{}",
        wrong.len(),
        rows.len(),
        wrong.join("\n")
    );
    assert_eq!(agree, 94);
}

/// Blocks whose last warp has fewer than 32 threads: the profiler averages every request, the
/// tail warp's too. The figure is a full warp's; the block average beside it is the one
/// measured.
#[test]
fn a_tail_warp_is_measured_as_the_block_average() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("fixtures/ground-truth/tail_warps.rs");
    let source = SourceFile::new(
        path.display().to_string(),
        std::fs::read_to_string(&path).expect("fixture"),
    );
    let rows = rows_of("fixtures/ground-truth/tail-h200.csv");
    let mut compared = Vec::new();
    for kernel in ["cloth", "cloth48"] {
        let measured: Vec<&Row> = rows.iter().filter(|r| r.kernel == kernel).collect();
        let plan = LaunchPlan {
            specs: vec![LaunchSpec {
                kernel: kernel.to_string(),
                file: None,
                block: Some(measured[0].block),
                grid: Some(measured[0].grid),
                params: measured[0].params.clone(),
                float_params: BTreeMap::new(),
            }],
        };
        let report = analyze_source(&source, &plan).expect("fixture parses");
        let found = report.kernels.iter().find(|k| k.name == kernel).expect("kernel found");
        let predicted: Vec<_> = found
            .accesses
            .iter()
            .filter(|a| a.space == MemorySpace::Global)
            .collect();
        assert_eq!(predicted.len(), measured.len(), "{kernel}");
        for (access, row) in predicted.iter().zip(&measured) {
            let p = access.prediction.as_ref().expect("a prediction");
            compared.push((
                kernel,
                access.op,
                p.sectors_per_request,
                p.block_average_sectors_per_request,
                row.sectors_per_request,
            ));
        }
    }
    assert_eq!(
        compared,
        [
            ("cloth", Op::Load, Some(32.0), Some(25.0), 25.0),
            ("cloth", Op::Store, Some(16.0), Some(12.5), 12.5),
            ("cloth48", Op::Load, Some(32.0), Some(24.0), 24.0),
            ("cloth48", Op::Store, Some(16.0), Some(12.0), 12.0),
        ]
    );
}
