//! The thread-index APIs of every Rust CUDA dialect give the same predictions as `cuda_std`'s:
//! cuda-oxide (`cuda_device`), `ptx_support`, `nvptx_builtins` and `core::arch::nvptx`. Entry
//! points of dialects that are not analyzed (CubeCL, amdgpu) are reported as such.

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

use AccessClass::{Broadcast, Coalesced, Transposed};
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
    assert_eq!(
        found,
        [
            ("gelu_array", Dialect::CubeCl),
            ("copy", Dialect::CubeCl),
            ("amd_fill", Dialect::AmdGpu),
        ]
    );
}

fn run(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_cli_says_which_kernels_are_not_analyzed() {
    let human = run(&["--color", "never", "check", OTHER_DIALECTS]);
    assert_eq!(
        human,
        "note: 2 kernels in CubeCL are not analyzed yet\n\
         note: 1 kernel in amdgpu is not analyzed yet\n\
         kernel-lint: 0 kernels in 1 file, 0 global accesses; 0 warnings, 0 notes, 0 errors\n"
    );
    let table = run(&["accesses", OTHER_DIALECTS]);
    assert_eq!(
        table,
        format!("not analyzed  {OTHER_DIALECTS}: gelu_array:15 (CubeCL), copy:22 (CubeCL), amd_fill:32 (amdgpu)\n")
    );
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
    assert_eq!(
        listed,
        [
            ("gelu_array".to_string(), "CubeCL".to_string(), 15),
            ("copy".to_string(), "CubeCL".to_string(), 22),
            ("amd_fill".to_string(), "amdgpu".to_string(), 32),
        ]
    );
}
