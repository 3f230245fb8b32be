//! The GPU harness without a GPU: the lowered programs are valid C++ (checked with g++ against
//! a host-only stand-in for the CUDA runtime header), and today's predictions still match the
//! measurements recorded on an H200 (`harness/measurements/`), so a change that makes a
//! prediction wrong fails here.

use crate::gxx;
use gxx::check_with_gxx;
use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    crate::home::home()
}

fn kernel_lint(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the binary runs")
}

fn out_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(name).tempdir().expect("temp dir")
}

fn emit(config: Option<&str>, paths: &str, name: &str) -> (tempfile::TempDir, serde_json::Value) {
    let dir = out_dir(name);
    let out = dir.path();
    let mut args = Vec::new();
    if let Some(config) = config {
        args.extend(["--config", config]);
    }
    let out_text = out.display().to_string();
    args.extend(["harness", "emit"]);
    args.extend(paths.split(' '));
    args.extend(["--out", &out_text]);
    let output = kernel_lint(&args);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).expect("manifest")).expect("json");
    (dir, manifest)
}

/// Emits a fixture set, checks the program with g++ and compares it with a recorded
/// measurement file at a threshold of 100 %; returns the manifest and the comparison text.
fn emit_some_and_compare(config: Option<&str>, paths: &str, measurements: &str) -> (serde_json::Value, String) {
    let (dir, manifest) = emit(config, paths, "measured");
    check_with_gxx(&dir.path().join("kernels.cu"));
    let manifest_path = dir.path().join("manifest.json").display().to_string();
    let output = kernel_lint(&[
        "harness",
        "compare",
        measurements,
        "--manifest",
        &manifest_path,
        "--min-exact",
        "1.0",
    ]);
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    (manifest, text)
}

/// [`emit_some_and_compare`] for a set whose every kernel is lowered.
fn emit_and_compare(config: Option<&str>, paths: &str, measurements: &str) -> (serde_json::Value, String) {
    let (manifest, text) = emit_some_and_compare(config, paths, measurements);
    assert_eq!(
        manifest["not_lowered"].as_array().unwrap().len(),
        0,
        "{}",
        manifest["not_lowered"]
    );
    (manifest, text)
}

#[test]
fn seed_kernels_lower_to_valid_programs_and_match_the_recorded_h200_measurements() {
    let (manifest, text) = emit_and_compare(
        Some("fixtures/seeds.toml"),
        "fixtures/seeds",
        "harness/measurements/h200-seeds.csv",
    );
    assert_eq!(manifest["schema"], "kernel-lint/harness-manifest/v1");
    assert_eq!(manifest["launches"].as_array().unwrap().len(), 33);
    for launch in manifest["launches"].as_array().unwrap() {
        for buffer in launch["buffers"].as_array().unwrap() {
            assert!(
                buffer["unbounded"].is_null(),
                "{} {}: {}",
                launch["kernel"],
                buffer["array"],
                buffer["unbounded"]
            );
        }
    }
    assert!(
        text.contains("\n94 of 94 measured accesses exact, 0 within 10%, 0 wrong;"),
        "{text}"
    );
    assert!(
        text.contains("    29  naive_transpose                 15  store  transposed      32.00     32.00  exact"),
        "{text}"
    );
}

#[test]
fn lowered_statements_carry_the_rust_line() {
    let (dir, _) = emit(Some("fixtures/seeds.toml"), "fixtures/seeds", "lines");
    let program = std::fs::read_to_string(dir.path().join("kernels.cu")).unwrap();
    assert!(program.contains(
        "#line 15 \"fixtures/seeds/transpose.rs\"\n(*(out + ((unsigned long long)((((x * height) + y)))))) = v;"
    ));
}

#[test]
fn pattern_kernels_match_except_the_data_dependent_ones() {
    let (manifest, text) = emit_and_compare(None, "fixtures/patterns", "harness/measurements/h200-patterns.csv");
    assert_eq!(manifest["launches"].as_array().unwrap().len(), 18);
    assert!(
        text.contains("\n36 of 36 measured accesses exact, 0 within 10%, 0 wrong; 4 data-dependent"),
        "{text}"
    );
}

#[test]
fn idiom_kernels_match_the_recorded_h200_measurements() {
    let (manifest, text) = emit_and_compare(
        Some("fixtures/idioms.toml"),
        "fixtures/idioms",
        "harness/measurements/h200-idioms.csv",
    );
    assert_eq!(manifest["launches"].as_array().unwrap().len(), 8);
    assert!(
        text.contains("\n20 of 20 measured accesses exact, 0 within 10%, 0 wrong; 0 data-dependent"),
        "{text}"
    );
    // The naive GEMM that uses x as the row: transposed under 256-wide blocks, fine under (1, 16).
    assert!(
        text.contains("     0  gemm_row_per_x                  33  store  transposed      32.00     32.00  exact"),
        "{text}"
    );
    assert!(
        text.contains("     1  gemm_row_per_x_1x16             50  store  coalesced        2.00      2.00  exact"),
        "{text}"
    );
}

#[test]
fn boundary_kernels_are_exact_under_their_launches() {
    // Overlapping halo tiles, clamped neighbours, active ranges that shrink inside a loop,
    // lanes masked by data and partial last blocks: every block and iteration counted.
    let (manifest, text) = emit_and_compare(
        Some("fixtures/boundaries.toml"),
        "fixtures/boundaries",
        "harness/measurements/h100-boundaries.csv",
    );
    assert_eq!(manifest["launches"].as_array().unwrap().len(), 9);
    assert!(
        text.contains("\n24 of 24 measured accesses exact, 0 within 10%, 0 wrong; 0 data-dependent"),
        "{text}"
    );
    for line in [
        "     0  blur_halo_1d                    22  load   misaligned       5.00      5.00  exact",
        "     1  stencil_clamped                 48  load   misaligned       4.88      4.88  exact",
        "     2  reduce_in_place                 66  load   coalesced        3.30      3.30  exact",
        "     3  triangle_columns                85  load   coalesced        3.67      3.67  exact",
        "     4  masked_copy                     97  store  coalesced        3.99      3.99  exact",
        // Warps none of whose lanes runs the load make no request, branched or selected.
        "     7  first_warps                    129  load   coalesced        4.00      4.00  exact",
        "     8  first_warps_select             140  load   coalesced        4.00      4.00  exact",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    // The masked copy's figure is an upper bound, said so in the manifest's notes.
    let masked = &manifest["launches"][4]["accesses"];
    assert!(masked.to_string().contains("\"upper_bound\":true"), "{masked}");
}

#[test]
fn shared_fixtures_match_the_wavefronts_recorded_on_an_h100() {
    // Per line, Nsight Compute's "L1 Wavefronts Shared" over the instructions executed.
    let (manifest, text) = emit_some_and_compare(None, "fixtures/shared", "harness/measurements/h100-shared.csv");
    let not_lowered: Vec<&str> = manifest["not_lowered"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["kernel"].as_str().unwrap())
        .collect();
    // cuda_std's `dynamic_shared_mem` comes from a crate whose source is not in the workspace.
    assert_eq!(not_lowered, ["dynamic_column"]);
    assert!(
        text.contains("\n19 of 19 measured shared lines within 0.2 wavefronts per request above the prediction"),
        "{text}"
    );
    assert!(
        text.contains("     2  column_unpadded                 20  load      32.000    32.000  within the excess"),
        "{text}"
    );
    assert!(
        text.contains("     7  f64_column                      18  load      32.000    32.000  within the excess"),
        "{text}"
    );
}

#[test]
fn multi_crate_and_host_launched_fixtures_match_the_recorded_h100_measurements() {
    // The three-crate workspace: helpers, types and constants of other crates, and a cuda-oxide
    // kernel naming a type of another crate through its inline module's `use`.
    let (manifest, text) = emit_some_and_compare(None, "fixtures/workspace", "harness/measurements/h100-workspace.csv");
    assert_eq!(manifest["launches"].as_array().unwrap().len(), 10);
    assert_eq!(manifest["launches"][0]["kernel"], "speeds");
    assert!(
        text.contains("\n16 of 16 measured accesses exact, 0 within 10%, 0 wrong;"),
        "{text}"
    );
    // Launches read from the host crates: the GEMM under (1, 16) and (16, 16) blocks with the
    // host's sizes, cudarc and cuda-oxide launch configurations.
    let (manifest, text) = emit_some_and_compare(None, "fixtures/launch", "harness/measurements/h100-launch.csv");
    assert_eq!(manifest["launches"].as_array().unwrap().len(), 7);
    assert!(
        text.contains("\n12 of 12 measured accesses exact, 0 within 10%, 0 wrong;"),
        "{text}"
    );
    let gemm: Vec<&serde_json::Value> = manifest["launches"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["kernel"] == "gemm_naive")
        .collect();
    assert_eq!(gemm.len(), 2);
    assert_eq!(gemm[0]["block"], serde_json::json!([1, 16, 1]));
    assert_eq!(gemm[1]["block"], serde_json::json!([16, 16, 1]));
    // The dialects the harness lowers: core::arch::nvptx, nvptx_builtins, cuda-oxide. The
    // CubeCL fixtures have no measurement yet: they are checked apart, below.
    let (_, text) = emit_some_and_compare(
        None,
        "fixtures/dialects/core_arch_nvptx.rs fixtures/dialects/cuda_oxide.rs fixtures/dialects/nvptx_builtins.rs \
         fixtures/dialects/ptx_support.rs fixtures/dialects/unanalyzed.rs",
        "harness/measurements/h100-dialects.csv",
    );
    assert!(
        text.contains("\n16 of 16 measured accesses exact, 0 within 10%, 0 wrong;"),
        "{text}"
    );
}

#[test]
fn cubecl_kernels_lower_under_their_launches_to_valid_programs() {
    // No measurement of these launches is recorded yet: the twins are checked with g++ and the
    // predictions the measurement will be compared with are pinned.
    let (dir, manifest) = emit(
        None,
        "fixtures/dialects/cubecl_elementwise.rs fixtures/dialects/cubecl_tensor.rs",
        "cubecl",
    );
    check_with_gxx(&dir.path().join("kernels.cu"));
    let launches: Vec<PinnedLaunch> = manifest["launches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let accesses = l["accesses"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| a["space"] == "global")
                .map(|a| {
                    (
                        a["line"].as_u64().unwrap(),
                        a["op"].as_str().unwrap().to_string(),
                        a["sectors_per_request"].as_f64(),
                    )
                })
                .collect();
            (l["kernel"].as_str().unwrap().to_string(), l["block"].clone(), accesses)
        })
        .collect();
    let access = |line: u64, op: &str, sectors: Option<f64>| (line, op.to_string(), sectors);
    assert_eq!(
        launches,
        [
            (
                "copy_checked".to_string(),
                serde_json::json!([256, 1, 1]),
                vec![access(11, "load", Some(4.0)), access(11, "store", Some(4.0))]
            ),
            (
                "gather_every".to_string(),
                serde_json::json!([256, 1, 1]),
                vec![access(19, "load", Some(16.0)), access(19, "store", Some(4.0))]
            ),
            (
                "scale_lines".to_string(),
                serde_json::json!([128, 1, 1]),
                vec![access(27, "load", Some(16.0)), access(27, "store", Some(16.0))]
            ),
            (
                "transpose_strided".to_string(),
                serde_json::json!([32, 8, 1]),
                vec![access(17, "load", Some(4.0)), access(18, "store", Some(32.0))]
            ),
            (
                "gather_rows".to_string(),
                serde_json::json!([256, 1, 1]),
                vec![
                    access(27, "load", Some(4.0)),
                    access(28, "load", None),
                    access(28, "store", Some(4.0))
                ]
            ),
            (
                "reverse_tile".to_string(),
                serde_json::json!([256, 1, 1]),
                vec![access(35, "load", Some(4.0)), access(37, "store", Some(4.0))]
            ),
        ]
    );
    let program = std::fs::read_to_string(dir.path().join("kernels.cu")).expect("program");
    // A line of 4 floats is one 16-byte vector; a comptime argument a constant; a tensor's
    // stride a value the driver passes; shared memory a `__shared__` array.
    assert!(
        program.contains("__global__ void scale_lines(const kl::Vec4* input,"),
        "{program}"
    );
    assert!(program.contains("unsigned int stride = 4;"), "{program}");
    assert!(
        program.contains("unsigned int input_stride_0, unsigned int output_stride_0)"),
        "{program}"
    );
    assert!(program.contains("__shared__ float tile_shared_1[256];"), "{program}");
    assert_eq!(
        manifest["not_lowered"],
        serde_json::json!([{
            "kernel": "unary_abs",
            "file": "fixtures/dialects/cubecl_elementwise.rs",
            "line": 34,
            "column": 24,
            "reason": "CubeCL kernel: the line size of `input` is not one literal at its launches"
        }])
    );
}

#[test]
fn a_broken_prediction_fails_the_comparison() {
    // The recorded stride-32 launch measured 32 sectors; a manifest claiming 4 must fail.
    let (dir, _) = emit(Some("fixtures/seeds.toml"), "fixtures/seeds", "broken");
    let out = dir.path();
    let path = out.join("manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut manifest: serde_json::Value = serde_json::from_str(&text).unwrap();
    manifest["launches"][27]["accesses"][0]["sectors_per_request"] = serde_json::json!(4.0);
    std::fs::write(&path, manifest.to_string()).unwrap();
    let path_text = path.display().to_string();
    let output = kernel_lint(&[
        "harness",
        "compare",
        "harness/measurements/h200-seeds.csv",
        "--manifest",
        &path_text,
        "--min-exact",
        "1.0",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("\n93 of 94 measured accesses exact, 0 within 10%, 1 wrong;"),
        "{text}"
    );
    assert!(String::from_utf8_lossy(&output.stderr).contains("below the threshold of 100.0%"));
}

#[test]
fn pairs_lower_to_a_valid_timing_program() {
    let dir = out_dir("bench");
    let out = dir.path();
    let out_text = out.display().to_string();
    let output = kernel_lint(&[
        "harness",
        "bench",
        "fixtures/seeds",
        "--pairs",
        "fixtures/pairs.toml",
        "--out",
        &out_text,
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    check_with_gxx(&out.join("bench.cu"));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("bench-manifest.json")).unwrap()).unwrap();
    let pairs = manifest["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 7);
    let ratio = |i: usize| {
        pairs[i]["before"]["predicted_sectors"].as_f64().unwrap()
            / pairs[i]["after"]["predicted_sectors"].as_f64().unwrap()
    };
    // AoS particles: 24 + 24 + 24 sectors per warp against 4 + 4 + 4.
    assert_eq!(ratio(0), 6.0);
    // 32x8 naive transpose: 4 + 32 against 4 + 4.
    assert_eq!(ratio(2), 4.5);
    // Same bytes in 4- and 16-byte loads.
    assert_eq!(ratio(6), 1.0);
}

#[test]
fn the_tools_own_rewrites_are_benchmarked_against_their_originals() {
    let dir = out_dir("rewrites");
    let out = dir.path();
    let out_text = out.display().to_string();
    let output = kernel_lint(&[
        "harness",
        "bench",
        "fixtures/seeds",
        "--pairs",
        "fixtures/rewrite-pairs.toml",
        "--out",
        &out_text,
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("warning:"), "{stderr}");
    check_with_gxx(&out.join("bench.cu"));
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("bench-manifest.json")).unwrap()).unwrap();
    let pairs = manifest["pairs"].as_array().unwrap();
    let side = |name: &str, which: &str| {
        pairs
            .iter()
            .find(|p| p["name"].as_str().unwrap().starts_with(name))
            .unwrap_or_else(|| panic!("pair {name}"))[which]
            .clone()
    };
    let sectors = |side: &serde_json::Value| -> Vec<(String, f64)> {
        side["accesses"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| {
                (
                    a["array"].as_str().unwrap().to_string(),
                    a["sectors_per_request"].as_f64().unwrap(),
                )
            })
            .collect()
    };
    // The rewritten side is the kernel of the same name in the rewritten text of its file.
    let after = side("AoS particles", "after");
    assert_eq!(after["kernel"], "update_particles_aos");
    assert_eq!(after["file"], "fixtures/seeds/aos_soa.update_particles_aos.rewrite1.rs");
    assert_eq!(
        sectors(&after),
        [
            ("p.vx".to_string(), 4.0),
            ("p.x".to_string(), 4.0),
            ("p.x".to_string(), 4.0)
        ]
    );
    let ratio = |name: &str| {
        side(name, "before")["predicted_sectors"].as_f64().unwrap()
            / side(name, "after")["predicted_sectors"].as_f64().unwrap()
    };
    assert_eq!(ratio("AoS particles"), 6.0);
    assert_eq!(ratio("innerStruct"), 2.0);
    let program = std::fs::read_to_string(out.join("bench.cu")).unwrap();
    assert!(program.contains("ParticleSoa p"), "the rewritten signature is lowered");
}

#[test]
fn a_rewrite_side_without_a_rewrite_is_a_warning() {
    let dir = out_dir("norewrite");
    let pairs = dir.path().join("pairs.toml");
    std::fs::write(
        &pairs,
        "[[pair]]\nname = \"planar\"\n[pair.before]\nkernel = \"process_rgb_planar\"\nfile = \"seeds/rgb.rs\"\n\
         block = [32, 8, 1]\ngrid = [4, 4, 1]\nparams = { width = 128, height = 32 }\n[pair.after]\n\
         kernel = \"process_rgb_planar\"\nfile = \"seeds/rgb.rs\"\nrewrite = 1\nblock = [32, 8, 1]\ngrid = [4, 4, 1]\n\
         params = { width = 128, height = 32 }\n",
    )
    .unwrap();
    let out_text = dir.path().join("out").display().to_string();
    let output = kernel_lint(&[
        "harness",
        "bench",
        "fixtures/seeds/rgb.rs",
        "--pairs",
        &pairs.display().to_string(),
        "--out",
        &out_text,
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "warning: rewrite of `process_rgb_planar` in `seeds/rgb.rs`: no finding of the kernel has a rewrite"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("wrote 0 pairs"), "{stderr}");
}

#[test]
fn validate_says_what_is_missing_without_cuda() {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(["validate", "fixtures/seeds"])
        .current_dir(root())
        .env("PATH", "/nonexistent")
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("not found on the PATH: nvcc (the CUDA compiler), ncu (Nsight Compute)"),
        "{stderr}"
    );
}

#[test]
fn emit_writes_the_good_files_and_fails_for_a_bad_one() {
    let inputs = out_dir("inputs");
    let bad = inputs.path().join("bad.rs");
    std::fs::write(&bad, "fn broken( {").expect("written");
    let dir = out_dir("partial");
    let out = dir.path().display().to_string();
    let output = kernel_lint(&[
        "harness",
        "emit",
        &bad.display().to_string(),
        "fixtures/seeds/aos_soa.rs",
        "--out",
        &out,
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("error: ") && stderr.contains("bad.rs"), "{stderr}");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("manifest.json")).expect("manifest"))
            .expect("json");
    let launches = manifest["launches"].as_array().expect("launches");
    assert!(!launches.is_empty());
    assert!(launches.iter().all(|l| l["file"] == "fixtures/seeds/aos_soa.rs"));
    let program = std::fs::read_to_string(dir.path().join("kernels.cu")).expect("program");
    assert!(program.contains("test_inner_struct"));
}

#[test]
fn emit_prints_how_a_launch_was_scaled_down() {
    let inputs = out_dir("inputs");
    let file = inputs.path().join("square.rs");
    std::fs::write(
        &file,
        "use cuda_std::thread;\n#[kernel]\npub unsafe fn square(a: *mut f32, n: u32) {\n    \
         let row = thread::index_1d() as usize;\n    for col in 0..n as usize {\n        \
         *a.add(row * n as usize + col) = 1.0;\n    }\n}\n",
    )
    .expect("written");
    let dir = out_dir("scaled");
    let out = dir.path().display().to_string();
    let output = kernel_lint(&["harness", "emit", &file.display().to_string(), "--out", &out]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("note: square (launch 0): scaled down to fit the device"),
        "{stderr}"
    );
}

#[test]
fn rust_gpu_and_cubecl_fixtures_match_the_recorded_h100_measurements() {
    // Their CUDA C twins measured on an H100: every global access exact.
    let (manifest, text) = emit_some_and_compare(
        None,
        "fixtures/dialects/cubecl_elementwise.rs fixtures/dialects/cubecl_tensor.rs",
        "harness/measurements/h100-cubecl.csv",
    );
    assert_eq!(manifest["launches"].as_array().unwrap().len(), 6);
    assert!(
        text.contains(
            "\n12 of 12 measured accesses exact, 0 within 10%, 0 wrong; 1 data-dependent (not predicted by design)"
        ),
        "{text}"
    );
    assert!(
        text.contains("\n2 of 2 measured shared lines within 0.2 wavefronts per request above the prediction"),
        "{text}"
    );
    let (manifest, text) = emit_some_and_compare(
        None,
        "fixtures/dialects/rust_gpu.rs fixtures/dialects/rust_gpu_matmul.rs",
        "harness/measurements/h100-rust-gpu.csv",
    );
    assert_eq!(manifest["launches"].as_array().unwrap().len(), 7);
    assert!(
        text.contains("\n16 of 16 measured accesses exact, 0 within 10%, 0 wrong;"),
        "{text}"
    );
    // The tree reduction's guarded step (`if l < stride`): the hardware counts requests in which
    // the guard left no lane active (the compiler predicates the add), which take no wavefront,
    // so its average falls below the one wavefront the prediction gives each active request.
    assert!(
        text.contains("     4  workgroup_sum                   98  load       1.000     0.188  wrong"),
        "{text}"
    );
    assert!(
        text.contains("\n5 of 7 measured shared lines within 0.2 wavefronts per request above the prediction"),
        "{text}"
    );
}

/// A launch of the manifest: kernel, block, and (line, op, predicted sectors) per global access.
type PinnedLaunch = (String, serde_json::Value, Vec<(u64, String, Option<f64>)>);
