//! rust-gpu compute shaders are analyzed like CUDA kernels: the block from
//! `#[spirv(compute(threads(..)))]`, the thread geometry from the builtin parameters, storage
//! buffers as global memory, uniforms and push constants as values of the dispatch, workgroup
//! arrays as shared memory.

use crate::gxx;
use gxx::check_with_gxx;
use kernel_lint_analyzer::{
    analyze_source, AccessClass, BlockSource, FileReport, KernelReport, LaunchPlan, LaunchSpec, MemorySpace, Op,
    SourceFile,
};
use std::path::Path;
use std::process::Command;

use AccessClass::{Aos, Broadcast, Coalesced, Strided, Transposed};
use MemorySpace::{Global, Shared};
use Op::{Load, Store};

fn analyze(src: &str, plan: &LaunchPlan) -> FileReport {
    analyze_source(&SourceFile::new("k.rs", src), plan).expect("parses")
}

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/dialects")
        .join(name);
    std::fs::read_to_string(path).expect("fixture")
}

/// The kernel named `name`, found and analyzed with nothing left out.
fn kernel<'a>(report: &'a FileReport, name: &str) -> &'a KernelReport {
    let found = report
        .kernels
        .iter()
        .find(|k| k.name == name)
        .unwrap_or_else(|| panic!("kernel `{name}` not found"));
    assert!(found.unsupported.is_empty(), "{name}: {:?}", found.unsupported);
    assert!(!found.accesses.is_empty(), "{name}: no accesses");
    found
}

type Row = (String, Op, MemorySpace, Option<AccessClass>, Option<f64>);

/// (array, op, space, class, sectors per request) of every access of a kernel, in order.
fn rows(kernel: &KernelReport) -> Vec<Row> {
    kernel
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
        .collect()
}

fn global(array: &str, op: Op, class: AccessClass, sectors: f64) -> Row {
    (array.to_string(), op, Global, Some(class), Some(sectors))
}

fn shared(array: &str, op: Op) -> Row {
    (array.to_string(), op, Shared, None, None)
}

fn block(kernel: &KernelReport) -> ([u32; 3], BlockSource) {
    (kernel.launch.block, kernel.launch.block_source)
}

#[test]
fn the_fixture_shaders_with_the_block_of_their_attribute() {
    let report = analyze(&fixture("rust_gpu.rs"), &LaunchPlan::default());
    assert!(report.unsupported.is_empty(), "{:?}", report.unsupported);
    assert!(report.unanalyzed.is_empty());
    let names: Vec<&str> = report.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "double_all",
            "first_of_four",
            "total_mass",
            "transpose",
            "workgroup_sum"
        ]
    );

    let k = kernel(&report, "double_all");
    assert_eq!(block(k), ([64, 1, 1], BlockSource::Attribute));
    assert_eq!(
        rows(k),
        [
            global("values", Load, Coalesced, 4.0),
            global("values", Store, Coalesced, 4.0)
        ]
    );

    let k = kernel(&report, "first_of_four");
    assert_eq!(
        rows(k),
        [
            global("input", Load, Strided, 16.0),
            global("output", Store, Coalesced, 4.0)
        ]
    );

    let k = kernel(&report, "total_mass");
    assert_eq!(block(k), ([128, 1, 1], BlockSource::Attribute));
    assert_eq!(
        rows(k),
        [
            global("bodies", Load, Aos, 16.0),
            global("masses", Store, Coalesced, 4.0)
        ]
    );

    let k = kernel(&report, "transpose");
    assert_eq!(block(k), ([32, 8, 1], BlockSource::Attribute));
    assert_eq!(
        rows(k),
        [
            global("input", Load, Coalesced, 4.0),
            global("output", Store, Transposed, 32.0)
        ]
    );

    let k = kernel(&report, "workgroup_sum");
    assert_eq!(block(k), ([256, 1, 1], BlockSource::Attribute));
    assert_eq!(
        rows(k),
        [
            global("input", Load, Coalesced, 4.0),
            shared("partial", Store),
            shared("partial", Load),
            shared("partial", Load),
            shared("partial", Store),
            shared("partial", Load),
            global("sums", Store, Broadcast, 1.0),
        ]
    );
}

#[test]
fn the_matrix_products_naive_and_tiled() {
    let report = analyze(&fixture("rust_gpu_matmul.rs"), &LaunchPlan::default());
    let naive = kernel(&report, "matmul_naive");
    assert_eq!(block(naive), ([16, 16, 1], BlockSource::Attribute));
    assert_eq!(
        rows(naive),
        [
            global("a", Load, Transposed, 16.0),
            global("b", Load, Coalesced, 1.0),
            global("result", Store, Transposed, 16.0),
        ]
    );
    let tiled = kernel(&report, "matmul_tiled");
    assert_eq!(block(tiled), ([16, 16, 1], BlockSource::Attribute));
    assert_eq!(
        rows(tiled),
        [
            global("a", Load, Coalesced, 4.0),
            shared("tile_a", Store),
            global("b", Load, Coalesced, 4.0),
            shared("tile_b", Store),
            shared("tile_a", Load),
            shared("tile_b", Load),
            global("result", Store, Coalesced, 4.0),
        ]
    );
    // The workgroup tiles are indexed by the thread index like a `__shared__` array.
    let indices: Vec<(&str, &str, u64)> = tiled
        .accesses
        .iter()
        .filter(|a| a.space == Shared)
        .map(|a| (a.array.as_str(), a.index.as_str(), a.elem_bytes))
        .collect();
    assert_eq!(
        indices,
        [
            ("tile_a", "ty][tx", 4),
            ("tile_b", "ty][tx", 4),
            ("tile_a", "ty][i", 4),
            ("tile_b", "i][tx", 4),
        ]
    );
}

/// The first kernel of `src`, analyzed under `plan`.
fn only(src: &str, plan: &LaunchPlan) -> KernelReport {
    let report = analyze(src, plan);
    assert!(report.unsupported.is_empty(), "{:?}", report.unsupported);
    let name = report.kernels.first().expect("a kernel").name.clone();
    kernel(&report, &name).clone()
}

#[test]
fn every_builtin_is_thread_geometry() {
    // The global index written out from the local and workgroup ids, a grid-stride loop over
    // `num_workgroups`, the lane and the linear index: each store is coalesced.
    let src = r#"
use spirv_std::spirv;
#[cfg_attr(target_arch = "spirv", spirv(compute(threads(32, 4))))]
pub fn fill(
    #[spirv(local_invocation_id)] local: spirv_std::glam::UVec3,
    #[spirv(workgroup_id)] group: glam::UVec3,
    #[spirv(num_workgroups)] groups: UVec3,
    #[cfg_attr(target_arch = "spirv", spirv(local_invocation_index))] rank: u32,
    #[spirv(subgroup_local_invocation_id)] lane: u32,
    #[spirv(subgroup_id)] warp: u32,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] out: &mut [u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] per_warp: &mut [u32; 1024],
) {
    let x = (group.x * 32 + local.x) as usize;
    let y = (group.y * 4 + local.y) as usize;
    let mut i = y * 1024 + x;
    while i < out.len() {
        out[i] = rank;
        i += (groups.x * groups.y * 128) as usize;
    }
    per_warp[warp as usize * 32 + lane as usize] = lane;
}
"#;
    let k = only(src, &LaunchPlan::default());
    assert_eq!(block(&k), ([32, 4, 1], BlockSource::Attribute));
    assert_eq!(
        rows(&k),
        [
            global("out", Store, Coalesced, 4.0),
            global("per_warp", Store, Coalesced, 4.0)
        ]
    );
}

#[test]
fn uniform_fields_take_the_values_the_configuration_gives() {
    // The flat-index product of the matmul blog post: row and column from one index.
    let src = r#"
#[spirv(compute(threads(256)))]
pub fn matmul(
    #[spirv(global_invocation_id)] global_id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] dimensions: &Dimensions,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] a: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] b: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 3)] result: &mut [f32],
) {
    let index = global_id.x;
    let row = index / dimensions.n;
    let col = index % dimensions.n;
    if index < dimensions.m * dimensions.n {
        let mut sum = 0.0;
        for i in 0..dimensions.k {
            sum += a[(row * dimensions.k + i) as usize] * b[(i * dimensions.n + col) as usize];
        }
        result[(row * dimensions.n + col) as usize] = sum;
    }
}
#[repr(C)]
#[derive(Copy, Clone)]
pub struct Dimensions { pub m: u32, pub k: u32, pub n: u32 }
"#;
    let plan = LaunchPlan {
        specs: vec![LaunchSpec {
            kernel: "matmul".into(),
            params: [("dimensions.m", 64), ("dimensions.k", 64), ("dimensions.n", 64)]
                .map(|(name, value)| (name.to_string(), value))
                .into(),
            ..Default::default()
        }],
    };
    let k = only(src, &plan);
    // A warp's 32 indices lie in one row of 64: `a` is one address, `b` and the result a run.
    assert_eq!(
        rows(&k),
        [
            global("a", Load, Broadcast, 1.0),
            global("b", Load, Coalesced, 4.0),
            global("result", Store, Coalesced, 4.0),
        ]
    );
    // Without the values the figure of `a` depends on the row length, and says so.
    let unknown = only(src, &LaunchPlan::default());
    let a = unknown.accesses[0].prediction.as_ref().expect("global");
    assert!(
        a.cases.iter().any(|c| c.condition.contains("dimensions.n")),
        "{:?}",
        a.cases
    );
}

#[test]
fn the_configuration_overrides_the_attribute_and_a_bad_attribute_is_reported() {
    let src = "#[spirv(compute(threads(64)))]\npub fn k(#[spirv(global_invocation_id)] id: UVec3, #[spirv(storage_buffer)] out: &mut [f32]) {\n    out[id.x as usize] = 0.0;\n}\n";
    let plan = LaunchPlan {
        specs: vec![LaunchSpec {
            kernel: "k".into(),
            block: Some([16, 2, 1]),
            ..Default::default()
        }],
    };
    assert_eq!(block(&only(src, &plan)), ([16, 2, 1], BlockSource::Config));

    let bad = src.replace("threads(64)", "threads(SIZE)");
    let report = analyze(&bad, &LaunchPlan::default());
    let problems: Vec<String> = report
        .unsupported
        .iter()
        .map(|u| format!("{}:{}: {}", u.span.line, u.span.column, u.message))
        .collect();
    assert_eq!(
        problems,
        ["1:1: workgroup size not read: `SIZE` is not a workgroup extent (1 to 1024); the default block is assumed"]
    );
    assert_eq!(block(&report.kernels[0]), ([256, 1, 1], BlockSource::Default));
}

#[test]
fn fragment_shaders_and_images_are_not_global_memory() {
    let src = r#"
#[spirv(fragment)]
pub fn shade(#[spirv(frag_coord)] coord: Vec4, out: &mut Vec4) { *out = coord; }
#[spirv(compute(threads(8, 8)))]
pub fn blit(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(descriptor_set = 0, binding = 0)] image: &Image2d,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] out: &mut [Vec4],
) {
    let texel = image.fetch(id.xy());
    out[(id.y * 8 + id.x) as usize] = texel;
}
"#;
    let report = analyze(src, &LaunchPlan::default());
    let names: Vec<&str> = report.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["blit"]);
    let k = kernel(&report, "blit");
    // An 8-wide block: each warp's four rows of 8 `Vec4`s are 128 bytes apart.
    assert_eq!(rows(k), [global("out", Store, Coalesced, 16.0)]);
}

#[test]
fn the_cli_names_the_attribute_as_the_source_of_the_block() {
    let run = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
            .args(args)
            .current_dir(crate::home::home())
            .output()
            .expect("the binary runs");
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let human = run(&["--color", "never", "check", "fixtures/dialects/rust_gpu.rs"]);
    assert_eq!(
        human
            .matches("note: block (64, 1, 1) from the `#[spirv(compute(threads(..)))]` attribute")
            .count(),
        1,
        "{human}"
    );
    assert!(
        human.ends_with("kernel-lint: 5 kernels in 1 file, 10 global accesses; 3 warnings, 0 notes, 0 errors\n"),
        "{human}"
    );
    let json: serde_json::Value = serde_json::from_str(&run(&[
        "accesses",
        "--format",
        "json",
        "fixtures/dialects/rust_gpu_matmul.rs",
    ]))
    .expect("json");
    let sources: Vec<(&str, &str)> = json["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap_or(""),
                k["block_source"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(sources, [("matmul_naive", "attribute"), ("matmul_tiled", "attribute")]);
}

#[test]
fn the_fixture_shaders_lower_to_cuda_c() {
    let dir = tempfile::Builder::new().prefix("rust-gpu").tempdir().expect("temp dir");
    let out = dir.path().display().to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args([
            "harness",
            "emit",
            "fixtures/dialects/rust_gpu.rs",
            "fixtures/dialects/rust_gpu_matmul.rs",
            "--out",
            &out,
        ])
        .current_dir(crate::home::home())
        .output()
        .expect("the binary runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("manifest.json")).expect("manifest"))
            .expect("json");
    assert_eq!(
        manifest["not_lowered"],
        serde_json::json!([]),
        "{}",
        manifest["not_lowered"]
    );
    let launches: Vec<(&str, serde_json::Value)> = manifest["launches"]
        .as_array()
        .expect("launches")
        .iter()
        .map(|l| (l["kernel"].as_str().unwrap_or(""), l["block"].clone()))
        .collect();
    use serde_json::json;
    assert_eq!(
        launches,
        [
            ("double_all", json!([64, 1, 1])),
            ("first_of_four", json!([64, 1, 1])),
            ("total_mass", json!([128, 1, 1])),
            ("transpose", json!([32, 8, 1])),
            ("workgroup_sum", json!([256, 1, 1])),
            ("matmul_naive", json!([16, 16, 1])),
            ("matmul_tiled", json!([16, 16, 1])),
        ]
    );
    let program = std::fs::read_to_string(dir.path().join("kernels.cu")).expect("program");
    // Builtins are computed from the CUDA registers, workgroup arrays are `__shared__`, a
    // uniform block is a struct passed by value.
    for expected in [
        "kl::UVec3 global_id = {blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y, blockIdx.z * blockDim.z + threadIdx.z};",
        "unsigned int local_index = (threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y);",
        "__shared__ kl::array<kl::array<float, 16>, 16> tile_a;",
        "__shared__ kl::array<unsigned int, 256> partial;",
    ] {
        assert!(program.contains(expected), "{expected} not in:\n{program}");
    }
    check_with_gxx(&dir.path().join("kernels.cu"));
}

/// One shader source with a workgroup size per dimensionality, each under a feature, as a
/// simulation library compiled once per dimension writes it.
const PER_FEATURE: &str = r#"
use spirv_std::spirv;
#[cfg_attr(feature = "flat", spirv(compute(threads(64, 1, 1))))]
#[cfg_attr(feature = "planar", spirv(compute(threads(8, 8, 1))))]
pub fn relax(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] cells: &mut [f32],
) {
    // Each lane its own row of 1024 cells, at the row's column `id.y`.
    let i = (id.x * 1024 + id.y) as usize;
    cells[i] = 0.0;
}
"#;

fn configured(also_in: &[&str], features: &[(&str, &[&str])]) -> FileReport {
    let source = kernel_lint_analyzer::ModuleSource {
        source: SourceFile::new("shaders/relax.rs", PER_FEATURE),
        module: vec!["sim_flat".to_string()],
        also_in: also_in.iter().map(|s| s.to_string()).collect(),
    };
    let features = features
        .iter()
        .map(|(krate, on)| (krate.to_string(), on.iter().map(|f| f.to_string()).collect()))
        .collect();
    let plan = LaunchPlan::default();
    let mut reports = kernel_lint_analyzer::analyze_configured(vec![source], &[], &features, &[&plan]);
    reports.remove(0).expect("parses")
}

#[test]
fn the_features_of_the_crate_pick_the_workgroup_size_its_build_declares() {
    // `planar` on: the second attribute is the one compiled, though the first is written first.
    let report = configured(&[], &[("sim_flat", &["planar"])]);
    let k = kernel(&report, "relax");
    assert_eq!(block(k), ([8, 8, 1], BlockSource::Attribute));
    // Eight rows of a warp, four cells of each in one sector.
    assert_eq!(rows(k), [global("cells", Store, Transposed, 8.0)]);
    let report = configured(&[], &[("sim_flat", &["flat"])]);
    let k = kernel(&report, "relax");
    assert_eq!(block(k), ([64, 1, 1], BlockSource::Attribute));
    assert_eq!(rows(k), [global("cells", Store, Transposed, 32.0)]);
}

#[test]
fn sizes_under_features_not_known_are_a_case_each() {
    // A file of its own: either attribute may be compiled, so each size is a case.
    let report = analyze(PER_FEATURE, &LaunchPlan::default());
    let found = report.kernels.iter().find(|k| k.name == "relax").expect("kernel found");
    assert_eq!(block(found), ([64, 1, 1], BlockSource::Attribute));
    let p = found.accesses[0].prediction.as_ref().expect("a global access");
    assert_eq!(p.sectors_per_request, None);
    let cases: Vec<(String, AccessClass, f64)> = p
        .cases
        .iter()
        .map(|c| (c.condition.clone(), c.class, c.sectors_per_request))
        .collect();
    assert_eq!(
        cases,
        [
            (
                "block == (64, 1, 1) && cfg(feature = \"flat\")".to_string(),
                Transposed,
                32.0
            ),
            (
                "block == (8, 8, 1) && cfg(feature = \"planar\")".to_string(),
                Transposed,
                8.0
            ),
        ]
    );
    assert!(p
        .assumptions
        .iter()
        .any(|a| a.contains("the kernel's attributes give (64, 1, 1) under cfg(feature = \"flat\"), (8, 8, 1) under cfg(feature = \"planar\")")));
}

#[test]
fn another_crate_building_the_file_with_another_size_is_named() {
    let report = configured(&["sim_planar"], &[("sim_flat", &["flat"]), ("sim_planar", &["planar"])]);
    let found = report.kernels.iter().find(|k| k.name == "relax").expect("kernel found");
    assert_eq!(block(found), ([64, 1, 1], BlockSource::Attribute));
    assert_eq!(rows(found), [global("cells", Store, Transposed, 32.0)]);
    // A note of the file, at the attribute: the other build is named, not analyzed.
    let notes: Vec<&str> = report.unsupported.iter().map(|u| u.message.as_str()).collect();
    assert_eq!(
        notes,
        ["`relax` is analyzed as `sim_flat` builds it; `sim_planar` builds it with (8, 8, 1) under cfg(feature = \"planar\"): those builds, with their own features, are not analyzed"]
    );
    assert_eq!(report.unsupported[0].span.line, 3);
}

#[test]
fn a_vector_indexed_by_component_is_that_field_of_the_element() {
    // `v[0]` is `v.x`; `v[k]` in a loop is a component the loop picks: each a field of an
    // 8-byte element, two sectors per 32 bytes of useful data.
    let src = r#"
use spirv_std::glam::{UVec3, Vec2};
use spirv_std::spirv;
#[spirv(compute(threads(64)))]
pub fn spread(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] points: &mut [Vec2],
) {
    let p = &mut points[id.x as usize];
    let first = p[0];
    for k in 0..2 {
        p[k] += first;
    }
}
"#;
    let k = only(src, &LaunchPlan::default());
    let lines: Vec<usize> = k.accesses.iter().map(|a| a.span.line).collect();
    assert_eq!(lines, [10, 12, 12]);
    assert_eq!(
        rows(&k),
        [
            global("points", Load, Aos, 8.0),
            global("points", Load, Aos, 8.0),
            global("points", Store, Aos, 8.0),
        ]
    );
    let fields: Vec<&str> = k
        .accesses
        .iter()
        .filter_map(|a| a.field_of.as_ref().map(|f| f.field.as_str()))
        .collect();
    assert_eq!(fields, ["x", "[k]", "[k]"]);
}
