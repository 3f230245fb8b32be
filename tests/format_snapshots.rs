//! `check` on the seed fixtures in every format of findings besides the human one (snapshotted
//! in `snapshots.rs`): what a user or a tool reads, paths relative to the checkout.

use std::path::Path;
use std::process::Command;

fn check(format: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(["--color", "never", "check"])
        .args(format)
        .arg("fixtures/seeds")
        .current_dir(root)
        .output()
        .expect("the binary runs");
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn json_on_the_seed_fixtures() {
    insta::assert_snapshot!("check-seeds-json", check(&["--format", "json"]));
}

#[test]
fn sarif_on_the_seed_fixtures() {
    insta::assert_snapshot!("check-seeds-sarif", check(&["--format", "sarif"]));
}

#[test]
fn github_on_the_seed_fixtures() {
    insta::assert_snapshot!("check-seeds-github", check(&["--format", "github"]));
}

#[test]
fn message_format_on_the_seed_fixtures() {
    insta::assert_snapshot!("check-seeds-message-format", check(&["--message-format", "json"]));
}
