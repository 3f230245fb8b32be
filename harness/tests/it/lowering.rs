//! Constructs of real kernels are lowered to CUDA C++ that compiles: struct references,
//! constants of any type and module, number and vector methods, tuple coordinates.

use kernel_lint_analyzer::{CrateUse, LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_harness::driver::{self, Sources};

use crate::support;
use std::path::Path;
use support::check_with_gxx;

/// Emits `text` as one file; asserts every kernel was lowered and the program compiles with
/// g++ against the host-only CUDA header; returns the program.
fn lowered(text: &str) -> String {
    let emitted = driver::emit(&[SourceFile::new("k.rs", text)], &LaunchPlan::default());
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors.len());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    check_with_gxx(&emitted.program);
    emitted.program
}

/// Emits crate `gpu` holding `kernels` (the reported file, `kernel`) and a sibling module
/// `name` written `text`.
fn emit_with_module(kernel: &str, name: &str, text: &str) -> driver::Emitted {
    let file = |path: &str, text: &str, module: &[&str]| ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|m| m.to_string()).collect(),
        also_in: Vec::new(),
    };
    let sources = Sources {
        inputs: vec![
            file("src/kernels.rs", kernel, &["gpu", "kernels"]),
            file(&format!("src/{name}.rs"), text, &["gpu", name]),
            file("src/lib.rs", &format!("pub mod kernels;\npub mod {name};\n"), &["gpu"]),
        ],
        reported: 1,
        uses: Vec::new(),
        features: Default::default(),
    };
    driver::emit_sources(&sources, &LaunchPlan::default())
}

#[test]
fn struct_references_and_references_to_elements_read_through_arrows() {
    let program = lowered(
        r#"
use cuda_std::prelude::*;
use cuda_std::thread;

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Params { pub n: u32, pub scale: f32 }

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Particle { pub x: f32, pub v: f32 }

#[kernel]
pub unsafe fn step(p: &Params, particles: *mut Particle) {
    let i = thread::index_1d();
    if i < p.n {
        let q = &mut *particles.add(i as usize);
        q.x = q.x + q.v * p.scale;
    }
}
"#,
    );
    assert!(program.contains("(i < p->n)"), "{program}");
    assert!(program.contains("q->x = (q->x + (q->v * p->scale))"), "{program}");
}

#[test]
fn constants_of_any_type_and_module_and_constant_array_lengths_are_defined() {
    let program = lowered(
        r#"
use cuda_std::prelude::*;
use cuda_std::thread;

mod consts {
    pub const RADIUS: usize = 2;
    pub const WEIGHTS: [f32; 3] = [0.25, 0.5, 0.25];
}
const ETA: f32 = 0.1;
const HALF_ETA: f32 = ETA / 2.0;

#[kernel]
pub unsafe fn smooth(a: *mut f32, n: u32) {
    const TILE: usize = 4;
    const SCALE: f32 = 1f32 / (TILE * TILE) as f32;
    #[address_space(shared)]
    static mut TILE_A: [f32; TILE * TILE] = [0.; TILE * TILE];
    let i = thread::index_1d() as usize;
    if i < n as usize {
        TILE_A[i % (TILE * TILE)] = *a.add(i) * SCALE;
        *a.add(i) = consts::WEIGHTS[consts::RADIUS - 1] * HALF_ETA + TILE_A[0];
    }
}
"#,
    );
    assert!(program.contains("constexpr float ETA = 0.1f;"), "{program}");
    assert!(
        program.contains("constexpr float HALF_ETA = (ETA / 2.0f);"),
        "{program}"
    );
    assert!(
        program.contains("__device__ const kl::array<float, 3> WEIGHTS = {0.25f, 0.5f, 0.25f};"),
        "{program}"
    );
    assert!(program.contains("kl::array<float, (TILE * TILE)> TILE_A"), "{program}");
    assert!(program.contains("constexpr float SCALE ="), "{program}");
    assert!(program.contains("WEIGHTS[(RADIUS - 1)]"), "{program}");
}

#[test]
fn methods_on_numbers_map_to_math_functions() {
    let program = lowered(
        r#"
use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn math(a: *mut f32, b: *mut u32, n: u32) {
    let i = thread::index_1d() as usize;
    if i < n as usize {
        let x = *a.add(i);
        let y = x.clamp(0.0, 1.0).min(0.5).max(0.1).abs().sqrt().log2();
        let z = x.powi(2) + x.powf(0.5) + x.powf_fast(2.4) + x.mul_add(2.0, 1.0) + x.exp() + x.sin() + x.cos();
        *a.add(i) = y + z + x.floor() + x.ceil() + x.rem_euclid(3.0);
        let m = *b.add(i);
        *b.add(i) = m.next_power_of_two().max(1).min(n) + (m as i32).rem_euclid(4) as u32 + m.abs_diff(7);
    }
}
"#,
    );
    for call in [
        "kl::clamp(",
        "kl::min(",
        "kl::max(",
        "fabsf(",
        "sqrtf(",
        "kl::log2(",
        "powf(",
        "kl::powf(",
        "kl::powf_fast(",
        "fmaf(",
        "kl::exp(",
        "kl::sin(",
        "kl::cos(",
        "kl::floor(",
        "kl::ceil(",
        "kl::rem_euclid(",
        "kl::next_power_of_two(",
        "kl::abs_diff(",
    ] {
        assert!(program.contains(call), "{call} missing:\n{program}");
    }
}

#[test]
fn glam_vectors_are_built_and_measured() {
    let program = lowered(
        r#"
use cuda_std::prelude::*;
use cuda_std::thread;
use glam::{Vec2, Vec3};

#[kernel]
pub unsafe fn norms(v: *const Vec3, out: *mut f32, n: u32) {
    let i = thread::index_1d() as usize;
    if i < n as usize {
        let a = *v.add(i);
        let b = Vec3::new(1.0, 2.0, 3.0);
        let zero = Vec3::ZERO;
        let one = Vec3::ONE;
        let p: Vec2 = a.xy();
        let lanes = b.to_array();
        *out.add(i) = a.dot(b) + a.length() + p.length() + lanes[1] + zero.x + one.y;
    }
}
"#,
    );
    assert!(program.contains("kl::Vec3{1.0f, 2.0f, 3.0f}"), "{program}");
    assert!(program.contains("kl::Vec3{0, 0, 0}"), "{program}");
    assert!(program.contains("kl::Vec3{1, 1, 1}"), "{program}");
    for call in ["kl::dot(", "kl::length(", "kl::xy(", "kl::to_array("] {
        assert!(program.contains(call), "{call} missing:\n{program}");
    }
}

#[test]
fn two_dimensional_coordinates_byte_offsets_and_sizes_are_lowered() {
    let program = lowered(
        r#"
use nvptx_std::prelude::*;

#[no_mangle]
pub unsafe extern "ptx-kernel" fn copy_plane(src: *const u8, src_pitch: usize, dst: *mut f32, dst_pitch: usize, width: usize, height: usize) {
    let (x, y) = coords_2d();
    if x >= width || y >= height {
        return;
    }
    let bytes = core::mem::size_of::<f32>();
    *dst.byte_add(y * dst_pitch).add(x) = *src.byte_add(y * src_pitch).add(x) as f32 * bytes as f32;
}
"#,
    );
    assert!(program.contains("blockIdx.y * blockDim.y + threadIdx.y"), "{program}");
    assert!(program.contains("kl::byte_add(dst, (y * dst_pitch))"), "{program}");
    assert!(program.contains("sizeof(float)"), "{program}");
}

#[test]
fn struct_literals_and_tuples_returned_by_helpers_are_lowered() {
    let program = lowered(
        r#"
use cuda_std::prelude::*;
use cuda_std::thread;

#[derive(Clone, Copy)]
#[repr(C)]
pub struct Pair { pub lo: u32, pub hi: f32 }

fn split(x: u32) -> (u32, f32) {
    (x / 2, x as f32 * 0.5)
}

#[kernel]
pub unsafe fn pairs(out: *mut Pair, n: u32) {
    let i = thread::index_1d();
    if i < n {
        let (half, scaled) = split(i);
        let (a, b): (u32, f32) = (half, scaled);
        let count: u32 = a + 1;
        *out.add(i as usize) = Pair { hi: b, lo: count };
    }
}
"#,
    );
    assert!(
        program.contains("kl::tuple2<unsigned int, float> split(unsigned int x)"),
        "{program}"
    );
    assert!(program.contains("return kl::make_tuple("), "{program}");
    assert!(program.contains("Pair{count, b}"), "{program}");
    assert!(program.contains("unsigned int count = (a + 1);"), "{program}");
}

#[test]
fn matches_on_integers_and_options_of_slice_elements_are_lowered() {
    let program = lowered(
        r#"
use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn pick(a: &[f32], b: &mut [f32], src0: *const f32, src1: *const f32, out: *mut f32) {
    let i = thread::index_1d() as usize;
    let plane = thread::block_idx_y();
    let src = match plane {
        0 => src0,
        1 | 2 => src1,
        _ => core::hint::unreachable_unchecked(),
    };
    match plane {
        0 => *out.add(i) = *src.add(i),
        3..=5 => {
            *out.add(i) = 1.0;
        }
        _ => {}
    }
    if let Some(x) = a.get(i) {
        *out.add(i) = *x;
    } else {
        *out.add(i) = 0.0;
    }
    match b.get_mut(i) {
        Some(y) => *y = 2.0,
        None => {}
    }
}
"#,
    );
    assert!(
        program.contains("((plane == 0u) ? (src0) : (src1))") || program.contains("((plane == 0) ? (src0) : (src1))"),
        "{program}"
    );
    assert!(program.contains("if ((plane == 0)) {"), "{program}");
    assert!(program.contains("else if ((plane >= 3 && plane <= 5)) {"), "{program}");
    assert!(program.contains("if ((unsigned long long)(i) < a_len) {"), "{program}");
    assert!(program.contains("auto x = kl::make_ref(&a[i]);"), "{program}");
    assert!(program.contains("auto y = kl::make_ref(&b[i]);"), "{program}");
}

#[test]
fn local_arrays_of_any_element_type_are_declared_and_filled() {
    let program = lowered(
        r#"
use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn local(out: *mut f32, counts: *mut u32) {
    let i = thread::index_1d() as usize;
    let mut hist = [0u32; 4];
    let mut m: [[f32; 3]; 3] = [[1.0; 3]; 3];
    let w = [0.25f32, 0.5, 0.25];
    hist[i % 4] += 1;
    m[1][2] = w[i % 3];
    *counts.add(i) = hist[0];
    *out.add(i) = m[1][2] + m[0][0];
}
"#,
    );
    assert!(program.contains("kl::array<unsigned int, 4> hist;"), "{program}");
    assert!(program.contains("kl::array<kl::array<float, 3>, 3> m;"), "{program}");
    assert!(
        program.contains("kl::array<float, 3> w = {0.25f, 0.5f, 0.25f};"),
        "{program}"
    );
}

#[test]
fn numeric_constants_conversions_and_mapped_ranges_are_lowered() {
    let program = lowered(
        r#"
use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn fade(a: &[u8], out: *mut f32, threads: u64, stride: u64) {
    let id = thread::index_1d();
    let mut best = f32::INFINITY;
    let mut index = usize::MAX;
    for idx in (0..stride).map(|s| s * threads + u64::from(id)) {
        if idx >= a.len() as u64 {
            return;
        }
        let v = a[idx.to_usize().unwrap()] as f32 * core::f32::consts::PI;
        if v < best {
            best = v;
            index = idx as usize;
        }
    }
    *out.add(index % 1024) = best.max(f32::MIN) + i32::MAX as f32;
}
"#,
    );
    assert!(program.contains("kl::infinity<float>()"), "{program}");
    assert!(program.contains("18446744073709551615ull"), "{program}");
    assert!(
        program.contains("auto idx = ((s * threads) + ((unsigned long long)(id)));"),
        "{program}"
    );
    assert!(program.contains("3.14159265358979323846f"), "{program}");
}

/// Files of a fixture workspace, each with its module, the first `reported` lowered.
fn workspace(root: &str, files: &[(&str, &[&str])], reported: usize, uses: &[(&str, &str, &str)]) -> Sources {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(root);
    Sources {
        inputs: files
            .iter()
            .map(|(path, module)| ModuleSource {
                source: SourceFile::new(*path, std::fs::read_to_string(root.join(path)).expect("fixture file")),
                module: module.iter().map(|m| m.to_string()).collect(),
                also_in: Vec::new(),
            })
            .collect(),
        reported,
        uses: uses
            .iter()
            .map(|(from, name, root)| CrateUse {
                from: from.to_string(),
                name: name.to_string(),
                root: root.to_string(),
            })
            .collect(),
        features: Default::default(),
    }
}

#[test]
fn kernels_get_the_structs_aliases_constants_helpers_and_methods_of_other_modules_and_crates() {
    let sources = workspace(
        "fixtures/workspace",
        &[
            ("kernels/src/physics.rs", &["gpu_kernels", "physics"]),
            ("kernels/src/lib.rs", &["gpu_kernels"]),
            ("kernels/src/index.rs", &["gpu_kernels", "index"]),
            ("types/src/lib.rs", &["gpu_types"]),
            ("types/src/grid.rs", &["gpu_types", "grid"]),
            ("types/src/particle.rs", &["gpu_types", "particle"]),
        ],
        1,
        &[("gpu_kernels", "types", "gpu_types")],
    );
    let emitted = driver::emit_sources(&sources, &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let mut kernels: Vec<&str> = emitted.manifest.launches.iter().map(|l| l.kernel.as_str()).collect();
    kernels.sort_unstable();
    assert_eq!(
        kernels,
        ["column_mass", "every_other", "gather_mass", "one_tile_on", "positions"]
    );
    let program = &emitted.program;
    check_with_gxx(program);
    // The alias `Float` is `f32`; the struct a field names comes before the struct holding it.
    let node = program
        .find("struct Node {\n  float mass;\n  kl::array<float, 3> velocity;\n};")
        .expect("Node");
    let grid = program.find("struct Grid {\n  Node* nodes;").expect("Grid");
    assert!(node < grid, "{program}");
    // Methods are functions of their receiver; `Self` and the newtype are lowered too.
    assert!(program.contains("struct NodeId {\n  unsigned int _0;\n};"), "{program}");
    assert!(
        program.contains("__device__ inline Node* Grid_get_node(const Grid& self, NodeId id) {"),
        "{program}"
    );
    assert!(
        program.contains("Grid_get_node(grid, NodeId{((unsigned int)(i))})"),
        "{program}"
    );
    // A reference returned by a method is read through.
    assert!(program.contains("node->mass"), "{program}");
    // A helper of another crate and one of another module of the kernels' crate.
    assert!(program.contains("__device__ inline float position_x(const Particle* particles, unsigned long long i) {"));
    assert!(
        program.contains("__device__ inline unsigned long long global_id() {"),
        "{program}"
    );
    assert!(
        program.contains("[[maybe_unused]] constexpr unsigned long long TILE = 32ll;"),
        "{program}"
    );
    // Each item once, however many kernels use it.
    assert_eq!(program.matches("struct Grid {").count(), 1, "{program}");
    assert_eq!(program.matches("global_id() {").count(), 1, "{program}");
}

#[test]
fn device_tables_of_other_modules_are_device_arrays_and_unknown_constructs_keep_their_reason() {
    let kernel = r#"
use cuda_std::prelude::*;
use crate::tables::{WEIGHTS, Real};

#[kernel]
pub unsafe fn weigh(a: *const Real, out: *mut Real) {
    let i = thread::index_1d() as usize;
    *out.add(i) = *a.add(i) * WEIGHTS[i % 3] * crate::tables::scale(2.0);
}

#[kernel]
pub unsafe fn odd(out: *mut Real) {
    let i = thread::index_1d() as usize;
    *out.add(i) = crate::tables::odd_one(i);
}
"#;
    let tables = r#"
pub type Real = f32;
pub const WEIGHTS: [Real; 3] = [0.25, 0.5, 0.25];
pub fn scale(x: Real) -> Real { x * WEIGHTS[1] }
pub fn odd_one(i: usize) -> Real { let v: Vec<Real> = Vec::new(); v[i] }
"#;
    let emitted = emit_with_module(kernel, "tables", tables);
    let program = &emitted.program;
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert_eq!(emitted.manifest.launches.len(), 1, "{:?}", emitted.manifest.not_lowered);
    assert!(
        program.contains("__device__ const kl::array<float, 3> WEIGHTS = {0.25f, 0.5f, 0.25f};"),
        "{program}"
    );
    assert!(
        program.contains("__device__ inline float scale(float x) {"),
        "{program}"
    );
    assert!(
        program.contains("__global__ void weigh(const float* a, float* out)"),
        "{program}"
    );
    assert_eq!(emitted.manifest.launches.len(), 1);
    let [odd] = emitted.manifest.not_lowered.as_slice() else {
        panic!("{:?}", emitted.manifest.not_lowered)
    };
    assert_eq!(odd.kernel, "odd");
    assert!(
        odd.reason.starts_with("function `odd_one` is not lowered: "),
        "{}",
        odd.reason
    );
    assert!(!program.contains("odd_one"), "{program}");
    check_with_gxx(program);
}

#[test]
fn host_launches_give_the_harness_one_launch_per_shape_with_their_scalars() {
    let sources = workspace(
        "fixtures/launch",
        &[("kernels/src/lib.rs", &["kernels"]), ("host/src/main.rs", &["host"])],
        1,
        &[],
    );
    let emitted = driver::emit_sources(&sources, &LaunchPlan::default());
    let launches = |name: &str| -> Vec<String> {
        emitted
            .manifest
            .launches
            .iter()
            .filter(|l| l.kernel == name)
            .map(|l| format!("{:?} {:?} {:?}", l.block, l.grid, l.params))
            .collect()
    };
    assert_eq!(
        launches("gemm_naive"),
        [
            r#"[1, 16, 1] [1024, 64, 1] {"k": 1024, "m": 1024, "n": 1024}"#,
            r#"[16, 16, 1] [64, 64, 1] {"k": 1024, "m": 1024, "n": 1024}"#,
        ]
    );
    assert_eq!(launches("shift"), [r#"[256, 1, 1] [4, 1, 1] {"n": 1024}"#]);
    // The host passes `n`: the harness passes the same value.
    assert!(
        emitted.program.contains(
            "shift<<<dim3(4u, 1u, 1u), dim3(256u, 1u, 1u)>>>(a, 1048576ull, out, (unsigned long long)1024ll)"
        ),
        "{}",
        emitted.program
    );
}

#[test]
fn prints_are_left_out_assertions_trap_and_optix_programs_are_named() {
    let emitted = driver::emit(
        &[SourceFile::new(
            "k.rs",
            r#"
use cuda_std::prelude::*;

#[kernel]
pub unsafe fn checked(a: &[u32], out: *mut u32, n: u32) {
    let i = thread::index_1d();
    println!("thread {}", i);
    assert!(i < n, "out of range");
    if a[i as usize] == 0 {
        panic!("zero");
    }
    *out.add(i as usize) = a[i as usize].wrapping_neg();
}

#[kernel]
pub unsafe fn loud(a: &[u32]) {
    println!("{}", a[0]);
}

#[kernel]
pub unsafe fn __raygen__render() {}
"#,
        )],
        &LaunchPlan::default(),
    );
    let program = &emitted.program;
    assert!(program.contains("/* println! left out */;"), "{program}");
    assert!(program.contains("if (!((i < n))) __trap();"), "{program}");
    assert!(program.contains("__trap();\n}"), "{program}");
    assert!(program.contains("(-a[((unsigned long long)(i))])"), "{program}");
    let reasons: Vec<(&str, &str)> = emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (n.kernel.as_str(), n.reason.as_str()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("loud", "`println!` of a computed value is not lowered"),
            (
                "__raygen__render",
                "OptiX program: launched by OptiX, not by a kernel launch"
            ),
        ]
    );
    check_with_gxx(program);
}

// In the shape of the sample converters of Gui-Yom/turbo-metrics at
// 1c6a196210cc85f00a9f3735d2c09adb80d00b08 (crates/vmaf-cuda-kernel/src/integer_motion.rs).
#[test]
fn const_generic_helpers_are_lowered_once_per_constant_with_their_associated_types() {
    let kernels = r#"
use nvptx_std::prelude::*;

trait Pixel {
    type Sample: Into<u32>;
}

struct Depth<const D: usize>;
impl Pixel for Depth<8> {
    type Sample = u8;
}
impl Pixel for Depth<16> {
    type Sample = u16;
}

fn reflect(i: isize, n: usize) -> usize {
    let i = i.unsigned_abs();
    if i < n { i } else { n - 1 }
}

unsafe fn smooth<const D: usize>(src: *const <Depth<D> as Pixel>::Sample, out: *mut u32, n: usize)
where
    Depth<D>: Pixel,
{
    const TAPS: [u32; 3] = [1, 2, 1];
    let (x, _y) = coords_2d();
    if x >= n {
        return;
    }
    let mut acc = 0u32;
    for t in 0..TAPS.len() {
        let v = src.add(reflect(x as isize + t as isize - 1, n)).read();
        acc += TAPS[t] * v.into();
    }
    *out.add(x) = (acc + 2u32.pow(D as u32 - 1)) >> D as u32;
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn smooth_8(src: *const u8, out: *mut u32, n: usize) {
    smooth::<8>(src, out, n)
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn smooth_16(src: *const u16, out: *mut u32, n: usize) {
    smooth::<16>(src, out, n)
}
"#;
    let program = lowered(kernels);
    for expected in [
        // The copies' names avoid the kernels'.
        "__device__ inline void smooth_8_(const unsigned char* src, unsigned int* out, unsigned long long n)",
        "__device__ inline void smooth_16_(const unsigned short* src, unsigned int* out, unsigned long long n)",
        "smooth_8_(src, out, n);",
        "smooth_16_(src, out, n);",
        "static const kl::array<unsigned int, 3> TAPS = {1, 2, 1};",
        "t < TAPS_len",
        "kl::ipow(2u, (((unsigned int)(8)) - 1))",
        ">> ((unsigned int)(16))",
        "kl::unsigned_abs(i)",
    ] {
        assert!(program.contains(expected), "{expected} missing:\n{program}");
    }
    // The copy's statements keep the generic function's lines.
    assert!(program.contains("#line 35 \"k.rs\"\n(*(out + x)) ="), "{program}");

    // A constant no impl knows is refused with the reason.
    let unknown = kernels.replace("smooth::<16>", "smooth::<12>");
    let emitted = driver::emit(&[SourceFile::new("k.rs", &unknown)], &LaunchPlan::default());
    let reasons: Vec<(&str, &str)> = emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (n.kernel.as_str(), n.reason.as_str()))
        .collect();
    assert_eq!(
        reasons,
        [(
            "smooth_16",
            "helper `smooth_12` is not lowered: associated type `<Depth<D> as Pixel>::Sample`: no impl of `Pixel` for `Depth<12>` is known"
        )]
    );
    check_with_gxx(&emitted.program);
}

// In the shape of Rust-GPU/Rust-CUDA at ac2674f03208462709f538f07b10e3f8153c93b6
// (examples/cuda/path_tracer/kernels/src/render_kernels.rs) and akofke/rust-cuda-test at
// e062858265fdf0f6f66e2630cf32b6ef32f4175d (kernel/src/lib.rs).
#[test]
fn glam_vectors_of_any_element_fast_intrinsics_and_reference_operands_are_lowered() {
    let program = lowered(
        r#"
use core::intrinsics::{fadd_fast, fmul_fast, unchecked_add};
use cuda_std::prelude::*;
use glam::{U8Vec3, USizeVec2, Vec3};

#[repr(C)]
pub struct Frame {
    pub size: USizeVec2,
}

#[kernel]
pub unsafe fn shade(src: *const Vec3, out: *mut U8Vec3, gain: f32, frame: Frame) {
    let i = thread::index_1d() as usize;
    if i >= frame.size.x * frame.size.y {
        return;
    }
    let pixel = &*src.add(i);
    let scaled = pixel * gain;
    let level = fadd_fast(fmul_fast(scaled.x, 255.0), 0.5);
    let step = unchecked_add(i, 1);
    *out.add(i) = U8Vec3::new(level as u8, step as u8, 0);
}
"#,
    );
    for expected in [
        "auto scaled = ((*pixel) * gain);",
        "((scaled.x * 255.0f) + 0.5f)",
        "(i + 1)",
        "kl::U8Vec3{",
    ] {
        assert!(program.contains(expected), "{expected} missing:\n{program}");
    }
    // A glam vector inside a struct parameter is set lane by lane.
    assert!(program.contains("kl::USizeVec2 frame_size{};"), "{program}");
    assert!(program.contains("frame_size.y = (unsigned long long)"), "{program}");
}

/// In the shape of Neutron3529/cuda_min at 6694f8bbda9594700b81e9c8222087b0d088d3d8 (print/,
/// iterated_random_access/): `vprintf` with a string literal and a tuple of arguments that reads global memory,
/// `vprintf` with no arguments, and a loop whose counter is `_`.
#[test]
fn vprintf_keeps_its_argument_reads_and_wildcard_loops_count() {
    let program = lowered(
        r#"
use core::arch::nvptx::*;

#[no_mangle]
pub unsafe extern "ptx-kernel" fn show(inout: *mut i32, steps: *mut usize) {
    let i = _block_idx_x() * _block_dim_x() + _thread_idx_x();
    vprintf("at %d: %d \"q\"?\n\0tail".as_ptr(), (&(i, *inout.wrapping_add(i as usize))) as *const _ as _);
    vprintf("none\0".as_ptr(), core::ptr::null());
    let mut a = i;
    for _ in 0..8 {
        a = *steps.wrapping_add(a as usize) as i32;
    }
    *inout.wrapping_add(i as usize) = a;
}
"#,
    );
    assert!(
        program.contains(r#"printf("at %d: %d \"q\"\?\012\000tail", i, (*(inout + "#),
        "{program}"
    );
    assert!(program.contains("(*(inout + ((unsigned long long)(i))))"), "{program}");
    assert!(program.contains(r#"printf("none\000");"#), "{program}");
    assert!(program.contains("< 8; kl_unused"), "{program}");
}

/// In the shape of patrickcsullivan/nn_cuda at 3ad7b794b902e9eb1c8f2dc10a31c6366217b2d9
/// (kernel_tools: scans that loop over an iterator struct built by a helper, cut by
/// `take_while`): counted loops over the same values; other iterators stay refused.
#[test]
fn iterator_structs_stepped_by_a_field_are_counted_loops() {
    let program = lowered(
        r#"
use cuda_std::{kernel, thread};

pub struct Grow { by: usize, at: usize }

impl Iterator for Grow {
    type Item = usize;
    fn next(&mut self) -> Option<Self::Item> {
        let at = self.at;
        self.at *= self.by;
        Some(at)
    }
}

pub fn grow(start: usize, by: usize) -> Grow {
    Grow { by, at: start }
}

pub struct Shrink { d: u32, v: u32 }

impl Iterator for Shrink {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let v = self.v;
        self.v /= self.d;
        Some(v)
    }
}

pub fn shrink(v: u32, d: u32) -> Shrink {
    Shrink { d, v }
}

#[kernel]
pub unsafe fn scan(xs: *mut u32) {
    let t = thread::thread_idx_x() as usize;
    let n = thread::block_dim_x() as usize;
    for stride in grow(1, 2).take_while(|&s| s < n) {
        thread::sync_threads();
        if t >= stride {
            *xs.add(t) += *xs.add(t - stride);
        }
    }
    for half in shrink(64, 2).take_while(|s| *s > 0) {
        *xs.add(t) += half;
    }
}
"#,
    );
    assert!(
        program.contains("const unsigned long long step_arg = (unsigned long long)(1);\nconst unsigned long long step_arg_1 = (unsigned long long)(2);"),
        "{program}"
    );
    assert!(
        program.contains("for (unsigned long long stride = step_arg; (stride < n); stride *= step_arg_1)"),
        "{program}"
    );
    assert!(program.contains("half /= step_arg_"), "{program}");
    // An iterator whose `next` is not a yield-then-step stays refused, with the reason.
    let emitted = driver::emit(
        &[SourceFile::new(
            "k.rs",
            r#"
use cuda_std::{kernel, thread};

pub struct Odd { at: usize }

impl Iterator for Odd {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        self.at += 2;
        Some(self.at)
    }
}

pub fn odd(at: usize) -> Odd {
    Odd { at }
}

#[kernel]
pub unsafe fn walk(xs: *mut u32) {
    for k in odd(1).take_while(|&k| k < 9) {
        *xs.add(k) = 0;
    }
}
"#,
        )],
        &LaunchPlan::default(),
    );
    let reasons: Vec<String> = emitted.manifest.not_lowered.iter().map(|n| format!("{n:?}")).collect();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(reasons[0].contains("only ranges are iterated"), "{reasons:?}");
}

/// In the shape of Rust-GPU/Rust-CUDA at ac2674f03208462709f538f07b10e3f8153c93b6
/// (path_tracer's `Scene<'a>` of slices) and patrickcsullivan/nn_cuda at
/// 3ad7b794b902e9eb1c8f2dc10a31c6366217b2d9 (`RTree<'a>`): a struct generic only over a
/// lifetime is one struct; its slice fields are a pointer and a length, as Rust lays them out.
#[test]
fn structs_generic_over_lifetimes_with_slice_fields_are_lowered() {
    let kernel = r#"
use cuda_std::prelude::*;
use crate::scene::Scene;

#[kernel]
pub unsafe fn shade(scene: &Scene, out: *mut f32) {
    let i = thread::index_1d() as usize;
    if i < scene.spheres.len() {
        *out.add(i) = scene.spheres[i].radius * scene.scale;
    }
}
"#;
    let scene = r#"
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Sphere { pub radius: f32 }

#[derive(Clone, Copy)]
pub struct Scene<'a> {
    pub spheres: &'a [Sphere],
    pub scale: f32,
}
"#;
    let emitted = emit_with_module(kernel, "scene", scene);
    let program = &emitted.program;
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert_eq!(emitted.manifest.launches.len(), 1, "{:?}", emitted.manifest.not_lowered);
    assert!(
        program.contains("  const Sphere* spheres;\n  unsigned long long spheres_len;\n  float scale;"),
        "{program}"
    );
    assert!(program.contains("scene->spheres_len"), "{program}");
    assert!(program.contains("scene->spheres[i].radius"), "{program}");
    check_with_gxx(program);
}

/// In the shape of the raytracer-challenge kernel (a `Shape` of another crate holding an enum
/// of shapes): the enum is lowered as a tag and a union of the payloads, before the struct.
#[test]
fn enums_with_data_of_other_files_are_lowered_as_tagged_unions() {
    let kernel = r#"
use cuda_std::prelude::*;
use crate::shape::Shape;

#[kernel]
pub unsafe fn hit(shapes: *const Shape, out: *mut u32) {
    let i = thread::index_1d() as usize;
    *out.add(i) = (*shapes.add(i)).id;
}
"#;
    let shape = r#"
pub struct Ball { pub r: f32 }
pub enum Kind { Ball(Ball), Empty }
pub struct Shape { pub kind: Kind, pub id: u32 }
"#;
    let emitted = emit_with_module(kernel, "shape", shape);
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    assert!(
        emitted
            .program
            .contains("struct Kind {\n  unsigned char tag;\n  union {\n    struct { Ball _0; } v_Ball;\n  };"),
        "{}",
        emitted.program
    );
}

#[test]
fn sub_slices_passed_to_helpers_carry_their_length_and_returned_references_read_through_arrows() {
    // Shapes of cuda-oxide's `slice_reslice` and `device_global` examples (NVlabs/cuda-oxide
    // @ a105afd5).
    let program = lowered(
        r#"
use cuda_std::prelude::*;
use cuda_std::thread;

#[repr(C)]
pub struct Tagged { pub tag: u8, pub value: u32 }

static TAGGED: Tagged = Tagged { tag: 7, value: 11 };

fn tagged() -> &'static Tagged {
    &TAGGED
}

fn first_two(bytes: &[u8]) -> u32 {
    (bytes[0] as u32) | ((bytes[1] as u32) << 8)
}

#[kernel]
pub unsafe fn windows(bytes: &[u8], out: *mut u32) {
    let i = thread::index_1d() as usize;
    let t = tagged();
    *out.add(i) = first_two(&bytes[2 * i..]) + first_two(&bytes[1..3]) + t.value + t.tag as u32;
}
"#,
    );
    assert!(
        program.contains(
            "first_two((bytes + (2 * i)), (unsigned long long)((bytes_len) - ((2 * i)))) + first_two((bytes + 1), (unsigned long long)((3) - (1)))"
        ),
        "{program}"
    );
    assert!(program.contains("t->value) + ((unsigned int)(t->tag))"), "{program}");
}
