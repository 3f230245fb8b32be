//! The rendered output of every renderer on the bundled fixtures, against committed insta
//! snapshots (`tests/snapshots/*.snap`). A change in wording, numbers or spans shows up as a
//! diff; review it with `cargo insta review` (or accept with `INSTA_UPDATE=always`).

use std::process::Command;

fn run(args: &[&str]) -> String {
    let root = crate::home::home();
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(args)
        .current_dir(root)
        .env_remove("NO_COLOR")
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
fn check_on_the_seed_fixtures() {
    insta::assert_snapshot!("check-seeds", run(&["--color", "never", "check", "fixtures/seeds"]));
}

#[test]
fn check_on_the_pattern_fixtures_with_every_lint() {
    insta::assert_snapshot!(
        "check-patterns",
        run(&["--color", "never", "--warn", "KL005", "check", "fixtures/patterns"])
    );
}

#[test]
fn check_json_on_the_pattern_fixtures() {
    insta::assert_snapshot!(
        "check-patterns-json",
        run(&["--warn", "KL005", "check", "--format", "json", "fixtures/patterns"])
    );
}

#[test]
fn accesses_table_with_the_measured_launches() {
    insta::assert_snapshot!(
        "accesses-seeds",
        run(&["--config", "fixtures/seeds.toml", "accesses", "fixtures/seeds"])
    );
}

#[test]
fn accesses_json_for_the_patterns() {
    insta::assert_snapshot!(
        "accesses-patterns-json",
        run(&["accesses", "--format", "json", "fixtures/patterns"])
    );
}

#[test]
fn rule_table_and_one_lint_documentation() {
    insta::assert_snapshot!("rule-table", run(&["rule"]));
    insta::assert_snapshot!("rule-kl002", run(&["rule", "KL002"]));
}

/// `check` on the seed fixtures in a format of findings besides the human one.
fn check_seeds(format: &[&str]) -> String {
    let args: Vec<&str> = ["--color", "never", "check"]
        .into_iter()
        .chain(format.iter().copied())
        .chain(["fixtures/seeds"])
        .collect();
    run(&args)
}

#[test]
fn json_on_the_seed_fixtures() {
    insta::assert_snapshot!("check-seeds-json", check_seeds(&["--format", "json"]));
}

#[test]
fn sarif_on_the_seed_fixtures() {
    insta::assert_snapshot!("check-seeds-sarif", check_seeds(&["--format", "sarif"]));
}

#[test]
fn github_on_the_seed_fixtures() {
    insta::assert_snapshot!("check-seeds-github", check_seeds(&["--format", "github"]));
}

#[test]
fn message_format_on_the_seed_fixtures() {
    insta::assert_snapshot!("check-seeds-message-format", check_seeds(&["--message-format", "json"]));
}
