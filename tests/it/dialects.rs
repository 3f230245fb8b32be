//! The thread-index APIs of every Rust CUDA dialect give the same predictions as `cuda_std`'s:
//! cuda-oxide (`cuda_device`), `ptx_support`, `nvptx_builtins` and `core::arch::nvptx`. Entry
//! points of dialects that are not analyzed (amdgpu) are reported as such; CubeCL kernels and
//! rust-gpu compute shaders are analyzed (the CubeCL ones with their topology constants,
//! buffers of lines and launches).

use kernel_lint_analyzer::{analyze_source, AccessClass, Dialect, FileReport, LaunchPlan, MemorySpace, Op, SourceFile};
use std::path::Path;
use std::process::Command;

fn report(src: &str) -> FileReport {
    analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses")
}

/// (array, op, class, sectors per request) of every access of `kernel`, in order.
fn accesses(src: &str, kernel: &str) -> Vec<(String, Op, Option<AccessClass>, Option<f64>)> {
    let report = report(src);
    let found = report
        .kernels
        .iter()
        .find(|k| k.name == kernel)
        .unwrap_or_else(|| panic!("kernel `{kernel}` not found"));
    assert!(found.unsupported.is_empty(), "{:?}", found.unsupported);
    found
        .accesses
        .iter()
        .map(|a| {
            let p = a.prediction.as_ref();
            (
                a.array.clone(),
                a.op,
                p.map(|p| p.class),
                p.and_then(|p| p.sectors_per_request),
            )
        })
        .collect()
}

fn row(array: &str, op: Op, class: AccessClass, sectors: f64) -> (String, Op, Option<AccessClass>, Option<f64>) {
    (array.to_string(), op, Some(class), Some(sectors))
}

use AccessClass::{Broadcast, Coalesced, Misaligned, Strided, Transposed};
use Op::{Load, Store};

const OXIDE_VECADD: &str = r#"
use cuda_device::{cuda_module, kernel, thread, DisjointSlice};
#[cuda_module]
mod kernels {
    use super::*;
    #[kernel]
    pub fn vecadd(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
        let idx = thread::index_1d();
        let idx_raw = idx.get();
        if let Some(c_elem) = c.get_mut(idx) {
            *c_elem = a[idx_raw] + b[idx_raw];
        }
    }
}
"#;

#[test]
fn cuda_oxide_vecadd_is_coalesced() {
    assert_eq!(
        accesses(OXIDE_VECADD, "vecadd"),
        [
            row("a", Load, Coalesced, 4.0),
            row("b", Load, Coalesced, 4.0),
            row("c", Store, Coalesced, 4.0),
        ]
    );
}

#[test]
fn cuda_oxide_kernel_attribute_with_its_path() {
    let src = OXIDE_VECADD.replace("#[kernel]", "#[cuda_device::kernel]");
    assert_eq!(accesses(&src, "vecadd").len(), 3);
}

#[test]
fn cuda_oxide_index_2d_is_row_major() {
    let src = r#"
use cuda_device::{kernel, thread, DisjointSlice};
const W: usize = 512;
#[cuda_module]
mod kernels {
    use super::*;
    // kernel-lint: block(32, 8)
    #[kernel]
    pub fn rows(src: &[f32], mut dst: DisjointSlice<f32, thread::Index2D<W>>) {
        if let Some(idx) = thread::index_2d::<W>() {
            let i = idx.get();
            if let Some(out) = dst.get_mut(idx) {
                *out = src[i];
            }
        }
    }
    // kernel-lint: block(32, 8)
    #[kernel]
    pub fn columns(src: &[f32], mut dst: DisjointSlice<f32>) {
        let row = thread::index_2d_row();
        let col = thread::index_2d_col();
        unsafe { *dst.get_unchecked_mut(row * 512 + col) = src[col * W + row] };
    }
    // kernel-lint: block(32, 8)
    #[kernel]
    pub fn literal(mut dst: DisjointSlice<f32>) {
        if let Some(idx) = thread::index_2d::<64>() {
            if let Some(out) = dst.get_mut(idx) {
                *out = 0.0;
            }
        }
    }
}
"#;
    assert_eq!(
        accesses(src, "rows"),
        [row("src", Load, Coalesced, 4.0), row("dst", Store, Coalesced, 4.0)]
    );
    assert_eq!(
        accesses(src, "columns"),
        [row("src", Load, Transposed, 32.0), row("dst", Store, Coalesced, 4.0)]
    );
    assert_eq!(accesses(src, "literal"), [row("dst", Store, Coalesced, 4.0)]);
}

#[test]
fn cuda_oxide_runtime_index_registers_and_lane() {
    let src = r#"
use cuda_device::{kernel, thread, warp, DisjointSlice};
// kernel-lint: block(32, 8)
#[kernel]
pub fn runtime(src: &[f32], n: usize, mut dst: DisjointSlice<f32>) {
    if let Some(idx) = thread::index_2d_runtime(&dst) {
        let v = src[idx.row() * n + idx.col()];
        let t = src[idx.col() * n + idx.row()];
        if let Some(out) = dst.get_mut(idx) {
            *out = v + t;
        }
    }
}
#[kernel]
pub fn registers(src: &[u32], mut dst: DisjointSlice<u32>) {
    let i = thread::blockIdx_x() as usize * thread::blockDim_x() as usize + thread::threadIdx_x() as usize;
    let lane = warp::lane_id() as usize;
    let g = thread::gridDim_x() as usize;
    unsafe { *dst.get_unchecked_mut(i) = src[lane] + src[g] };
}
"#;
    assert_eq!(
        accesses(src, "runtime"),
        [
            row("src", Load, Coalesced, 4.0),
            row("src", Load, Transposed, 32.0),
            row("dst", Store, Coalesced, 4.0),
        ]
    );
    assert_eq!(
        accesses(src, "registers"),
        [
            row("src", Load, Coalesced, 4.0),
            row("src", Load, Broadcast, 1.0),
            row("dst", Store, Coalesced, 4.0),
        ]
    );
}

#[test]
fn cuda_oxide_shared_arrays_are_shared_memory() {
    let src = r#"
use cuda_device::{kernel, thread, DisjointSlice, SharedArray};
const N: usize = 256;
// kernel-lint: block(16, 16)
#[kernel]
pub fn tiles(a: &[f32], mut out: DisjointSlice<f32>) {
    static mut FLAT: SharedArray<f32, N> = SharedArray::UNINIT;
    static mut GRID: SharedArray<[f64; 16], 16> = SharedArray::UNINIT;
    let tx = thread::threadIdx_x() as usize;
    let ty = thread::threadIdx_y() as usize;
    unsafe {
        FLAT[ty * 16 + tx] = a[tx];
        GRID[ty][tx] = 1.0;
        *out.get_unchecked_mut(tx) = FLAT[tx * 16 + ty];
    }
}
"#;
    let report = report(src);
    let found: Vec<(&str, Op, MemorySpace, u64)> = report.kernels[0]
        .accesses
        .iter()
        .map(|a| (a.array.as_str(), a.op, a.space, a.elem_bytes))
        .collect();
    assert_eq!(
        found,
        [
            ("a", Load, MemorySpace::Global, 4),
            ("FLAT", Store, MemorySpace::Shared, 4),
            ("GRID", Store, MemorySpace::Shared, 8),
            ("FLAT", Load, MemorySpace::Shared, 4),
            ("out", Store, MemorySpace::Global, 4),
        ]
    );
}

#[test]
fn ptx_support_context_is_geometry() {
    let src = r#"
#![feature(abi_ptx)]
use ptx_support::prelude::*;
#[no_mangle]
pub unsafe extern "ptx-kernel" fn scale(src: *const f32, dst: *mut f32) {
    let i = Context::thread().index().x as usize + (Context::block().index().x * Context::block().dims().x) as usize;
    let b = Context::block().index().y as usize;
    let t = Context::thread().x as usize;
    *dst.add(i) = *src.add(b) + *src.add(t);
}
"#;
    assert_eq!(
        accesses(src, "scale"),
        [
            row("src", Load, Broadcast, 1.0),
            row("src", Load, Coalesced, 4.0),
            row("dst", Store, Coalesced, 4.0),
        ]
    );
}

#[test]
fn ptx_support_in_a_raytracer_shaped_kernel() {
    let src = r#"
#[no_mangle]
pub unsafe extern "ptx-kernel" fn calc_pixel(pixels: *mut f32, width: *const f32, block_dim_x: u32) {
    use ptx_support::prelude::*;
    let w = *width as isize;
    let x_idx = (Context::thread().index().x + Context::block().index().x * block_dim_x as u64) as isize;
    let y_idx = Context::block().index().y as isize;
    if x_idx < w {
        let idx = y_idx * w + x_idx;
        *pixels.offset(idx) = 1.0;
    }
}
"#;
    assert_eq!(
        accesses(src, "calc_pixel"),
        [row("width", Load, Broadcast, 1.0), row("pixels", Store, Coalesced, 4.0)]
    );
}

#[test]
fn a_local_context_shadows_ptx_support() {
    // The workspace's own `Context` is followed, whatever its methods are called.
    let src = r#"
use ptx_support::prelude::*;
use core::arch::nvptx::*;
pub struct Context { pub x: u32, pub y: u32, pub z: u32 }
impl Context {
    pub fn thread() -> Self {
        Self { x: unsafe { _block_idx_x() } as u32, y: 0, z: 0 }
    }
    pub fn thread_idx() -> Self {
        Self { x: unsafe { core::arch::nvptx::_thread_idx_x() } as u32, y: 0, z: 0 }
    }
    pub fn block_idx() -> Self {
        Self { x: unsafe { core::arch::nvptx::_block_idx_x() } as u32, y: 0, z: 0 }
    }
    pub fn block_dim() -> Self {
        Self { x: unsafe { core::arch::nvptx::_block_dim_x() } as u32, y: 0, z: 0 }
    }
}
#[no_mangle]
pub unsafe extern "ptx-kernel" fn mandelbrot(out: *mut u32) {
    let i = Context::thread_idx().x + Context::block_idx().x * Context::block_dim().x;
    *out.add(i as usize) = 0;
    *out.add(Context::thread().x as usize) = 1;
}
"#;
    assert_eq!(
        accesses(src, "mandelbrot"),
        [row("out", Store, Coalesced, 4.0), row("out", Store, Broadcast, 1.0)]
    );
}

#[test]
fn nvptx_builtins_blur_through_a_helper_module() {
    let src = r#"
#![feature(abi_ptx)]
extern crate nvptx_builtins;
use nvptx_builtins::*;
mod common {
    #[derive(Clone, Copy)]
    #[repr(C, align(4))]
    pub struct Pixel { pub r: u8, pub g: u8, pub b: u8, pub a: u8 }
    pub struct ImageInfo { pub width: usize, pub height: usize }
    impl ImageInfo {
        pub fn image_offset(&self, x: usize, y: usize) -> isize { (y * self.width + x) as isize }
    }
    pub mod kernel {
        use super::{ImageInfo, Pixel};
        pub fn blur(input: *const Pixel, output: *mut Pixel, info: *const ImageInfo, x: usize, y: usize) {
            let info = unsafe { &*info };
            if x >= info.width || y >= info.height {
                return;
            }
            let p = unsafe { *input.offset(info.image_offset(x, y)) };
            let left = unsafe { *input.offset(info.image_offset(y, x)) };
            unsafe { *output.offset(info.image_offset(x, y)) = p };
            let _ = left;
        }
    }
}
use common::{kernel, ImageInfo, Pixel};
// kernel-lint: block(32, 8)
#[no_mangle]
pub extern "ptx-kernel" fn blur(input: *const Pixel, output: *mut Pixel, info: *const ImageInfo) {
    let x = unsafe { block_idx_x() * block_dim_x() + thread_idx_x() } as usize;
    let y = unsafe { block_idx_y() * block_dim_y() + thread_idx_y() } as usize;
    kernel::blur(input, output, info, x, y);
}
"#;
    let found: Vec<_> = accesses(src, "blur")
        .into_iter()
        .filter(|(array, ..)| array != "info")
        .collect();
    assert_eq!(
        found,
        [
            row("input", Load, Coalesced, 4.0),
            row("input", Load, Transposed, 32.0),
            row("output", Store, Coalesced, 4.0),
        ]
    );
}

#[test]
fn core_arch_nvptx_with_casts_and_a_tuple_helper() {
    let src = r#"
#![feature(abi_ptx, stdarch_nvptx)]
use core::arch::nvptx::*;
pub fn coords_2d() -> (usize, usize) {
    unsafe {
        (
            (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize,
            (_block_idx_y() * _block_dim_y() + _thread_idx_y()) as usize,
        )
    }
}
// kernel-lint: block(32, 8)
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn copy(src: *const f32, dst: *mut f32, w: usize) {
    let (x, y) = coords_2d();
    let i = (core::arch::nvptx::_block_idx_x() as usize) * (_block_dim_x() as usize) + _thread_idx_x() as usize;
    *dst.add(y * w + x) = *src.add(i) + *src.add(x * w + y);
}
"#;
    assert_eq!(
        accesses(src, "copy"),
        [
            row("src", Load, Coalesced, 4.0),
            row("src", Load, Transposed, 32.0),
            row("dst", Store, Coalesced, 4.0),
        ]
    );
}

const OTHER_DIALECTS: &str = "fixtures/dialects/unanalyzed.rs";

#[test]
fn other_dialects_are_listed_in_the_report() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(OTHER_DIALECTS);
    let text = std::fs::read_to_string(path).expect("fixture");
    let report = report(&text);
    assert!(report.kernels.is_empty());
    let found: Vec<(&str, Dialect)> = report.unanalyzed.iter().map(|k| (k.name.as_str(), k.dialect)).collect();
    assert_eq!(found, [("amd_fill", Dialect::AmdGpu)]);
}

fn run(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(args)
        .current_dir(crate::home::home())
        .output()
        .expect("the binary runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_cli_says_which_kernels_are_not_analyzed() {
    let human = run(&["--color", "never", "check", OTHER_DIALECTS]);
    assert_eq!(
        human,
        "note: 1 kernel in amdgpu is not analyzed yet\n\
         kernel-lint: 0 kernels in 1 file, 0 global accesses; 0 warnings, 0 notes, 0 errors\n"
    );
    let table = run(&["accesses", OTHER_DIALECTS]);
    assert_eq!(table, format!("not analyzed  {OTHER_DIALECTS}: amd_fill:13 (amdgpu)\n"));
    let json: serde_json::Value =
        serde_json::from_str(&run(&["accesses", "--format", "json", OTHER_DIALECTS])).expect("json");
    assert_eq!(json["schema"], "kernel-lint/accesses/v1");
    let listed: Vec<(String, String, u64)> = json["unanalyzed"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap_or_default().to_string(),
                k["dialect"].as_str().unwrap_or_default().to_string(),
                k["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(listed, [("amd_fill".to_string(), "amdgpu".to_string(), 13),]);
}

/// The kernels of a CubeCL fixture: (name, block, block source, launch line, accesses as
/// (array, op, space, class, sectors per request)), each asserted fully analyzed.
type CubeRow = (String, Op, MemorySpace, Option<AccessClass>, Option<f64>);

fn cube_fixture(path: &str) -> Vec<CubeKernel> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("fixture");
    let report = analyze_source(&SourceFile::new(path, text), &LaunchPlan::default()).expect("parses");
    assert!(report.unanalyzed.is_empty(), "{:?}", report.unanalyzed);
    report
        .kernels
        .iter()
        .map(|k| {
            assert!(k.unsupported.is_empty(), "{}: {:?}", k.name, k.unsupported);
            let rows = k
                .accesses
                .iter()
                .map(|a| {
                    let p = a.prediction.as_ref();
                    (
                        a.array.clone(),
                        a.op,
                        a.space,
                        p.map(|p| p.class),
                        p.and_then(|p| p.sectors_per_request),
                    )
                })
                .collect();
            let site = k.launch_site.as_ref().map(|s| s.span.line);
            (k.name.clone(), k.launch.block, k.launch.block_source, site, rows)
        })
        .collect()
}

fn cube(array: &str, op: Op, class: AccessClass, sectors: f64) -> CubeRow {
    (array.to_string(), op, MemorySpace::Global, Some(class), Some(sectors))
}

use kernel_lint_analyzer::BlockSource;

#[test]
fn cubecl_element_wise_kernels_under_their_launches() {
    let found = cube_fixture("fixtures/dialects/cubecl_elementwise.rs");
    let launch = BlockSource::Launch;
    assert_eq!(
        found,
        [
            (
                "copy_checked".to_string(),
                [256, 1, 1],
                launch,
                Some(43),
                vec![
                    cube("input", Load, Coalesced, 4.0),
                    cube("output", Store, Coalesced, 4.0)
                ]
            ),
            // `#[comptime] stride` is the launch's literal 4.
            (
                "gather_every".to_string(),
                [256, 1, 1],
                launch,
                Some(50),
                vec![
                    cube("input", Load, AccessClass::Strided, 16.0),
                    cube("output", Store, Coalesced, 4.0)
                ]
            ),
            // Lines of 4 `f32` from `ArrayArg::from_raw_parts::<f32>(.., 4)`: 16 bytes a unit.
            (
                "scale_lines".to_string(),
                [128, 1, 1],
                launch,
                Some(59),
                vec![
                    cube("input", Load, Coalesced, 16.0),
                    cube("output", Store, Coalesced, 16.0)
                ]
            ),
            // `CubeDim::default()` of CubeCL up to 0.8: 16 x 16. The launch gives no line
            // size: a figure per line size, no headline.
            (
                "unary_abs".to_string(),
                [16, 16, 1],
                launch,
                Some(73),
                vec![
                    ("input".to_string(), Load, MemorySpace::Global, Some(Coalesced), None),
                    ("output".to_string(), Store, MemorySpace::Global, Some(Coalesced), None)
                ]
            ),
        ]
    );
}

#[test]
fn cubecl_line_size_unknown_to_the_launch_is_an_assumption_said_with_the_access() {
    let path = "fixtures/dialects/cubecl_elementwise.rs";
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("fixture");
    let report = analyze_source(&SourceFile::new(path, text), &LaunchPlan::default()).expect("parses");
    let unary = report
        .kernels
        .iter()
        .find(|k| k.name == "unary_abs")
        .expect("unary_abs");
    let prediction = unary.accesses[0].prediction.as_ref().expect("global");
    assert_eq!(
        prediction.assumptions,
        [
            "assumes a line size of 1 for `input`: the launch does not give it; a line of N elements moves N times the bytes per lane",
            "the figure depends on the line size of `input` and `output`, which the launch does not give"
        ]
    );
    // The line size assumed is the first case; each other one tried is a case of its own.
    let cases: Vec<(&str, f64)> = prediction
        .cases
        .iter()
        .map(|c| (c.condition.as_str(), c.sectors_per_request))
        .collect();
    assert_eq!(
        cases,
        [
            ("line size 1 for `input` and `output`", 4.0),
            ("line size 2 for `input` and `output`", 8.0),
            ("line size 4 for `input` and `output`", 16.0)
        ]
    );
    assert_eq!(prediction.sectors_per_request, None);
    // Where the launch gives the line size and the element type, nothing is assumed.
    let lines = report
        .kernels
        .iter()
        .find(|k| k.name == "scale_lines")
        .expect("scale_lines");
    assert_eq!(lines.launch.params.get("input.line_size"), Some(&4));
    assert_eq!(lines.launch.params.get("size_of::<F>"), Some(&4));
    assert!(lines.accesses[0]
        .prediction
        .as_ref()
        .expect("global")
        .assumptions
        .is_empty());
}

#[test]
fn cubecl_tensor_kernels_strides_gather_and_shared_tile() {
    let found = cube_fixture("fixtures/dialects/cubecl_tensor.rs");
    let shared = |op| ("tile".to_string(), op, MemorySpace::Shared, None, None);
    assert_eq!(
        found,
        [
            (
                "transpose_strided".to_string(),
                [32, 8, 1],
                BlockSource::Launch,
                Some(42),
                vec![
                    cube("input", Load, Coalesced, 4.0),
                    cube("output", Store, Transposed, 32.0)
                ]
            ),
            (
                "gather_rows".to_string(),
                [256, 1, 1],
                BlockSource::Launch,
                Some(49),
                vec![
                    cube("indices", Load, Coalesced, 4.0),
                    (
                        "input".to_string(),
                        Load,
                        MemorySpace::Global,
                        Some(AccessClass::Gather),
                        None
                    ),
                    cube("output", Store, Coalesced, 4.0),
                ]
            ),
            (
                "reverse_tile".to_string(),
                [256, 1, 1],
                BlockSource::Launch,
                Some(57),
                vec![
                    cube("input", Load, Coalesced, 4.0),
                    shared(Store),
                    shared(Load),
                    cube("output", Store, Coalesced, 4.0),
                ]
            ),
        ]
    );
}

#[test]
fn cubecl_shapes_given_at_run_time_are_cases_with_the_usual_values_first() {
    let path = "fixtures/dialects/cubecl_runtime_shapes.rs";
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("fixture");
    // The prediction of the one kernel's access to `array` under `plan`.
    let predicted = |plan: &LaunchPlan, array: &str| {
        let report = analyze_source(&SourceFile::new(path, text.clone()), plan).expect("parses");
        let [kernel] = report.kernels.as_slice() else {
            panic!("one kernel: {:?}", report.kernels)
        };
        assert_eq!(kernel.name, "scale_channels");
        kernel
            .accesses
            .iter()
            .find(|a| a.array == array)
            .and_then(|a| a.prediction.clone())
            .unwrap_or_else(|| panic!("`{array}` predicted"))
    };
    let prediction = |array: &str| predicted(&LaunchPlan::default(), array);
    let cases = |p: &kernel_lint_analyzer::Prediction| -> Vec<(String, AccessClass, f64)> {
        p.cases
            .iter()
            .map(|c| (c.condition.clone(), c.class, c.sectors_per_request))
            .collect()
    };
    // The row and column strides and the shapes decide the input's pattern: no headline.
    let input = prediction("input");
    assert_eq!(input.sectors_per_request, None, "{input:?}");
    let input_cases = cases(&input);
    assert_eq!(
        input_cases.first(),
        Some(&(
            "input.stride(0) % 32 == 0 && output.shape(1) >= 32 && output.shape(2) >= 32 && output.shape(3) >= 32 && input.stride(1) % 32 == 0 && input.stride(2) % 32 == 0 && input.stride(3) == 1".to_string(),
            Coalesced,
            4.0
        ))
    );
    assert!(
        input_cases.contains(&("input.stride(3) >= 8".to_string(), Strided, 32.0)),
        "{input_cases:?}"
    );
    assert!(
        input_cases.contains(&("output.shape(3) == 1".to_string(), Strided, 32.0)),
        "{input_cases:?}"
    );
    assert!(
        input_cases.contains(&("input.stride(2) is odd".to_string(), Misaligned, 4.88)),
        "{input_cases:?}"
    );
    assert!(input
        .assumptions
        .iter()
        .any(|a| a.starts_with("the first case is the usual values")));
    // The channel is one for the warp only while a channel's plane spans it.
    let gain = prediction("gain");
    assert_eq!(gain.sectors_per_request, None, "{gain:?}");
    assert_eq!(
        cases(&gain),
        [
            (
                "output.shape(1) >= 32 && output.shape(2) >= 32 && output.shape(3) >= 32".to_string(),
                Broadcast,
                1.0
            ),
            (
                "output.shape(1) >= 32 && output.shape(2) == 1 && output.shape(3) == 1".to_string(),
                Coalesced,
                4.0
            )
        ]
    );
    // The position itself needs no value: one figure.
    let output = prediction("output");
    assert_eq!((output.class, output.sectors_per_request), (Coalesced, Some(4.0)));
    assert!(output.cases.is_empty());
    // With the shapes and strides of a contiguous tensor given, one figure again.
    let values = [
        ("output.shape(3)", 64),
        ("output.shape(2)", 64),
        ("output.shape(1)", 32),
        ("input.stride(3)", 1),
        ("input.stride(2)", 64),
        ("input.stride(1)", 4096),
        ("input.stride(0)", 131072),
    ];
    let plan = LaunchPlan {
        specs: vec![kernel_lint_analyzer::LaunchSpec {
            kernel: "scale_channels".into(),
            params: values.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..Default::default()
        }],
    };
    let read = predicted(&plan, "input");
    assert_eq!(
        (read.class, read.sectors_per_request),
        (Coalesced, Some(4.0)),
        "{read:?}"
    );
    assert!(read.cases.is_empty());
    // A plane of 64 x 64 spans every warp: one channel, proven for every block index.
    let channel = predicted(&plan, "gain");
    assert_eq!(
        (channel.class, channel.sectors_per_request),
        (Broadcast, Some(1.0)),
        "{channel:?}"
    );
}

#[test]
fn cubecl_topology_constants_and_a_followed_cube_helper() {
    let src = r#"
use cubecl::prelude::*;
#[cube]
fn column_of(width: u32) -> u32 {
    UNIT_POS_Y * width + UNIT_POS_X
}
// kernel-lint: block(8, 32)
#[cube(launch)]
fn rows<F: Float>(input: &Array<F>, output: &mut Array<F>) {
    let lane = UNIT_POS_PLANE;
    output[CUBE_POS * CUBE_DIM + UNIT_POS] = input[column_of(8) as usize];
    output[ABSOLUTE_POS_Y * (CUBE_COUNT_X * CUBE_DIM_X) + ABSOLUTE_POS_X] = input[lane * PLANE_DIM];
}
"#;
    let report = report(src);
    let kernel = &report.kernels[0];
    assert_eq!(
        (kernel.launch.block, kernel.launch.block_source),
        ([8, 32, 1], BlockSource::Hint)
    );
    let rows: Vec<_> = kernel
        .accesses
        .iter()
        .map(|a| {
            let p = a.prediction.as_ref().expect("global");
            (a.array.as_str(), p.class, p.sectors_per_request, a.via.len())
        })
        .collect();
    assert_eq!(
        rows,
        [
            // The index the `#[cube]` helper returns, followed: the unit's rank in its cube,
            // 32 consecutive floats (an unfollowed call would leave it unknown).
            ("input", Coalesced, Some(4.0), 0),
            ("output", Coalesced, Some(4.0), 0),
            // The lane times the plane width: 32 floats apart.
            ("input", AccessClass::Strided, Some(32.0), 0),
            // The linear absolute position of a cube 8 wide: 4 rows of 8 floats.
            ("output", Coalesced, Some(4.0), 0),
        ]
    );
    // The element type a launch does not name is assumed 4 bytes, and said so.
    let p = kernel.accesses[0].prediction.as_ref().expect("global");
    assert_eq!(
        p.assumptions,
        ["assumes `F` is 4 bytes wide (f32): the launch does not name the element type"]
    );
}

#[test]
fn cubecl_launches_at_run_time_sizes_leave_the_default_and_say_why() {
    let src = r#"
use cubecl::prelude::*;
#[cube(launch)]
fn fill<F: Float>(output: &mut Array<F>) {
    if ABSOLUTE_POS >= output.len() {
        terminate!();
    }
    output[ABSOLUTE_POS] = F::new(0.0);
}
pub fn run<R: Runtime>(client: &ComputeClient<R>, out: &Handle, n: usize) {
    let cube_dim = CubeDim::new(client, n);
    fill::launch::<f32, R>(client, CubeCount::Static(4, 1, 1), cube_dim, unsafe { ArrayArg::from_raw_parts::<f32>(out, n, 1) });
}
"#;
    let report = report(src);
    let kernel = &report.kernels[0];
    assert_eq!(
        (kernel.launch.block, kernel.launch.block_source),
        ([256, 1, 1], BlockSource::Default)
    );
    assert_eq!(
        kernel.launch_notes,
        ["the launch at k.rs:12 sizes the block at run time (`CubeDim::new(&client, ..)`)"]
    );
    let store = &kernel.accesses[0];
    assert_eq!(
        store.prediction.as_ref().map(|p| (p.class, p.sectors_per_request)),
        Some((Coalesced, Some(4.0)))
    );
}

/// A CubeCL kernel of a fixture: name, block, where the block came from, the launch's line,
/// and its accesses.
type CubeKernel = (String, [u32; 3], BlockSource, Option<usize>, Vec<CubeRow>);

const PROBED_TABLE: &str = r#"
use spirv_std::glam::{IVec3, UVec3, Vec3};
use spirv_std::spirv;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Slot {
    pub key: u32,
    pub value: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Cell {
    pub id: IVec3,
}

impl Cell {
    fn containing(size: f32, p: Vec3) -> Cell {
        Cell { id: (p / size).floor().as_ivec3() }
    }
    fn with_neighbour(&self) -> [Cell; 2] {
        [*self, Cell { id: self.id + IVec3::new(1, 0, 0) }]
    }
    fn packed(&self) -> u32 {
        (self.id.x as u32 & 0x3FF) | ((self.id.y as u32 & 0x3FF) << 10)
    }
}

fn spread(k: u32) -> u32 {
    k.wrapping_mul(0x9E37_79B9) ^ (k >> 15)
}

fn probe(slots: &[Slot], capacity: u32, cell: &Cell) -> u32 {
    let key = cell.packed();
    let mut at = spread(key) & (capacity - 1);
    for _ in 0..capacity {
        if slots[at as usize].key == key {
            return slots[at as usize].value;
        }
        at = (at + 1) & (capacity - 1);
    }
    0
}

#[spirv(compute(threads(64)))]
pub fn lookup(
    #[spirv(global_invocation_id)] gid: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] points: &[Vec3],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] slots: &[Slot],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] found: &mut [u32],
) {
    let i = gid.x as usize;
    let cells = Cell::containing(0.25, points[i]).with_neighbour();
    found[i] = probe(slots, 4096, &cells[1]);
}
"#;

/// A hash-table probe whose first slot is hashed from a position each lane reads (through a
/// vector library the analysis does not read, and a local array), then stepped in a loop: every
/// read of the table is a gather, not an unknown.
#[test]
fn a_probe_loop_started_from_data_each_lane_reads_is_a_gather() {
    let rows = accesses(PROBED_TABLE, "lookup");
    let gathers: Vec<_> = rows.iter().filter(|r| r.0 == "slots").map(|r| (r.1, r.2)).collect();
    assert_eq!(
        gathers,
        [(Load, Some(AccessClass::Gather)), (Load, Some(AccessClass::Gather))]
    );
    assert_eq!(rows.last(), Some(&row("found", Store, Coalesced, 4.0)));
}

const NESTED_FIELD: &str = r#"
use spirv_std::glam::UVec3;
use spirv_std::spirv;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Range {
    pub lo: u32,
    pub hi: u32,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Bucket {
    pub range: Range,
    pub count: u32,
    pub flags: u32,
}

#[spirv(compute(threads(64)))]
pub fn clear(
    #[spirv(global_invocation_id)] gid: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] buckets: &mut [Bucket],
) {
    let b = &mut buckets[gid.x as usize];
    b.range = Range { lo: 0, hi: 0 };
    b.count = 0;
}
"#;

/// A struct-valued field stored whole is one access per leaf, each still a field of the
/// 16-byte element: an array of structs, like the plain field beside it.
#[test]
fn a_struct_valued_field_of_an_element_is_an_array_of_structs_access() {
    let report = report(NESTED_FIELD);
    let kernel = report.kernels.iter().find(|k| k.name == "clear").expect("kernel found");
    let rows: Vec<_> = kernel
        .accesses
        .iter()
        .map(|a| {
            let field = a.field_of.as_ref().expect("a field");
            let p = a.prediction.as_ref().expect("predicted");
            (
                field.type_name.as_str(),
                field.field.as_str(),
                field.size,
                p.class,
                p.sectors_per_request,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("Bucket", "range.lo", 16, AccessClass::Aos, Some(16.0)),
            ("Bucket", "range.hi", 16, AccessClass::Aos, Some(16.0)),
            ("Bucket", "count", 16, AccessClass::Aos, Some(16.0)),
        ]
    );
}

const CONST_BLOCK_ARGUMENTS: &str = r#"
use spirv_std::arch::{atomic_i_increment, IndexUnchecked};
use spirv_std::glam::UVec3;
use spirv_std::memory::{Scope, Semantics};
use spirv_std::spirv;

#[spirv(compute(threads(64)))]
pub fn tally(
    #[spirv(global_invocation_id)] gid: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] counts: &mut [u32],
) {
    let slot = unsafe { counts.index_unchecked_mut(gid.x as usize * 8) };
    unsafe {
        atomic_i_increment::<_, const { Scope::Device as u32 }, const { Semantics::NONE.bits() }>(slot);
    }
}
"#;

/// Inline `const` blocks as generic arguments are read (as the blocks they hold), and
/// spirv-std's `index_unchecked_mut` is the element: the atomic reads and writes each lane's
/// counter, 32 bytes apart.
#[test]
fn const_block_generic_arguments_parse_and_the_atomic_is_analyzed() {
    assert_eq!(
        accesses(CONST_BLOCK_ARGUMENTS, "tally"),
        [row("counts", Load, Strided, 32.0), row("counts", Store, Strided, 32.0),]
    );
}
