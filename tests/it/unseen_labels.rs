//! The labelled set of public kernels: every label file reads, names only classes the tool
//! reports, and a labelled access is judged right only when the reported class and count
//! both match.

use serde_json::json;
use std::path::Path;
use xtask::unseen::{compare, read_labels, LabelledAccess, Verdict};

const CLASSES: [&str; 9] = [
    "coalesced",
    "misaligned",
    "strided",
    "aos",
    "broadcast",
    "row-broadcast",
    "transposed",
    "gather",
    "unknown",
];

#[test]
fn every_label_file_reads_and_names_known_classes() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("evaluation/unseen");
    let sets = read_labels(&folder).expect("the labels read");
    assert!(!sets.is_empty(), "no label files in {}", folder.display());
    for set in &sets {
        assert!(
            set.rule.contains("first"),
            "{}: the rule that chose the code is written down",
            set.dialect
        );
        for repo in &set.repo {
            assert_eq!(repo.commit.len(), 40, "{}: a full commit", repo.name);
            for kernel in &repo.kernel {
                for access in &kernel.access {
                    assert!(
                        CLASSES.contains(&access.class.as_str()),
                        "{} {}:{}: class `{}`",
                        repo.name,
                        kernel.file,
                        access.line,
                        access.class
                    );
                    assert!(
                        matches!(access.op.as_str(), "load" | "store"),
                        "{}:{}",
                        kernel.file,
                        access.line
                    );
                }
            }
        }
    }
}

fn label(class: &str, sectors: toml::Value) -> LabelledAccess {
    LabelledAccess {
        access_file: None,
        line: 7,
        column: None,
        op: "load".into(),
        access: "a[i]".into(),
        class: class.into(),
        sectors,
    }
}

#[test]
fn an_access_is_right_only_when_class_and_count_match() {
    let reported = [json!({
        "line": 7, "column": 9, "op": "load", "space": "global", "array": "a",
        "class": "coalesced", "sectors_per_request": 4.0, "cases": []
    })];
    assert_eq!(
        compare(&label("coalesced", toml::Value::Integer(4)), &reported),
        Verdict::Right
    );
    assert_eq!(
        compare(&label("coalesced", toml::Value::Integer(5)), &reported),
        Verdict::Wrong("coalesced 4".into())
    );
    assert_eq!(
        compare(&label("strided", toml::Value::Integer(4)), &reported),
        Verdict::Wrong("coalesced 4".into())
    );
    let mut store = label("coalesced", toml::Value::Integer(4));
    store.op = "store".into();
    assert_eq!(compare(&store, &reported), Verdict::Missed);
}

#[test]
fn a_figure_per_value_is_right_when_the_tool_gives_cases() {
    let reported = [json!({
        "line": 7, "column": 9, "op": "load", "space": "global", "array": "a",
        "class": "strided", "sectors_per_request": null,
        "cases": [{ "condition": "stride == 1", "sectors_per_request": 4.0 }]
    })];
    let depends = label("strided", toml::Value::String("depends".into()));
    assert_eq!(compare(&depends, &reported), Verdict::Right);
    let fixed = label("strided", toml::Value::Integer(32));
    assert_eq!(compare(&fixed, &reported), Verdict::Wrong("strided 1 cases".into()));
}

#[test]
fn a_helper_access_in_another_file_matches_only_there() {
    let reported = [json!({
        "line": 7, "column": 9, "op": "load", "space": "global", "array": "a",
        "class": "broadcast", "sectors_per_request": 1.0, "cases": [],
        "access_file": "core/src/params.rs"
    })];
    let here = label("broadcast", toml::Value::Integer(1));
    assert_eq!(compare(&here, &reported), Verdict::Missed);
    let mut there = label("broadcast", toml::Value::Integer(1));
    there.access_file = Some("core/src/params.rs".into());
    assert_eq!(compare(&there, &reported), Verdict::Right);
}

#[test]
fn a_helper_access_labelled_at_the_kernel_s_call_matches_through_the_call_chain() {
    let reported = [json!({
        "line": 21, "column": 9, "op": "load", "space": "global", "array": "w",
        "class": "coalesced", "sectors_per_request": 16.0, "cases": [],
        "access_file": "src/device/load.rs",
        "via": [{ "callee": "load_quad", "file": "src/k.rs", "line": 7, "column": 5 }]
    })];
    assert_eq!(
        compare(&label("coalesced", toml::Value::Integer(16)), &reported),
        Verdict::Right
    );
    let mut elsewhere = label("coalesced", toml::Value::Integer(16));
    elsewhere.line = 8;
    assert_eq!(compare(&elsewhere, &reported), Verdict::Missed);
}
