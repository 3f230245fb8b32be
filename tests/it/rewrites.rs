//! The rewrites offered for the seed kernels, against the hardware: the structure of arrays
//! suggested for an array-of-structs kernel is analyzed, after the rewrite, to the sectors per
//! request an H200 measured for the seed's own better version of that kernel.

use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Command;

fn check_json(args: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(["check", "--format", "json"])
        .args(args)
        .current_dir(crate::home::home())
        .output()
        .expect("runs");
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

/// Sectors per request measured for each (kernel, source line) of the seeds' global accesses.
fn measured() -> BTreeMap<(String, u64), f64> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/ground-truth/seeds-h200.csv"
    ))
    .expect("ground truth");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().expect("header").clone();
    let column = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let (kernel, line, sectors) = (column("kernel"), column("line"), column("sectors_per_request"));
    let space = column("space");
    reader
        .records()
        .map(|r| r.expect("row"))
        // A line that also moves shared memory has a row for each space.
        .filter(|r| &r[space] == "global")
        .map(|r| {
            (
                (r[kernel].to_string(), r[line].parse().expect("line")),
                r[sectors].parse().expect("figure"),
            )
        })
        .collect()
}

/// For each finding of `kernel` on `lines`, the fix's figures before and after.
fn gains(doc: &Value, kernel: &str) -> Vec<(u64, f64, f64, String)> {
    doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["kernel"] == kernel && d["code"] == "KL002")
        .map(|d| {
            let fix = &d["fixes"][0];
            (
                d["line"].as_u64().expect("line"),
                fix["gain"]["sectors_before"].as_f64().expect("before"),
                fix["gain"]["sectors_after"].as_f64().expect("after"),
                fix["title"].as_str().expect("title").to_string(),
            )
        })
        .collect()
}

#[test]
fn structure_of_arrays_reaches_the_measured_figure_of_the_better_version() {
    let doc = check_json(&["--config", "fixtures/seeds.toml", "fixtures/seeds/aos_soa.rs"]);
    let truth = measured();
    // updateParticlesAoS (CUDA lines 65..67) against updateParticlesSoA (73..75).
    let particles = gains(&doc, "update_particles_aos");
    assert_eq!(particles.len(), 3, "{particles:?}");
    for ((_, before, after, title), cuda_line) in particles.iter().zip(65..) {
        assert_eq!(*before, truth[&("updateParticlesAoS".to_string(), cuda_line)]);
        assert_eq!(*after, truth[&("updateParticlesSoA".to_string(), cuda_line + 8)]);
        assert_eq!(
            title,
            "store `Particle` as a structure of arrays (`ParticleSoa`, one pointer per field)"
        );
    }
    // testInnerStruct (47..50) against testInnerArray (56..59): a slice and a pointer.
    let inner = gains(&doc, "test_inner_struct");
    assert_eq!(inner.len(), 4, "{inner:?}");
    for ((_, before, after, _), cuda_line) in inner.iter().zip(47..) {
        assert_eq!(*before, truth[&("testInnerStruct".to_string(), cuda_line)]);
        assert_eq!(*after, truth[&("testInnerArray".to_string(), cuda_line + 9)]);
    }
    let titles: Vec<&str> = inner.iter().map(|g| g.3.as_str()).collect();
    assert_eq!(
        titles,
        vec![
            "pass `data` as one slice per field of `InnerStruct`",
            "pass `data` as one slice per field of `InnerStruct`",
            "store `InnerStruct` as a structure of arrays (`InnerStructSoa`, one pointer per field)",
            "store `InnerStruct` as a structure of arrays (`InnerStructSoa`, one pointer per field)",
        ]
    );
}

#[test]
fn a_rewrite_that_cannot_follow_the_array_says_why() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("k.rs");
    std::fs::write(
        &path,
        "use cuda_std::prelude::*;
#[repr(C)]
#[derive(Clone, Copy)]
pub struct P { pub x: f32, pub y: f32, pub z: f32, pub w: f32, pub u: f32, pub v: f32 }
#[kernel]
pub unsafe fn k(p: *mut P, out: *mut P) {
    let i = thread::index_1d() as usize;
    let x = (*p.add(i)).x;
    (*out.add(i)).y = x;
    keep(p);
}
",
    )
    .expect("written");
    let doc = check_json(&[path.to_str().expect("utf-8")]);
    let diagnostics = doc["diagnostics"].as_array().expect("diagnostics");
    let on_p = diagnostics
        .iter()
        .find(|d| d["code"] == "KL002" && d["message"].as_str().unwrap().contains("`p[i].x`"))
        .expect("the finding on p");
    assert!(on_p.get("fixes").is_none(), "{on_p}");
    assert!(
        on_p["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "no rewrite is offered: `p` is passed to `keep`, whose definition was not found"),
        "{on_p}"
    );
    // The other array is rewritten on its own.
    let on_out = diagnostics
        .iter()
        .find(|d| d["code"] == "KL002" && d["message"].as_str().unwrap().contains("`out[i].y`"))
        .expect("the finding on out");
    assert_eq!(on_out["fixes"][0]["edits"][1]["replacement"], "out: PSoa");
}

/// `text` with a fix's edits made (byte offsets into the original text).
fn apply_edits(text: &str, fix: &Value) -> String {
    let mut edits: Vec<(usize, usize, &str)> = fix["edits"]
        .as_array()
        .expect("edits")
        .iter()
        .map(|e| {
            (
                e["span"]["start"].as_u64().expect("start") as usize,
                e["span"]["end"].as_u64().expect("end") as usize,
                e["replacement"].as_str().expect("replacement"),
            )
        })
        .collect();
    edits.sort();
    let mut out = String::new();
    let mut at = 0;
    for (start, end, replacement) in edits {
        out.push_str(&text[at..start]);
        out.push_str(replacement);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

#[test]
fn the_tiled_transpose_reaches_the_measured_figures_of_the_better_version() {
    let doc = check_json(&["--config", "fixtures/seeds.toml", "fixtures/seeds/transpose.rs"]);
    let truth = measured();
    let finding = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["kernel"] == "naive_transpose" && d["code"] == "KL004")
        .expect("the transposed store");
    let fix = &finding["fixes"][0];
    assert_eq!(
        fix["title"],
        "transpose through a 32x33 shared-memory tile: `input` and `out` both a row per warp"
    );
    assert_eq!(fix["applicability"], "unsafe");
    // naiveTranspose's store under 32x8 blocks (CUDA line 98) was measured at 32 sectors per
    // request; optimizedTranspose's (112) at 4.
    assert_eq!(fix["gain"]["sectors_before"], 32.0);
    assert_eq!(
        fix["gain"]["sectors_after"].as_f64(),
        Some(truth[&("optimizedTranspose".to_string(), 112)])
    );
    // The rewritten kernel analyzed whole: its read keeps the better version's figure (106).
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/seeds/transpose.rs");
    let rewritten = apply_edits(&std::fs::read_to_string(path).expect("seed"), fix);
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = dir.path().join("transpose.rs");
    std::fs::write(&copy, &rewritten).expect("written");
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(["accesses", "--format", "json"])
        .arg(&copy)
        .output()
        .expect("runs");
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON on stdout");
    let kernel = report["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .find(|k| k["name"] == "naive_transpose")
        .expect("the rewritten kernel");
    let global: Vec<(&str, f64)> = kernel["accesses"]
        .as_array()
        .expect("accesses")
        .iter()
        .filter(|a| a["space"] == "global")
        .map(|a| {
            (
                a["op"].as_str().expect("op"),
                a["sectors_per_request"].as_f64().expect("figure"),
            )
        })
        .collect();
    let optimized = |line: u64| truth[&("optimizedTranspose".to_string(), line)];
    assert_eq!(global, vec![("load", optimized(106)), ("store", optimized(112))]);
}

#[test]
fn two_kernels_with_rewrites_of_one_title_each_show_their_diff() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("k.rs");
    let kernel = |name: &str| {
        format!(
            "// kernel-lint: block(32, 8)
#[kernel]
pub unsafe fn {name}(input: &[f32], out: *mut f32, width: u32, height: u32) {{
    let x = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let y = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    if x >= width || y >= height {{
        return;
    }}
    *out.add((x * height + y) as usize) = input[(y * width + x) as usize];
}}
"
        )
    };
    let text = format!("use cuda_std::prelude::*;\n\n{}\n{}", kernel("first"), kernel("second"));
    std::fs::write(&path, text).expect("written");
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(["check", "--color", "never"])
        .arg(&path)
        .output()
        .expect("runs");
    let human = String::from_utf8(output.stdout).expect("utf-8");
    assert_eq!(
        human.matches("transpose through a 32x33 shared-memory tile").count(),
        2,
        "{human}"
    );
    assert_eq!(human.matches("+    thread::sync_threads();").count(), 2, "{human}");
    assert!(!human.contains("the rewrite shown at line"), "{human}");
}

#[test]
fn a_row_sum_by_one_warp_reaches_the_measured_figure_of_the_column_order() {
    let doc = check_json(&["--config", "fixtures/seeds.toml", "fixtures/seeds/loop_order.rs"]);
    let truth = measured();
    let finding = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["kernel"] == "bad_loop_order" && d["code"] == "KL004")
        .expect("the finding on the row loop");
    let fix = &finding["fixes"][0];
    assert_eq!(
        fix["title"],
        "reduce each row with one warp: its 32 lanes walk `row`'s columns `col` together and combine their partial sums with `warp_shuffle_xor`"
    );
    // badLoopOrder's load (CUDA line 134) against goodLoopOrder's (144): the column sums
    // that the seed measures as the better order, which the rewrite reaches for the row sums.
    assert_eq!(
        fix["gain"]["sectors_before"].as_f64(),
        Some(truth[&("badLoopOrder".to_string(), 134)])
    );
    assert_eq!(
        fix["gain"]["sectors_after"].as_f64(),
        Some(truth[&("goodLoopOrder".to_string(), 144)])
    );
    assert_eq!(fix["gain"]["sectors_after"].as_f64(), Some(4.0));
}

#[test]
fn an_aligned_whole_copy_is_offered_beside_the_structure_of_arrays_for_test_inner_struct() {
    let doc = check_json(&["--config", "fixtures/seeds.toml", "fixtures/seeds/aos_soa.rs"]);
    let truth = measured();
    let findings: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["kernel"] == "test_inner_struct" && d["code"] == "KL002")
        .collect();
    assert_eq!(findings.len(), 4);
    for (d, cuda_line) in findings.iter().zip(47..) {
        let fixes = d["fixes"].as_array().expect("fixes");
        assert_eq!(fixes.len(), 2, "{d}");
        let aligned = &fixes[1];
        assert_eq!(
            aligned["title"],
            "give `InnerStruct` `#[repr(C, align(8))]` and copy each element whole (one request per element instead of 2)"
        );
        // One 8-byte request per lane touches the sectors one 4-byte field request did, all
        // of them used: the element costs one measured request instead of two.
        let measured = truth[&("testInnerStruct".to_string(), cuda_line)];
        assert_eq!(aligned["gain"]["sectors_before"], measured);
        assert_eq!(aligned["gain"]["sectors_after"], measured);
        assert_eq!(aligned["gain"]["efficiency_before"], 0.5);
        assert_eq!(aligned["gain"]["efficiency_after"], 1.0);
        let replacements: Vec<&str> = aligned["edits"]
            .as_array()
            .expect("edits")
            .iter()
            .map(|e| e["replacement"].as_str().expect("text"))
            .collect();
        assert_eq!(
            replacements,
            vec![
                "#[repr(C, align(8))]",
                "        let data_elem = data[i as usize];\n",
                "data_elem.x",
                "data_elem.y",
                // The first store goes; its comment stays.
                "",
                "*result.add(i as usize) = InnerStruct { x: x + 10.0, y: y + 20.0 };",
            ]
        );
        assert_eq!(
            aligned["follow_up"],
            serde_json::json!(["the host must allocate `InnerStruct` buffers 8-byte aligned"])
        );
    }
}

#[test]
fn interleaved_rgb_rewrites_reach_the_measured_figures_of_the_planar_and_padded_versions() {
    let doc = check_json(&["--config", "fixtures/seeds.toml", "fixtures/seeds/rgb.rs"]);
    let truth = measured();
    let figure = |kernel: &str, line: u64| truth[&(kernel.to_string(), line)];
    let findings: Vec<&Value> = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["kernel"] == "process_rgb_interleaved" && d["code"] == "KL001")
        .collect();
    assert_eq!(findings.len(), 3);
    // processRGBInterleaved (CUDA lines 169..171) against processRGBPlanar (180..182) and
    // processRGBAVectorized (190, one 4-byte load for the three).
    for (d, cuda_line) in findings.iter().zip(169..) {
        let [planar, padded] = d["fixes"].as_array().expect("fixes").as_slice() else {
            panic!("two rewrites: {d}");
        };
        let before = figure("processRGBInterleaved", cuda_line);
        assert_eq!(planar["gain"]["sectors_before"], before);
        assert_eq!(
            planar["gain"]["sectors_after"],
            figure("processRGBPlanar", cuda_line + 11)
        );
        assert_eq!(
            planar["title"],
            "pass `image` as one slice per channel (`image_r`, `image_g`, `image_b`)"
        );
        assert_eq!(padded["gain"]["sectors_before"], before);
        assert_eq!(padded["gain"]["sectors_after"], figure("processRGBAVectorized", 190));
        assert_eq!(padded["gain"]["requests"], serde_json::json!([3, 1]));
        // The file's own `Uchar4` is the padded pixel.
        assert_eq!(
            padded["title"],
            "pad each pixel of `image` to 4 `u8` (`Uchar4`) and load it as one 4-byte element"
        );
    }
}
