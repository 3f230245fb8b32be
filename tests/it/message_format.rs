//! `check --message-format json`: the stream rust-analyzer reads from `check.overrideCommand`,
//! read back with `cargo_metadata` as rust-analyzer does, its spans checked against the source;
//! `--cargo-check` passing cargo's own messages through; snapshots on the bundled fixtures.

use cargo_metadata::diagnostic::{Applicability, Diagnostic, DiagnosticLevel, DiagnosticSpan};
use cargo_metadata::Message;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-kernel-lint");

const MANIFEST: &str = "[package]
name = \"gpu-kernels\"
version = \"0.3.0\"
edition = \"2021\"
";

/// The struct lives in the crate root, the kernels in a module: the array-of-structs finding
/// needs the crate's other file.
const LIB: &str = "pub mod kernels;

#[repr(C)]
pub struct Particle {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub w: f32,
}
";

/// Each access comes after a non-ASCII character on its line, so that bytes and characters
/// differ.
const KERNELS: &str = "use crate::Particle;
use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn xs(particles: &[Particle], out: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        /* ×½ */ *out.add(i) = particles[i].x;
    }
}

#[kernel]
pub unsafe fn every_other(a: &[f32], c: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        *c.add(i) = /* é */ a[2 * i];
    }
}
";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn kernel_lint(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let output = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .output()
        .expect("the binary runs");
    let run = Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8(output.stdout).expect("UTF-8 output"),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert!(!run.stderr.contains("panicked"), "the binary panicked:\n{}", run.stderr);
    run
}

/// `--message-format json` in `dir` with `CARGO` set to a shell script of `script`.
fn with_cargo(dir: &Path, script: &str) -> Run {
    let cargo = dir.join("scripted-cargo");
    std::fs::write(&cargo, script).expect("script written");
    std::fs::set_permissions(&cargo, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("executable");
    kernel_lint(
        dir,
        &["--message-format", "json"],
        &[("CARGO", cargo.to_str().expect("a UTF-8 path"))],
    )
}

/// A package `gpu-kernels` with the kernels above, in a folder of its own.
fn package() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir(dir.path().join("src")).expect("src folder");
    std::fs::write(dir.path().join("Cargo.toml"), MANIFEST).expect("manifest written");
    std::fs::write(dir.path().join("src/lib.rs"), LIB).expect("lib.rs written");
    std::fs::write(dir.path().join("src/kernels.rs"), KERNELS).expect("kernels.rs written");
    dir
}

/// Every line as cargo's messages; each must be a `compiler-message`.
fn compiler_messages(stdout: &str) -> Vec<cargo_metadata::CompilerMessage> {
    stdout
        .lines()
        .map(|line| match serde_json::from_str::<Message>(line) {
            Ok(Message::CompilerMessage(message)) => message,
            other => panic!("not a compiler-message: {other:?}\n{line}"),
        })
        .collect()
}

/// Checks that the span's bytes, lines and columns agree with the file, and returns its text.
fn spanned_text(dir: &Path, span: &DiagnosticSpan) -> String {
    let text = std::fs::read_to_string(dir.join(&span.file_name)).expect("the span's file exists");
    let at = |byte: usize| {
        let before = &text[..byte];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        (line, text[line_start..byte].chars().count() + 1)
    };
    assert_eq!(
        at(span.byte_start as usize),
        (span.line_start, span.column_start),
        "{span:?}"
    );
    assert_eq!(at(span.byte_end as usize), (span.line_end, span.column_end), "{span:?}");
    let first_line = text.lines().nth(span.line_start - 1).expect("the line exists");
    assert_eq!(span.text[0].text, first_line);
    assert_eq!(span.text[0].highlight_start, span.column_start);
    text[span.byte_start as usize..span.byte_end as usize].to_string()
}

#[test]
fn findings_of_a_package_are_compiler_messages_with_exact_spans() {
    let dir = package();
    let run = kernel_lint(dir.path(), &["--message-format", "json"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let messages = compiler_messages(&run.stdout);
    let found: Vec<(&str, &str, DiagnosticLevel, String)> = messages
        .iter()
        .map(|m| {
            let code = m.message.code.as_ref().map_or("", |c| c.code.as_str());
            let primary: Vec<&DiagnosticSpan> = m.message.spans.iter().filter(|s| s.is_primary).collect();
            assert_eq!(primary.len(), 1);
            (
                code,
                primary[0].file_name.as_str(),
                m.message.level,
                spanned_text(dir.path(), primary[0]),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "kernel_lint::KL002",
                "src/kernels.rs",
                DiagnosticLevel::Warning,
                "particles[i].x".to_string()
            ),
            (
                "kernel_lint::KL001",
                "src/kernels.rs",
                DiagnosticLevel::Warning,
                // A strided finding points at the index, as `check` underlines it.
                "2 * i".to_string()
            ),
        ]
    );
    for message in &messages {
        assert_eq!(message.target.name, "gpu_kernels");
        assert_eq!(message.target.kind, ["lib"]);
        assert_eq!(
            message.target.src_path,
            dir.path().join("src/lib.rs").canonicalize().unwrap()
        );
        assert!(
            message.package_id.repr.contains("gpu-kernels"),
            "{}",
            message.package_id
        );
        assert!(message.package_id.repr.contains("0.3.0"), "{}", message.package_id);
        let explanation = message.message.code.as_ref().and_then(|c| c.explanation.as_deref());
        assert!(explanation.is_some_and(|e| e.starts_with("KL00")), "{explanation:?}");
        // The human text, without colour.
        let rendered = message.message.rendered.as_deref().expect("rendered text");
        assert!(rendered.contains(&message.message.message), "{rendered}");
        assert!(!rendered.contains('\u{1b}'), "{rendered}");
    }
    let manifest = dir.path().join("Cargo.toml").canonicalize().unwrap();
    for line in run.stdout.lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(value["manifest_path"].as_str(), manifest.to_str());
    }
    let strided = &messages[1].message;
    assert_eq!(
        strided.message,
        "strided access to `a[2 * i]`: lanes are 8 bytes apart, 8 sectors per request where 4 would do (50% efficiency)"
    );
    assert!(strided
        .rendered
        .as_deref()
        .unwrap()
        .starts_with("  ⚠ warning[KL001]: strided access"));
}

#[test]
fn fixes_are_suggestions_with_their_applicability() {
    let dir = package();
    let run = kernel_lint(dir.path(), &["--message-format", "json"], &[]);
    let messages = compiler_messages(&run.stdout);
    let aos = &messages[0].message;
    let suggestions: Vec<&Diagnostic> = aos
        .children
        .iter()
        .filter(|c| c.spans.iter().any(|s| s.suggested_replacement.is_some()))
        .collect();
    assert!(!suggestions.is_empty(), "{:#?}", aos.children);
    for child in suggestions {
        assert_eq!(child.level, DiagnosticLevel::Help);
        for span in &child.spans {
            // The structure-of-arrays rewrite changes the kernel's parameters: never automatic.
            assert_eq!(span.suggestion_applicability, Some(Applicability::MaybeIncorrect));
            spanned_text(dir.path(), span);
        }
    }
    // Applying the suggestions as an editor would gives the rewrite `fix --unsafe-fixes` writes.
    let child = aos.children.iter().find(|c| !c.spans.is_empty()).expect("a suggestion");
    let mut text = KERNELS.to_string();
    let mut spans: Vec<&DiagnosticSpan> = child.spans.iter().collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.byte_start));
    for span in spans {
        let replacement = span.suggested_replacement.as_deref().unwrap();
        text.replace_range(span.byte_start as usize..span.byte_end as usize, replacement);
    }
    let fixed = kernel_lint(
        dir.path(),
        &["fix", "--unsafe-fixes", "--allow-dirty", "--diff", "src/kernels.rs"],
        &[],
    );
    assert_eq!(fixed.code, 1, "{}", fixed.stderr);
    for line in fixed
        .stdout
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
    {
        assert!(text.contains(&line[1..]), "`{line}` missing from\n{text}");
    }
}

#[test]
fn one_file_is_analyzed_in_its_crate() {
    // rust-analyzer's `$saved_file`: an absolute path, the crate's other files read for context.
    let dir = package();
    let file = dir.path().join("src/kernels.rs");
    let run = kernel_lint(
        dir.path(),
        &["kernel-lint", "--message-format", "json", file.to_str().unwrap()],
        &[],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let messages = compiler_messages(&run.stdout);
    let codes: Vec<&str> = messages
        .iter()
        .map(|m| m.message.code.as_ref().map_or("", |c| c.code.as_str()))
        .collect();
    assert_eq!(codes, ["kernel_lint::KL002", "kernel_lint::KL001"]);
    let span = &messages[0].message.spans[0];
    // Printed relative to the current folder, as every format prints paths.
    assert_eq!(span.file_name, "src/kernels.rs");
    assert_eq!(
        &KERNELS[span.byte_start as usize..span.byte_end as usize],
        "particles[i].x"
    );
}

#[test]
fn a_crate_root_outside_its_package_folder_is_owned_by_its_target() {
    // One source tree shared by two packages, each naming it by `path = "../../src/lib.rs"`, in a
    // virtual workspace (the layout of physics crates with 2-D and 3-D builds of one source).
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path();
    std::fs::write(
        root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/kernels2d\", \"crates/kernels3d\"]\nresolver = \"2\"\n",
    )
    .expect("workspace manifest");
    for name in ["kernels2d", "kernels3d"] {
        std::fs::create_dir_all(root.join("crates").join(name)).expect("package folder");
        std::fs::write(
            root.join("crates").join(name).join("Cargo.toml"),
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                 [lib]\npath = \"../../src/lib.rs\"\n"
            ),
        )
        .expect("package manifest");
    }
    std::fs::create_dir(root.join("src")).expect("src folder");
    std::fs::write(root.join("src/lib.rs"), LIB).expect("lib.rs written");
    std::fs::write(root.join("src/kernels.rs"), KERNELS).expect("kernels.rs written");
    let run = kernel_lint(root, &["kernel-lint", "--message-format", "json"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let messages = compiler_messages(&run.stdout);
    assert_eq!(messages.len(), 2, "{}", run.stdout);
    for message in &messages {
        assert_eq!(message.target.name, "kernels2d");
        assert!(message.package_id.repr.contains("kernels2d"), "{}", message.package_id);
        assert_eq!(message.message.spans[0].file_name, "src/kernels.rs");
    }
}

#[test]
fn a_file_of_no_package_gets_bare_diagnostics() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let kernel = KERNELS.lines().skip(1).collect::<Vec<_>>().join("\n");
    std::fs::write(dir.path().join("kernel.rs"), kernel).expect("kernel written");
    let run = kernel_lint(dir.path(), &["check", "--message-format", "json", "kernel.rs"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let diagnostics: Vec<Diagnostic> = run
        .stdout
        .lines()
        .map(|line| {
            assert!(!line.contains("\"reason\""), "{line}");
            serde_json::from_str(line).expect("a rustc diagnostic")
        })
        .collect();
    let found: Vec<(Option<&str>, &DiagnosticLevel, &str, String)> = diagnostics
        .iter()
        .map(|d| {
            (
                d.code.as_ref().map(|c| c.code.as_str()),
                &d.level,
                d.spans[0].file_name.as_str(),
                spanned_text(dir.path(), &d.spans[0]),
            )
        })
        .collect();
    // Alone, the file does not know `Particle`: its access is noted as not analyzed.
    assert_eq!(
        found,
        [
            (
                Some("kernel_lint::KL001"),
                &DiagnosticLevel::Warning,
                "kernel.rs",
                "2 * i".to_string()
            ),
            (
                Some("kernel_lint::KL006"),
                &DiagnosticLevel::Note,
                "kernel.rs",
                "i".to_string()
            ),
        ]
    );
}

#[test]
fn unreadable_input_is_an_error_diagnostic_and_exit_2() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("broken.rs"), "fn broken( {\n").expect("file written");
    let run = kernel_lint(dir.path(), &["--message-format", "json", "broken.rs"], &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    let diagnostic: Diagnostic = serde_json::from_str(run.stdout.trim_end()).expect("a rustc diagnostic");
    assert_eq!(diagnostic.level, DiagnosticLevel::Error);
    assert_eq!(diagnostic.code, None);
    assert_eq!(diagnostic.spans.len(), 1);
    assert_eq!(diagnostic.spans[0].file_name, "broken.rs");
}

#[test]
fn cargo_check_messages_come_first_and_one_build_finished_ends_the_stream() {
    // The crate does not compile (no `cuda_std` dependency): rustc's errors must stay visible.
    let dir = package();
    let target = dir.path().join("target");
    let run = kernel_lint(
        dir.path(),
        &["--message-format", "json", "--cargo-check"],
        &[("CARGO_TARGET_DIR", target.to_str().unwrap())],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    let messages: Vec<Message> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    let finished: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| matches!(m, Message::BuildFinished(_)))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(finished, [messages.len() - 1], "{}", run.stdout);
    assert!(matches!(messages.last(), Some(Message::BuildFinished(f)) if !f.success));
    let origin: Vec<&str> = messages
        .iter()
        .filter_map(|m| match m {
            Message::CompilerMessage(m) => Some(match &m.message.code {
                Some(code) if code.code.starts_with("kernel_lint::") => "kernel-lint",
                _ => "rustc",
            }),
            _ => None,
        })
        .collect();
    let first_lint = origin
        .iter()
        .position(|o| *o == "kernel-lint")
        .expect("kernel-lint's findings");
    assert!(first_lint > 0, "{origin:?}");
    assert!(origin[..first_lint].iter().all(|o| *o == "rustc"), "{origin:?}");
    assert_eq!(&origin[first_lint..], ["kernel-lint", "kernel-lint"]);
    // rustc's own complaint about `cuda_std` is among them, as cargo wrote it.
    assert!(run.stdout.contains("cuda_std"), "{}", run.stdout);
}

#[test]
fn a_failing_cargo_metadata_is_named_by_its_error_line_and_the_findings_go_bare() {
    let dir = package();
    // A cargo that fails as rustup does for a pinned toolchain that is not installed: the
    // reason, then a backtrace.
    let run = with_cargo(
        dir.path(),
        "#!/bin/sh\necho \"error: toolchain 'nightly-2021-12-04' is not installed\" >&2\n\
         echo \"\" >&2\necho \"Stack backtrace:\" >&2\necho \"  12: <unknown>\" >&2\nexit 1\n",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    let manifest = dir.path().join("Cargo.toml").canonicalize().unwrap();
    assert_eq!(
        run.stderr,
        format!(
            "warning: `cargo metadata` failed for `{}`: error: toolchain 'nightly-2021-12-04' is not \
             installed; its files' findings are written without their package\n",
            manifest.display()
        )
    );
    let bare: Vec<Diagnostic> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).expect("a bare diagnostic"))
        .collect();
    assert_eq!(bare.len(), 2);
}

/// In a crate that pins a toolchain that is not installed, rustup's `cargo` refuses to start in
/// its folder: `cargo metadata` is asked again from a folder that pins none, and the findings
/// keep their package.
#[test]
fn a_pinned_toolchain_that_is_not_installed_still_gives_the_package() {
    let dir = package();
    std::fs::write(
        dir.path().join("rust-toolchain.toml"),
        "[toolchain]\nchannel = \"nightly-2021-12-04\"\n",
    )
    .expect("toolchain file written");
    // rustup's proxy, as far as this test needs: the pinned toolchain is missing wherever a
    // `rust-toolchain.toml` is in the current folder; elsewhere the installed cargo runs.
    let run = with_cargo(
        dir.path(),
        "#!/bin/sh\nif [ -f rust-toolchain.toml ]; then\n  \
         echo \"error: toolchain 'nightly-2021-12-04' is not installed\" >&2\n  exit 1\nfi\n\
         exec cargo \"$@\"\n",
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    let messages = compiler_messages(&run.stdout);
    assert_eq!(messages.len(), 2);
    for message in &messages {
        assert!(
            message.package_id.repr.contains("gpu-kernels"),
            "{}",
            message.package_id.repr
        );
    }
}

#[test]
fn cargo_that_cannot_start_is_an_error() {
    let dir = package();
    let run = kernel_lint(
        dir.path(),
        &["--message-format", "json", "--cargo-check"],
        &[("CARGO", "/no/such/cargo")],
    );
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: `/no/such/cargo check` cannot start: No such file or directory (os error 2) \
         (`--cargo-check` runs cargo; set `CARGO` or put it on the PATH)\n"
    );
}

#[test]
fn the_flags_are_refused_where_they_mean_nothing() {
    let dir = package();
    let cases: [(&[&str], &str); 4] = [
        (
            &["accesses", "--message-format", "json"],
            "`--message-format` applies to `check` only",
        ),
        (
            &["--message-format", "json", "fix"],
            "`--message-format` applies to `check` only",
        ),
        (
            &["check", "--format", "json", "--message-format", "json"],
            "the argument '--format <FORMAT>' cannot be used with '--message-format <FMT>'",
        ),
        (
            &["check", "--cargo-check"],
            "the following required arguments were not provided:\n  --message-format <FMT>",
        ),
    ];
    for (args, message) in cases {
        let run = kernel_lint(dir.path(), args, &[]);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
        assert_eq!(run.stdout, "");
    }
}

/// The stream with the checkout's absolute path replaced, so that the snapshot is stable.
fn snapshot(dir: &str, args: &[&str]) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = kernel_lint(&root.join(dir), args, &[("NO_COLOR", "1")]);
    let root = root.to_str().expect("a UTF-8 path");
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        run.code,
        run.stdout.replace(root, "[ROOT]"),
        run.stderr.replace(root, "[ROOT]")
    )
}

#[test]
fn message_format_on_the_pattern_fixtures() {
    insta::assert_snapshot!(
        "message-format-patterns",
        snapshot(
            ".",
            &[
                "--warn",
                "KL005",
                "check",
                "--message-format",
                "json",
                "fixtures/patterns"
            ]
        )
    );
}

#[test]
fn message_format_on_the_workspace_fixture() {
    insta::assert_snapshot!(
        "message-format-workspace",
        snapshot("fixtures/workspace", &["check", "--message-format", "json"])
    );
}
