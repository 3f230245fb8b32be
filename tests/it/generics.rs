//! Generic code taken at the types it is used with: a helper's type and const parameters are
//! bound by the call's turbofish, and a kernel generic over a trait that one type of the
//! analyzed code implements is analyzed at that type, which the report names. A trait two
//! types implement leaves the parameter open.

use kernel_lint_analyzer::{
    analyze_program, AccessClass, CrateUse, FileReport, KernelReport, LaunchPlan, ModuleSource, SourceFile,
};

fn module(path: &str, module: &[&str], text: &str) -> ModuleSource {
    ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|s| s.to_string()).collect(),
        also_in: Vec::new(),
    }
}

/// A model crate with a `Shape` trait, and the kernels' crate using it.
const MODEL: &str = r#"
pub trait Shape: Copy + 'static {
    const ROW: usize;
    fn pitch() -> usize;
}

#[derive(Clone, Copy)]
pub struct Wide;

impl Shape for Wide {
    const ROW: usize = 4096;
    fn pitch() -> usize {
        Self::ROW
    }
}

#[cfg(test)]
mod tests {
    #[derive(Clone, Copy)]
    struct Tiny;
    impl super::Shape for Tiny {
        const ROW: usize = 3;
        fn pitch() -> usize {
            3
        }
    }
}
"#;

const KERNELS: &str = r#"
use cuda_std::prelude::*;
use model::Shape;

/// `rows` rows of `S::ROW` elements from `base`, one element per lane.
unsafe fn copy_rows<S: Shape, const ROWS: usize>(src: *const f32, dst: *mut f32, lane: usize) {
    let mut r = 0;
    while r < ROWS {
        *dst.add(r * S::ROW + lane) = *src.add(r * S::ROW + lane);
        r += 1;
    }
}

#[kernel]
pub unsafe fn rows<S: Shape>(src: *const f32, dst: *mut f32) {
    let lane = thread::thread_idx_x() as usize;
    copy_rows::<S, 2>(src, dst, lane);
    *dst.add(S::pitch() * lane) = 0.0;
}

pub trait Tile {
    const SIDE: usize;
}
pub struct Small;
pub struct Large;
impl Tile for Small {
    const SIDE: usize = 8;
}
impl Tile for Large {
    const SIDE: usize = 64;
}

#[kernel]
pub unsafe fn tiled<T: Tile>(dst: *mut f32) {
    let lane = thread::thread_idx_x() as usize;
    *dst.add(T::SIDE * lane) = 0.0;
}
"#;

fn kernels() -> Vec<KernelReport> {
    let plan = LaunchPlan::default();
    let uses = [CrateUse {
        from: "kernels".to_string(),
        name: "model".to_string(),
        root: "model".to_string(),
    }];
    let reports: Vec<FileReport> = analyze_program(
        vec![
            module("model/src/lib.rs", &["model"], MODEL),
            module("kernels/src/lib.rs", &["kernels"], KERNELS),
        ],
        &uses,
        &[&plan],
    )
    .into_iter()
    .map(|r| r.expect("analyzed"))
    .collect();
    reports.into_iter().flat_map(|r| r.kernels).collect()
}

fn figures(kernel: &KernelReport) -> Vec<(String, Option<AccessClass>, Option<f64>)> {
    kernel
        .accesses
        .iter()
        .map(|a| {
            let p = a.prediction.as_ref();
            (
                a.index.clone(),
                p.map(|p| p.class),
                p.and_then(|p| p.sectors_per_request),
            )
        })
        .collect()
}

#[test]
fn a_kernel_generic_over_a_trait_one_type_implements_is_analyzed_at_that_type() {
    let kernels = kernels();
    let rows = kernels.iter().find(|k| k.name == "rows").expect("kernel found");
    assert!(rows.unsupported.is_empty(), "{:?}", rows.unsupported);
    // `S::ROW` is 4096 (the test-only `Tiny` is not compiled): each row is read and written
    // whole, aligned; `S::pitch()` follows `Wide::pitch`, lanes 16 KiB apart.
    assert_eq!(
        figures(rows),
        [
            ("r * S::ROW + lane".to_string(), Some(AccessClass::Coalesced), Some(4.0)),
            ("r * S::ROW + lane".to_string(), Some(AccessClass::Coalesced), Some(4.0)),
            ("S::pitch() * lane".to_string(), Some(AccessClass::Strided), Some(32.0)),
        ]
    );
    assert_eq!(
        rows.instantiated,
        ["`S` taken as `Wide`: the one type of the analyzed code that implements `Shape`"]
    );
}

#[test]
fn a_const_parameter_given_by_the_turbofish_bounds_the_helpers_loop() {
    let kernels = kernels();
    let rows = kernels.iter().find(|k| k.name == "rows").expect("kernel found");
    // The loop runs `ROWS` = 2 times: each access is made twice per warp.
    let repeats: Vec<Option<f64>> = rows.accesses.iter().map(|a| a.requests_per_warp).collect();
    assert_eq!(repeats, [Some(2.0), Some(2.0), Some(1.0)]);
}

#[test]
fn a_trait_two_types_implement_leaves_the_parameter_open() {
    let kernels = kernels();
    let tiled = kernels.iter().find(|k| k.name == "tiled").expect("kernel found");
    assert!(tiled.instantiated.is_empty(), "{:?}", tiled.instantiated);
    // `T::SIDE` is 8 or 64: the figure is given per value, not taken from either type.
    let p = tiled.accesses[0].prediction.as_ref().expect("predicted");
    assert_eq!(p.sectors_per_request, None);
    let cases: Vec<(&str, f64)> = p
        .cases
        .iter()
        .map(|c| (c.condition.as_str(), c.sectors_per_request))
        .collect();
    assert_eq!(
        cases,
        [
            ("T::SIDE == 1", 4.0),
            ("T::SIDE == 2", 8.0),
            ("T::SIDE == 4", 16.0),
            ("T::SIDE >= 8", 32.0)
        ]
    );
}
