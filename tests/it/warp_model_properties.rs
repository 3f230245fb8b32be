//! Property tests: for random affine indices, block shapes, element sizes, block-index terms
//! and offsets, the analyzer's prediction equals a brute-force count over every warp of the
//! block and every block-index residue.

use kernel_lint_analyzer::{analyze_source, LaunchPlan, LaunchSpec, SourceFile};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone)]
struct Case {
    block: [u32; 3],
    elem: (u64, &'static str),
    coefficients: [i64; 3],
    block_coefficient: i64,
    constant: i64,
    offset: i64,
}

const ELEMENTS: [(u64, &str); 5] = [(1, "u8"), (2, "u16"), (4, "f32"), (8, "f64"), (16, "V4")];

fn block_strategy() -> impl Strategy<Value = [u32; 3]> {
    let extent = prop::sample::select(vec![1u32, 2, 3, 4, 8, 16, 24, 32, 64, 128, 256]);
    (extent.clone(), extent.clone(), extent)
        .prop_map(|(x, y, z)| [x, y, z])
        .prop_filter("at most 1024 threads", |b| b.iter().product::<u32>() <= 1024)
}

fn case_strategy() -> impl Strategy<Value = Case> {
    (
        block_strategy(),
        prop::sample::select(ELEMENTS.to_vec()),
        [0i64..40, 0i64..80, 0i64..80],
        0i64..70,
        0i64..70,
        0i64..70,
    )
        .prop_map(
            |(block, elem, coefficients, block_coefficient, constant, offset)| Case {
                block,
                elem,
                coefficients,
                block_coefficient,
                constant,
                offset,
            },
        )
}

fn kernel_source(case: &Case) -> String {
    let [cx, cy, cz] = case.coefficients;
    format!(
        "#[repr(C, align(16))] #[derive(Clone, Copy)] pub struct V4 {{ a: f32, b: f32, c: f32, d: f32 }}
         #[kernel]
         pub unsafe fn k(a: *const {ty}, out: *mut {ty}, offset: usize) {{
             let tx = thread::thread_idx_x() as usize;
             let ty = thread::thread_idx_y() as usize;
             let tz = thread::thread_idx_z() as usize;
             let bx = thread::block_idx_x() as usize;
             let i = {cx} * tx + {cy} * ty + {cz} * tz + {cb} * bx + {c0} + offset;
             *out.add(0) = *a.add(i);
         }}",
        ty = case.elem.1,
        cb = case.block_coefficient,
        c0 = case.constant,
    )
}

/// Counts sectors lane by lane, warp by warp, for block indices 0..32 (a full cycle of every
/// residue mod 32 bytes), independently of the analyzer. The figure is a full warp's request:
/// a block's tail warp (fewer than 32 threads) counts only when no warp is full.
fn brute_force(case: &Case) -> f64 {
    let [bx, by, bz] = case.block.map(|d| d as i64);
    let threads = bx * by * bz;
    let size = case.elem.0 as i64;
    let warps = if threads >= 32 { threads / 32 } else { 1 };
    let (mut total, mut requests) = (0usize, 0usize);
    for block_index in 0..32 {
        for warp in 0..warps {
            let mut touched = BTreeSet::new();
            for lane in 0..32 {
                let linear = warp * 32 + lane;
                if linear >= threads {
                    break;
                }
                let (tx, ty, tz) = (linear % bx, (linear / bx) % by, linear / (bx * by));
                let [cx, cy, cz] = case.coefficients;
                let index =
                    cx * tx + cy * ty + cz * tz + case.block_coefficient * block_index + case.constant + case.offset;
                let start = index * size;
                for byte in [start, start + size - 1] {
                    touched.insert(byte.div_euclid(32));
                }
            }
            total += touched.len();
            requests += 1;
        }
    }
    total as f64 / requests as f64
}

fn predict(case: &Case) -> (Option<f64>, String) {
    let file = SourceFile::new("prop.rs", kernel_source(case));
    let plan = LaunchPlan {
        specs: vec![LaunchSpec {
            kernel: "k".into(),
            block: Some(case.block),
            params: BTreeMap::from([("offset".to_string(), case.offset)]),
            ..Default::default()
        }],
    };
    let report = analyze_source(&file, &plan).expect("generated kernel parses");
    let load = report.kernels[0]
        .accesses
        .iter()
        .find(|a| a.array == "a")
        .expect("the load");
    let prediction = load.prediction.as_ref().expect("global access");
    (prediction.sectors_per_request, format!("{prediction:?}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn prediction_equals_brute_force(case in case_strategy()) {
        let expected = (brute_force(&case) * 100.0).round() / 100.0;
        let (predicted, detail) = predict(&case);
        prop_assert_eq!(predicted, Some(expected), "{:?}\n{}", case, detail);
    }
}

#[test]
fn a_sixteen_wide_block_spans_two_rows() {
    // ty * 2048 + tx with 16x16 blocks: two runs of 64 bytes, 4 sectors; with 8x8 blocks, four
    // runs of 32 bytes, 4 sectors; a row pitch off the sector grid costs more.
    let mut case = Case {
        block: [16, 16, 1],
        elem: (4, "f32"),
        coefficients: [1, 2048, 0],
        block_coefficient: 16,
        constant: 0,
        offset: 0,
    };
    assert_eq!(predict(&case).0, Some(4.0));
    case.block = [8, 8, 1];
    assert_eq!(predict(&case).0, Some(4.0));
    case.coefficients = [1, 2049, 0];
    assert_eq!(predict(&case).0, Some((brute_force(&case) * 100.0).round() / 100.0));
    assert!(predict(&case).0 > Some(4.0));
}
