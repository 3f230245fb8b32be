//! The rendered output for the bundled fixtures, against committed snapshots. A change in
//! wording, numbers or spans shows up as a diff here; after checking it, refresh the snapshots
//! with `KERNEL_LINT_BLESS=1 cargo test --test snapshots`.

use std::path::Path;
use std::process::Command;

fn snapshot(name: &str, args: &[&str]) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = Command::new(env!("CARGO_BIN_EXE_cargo-kernel-lint"))
        .args(args)
        .current_dir(root)
        .env_remove("NO_COLOR")
        .output()
        .expect("the binary runs");
    let actual = format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let path = root.join("tests/snapshots").join(name);
    if std::env::var_os("KERNEL_LINT_BLESS").is_some() {
        std::fs::write(&path, &actual).expect("snapshot written");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let first_difference = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{name} differs from the snapshot at line {}:\n  expected: {:?}\n  actual:   {:?}\n(KERNEL_LINT_BLESS=1 refreshes it)",
            first_difference + 1,
            expected.lines().nth(first_difference),
            actual.lines().nth(first_difference)
        );
    }
}

#[test]
fn check_on_the_seed_fixtures() {
    snapshot("check-seeds.txt", &["--color", "never", "check", "fixtures/seeds"]);
}

#[test]
fn check_on_the_pattern_fixtures_with_every_lint() {
    snapshot(
        "check-patterns.txt",
        &["--color", "never", "--warn", "KL005", "check", "fixtures/patterns"],
    );
}

#[test]
fn accesses_table_with_the_measured_launches() {
    snapshot(
        "accesses-seeds.txt",
        &["--config", "fixtures/seeds.toml", "accesses", "fixtures/seeds"],
    );
}

#[test]
fn accesses_json_for_the_patterns() {
    snapshot(
        "accesses-patterns.json",
        &["accesses", "--format", "json", "fixtures/patterns"],
    );
}
