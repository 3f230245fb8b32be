//! The block footprint: the distinct sectors one block touches for an access, in the JSON of
//! `accesses` and `check`, in the human text of a rewrite's gain, against the DRAM bytes an
//! H200 measured, and the KL003 judgement built on it.

use serde_json::Value;
use std::process::Command;

fn run(args: &[&str]) -> (String, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(args)
        .current_dir(crate::home::home())
        .env("NO_COLOR", "1")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let json = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (stdout, json)
}

/// `(array, op, footprint sectors, ideal, DRAM bytes)` of each access of `kernel`.
fn footprints(doc: &Value, kernel: &str) -> Vec<(String, String, Value, Value, Value)> {
    doc["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .filter(|k| k["name"] == kernel)
        .flat_map(|k| k["accesses"].as_array().expect("accesses").clone())
        .map(|a| {
            (
                a["array"].as_str().expect("array").to_string(),
                a["op"].as_str().expect("op").to_string(),
                a["block_footprint_sectors"].clone(),
                a["block_footprint_ideal_sectors"].clone(),
                a["block_dram_bytes"].clone(),
            )
        })
        .collect()
}

#[test]
fn accesses_json_has_the_block_footprint_where_the_block_is_known() {
    let (_, doc) = run(&[
        "--config",
        "fixtures/seeds.toml",
        "accesses",
        "--format",
        "json",
        "fixtures/seeds/aos_soa.rs",
    ]);
    // 256 lanes reading a 4-byte field of a 24-byte struct: 6144 bytes, 192 sectors.
    let aos = footprints(&doc, "update_particles_aos");
    assert_eq!(aos.len(), 3, "{aos:?}");
    for (_, _, sectors, ideal, bytes) in &aos {
        assert_eq!(
            (sectors, ideal, bytes),
            (&Value::from(192.0), &Value::from(32.0), &Value::from(6144))
        );
    }
    // The same field as an array of its own: 1024 bytes.
    let soa = footprints(&doc, "update_particles_soa");
    assert_eq!(soa.len(), 3, "{soa:?}");
    for (_, _, sectors, ideal, bytes) in &soa {
        assert_eq!(
            (sectors, ideal, bytes),
            (&Value::from(32.0), &Value::from(32.0), &Value::from(1024))
        );
    }
    // Without a launch the block is assumed: no footprint is given.
    let (_, plain) = run(&["accesses", "--format", "json", "fixtures/seeds/offset.rs"]);
    let access = &plain["kernels"][0]["accesses"][0];
    assert_eq!(access["sectors_per_request"], 5.0);
    assert!(access.get("block_footprint_sectors").is_none(), "{access}");
    assert!(access.get("block_dram_bytes").is_none(), "{access}");
}

/// DRAM bytes read per block, as Nsight Compute measured them for a kernel of the pairs.
fn measured_read_per_block(kernel: &str) -> f64 {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/harness/measurements/h200-pairs-metrics.csv"
    ))
    .expect("measurements");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let headers = reader.headers().expect("header").clone();
    let column = |name: &str| headers.iter().position(|h| h == name).expect(name);
    let (name, grid, metric, value) = (
        column("Kernel Name"),
        column("Grid Size"),
        column("Metric Name"),
        column("Metric Value"),
    );
    let row = reader
        .records()
        .map(|r| r.expect("row"))
        .find(|r| r[name].contains(&format!("::{kernel}(")) && &r[metric] == "dram__bytes_read.sum")
        .expect("a DRAM row");
    let blocks: f64 = row[grid]
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(|d| d.trim().parse::<f64>().expect("extent"))
        .product();
    row[value].replace(',', "").parse::<f64>().expect("bytes") / blocks
}

#[test]
fn the_footprint_matches_the_dram_bytes_measured_for_the_particles() {
    let (_, doc) = run(&[
        "--config",
        "fixtures/seeds.toml",
        "accesses",
        "--format",
        "json",
        "fixtures/seeds/aos_soa.rs",
    ]);
    let loads = |kernel: &str| -> Vec<f64> {
        footprints(&doc, kernel)
            .into_iter()
            .filter(|a| a.1 == "load")
            .map(|a| a.4.as_f64().expect("bytes"))
            .collect()
    };
    // The AoS kernel's two loads read fields of the same structs, so the same 192 sectors:
    // the block reads one footprint from DRAM, 6144 bytes (measured 6144.4).
    let aos = loads("update_particles_aos");
    assert_eq!(aos, vec![6144.0, 6144.0]);
    let measured = measured_read_per_block("update_particles_aos");
    assert!((measured - 6144.0).abs() / 6144.0 < 0.001, "{measured}");
    // The SoA kernel's loads read two arrays: their footprints add up, 2048 bytes (measured
    // 2048.1).
    let soa = loads("update_particles_soa");
    assert_eq!(soa, vec![1024.0, 1024.0]);
    let measured = measured_read_per_block("update_particles_soa");
    assert!((measured - 2048.0).abs() / 2048.0 < 0.001, "{measured}");
}

#[test]
fn the_rewrite_states_the_dram_bytes_before_and_after() {
    let args = ["--config", "fixtures/seeds.toml", "--color", "never", "check"];
    let (_, doc) = run(&[&args[..], &["--format", "json", "fixtures/seeds/aos_soa.rs"]].concat());
    let gain = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .find(|d| d["kernel"] == "update_particles_aos" && d["code"] == "KL002")
        .map(|d| d["fixes"][0]["gain"].clone())
        .expect("a rewrite");
    assert_eq!(gain["dram_bytes_before"], 6144);
    assert_eq!(gain["dram_bytes_after"], 1024);
    let (human, _) = run(&[&args[..], &["fixtures/seeds/aos_soa.rs"]].concat());
    assert!(
        human.contains("    after the rewrite this access touches 4 sectors per request instead of 24 (16.7% -> 100%); the block moves 1 KiB from DRAM instead of 6 KiB (estimated from its footprint)\n"),
        "{human}"
    );
}

#[test]
fn a_one_float_offset_is_judged_cheap_from_the_footprint() {
    // The seeds' launch of `read_offset_unroll4` with offset 11: 256 threads whose 8 warps
    // share the sectors each straddles.
    let (_, doc) = run(&[
        "--config",
        "fixtures/seeds.toml",
        "check",
        "--format",
        "json",
        "fixtures/seeds/offset.rs",
    ]);
    let notes: Vec<String> = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["kernel"] == "read_offset_unroll4" && d["code"] == "KL003")
        .flat_map(|d| d["notes"].as_array().expect("notes").clone())
        .filter_map(|n| n.as_str().map(str::to_string))
        .filter(|n| n.starts_with("no rewrite is offered"))
        .collect();
    assert_eq!(notes.len(), 4);
    for note in notes {
        assert_eq!(
            note,
            "no rewrite is offered: the block's warps share the straddled sectors: it moves 1056 bytes where 1024 would do (+3.1%); accepting the offset is cheap"
        );
    }
}
