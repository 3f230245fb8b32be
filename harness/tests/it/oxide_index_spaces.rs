//! cuda-oxide `DisjointSlice`s over `Runtime2DIndex` take their host-bound row width as one more
//! scalar, which the driver passes as grid.x * block.x and notes; tile spaces are plain slices.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/oxide_index_spaces.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

#[test]
fn runtime_2d_slices_carry_their_row_width() {
    let emitted = emitted();
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let matvec = kernel(&emitted.program, "matvec_rows");
    assert!(
        matvec.starts_with("__global__ void matvec_rows(unsigned int k, const float* a, unsigned long long a_len, const float* x, unsigned long long x_len, float* y, unsigned long long y_len, unsigned int y_row_width)"),
        "{matvec}"
    );
    assert!(matvec.contains("auto width = y_row_width;"), "{matvec}");
    assert!(
        matvec
            .contains("if ((kl::oxide_index_2d(y_row_width) != ~0ull)) {\nauto at = kl::oxide_index_2d(y_row_width);"),
        "{matvec}"
    );
    assert!(
        matvec.contains("if ((unsigned long long)(at) < y_len) {\nauto out = kl::make_ref(&y[at]);"),
        "{matvec}"
    );
    // The row width is passed after the slice's length, and noted. It would be grid.x * block.x,
    // but `y[at]` has no bound (the analysis does not follow `index_2d_runtime`): the defaulted
    // sizes, the width among them, are kept small.
    let launch = emitted
        .manifest
        .launches
        .iter()
        .find(|l| l.kernel == "matvec_rows")
        .expect("launched");
    let width = launch.params["y_row_width"];
    assert_eq!(width, driver::UNBOUNDED_DEFAULT);
    assert_eq!(launch.params["k"], driver::UNBOUNDED_DEFAULT);
    assert!(
        launch.notes.iter().any(|n| n
            == "defaulted `k`, `y_row_width` to 1024: the extent of `y[at]` could not be bounded (`y`), so the sizes that may enter it are kept small"),
        "{:?}",
        launch.notes
    );
    let call = emitted
        .program
        .lines()
        .find(|l| l.contains("matvec_rows<<<"))
        .expect("a launch");
    assert!(call.ends_with(&format!("ull, (unsigned int){width}ll);")), "{call}");
    assert!(
        launch
            .notes
            .iter()
            .any(|n| n.contains(&format!("passed as `y_row_width` = {width}"))),
        "{:?}",
        launch.notes
    );
    check_with_gxx(&emitted.program);
}

#[test]
fn tuples_of_options_check_every_option_before_binding() {
    let emitted = emitted();
    let pick = kernel(&emitted.program, "pick_cell");
    assert!(pick.contains("auto w = kl::oxide_index_2d(dst_row_width);"), "{pick}");
    assert!(
        pick.contains("if (((w != ~0ull)) && ((unsigned long long)(i) < src_len)) {\nauto w_1 = w;\nauto v = kl::make_ref(&src[i]);"),
        "{pick}"
    );
}

#[test]
fn linear_tile_slices_are_plain_slices_and_index_1d_u32_is_the_thread() {
    let emitted = emitted();
    let runs = kernel(&emitted.program, "runs_raw");
    assert!(
        runs.starts_with("__global__ void runs_raw(float* data, unsigned long long data_len)"),
        "{runs}"
    );
    assert!(
        runs.contains("auto t = ((unsigned int)(blockIdx.x * blockDim.x + threadIdx.x));"),
        "{runs}"
    );
    assert!(
        runs.contains("auto base = (((unsigned long long)(t)) * RUN);"),
        "{runs}"
    );
    assert!(runs.contains("auto slot = kl::make_ref(&data[(base + k)]);"), "{runs}");
}

#[test]
fn a_match_over_a_slice_option_is_a_check_that_returns() {
    let emitted = emitted();
    let fill = kernel(&emitted.program, "fill_rows");
    assert!(
        fill.contains("if (!((unsigned long long)(idx) < out_len)) { return;\n }\nauto row = kl::make_ref(&out[idx]);"),
        "{fill}"
    );
    assert!(fill.contains("(*row)[i] = ((float)(i));"), "{fill}");
}

#[test]
fn a_tile_view_is_refused_by_name() {
    let source = "use cuda_device::{kernel, thread, DisjointSlice};\nuse cuda_device::view::LinearTiles;\n\
        #[cuda_module]\nmod kernels {\n    use super::*;\n    #[kernel]\n    \
        pub fn runs(mut data: DisjointSlice<f32, LinearTiles<4>>) {\n        \
        let t = thread::index_1d();\n        \
        if let Some(mut run) = data.thread_run(t) {\n            run.at(0);\n        }\n    }\n}\n";
    let emitted = driver::emit(&[SourceFile::new("t.rs", source)], &LaunchPlan::default());
    let reasons: Vec<&str> = emitted.manifest.not_lowered.iter().map(|n| n.reason.as_str()).collect();
    assert_eq!(
        reasons,
        ["the tile view `data.thread_run(..)` of a `DisjointSlice` over `LinearTiles` is not lowered"]
    );
}
