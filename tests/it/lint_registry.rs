//! The lint list is declared once (`lints/src/rules/mod.rs`); the README's table and the `rule`
//! command are checked against it here.

use kernel_lint_lints::{markdown_table, LINTS};
use std::process::Command;

const START: &str = "<!-- lints:start -->\n";
const END: &str = "<!-- lints:end -->";

#[test]
fn readme_lint_table_is_generated_from_the_lint_list() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README.md");
    let start = readme.find(START).expect("README marks the lint table start") + START.len();
    let end = readme[start..].find(END).expect("README marks the lint table end") + start;
    let expected = markdown_table();
    assert_eq!(
        &readme[start..end],
        expected,
        "the README's lint table is out of date; replace it with:\n{expected}"
    );
    assert_eq!(expected.lines().count(), LINTS.len() + 2);
}

#[test]
fn every_declared_lint_has_a_unique_code_name_and_its_own_file() {
    let rules = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/lints/src/rules")).expect("rules folder");
    let mut files: Vec<String> = rules
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("kl"))
        .collect();
    files.sort();
    assert_eq!(files.len(), LINTS.len(), "{files:?}");
    for (i, (lint, file)) in LINTS.iter().zip(&files).enumerate() {
        assert_eq!(lint.code, format!("KL{:03}", i + 1));
        assert_eq!(
            *file,
            format!("{}_{}.rs", lint.code.to_lowercase(), lint.name.replace('-', "_"))
        );
    }
}

#[test]
fn rule_lists_every_declared_lint() {
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .arg("rule")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout.lines().count(), LINTS.len() + 1, "{stdout}");
    for lint in LINTS {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(lint.code) && l.contains(lint.name)),
            "{} missing from:\n{stdout}",
            lint.code
        );
    }
}
