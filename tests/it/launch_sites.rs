//! Host launches read from the code that launches each kernel (`fixtures/launch/`): cust
//! `launch!` and `Stream::launch`, cudarc `LaunchConfig` and the launch builder, cuda-oxide
//! generated launch methods. Each distinct launch is one analysis of the kernel; a block sized
//! at run time keeps the default and says so.

use kernel_lint_analyzer::{analyze_source, LaunchPlan, SourceFile};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/launch")
}

fn run_json(args: &[&str]) -> (i32, Value) {
    run_json_in(&root(), args)
}

fn run_json_in(dir: &Path, args: &[&str]) -> (i32, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(args)
        .args(["--format", "json"])
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let doc = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("json: {e}\n{stdout}"));
    (output.status.code().unwrap_or(-1), doc)
}

/// `name block source site-line grid params notes`, then `line array class sectors` per access.
fn kernels(doc: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for k in doc["kernels"].as_array().expect("kernels") {
        let site = match &k["launch_site"] {
            Value::Null => "-".to_string(),
            s => format!("{}:{}", s["file"].as_str().unwrap_or_default(), s["line"]),
        };
        out.push(format!(
            "{} {} {} {} {} {} {}",
            k["name"].as_str().unwrap_or_default(),
            k["block"],
            k["block_source"].as_str().unwrap_or_default(),
            site,
            k["grid"],
            k["params"],
            k.get("launch_notes").unwrap_or(&Value::Null),
        ));
        for a in k["accesses"].as_array().expect("accesses") {
            out.push(format!(
                "  {} {} {} {}",
                a["line"],
                a["array"].as_str().unwrap_or_default(),
                a["class"].as_str().unwrap_or_default(),
                a["sectors_per_request"]
            ));
        }
    }
    out
}

#[test]
fn every_launch_is_one_analysis() {
    let (code, doc) = run_json(&["accesses"]);
    assert_eq!(code, 0);
    // cust passes each slice as a pointer and a length: the host constants reach m, n and k.
    let sizes = r#"{"k":1024,"m":1024,"n":1024} null"#;
    let occupancy =
        r#"["the launch at host/src/main.rs:37 sizes the block at run time (`suggested_launch_configuration`)"]"#;
    let expected = [
        format!("gemm_naive [1,16,1] launch host/src/main.rs:13 [1024,64,1] {sizes}"),
        "  15 mat_a broadcast 1.0".into(),
        "  15 mat_b coalesced 2.0".into(),
        "  17 mat_c coalesced 2.0".into(),
        format!("gemm_naive [16,16,1] launch host/src/main.rs:17 [64,64,1] {sizes}"),
        "  15 mat_a transposed 16.0".into(),
        "  15 mat_b coalesced 1.0".into(),
        "  17 mat_c transposed 16.0".into(),
        r#"shift [256,1,1] launch host/src/main.rs:27 [4,1,1] {"n":1024} null"#.into(),
        "  27 a coalesced 4.0".into(),
        "  27 out coalesced 4.0".into(),
        format!("scale [256,1,1] default - null {{}} {occupancy}"),
        "  37 a strided 8.0".into(),
        "  37 a strided 8.0".into(),
        r#"tile [32,4,1] launch cudarc-host/src/main.rs:20 [1,1,1] {"width":32} null"#.into(),
        "  47 out coalesced 4.0".into(),
        r#"fill [1024,1,1] launch cudarc-host/src/main.rs:24 [1024,1,1] {"n":1048576} null"#.into(),
        "  56 out coalesced 4.0".into(),
        "add_one [256,1,1] launch oxide/src/main.rs:27 [16,1,1] {} null".into(),
        "  14 a coalesced 4.0".into(),
        "  14 out coalesced 4.0".into(),
    ];
    assert_eq!(kernels(&doc), expected);
}

#[test]
fn an_extent_set_at_run_time_is_a_case_per_value_and_the_rest_of_the_block_is_kept() {
    // Blocks one thread wide whose height the occupancy API picks: x = 1 alone makes the row
    // the same for the warp, so the read of `lhs` is a broadcast whatever the height; the
    // others are coalesced, with a figure per height.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/runtime-launch");
    let (code, doc) = run_json_in(&dir, &["accesses", "--no-cache"]);
    assert_eq!(code, 0);
    let [kernel] = doc["kernels"].as_array().expect("kernels").as_slice() else {
        panic!("one kernel: {doc}")
    };
    assert_eq!(kernel["name"], "row_times_matrix");
    assert_eq!(kernel["block"], serde_json::json!([1, 256, 1]));
    assert_eq!(kernel["block_source"], "launch");
    assert_eq!(kernel["block_assumed"], serde_json::json!(["y"]));
    assert_eq!(
        kernel["launch_notes"],
        serde_json::json!(["the launch at src/lib.rs:25 sets block.y at run time: (1, 256, 1) is one value tried"])
    );
    let access = |array: &str| {
        kernel["accesses"]
            .as_array()
            .expect("accesses")
            .iter()
            .find(|a| a["array"] == array)
            .unwrap_or_else(|| panic!("`{array}`"))
            .clone()
    };
    let cases = |a: &Value| -> Vec<(String, String, f64)> {
        a["cases"]
            .as_array()
            .expect("cases")
            .iter()
            .map(|c| {
                (
                    c["condition"].as_str().unwrap_or_default().to_string(),
                    c["class"].as_str().unwrap_or_default().to_string(),
                    c["sectors_per_request"].as_f64().unwrap_or_default(),
                )
            })
            .collect()
    };
    let lhs = access("lhs");
    assert_eq!(
        (lhs["class"].as_str(), lhs["sectors_per_request"].as_f64()),
        (Some("broadcast"), Some(1.0))
    );
    assert!(cases(&lhs).is_empty());
    for array in ["rhs", "out"] {
        let a = access(array);
        assert_eq!(
            (a["class"].as_str(), a["sectors_per_request"].as_f64()),
            (Some("coalesced"), None)
        );
        let by_height: Vec<(String, String, f64)> = cases(&a).into_iter().filter(|c| !c.0.contains("odd")).collect();
        assert_eq!(
            by_height,
            [
                ("block.y == 256".to_string(), "coalesced".to_string(), 4.0),
                ("block.y == 32".to_string(), "coalesced".to_string(), 4.0),
                ("block.y == 16".to_string(), "coalesced".to_string(), 2.0)
            ]
        );
        assert!(a["assumptions"]
            .as_array()
            .expect("assumptions")
            .iter()
            .any(|n| n == "the figure depends on block.y, which the launch sets at run time"));
    }
    // Where nothing gives the block, every extent is assumed.
    let (_, doc) = run_json(&["accesses"]);
    let scale = doc["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .find(|k| k["name"] == "scale")
        .expect("scale");
    assert_eq!(scale["block_assumed"], serde_json::json!(["x", "y", "z"]));
}

#[test]
fn findings_follow_the_launch_and_name_it() {
    let (code, doc) = run_json(&["check"]);
    assert_eq!(code, 1);
    let found: Vec<(String, u64, String, String)> = doc["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or_default().to_string(),
                d["line"].as_u64().unwrap_or_default(),
                d["message"].as_str().unwrap_or_default().to_string(),
                d["notes"][0].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let gemm_note = "block (16, 16, 1) from the launch site host/src/main.rs:17";
    let expected = [
        (
            "KL004",
            15,
            "transposed access to `mat_a[row * k + i]`: consecutive lanes are `k` elements apart, 16 sectors per request where 2 would do (12.5% efficiency)",
            gemm_note,
        ),
        (
            "KL004",
            17,
            "transposed access to `mat_c[row * n + col]`: consecutive lanes are `n` elements apart, 16 sectors per request where 4 would do (25% efficiency)",
            gemm_note,
        ),
        (
            "KL001",
            37,
            "strided access to `a[2 * i]`: lanes are 8 bytes apart, 8 sectors per request where 4 would do (50% efficiency)",
            "block (256, 1, 1) assumed: no configuration or hint gives it (add `// kernel-lint: block(x, y)` above the kernel); \
            the launch at host/src/main.rs:37 sizes the block at run time (`suggested_launch_configuration`)",
        ),
    ];
    let expected: Vec<(String, u64, String, String)> = expected
        .iter()
        .map(|(c, l, m, n)| (c.to_string(), *l, m.to_string(), n.to_string()))
        .collect();
    assert_eq!(found, expected);
}

#[test]
fn without_the_host_the_kernels_keep_the_default() {
    let path = root().join("kernels/src/lib.rs");
    let text = std::fs::read_to_string(&path).expect("fixture");
    let report = analyze_source(&SourceFile::new("lib.rs", text), &LaunchPlan::default()).expect("parses");
    let shift = report.kernels.iter().find(|k| k.name == "shift").expect("shift");
    let a = shift.accesses.iter().find(|a| a.array == "a").expect("a[i + n]");
    let prediction = a.prediction.as_ref().expect("global");
    // Unknown `n`: 5 sectors unless it is a multiple of 8; the host's `N = 1024` makes it 4.
    assert_eq!(prediction.sectors_per_request, Some(5.0));
    assert!(!prediction.cases.is_empty());
    let gemm: Vec<_> = report.kernels.iter().filter(|k| k.name == "gemm_naive").collect();
    assert_eq!(gemm.len(), 1);
    assert_eq!(gemm[0].launch.block, [256, 1, 1]);
}
