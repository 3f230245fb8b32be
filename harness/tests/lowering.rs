//! Constructs of real kernels are lowered to CUDA C++ that compiles: struct references,
//! constants of any type and module, number and vector methods, tuple coordinates.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;
use std::path::Path;
use std::process::Command;

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

fn fingerprint(text: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    hasher.finish()
}

fn check_with_gxx(program: &str) {
    let mut host = String::new();
    let mut rest = program;
    while let Some(start) = rest.find("<<<") {
        host.push_str(&rest[..start]);
        let end = rest[start..].find(">>>").expect("launch closes") + start + 3;
        rest = &rest[end..];
    }
    host.push_str(rest);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("lowering");
    std::fs::create_dir_all(&dir).expect("directory");
    // One file a program: tests run in parallel.
    let file = dir.join(format!("program-{:016x}.cpp", fingerprint(&host)));
    std::fs::write(&file, host).expect("written");
    let support = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/support");
    let output = Command::new("g++")
        .args(["-std=c++17", "-fsyntax-only", "-I"])
        .arg(support)
        .arg(&file)
        .output()
        .expect("g++ runs");
    assert!(
        output.status.success(),
        "g++ rejects the program:\n{}\n{program}",
        String::from_utf8_lossy(&output.stderr)
    );
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
        program.contains("constexpr float WEIGHTS[3] = {0.25f, 0.5f, 0.25f};"),
        "{program}"
    );
    assert!(program.contains("TILE_A[(TILE * TILE)]"), "{program}");
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
    assert!(program.contains("unsigned int hist[4];"), "{program}");
    assert!(program.contains("float m[3][3];"), "{program}");
    assert!(program.contains("float w[3] = {0.25f, 0.5f, 0.25f};"), "{program}");
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
