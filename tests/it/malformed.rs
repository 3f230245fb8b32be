//! The malformed-input suite: each case writes files into a fresh folder, runs the command
//! line there and checks the exit code and the messages, each with its place. No case may
//! panic, abort, hang or report an internal error.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_cargo-kernel-lint");

const KERNEL: &str =
    "#[kernel]\npub unsafe fn k(a: &[f32]) {\n    let i = thread::index_1d() as usize;\n    let v = a[i];\n}\n";
const PACKAGE: &str = "[package]\nname = \"c\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

/// One malformed input: the files written, the arguments after `--color never`, the exit
/// code, and text the output (stdout and stderr together) must hold.
struct Case {
    name: &'static str,
    files: Vec<(&'static str, Vec<u8>)>,
    args: &'static [&'static str],
    code: i32,
    expect: Vec<String>,
}

fn case(
    name: &'static str,
    files: &[(&'static str, &[u8])],
    args: &'static [&'static str],
    code: i32,
    expect: &[&str],
) -> Case {
    Case {
        name,
        files: files.iter().map(|(p, c)| (*p, c.to_vec())).collect(),
        args,
        code,
        expect: expect.iter().map(|e| e.to_string()).collect(),
    }
}

fn nested(open: &str, inner: &str, close: &str, depth: usize) -> Vec<u8> {
    format!(
        "#[kernel]\npub unsafe fn k(a: &[f32]) {{\n    let x = {}{inner}{};\n}}\n",
        open.repeat(depth),
        close.repeat(depth)
    )
    .into_bytes()
}

fn cases() -> Vec<Case> {
    let k = KERNEL.as_bytes();
    let mut cases = vec![
        // Empty and near-empty files.
        case("empty file", &[("empty.rs", b"")], &["empty.rs"], 0, &["0 kernels in 1 file"]),
        case(
            "comments only",
            &[("c.rs", b"// nothing\n/* here */\n")],
            &["c.rs"],
            0,
            &["0 kernels in 1 file"],
        ),
        // Syntax errors at every level.
        case(
            "unclosed parameter list",
            &[("bad.rs", b"fn k( {\n}\n")],
            &["bad.rs"],
            2,
            &["error: cannot tokenize: unclosed `(`", "[bad.rs:1:5]"],
        ),
        case(
            "statement",
            &[("bad.rs", b"fn k() {\n    let = 3;\n}\n")],
            &["bad.rs"],
            2,
            &["error: syntax error: expected one of: identifier", "[bad.rs:2:9]"],
        ),
        case(
            "expression",
            &[("bad.rs", b"fn k() {\n    let x = a[0] +;\n}\n")],
            &["bad.rs"],
            2,
            &["error: syntax error: expected an expression", "[bad.rs:2:19]"],
        ),
        case(
            "type",
            &[("bad.rs", b"fn k(a: &[f32; ]) {}\n")],
            &["bad.rs"],
            2,
            &["error: syntax error: unexpected end of input, expected an expression", "[bad.rs:1:16]"],
        ),
        case(
            "attribute",
            &[("bad.rs", b"#[kernel = ]\npub unsafe fn k() {}\n")],
            &["bad.rs"],
            2,
            &["error: syntax error: unexpected end of input", "[bad.rs:1:12]"],
        ),
        case(
            "pattern",
            &[("bad.rs", b"fn k() {\n    let (a, = (1, 2);\n}\n")],
            &["bad.rs"],
            2,
            &["error: cannot tokenize: mismatched closing `}`; `(` opened at 2:9 is still open", "[bad.rs:3:1]"],
        ),
        case(
            "missing semicolon",
            &[("bad.rs", b"fn k() {\n    let a = 1\n    let b = 2;\n}\n")],
            &["bad.rs"],
            2,
            &["error: syntax error: expected `;`", "[bad.rs:3:5]"],
        ),
        case(
            "struct field",
            &[("bad.rs", b"struct S {\n    x: ,\n}\n")],
            &["bad.rs"],
            2,
            &["error: syntax error: expected one of: `for`", "[bad.rs:2:8]"],
        ),
        case(
            "impl item",
            &[("bad.rs", b"struct S;\nimpl S {\n    fn\n}\n")],
            &["bad.rs"],
            2,
            &["error: syntax error: unexpected end of input, expected identifier", "[bad.rs:4:1]"],
        ),
        case(
            "inline module",
            &[("bad.rs", b"mod m {\n    fn f() -> {}\n}\n")],
            &["bad.rs"],
            2,
            &["error: syntax error: expected one of: `for`", "[bad.rs:2:15]"],
        ),
        case(
            "stray closing brace",
            &[("bad.rs", b"fn k() {}\n}\nfn g() {}\n")],
            &["bad.rs"],
            2,
            &["error: cannot tokenize: unexpected closing `}`", "[bad.rs:2:1]"],
        ),
        case(
            "one bad item, the kernel still reported",
            &[("mixed.rs", b"fn helper(x: usize) -> usize {\n    x +\n}\n#[kernel]\npub unsafe fn k(a: &[f32]) {\n    let i = thread::index_1d() as usize;\n    let v = a[i];\n}\n")],
            &["mixed.rs"],
            2,
            &["error: syntax error: unexpected end of input, expected an expression", "[mixed.rs:3:1]", "1 kernel in 1 file"],
        ),
        // Unterminated literals and comments.
        case(
            "unterminated string",
            &[("bad.rs", b"fn k() {\n    let s = \"abc;\n}\n")],
            &["bad.rs"],
            2,
            &["error: cannot tokenize: unterminated string literal", "[bad.rs:2:13]"],
        ),
        case(
            "unterminated raw string",
            &[("bad.rs", b"fn k() {\n    let s = r#\"abc\";\n}\n")],
            &["bad.rs"],
            2,
            &["error: cannot tokenize: unterminated raw string literal", "[bad.rs:2:13]"],
        ),
        case(
            "unterminated byte literal",
            &[("bad.rs", b"fn k() {\n    let c = b'x;\n}\n")],
            &["bad.rs"],
            2,
            &["error: cannot tokenize: unterminated byte literal", "[bad.rs:2:13]"],
        ),
        case(
            "unterminated block comment",
            &[("bad.rs", b"fn k() {}\n/* outer /* inner */ still open\nfn g() {}\n")],
            &["bad.rs"],
            2,
            &["error: cannot tokenize: unterminated block comment", "[bad.rs:2:1]"],
        ),
        // Bytes that are not Rust text.
        case(
            "non-UTF-8 byte",
            &[("bad.rs", b"fn k() {}\n// caf\xe9\n")],
            &["bad.rs"],
            2,
            &["error: file is not valid UTF-8 (invalid byte 0xe9)", "[bad.rs:2:7]"],
        ),
        case(
            "binary file named .rs",
            &[("bin.rs", b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00>\x00\x01\x00\x00\x00\xe0\x10")],
            &["bin.rs"],
            2,
            &["error: file is not valid UTF-8 (invalid byte 0xe0)", "[bin.rs:1:25]"],
        ),
        case(
            "NUL bytes",
            &[("bad.rs", b"fn k() {}\n\x00\x00\n")],
            &["bad.rs"],
            2,
            &["error: cannot tokenize: unexpected character `\\0` (U+0000)", "[bad.rs:2:1]"],
        ),
        case(
            "typographic quotes",
            &[("bad.rs", "fn k() {\n    let x = \u{201c}a\u{201d};\n}\n".as_bytes())],
            &["bad.rs"],
            2,
            &["error: cannot tokenize: unexpected character `\u{201c}` (U+201C)", "[bad.rs:2:13]"],
        ),
        // Kernels without bodies, macros everywhere, extreme numbers.
        case(
            "kernel without body",
            &[("k.rs", b"#[kernel]\npub unsafe fn k(a: &[f32]);\n")],
            &["k.rs"],
            2,
            &["error: kernel `k` has no body; it is not analyzed", "[k.rs:2:15]"],
        ),
        case(
            "kernel with empty body",
            &[("k.rs", b"#[kernel]\npub unsafe fn k(a: &[f32]) {}\n")],
            &["k.rs"],
            0,
            &["1 kernel in 1 file, 0 global accesses"],
        ),
        case(
            "kernel declared in an extern block",
            &[("k.rs", b"extern \"C\" {\n    #[kernel]\n    fn k(a: *const f32);\n}\n")],
            &["k.rs"],
            2,
            &["error: kernel `k` has no body; it is not analyzed", "[k.rs:3:8]"],
        ),
        case(
            "macros everywhere",
            &[("k.rs", b"macro_rules! m { ($($t:tt)*) => { $($t)* } }\nm! { fn helper() {} }\n#[kernel]\npub unsafe fn k(a: &[f32], out: *mut f32) {\n    let i = m!(thread::index_1d()) as usize;\n    m!{ *out.add(i) = a[i]; }\n    let v = a[m![i]];\n}\n")],
            &["k.rs"],
            0,
            // Each `macro_rules!` call is expanded: its load and store and the load indexed
            // through one are analyzed, and none is left as a note.
            &["1 kernel in 1 file, 3 global accesses", "0 notes"],
        ),
        case(
            "numbers beyond every integer type",
            &[("k.rs", b"#[kernel]\npub unsafe fn k(a: &[f32]) {\n    let i = thread::index_1d() as usize;\n    let v = a[i * 18446744073709551615 + 340282366920938463463374607431768211455];\n}\n")],
            &["k.rs"],
            0,
            &["note[KL006]", "[k.rs:4:15]"],
        ),
        case(
            "shifts past the width",
            &[("k.rs", b"#[kernel]\npub unsafe fn k(a: &[f32]) {\n    let i = thread::index_1d() as usize;\n    let v = a[(i << 200) >> 999];\n}\n")],
            &["k.rs"],
            0,
            &["note[KL006]", "[k.rs:4:15]"],
        ),
        case(
            "launch hint out of range",
            &[("k.rs", format!("// kernel-lint: block(99999999999999999999, 1)\n{KERNEL}").as_bytes())],
            &["k.rs"],
            0,
            &["warning: k.rs:1:1: ignored launch hint: block extent 99999999999999999999 is out of range (1 to 1024)"],
        ),
        case(
            "array type longer than memory",
            &[("k.rs", b"struct S { x: [f32; 99999999999999999999] }\n#[kernel]\npub unsafe fn k(a: &[S]) {\n    let i = thread::index_1d() as usize;\n    let v = a[i].x[0];\n}\n")],
            &["k.rs"],
            0,
            &["note[KL006]", "[k.rs:5:15]"],
        ),
        // Files that cannot be read.
        case("missing file", &[], &["nope.rs"], 2, &["error: nope.rs: no such file or directory"]),
        // Workspaces and module trees gone wrong.
        case(
            "module without a file",
            &[("Cargo.toml", PACKAGE.as_bytes()), ("src/lib.rs", b"mod missing;\n")],
            &[],
            0,
            &["warning: src/lib.rs:1:1: no file for module `missing`: looked for src/missing.rs and src/missing/mod.rs"],
        ),
        case(
            "module that includes its own file",
            &[("Cargo.toml", PACKAGE.as_bytes()), ("src/lib.rs", b"#[path = \"lib.rs\"]\nmod again;\n")],
            &[],
            0,
            &["warning: src/lib.rs:2:1: module `again` leads back to src/lib.rs, which is already being read; not followed again"],
        ),
        case(
            "broken Cargo.toml",
            &[("Cargo.toml", b"[package\nname = \"c\"\n"), ("src/lib.rs", k)],
            &[],
            2,
            &["error: cannot read the cargo workspace: ", "Cargo.toml: invalid TOML: invalid table header"],
        ),
        case(
            "broken Cargo.toml, file given",
            &[("Cargo.toml", b"[package\nname = \"c\"\n"), ("src/lib.rs", k)],
            &["src/lib.rs"],
            0,
            &["warning: Cargo.toml: invalid TOML: invalid table header", "1 kernel in 1 file"],
        ),
        case(
            "Cargo.toml package without a name",
            &[("Cargo.toml", b"[package]\nname = 5\nversion = \"0.1.0\"\n"), ("src/lib.rs", k)],
            &[],
            2,
            &["Cargo.toml: `[package]` has no `name`"],
        ),
        case(
            "workspace member missing",
            &[("Cargo.toml", b"[workspace]\nmembers = [\"gone\"]\n")],
            &[],
            0,
            &["warning: Cargo.toml: workspace member `gone` has no Cargo.toml"],
        ),
        // Configuration with wrong types.
        case(
            "block given as a string",
            &[("kernel-lint.toml", b"[[kernel]]\nname = \"k\"\nblock = \"big\"\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: kernel-lint.toml:3:9: invalid type: string \"big\", expected a sequence"],
        ),
        case(
            "unknown lint level",
            &[("kernel-lint.toml", b"[lints]\nKL005 = \"loud\"\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: kernel-lint.toml:2:9: expected `allow`, `note`, `warn` or `deny`, found `loud`"],
        ),
        case(
            "configuration that is not TOML",
            &[("kernel-lint.toml", b"[[kernel]\nname = \"k\"\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: kernel-lint.toml:1:9: invalid table header"],
        ),
        case(
            "configuration that is not UTF-8",
            &[("kernel-lint.toml", b"# caf\xe9\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: cannot read configuration `kernel-lint.toml`: stream did not contain valid UTF-8"],
        ),
        case(
            "block extent zero",
            &[("kernel-lint.toml", b"[[kernel]]\nname = \"k\"\nblock = [0, 1, 1]\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: kernel-lint.toml:3:9: block extent 0 is out of range (1 to 1024)"],
        ),
        case(
            "threshold given as a string",
            &[("kernel-lint.toml", b"[thresholds]\nmin-efficiency = \"half\"\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: kernel-lint.toml:2:18: invalid type: string \"half\", expected f64"],
        ),
        case(
            "parameter given as a string",
            &[("kernel-lint.toml", b"[[kernel]]\nname = \"k\"\n[kernel.params]\nn = \"many\"\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: kernel-lint.toml:4:5: invalid type: string \"many\", expected an integer or a float"],
        ),
        case(
            "Cargo.toml metadata of the wrong type",
            &[
                ("Cargo.toml", format!("{PACKAGE}[package.metadata.kernel-lint]\nlints = 3\n").as_bytes()),
                ("src/lib.rs", k),
            ],
            &[],
            2,
            &["error: Cargo.toml:6:9: invalid type: integer `3`, expected a map"],
        ),
        // One bad file never stops the run.
        case(
            "a good file and a bad one",
            &[("good.rs", k), ("bad.rs", b"fn k() {\n    let x = a[0] +;\n}\n")],
            &["good.rs", "bad.rs"],
            2,
            &["[bad.rs:2:19]", "1 kernel in 1 file, 1 global access", "1 error"],
        ),
        // The limits.
        case(
            "over the size limit",
            &[("k.rs", k), ("small.rs", b"#[kernel]\npub unsafe fn s() {}\n")],
            &["--max-file-size", "99", "k.rs", "small.rs"],
            2,
            &[
                "error: k.rs: file is 100 bytes, over the 99 bytes limit (`--max-file-size` raises it)",
                "1 kernel in 1 file",
            ],
        ),
        case(
            "time budget spent",
            &[("k.rs", k), ("good.rs", k)],
            &["--file-time-budget", "0ms", "k.rs"],
            0,
            &[
                "note[KL007]: the analysis of `fn k` stopped after 0 ms, the file's time budget (`--file-time-budget`); its accesses have no figures",
                "[k.rs:2:15]",
                "0 warnings, 1 note, 0 errors",
            ],
        ),
        case(
            "time budget spent in the first of two kernels",
            &[("k.rs", format!("{KERNEL}{}", KERNEL.replace("fn k(", "fn later(")).as_bytes())],
            &["--file-time-budget", "0ms", "k.rs"],
            0,
            &[
                "note[KL007]: the analysis of `fn k` stopped after 0 ms, the file's time budget",
                "note[KL007]: `fn later` is not analyzed: the file's time budget (0 ms, `--file-time-budget`) ran out before it",
                "2 kernels in 1 file, 0 global accesses; 0 warnings, 2 notes, 0 errors",
            ],
        ),
        case(
            "size limit that does not parse",
            &[("k.rs", k)],
            &["--max-file-size", "10 parsecs", "k.rs"],
            2,
            &["invalid value '10 parsecs' for '--max-file-size <SIZE>': unknown unit `parsecs`"],
        ),
        // The limits in the configuration, the command line winning.
        case(
            "size limit of the configuration",
            &[("kernel-lint.toml", b"max-file-size = \"99\"\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: k.rs: file is 100 bytes, over the 99 bytes limit (`--max-file-size` raises it)"],
        ),
        case(
            "size limit of the command line over the configuration's",
            &[("kernel-lint.toml", b"max-file-size = \"99\"\njobs = 2\n"), ("k.rs", k)],
            &["--max-file-size", "1MB", "k.rs"],
            0,
            &["1 kernel in 1 file"],
        ),
        case(
            "time budget of the configuration",
            &[("kernel-lint.toml", b"file-time-budget = \"0ms\"\n"), ("k.rs", k)],
            &["k.rs"],
            0,
            &["note[KL007]: the analysis of `fn k` stopped after 0 ms, the file's time budget (`--file-time-budget`)"],
        ),
        case(
            "jobs of the wrong type",
            &[("kernel-lint.toml", b"jobs = \"four\"\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: kernel-lint.toml:1:8: invalid type: string \"four\", expected i64"],
        ),
        case(
            "no jobs",
            &[("kernel-lint.toml", b"jobs = 0\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: kernel-lint.toml:1:8: `jobs` is 0, out of range (1 to 65535)"],
        ),
        case(
            "size limit of the wrong type",
            &[("kernel-lint.toml", b"max-file-size = 5\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: kernel-lint.toml:1:17: invalid type: integer `5`, expected a string"],
        ),
        case(
            "time budget that does not parse",
            &[("kernel-lint.toml", b"file-time-budget = \"soon\"\n"), ("k.rs", k)],
            &["k.rs"],
            2,
            &["error: kernel-lint.toml:1:20: `soon` is not a time (`10s`, `500ms`, `none`)"],
        ),
        case(
            "cache folder of the wrong type",
            &[("Cargo.toml", format!("{PACKAGE}[package.metadata.kernel-lint]\ncache-dir = [1]\n").as_bytes()), ("src/lib.rs", k)],
            &[],
            2,
            &["error: Cargo.toml:6:13: invalid type: sequence, expected a string"],
        ),
    ];
    // Nesting 10,000 and 100,000 deep, in every bracket and in prefix operators.
    for (name, open, close, depth, expect) in [
        (
            "10,000 parentheses",
            "(",
            ")",
            10_000,
            "3:140: brackets nested deeper than 128 levels",
        ),
        (
            "100,000 brackets",
            "[",
            "]",
            100_000,
            "3:140: brackets nested deeper than 128 levels",
        ),
        (
            "10,000 blocks",
            "{",
            "}",
            10_000,
            "3:140: brackets nested deeper than 128 levels",
        ),
        (
            "50,000 negations",
            "-",
            "",
            50_000,
            "3:141: more than 128 prefix operators in a row",
        ),
    ] {
        cases.push(Case {
            name,
            files: vec![("deep.rs", nested(open, "1", close, depth))],
            args: &["deep.rs"],
            code: 2,
            expect: vec![format!("error: deep.rs:{expect}; `fn k` is not analyzed")],
        });
    }
    let modules = format!("{}fn f() {{}}{}\n", "mod a { ".repeat(10_000), " }".repeat(10_000));
    cases.push(Case {
        name: "10,000 nested modules in a crate",
        files: vec![("Cargo.toml", PACKAGE.into()), ("src/lib.rs", modules.into_bytes())],
        args: &[],
        code: 2,
        expect: vec![
            "error: src/lib.rs:1:1031: brackets nested deeper than 128 levels; `mod a` is not analyzed".into(),
        ],
    });
    let deep_crate = format!(
        "mod k;\n{}",
        String::from_utf8(nested("[", "1", "]", 100_000)).unwrap_or_default()
    );
    cases.push(Case {
        name: "100,000 brackets in a crate root",
        files: vec![
            ("Cargo.toml", PACKAGE.into()),
            ("src/lib.rs", deep_crate.into_bytes()),
            ("src/k.rs", KERNEL.into()),
        ],
        args: &[],
        code: 2,
        expect: vec![
            "error: src/lib.rs:4:140: brackets nested deeper than 128 levels; `fn k` is not analyzed".into(),
            "1 kernel in 2 files".into(),
        ],
    });
    cases
}

fn run(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(BIN)
        .current_dir(dir)
        .args(["--color", "never"])
        .args(args)
        .output()
        .expect("run cargo-kernel-lint");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

fn write(dir: &Path, files: &[(&str, Vec<u8>)]) {
    for (path, content) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, content).expect("write");
    }
}

fn check(case: &Case, dir: &Path) -> Vec<String> {
    let (code, text) = run(dir, case.args);
    let mut failures = Vec::new();
    if code != case.code {
        failures.push(format!("exit code {code}, expected {}", case.code));
    }
    for expected in &case.expect {
        if !text.contains(expected) {
            failures.push(format!("missing `{expected}`"));
        }
    }
    for forbidden in ["panicked", "internal error", "stack overflow"] {
        if text.contains(forbidden) {
            failures.push(format!("says `{forbidden}`"));
        }
    }
    if failures.is_empty() {
        Vec::new()
    } else {
        let tail: String = text
            .chars()
            .rev()
            .take(1500)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        vec![format!(
            "{}: {}\n--- output (end) ---\n{tail}",
            case.name,
            failures.join("; ")
        )]
    }
}

#[test]
fn every_malformed_input_gets_a_located_message_and_its_exit_code() {
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), &case.files);
        failures.extend(check(case, dir.path()));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_file_over_50_mb_is_refused_and_the_rest_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let huge = format!(
        "{KERNEL}{}",
        "// padding padding padding padding padding padding padding\n".repeat(900_000)
    );
    let mut huge = huge.into_bytes();
    huge.resize(50 << 20, b'\n');
    write(dir.path(), &[("huge.rs", huge), ("good.rs", KERNEL.into())]);
    let (code, text) = run(dir.path(), &["huge.rs", "good.rs"]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("error: huge.rs: file is 52.4 MB, over the 10 MB limit (`--max-file-size` raises it)"),
        "{text}"
    );
    assert!(text.contains("1 kernel in 1 file, 1 global access"), "{text}");
    // Raised, the same file is analyzed.
    let (code, text) = run(dir.path(), &["--max-file-size", "60MB", "huge.rs"]);
    assert_eq!((code, text.contains("1 kernel in 1 file")), (0, true), "{text}");
}

#[cfg(unix)]
#[test]
fn symlink_loops_fifos_and_unreadable_files_are_reported_by_path() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    write(d, &[("good.rs", KERNEL.into()), ("locked.rs", KERNEL.into())]);
    symlink("b.rs", d.join("a.rs")).expect("symlink");
    symlink("a.rs", d.join("b.rs")).expect("symlink");
    std::fs::create_dir(d.join("folder")).expect("mkdir");
    symlink("..", d.join("folder/up")).expect("symlink");
    let fifo = Command::new("mkfifo").arg(d.join("pipe.rs")).status();
    let (code, text) = run(d, &["a.rs", "good.rs", "folder"]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("error: a.rs: "), "{text}");
    assert!(text.contains("1 kernel in 1 file"), "{text}");
    if fifo.is_ok_and(|s| s.success()) {
        let (code, text) = run(d, &["pipe.rs", "good.rs"]);
        assert_eq!(code, 2, "{text}");
        assert!(text.contains("error: pipe.rs: not a regular file"), "{text}");
        assert!(text.contains("1 kernel in 1 file"), "{text}");
    }
    std::fs::set_permissions(d.join("locked.rs"), std::fs::Permissions::from_mode(0o000)).expect("chmod");
    // Permissions do not bind a privileged user: then there is nothing to test.
    if std::fs::read(d.join("locked.rs")).is_err() {
        let (code, text) = run(d, &["locked.rs", "good.rs"]);
        assert_eq!(code, 2, "{text}");
        assert!(text.contains("error: locked.rs: permission denied"), "{text}");
        assert!(text.contains("1 kernel in 1 file"), "{text}");
    }
}
