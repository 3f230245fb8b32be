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
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs");
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

/// Sectors per request measured for each (kernel, source line) of the seeds.
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
    reader
        .records()
        .map(|r| r.expect("row"))
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
            .any(|n| n == "no rewrite is offered: `p` is also used in `keep(p);`, which the rewrite does not follow: a structure of arrays has no whole `P` to give it"),
        "{on_p}"
    );
    // The other array is rewritten on its own.
    let on_out = diagnostics
        .iter()
        .find(|d| d["code"] == "KL002" && d["message"].as_str().unwrap().contains("`out[i].y`"))
        .expect("the finding on out");
    assert_eq!(on_out["fixes"][0]["edits"][1]["replacement"], "out: PSoa");
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
