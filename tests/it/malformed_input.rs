//! Bad input gets a clear message with a location, never a panic or an abort.

use kernel_lint_analyzer::{analyze_source, FileError, FileReport, LaunchPlan, SourceFile};
use proptest::prelude::*;

fn analyze(text: &str) -> Result<FileReport, FileError> {
    analyze_source(&SourceFile::new("bad.rs", text), &LaunchPlan::default())
}

#[test]
fn syntax_error_points_at_the_token() {
    let err = analyze("#[kernel]\npub unsafe fn k(a: &[f32]) {\n    let x = a[0] +;\n}\n").unwrap_err();
    let span = err.span.expect("located");
    assert_eq!((span.line, span.column), (3, 19));
    assert_eq!(err.to_string(), "bad.rs:3:19: syntax error: expected an expression");
}

#[test]
fn unbalanced_delimiters_are_reported() {
    let err = analyze("fn k() {\n    let x = (1;\n}\n").unwrap_err();
    assert!(err.message.starts_with("cannot tokenize"), "{}", err.message);
    assert!(err.span.is_some());
}

/// The located form of an error: `(line, column, message)`.
fn located(err: &FileError) -> (usize, usize, &str) {
    let span = err.span.expect("located");
    (span.line, span.column, err.message.as_str())
}

/// A kernel with one coalesced global load, `a[i]`.
fn good_kernel(name: &str) -> String {
    format!("#[kernel]\npub unsafe fn {name}(a: &[f32]) {{\n    let i = thread::index_1d() as usize;\n    let v = a[i];\n}}\n")
}

fn kernel_names(report: &FileReport) -> Vec<&str> {
    report.kernels.iter().map(|k| k.name.as_str()).collect()
}

#[test]
fn unclosed_bracket_points_at_the_bracket() {
    let err = analyze("#[kernel]\npub unsafe fn k(a: &[f32]) {\n    let v = a[i\n").unwrap_err();
    assert_eq!(located(&err), (3, 14, "cannot tokenize: unclosed `[`"));
    assert_eq!(err.to_string(), "bad.rs:3:14: cannot tokenize: unclosed `[`");
}

#[test]
fn mismatched_closing_delimiter_names_the_open_one() {
    let err = analyze("fn k(a: &[f32]) {\n    let x = f(a[0);\n}\n").unwrap_err();
    assert_eq!(
        located(&err),
        (
            2,
            18,
            "cannot tokenize: mismatched closing `)`; `[` opened at 2:16 is still open"
        )
    );
    let err = analyze("fn k(a: &[f32]) {\n    let x = a[0;\n}\n").unwrap_err();
    assert_eq!(
        located(&err),
        (
            3,
            1,
            "cannot tokenize: mismatched closing `}`; `[` opened at 2:14 is still open"
        )
    );
    let err = analyze("fn k() {}\n}\nfn g() {}\n").unwrap_err();
    assert_eq!(located(&err), (2, 1, "cannot tokenize: unexpected closing `}`"));
}

#[test]
fn unterminated_string_points_at_its_start() {
    let err = analyze("fn k() {\n    let s = \"abc;\n}\n\nfn g() {}\n").unwrap_err();
    assert_eq!(located(&err), (2, 13, "cannot tokenize: unterminated string literal"));
    let err = analyze("fn k() {\n    let s = r#\"abc\";\n}\n").unwrap_err();
    assert_eq!(
        located(&err),
        (2, 13, "cannot tokenize: unterminated raw string literal")
    );
}

#[test]
fn unterminated_block_comment_points_at_its_opening() {
    let err = analyze("fn k() {}\n/* outer /* inner */ still open\nfn g() {}\n").unwrap_err();
    assert_eq!(located(&err), (2, 1, "cannot tokenize: unterminated block comment"));
}

#[test]
fn lifetimes_and_character_literals_do_not_confuse_the_scan() {
    let src = "fn f<'a>(s: &'a str) -> char {\n    let c = '}'; let q = '\\''; let r = r#\"}\"#; c\n}\n\
               fn g() {\n    let t = ('{', \"(\", b'[';\n}\n";
    let err = analyze(src).unwrap_err();
    assert_eq!(
        located(&err),
        (
            6,
            1,
            "cannot tokenize: mismatched closing `}`; `(` opened at 5:13 is still open"
        )
    );
}

#[test]
fn stray_characters_are_named() {
    let err = analyze("fn k() {\n    let x = \u{201c}a\u{201d};\n}\n").unwrap_err();
    assert_eq!(
        located(&err),
        (2, 13, "cannot tokenize: unexpected character `\u{201c}` (U+201C)")
    );
}

#[test]
fn many_small_functions_are_all_analyzed() {
    let mut src = String::new();
    let mut expected = Vec::new();
    for n in 0..1_100 {
        if n % 10 == 0 {
            expected.push(format!("k{n}"));
            src.push_str(&good_kernel(&format!("k{n}")));
        } else {
            src.push_str(&format!("fn f{n}(x: usize) -> usize {{ x + {n} }}\n"));
        }
    }
    let report = analyze(&src).expect("analyzed");
    assert_eq!(kernel_names(&report), expected);
    assert!(report.kernels.iter().all(|k| k.accesses.len() == 1));
    assert_eq!(report.errors, []);

    let nested = format!("mod helpers {{\n{src}}}\n");
    let report = analyze(&nested).expect("analyzed");
    assert_eq!(report.errors, []);
}

#[test]
fn many_structs_are_all_analyzed() {
    let mut src = String::new();
    for n in 0..600 {
        src.push_str(&format!(
            "#[derive(Clone, Copy)]\n#[repr(C)]\npub struct S{n} {{ pub x: f32, pub y: f32 }}\n"
        ));
    }
    src.push_str(
        "#[kernel]\npub unsafe fn k(a: &[S599], out: &mut [f32]) {\n    let i = thread::index_1d() as usize;\n    \
         out[i] = a[i].y;\n}\n",
    );
    let report = analyze(&src).expect("analyzed");
    assert_eq!(kernel_names(&report), ["k"]);
    let field = report.kernels[0]
        .accesses
        .iter()
        .find_map(|a| a.field_of.clone())
        .expect("a field access");
    assert_eq!((field.type_name.as_str(), field.size), ("S599", 8));
    assert_eq!(report.errors, []);
}

#[test]
fn many_kernels_are_all_found() {
    let names: Vec<String> = (0..520).map(|n| format!("k{n}")).collect();
    let src: String = names.iter().map(|name| good_kernel(name)).collect();
    let report = analyze(&src).expect("analyzed");
    assert_eq!(kernel_names(&report), names);
    for kernel in &report.kernels {
        let access = &kernel.accesses[0];
        assert_eq!(
            access.prediction.as_ref().and_then(|p| p.sectors_per_request),
            Some(4.0)
        );
    }
}

#[test]
fn an_item_beyond_the_limits_costs_only_itself() {
    let cases = [
        (
            format!("    let x = {}1{};\n", "(".repeat(5_000), ")".repeat(5_000)),
            (
                8,
                12 + 128,
                "brackets nested deeper than 128 levels; `fn bad` is not analyzed",
            ),
        ),
        (
            format!("    let x = a[0]{};\n", " + a[0]".repeat(50_000)),
            (8, 9562, "a statement longer than 4096 tokens; `fn bad` is not analyzed"),
        ),
        (
            format!("    let x = {}1;\n", "!".repeat(50_000)),
            (
                8,
                13 + 128,
                "more than 128 prefix operators in a row; `fn bad` is not analyzed",
            ),
        ),
    ];
    for (body, expected) in cases {
        let src = format!(
            "{}#[kernel]\npub unsafe fn bad(a: &[f32]) {{\n{body}}}\n{}",
            good_kernel("before"),
            good_kernel("after")
        );
        let report = analyze(&src).expect("the other kernels are analyzed");
        assert_eq!(kernel_names(&report), ["before", "after"]);
        let access = &report.kernels[1].accesses[0];
        assert_eq!(
            (access.span.line, access.span.column, access.array.as_str()),
            (13, 13, "a")
        );
        assert_eq!(
            access.prediction.as_ref().and_then(|p| p.sectors_per_request),
            Some(4.0)
        );
        let errors: Vec<_> = report.errors.iter().map(located).collect();
        assert_eq!(errors, [expected]);
        assert_eq!(report.errors[0].path, "bad.rs");
    }
}

#[test]
fn a_syntax_error_costs_only_its_item() {
    let src = format!(
        "use cuda_std::*;\n\nfn helper(x: usize) -> usize {{\n    let y = x +;\n    y\n}}\n\n{}",
        good_kernel("good")
    );
    let report = analyze(&src).expect("the kernel is analyzed");
    assert_eq!(kernel_names(&report), ["good"]);
    assert_eq!(report.kernels[0].accesses.len(), 1);
    let errors: Vec<_> = report.errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(errors, ["bad.rs:4:16: syntax error: expected an expression"]);

    let unfinished = format!("{}fn tail() ->\n", good_kernel("good"));
    let report = analyze(&unfinished).expect("the kernel is analyzed");
    assert_eq!(kernel_names(&report), ["good"]);
    let (line, column, message) = located(&report.errors[0]);
    assert_eq!((line, column), (6, 12));
    assert!(
        message.starts_with("syntax error: unexpected end of input"),
        "{message}"
    );
}

#[test]
fn a_left_out_item_fails_the_run_and_the_rest_is_still_reported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mixed.rs");
    let src = format!(
        "#[kernel]\npub unsafe fn bad(a: &[f32]) {{\n    let x = {}1{};\n}}\n{}",
        "[".repeat(150),
        "]".repeat(150),
        good_kernel("good")
    );
    std::fs::write(&path, src).expect("write");
    let bin = env!("CARGO_BIN_EXE_cargo-kernel-lint");
    let human = std::process::Command::new(bin)
        .current_dir(dir.path())
        .args(["--color", "never", "mixed.rs"])
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&human.stdout);
    assert_eq!(human.status.code(), Some(2), "{stdout}");
    assert!(
        stdout.contains("error: brackets nested deeper than 128 levels; `fn bad` is not analyzed"),
        "{stdout}"
    );
    assert!(stdout.contains("1 kernel in 1 file"), "{stdout}");
    assert!(stdout.contains("1 error"), "{stdout}");

    let json = std::process::Command::new(bin)
        .current_dir(dir.path())
        .args(["accesses", "--format", "json", "mixed.rs"])
        .output()
        .expect("run");
    assert_eq!(json.status.code(), Some(2));
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(doc["kernels"][0]["name"], "good");
    let error = &doc["errors"][0];
    assert_eq!((error["line"].clone(), error["column"].clone()), (3.into(), 140.into()));
}

#[test]
fn non_utf8_bytes_are_located() {
    let err = SourceFile::from_bytes("bin.rs", b"fn k() {}\n// caf\xe9\n".to_vec()).unwrap_err();
    assert_eq!(err.message, "file is not valid UTF-8 (invalid byte 0xe9)");
    let span = err.span.expect("located");
    assert_eq!((span.line, span.column), (2, 7));
}

#[test]
fn deep_nesting_is_refused_before_parsing() {
    let parens = format!(
        "#[kernel]\npub unsafe fn k() {{ let x = {}1{}; }}",
        "(".repeat(20_000),
        ")".repeat(20_000)
    );
    let err = analyze(&parens).unwrap_err();
    assert_eq!(err.span.map(|s| s.line), Some(2));
    assert!(err.message.contains("nested deeper than 128 levels"), "{}", err.message);

    let blocks = format!(
        "#[kernel]\npub unsafe fn k() {}{}",
        "{".repeat(5_000),
        "}".repeat(5_000)
    );
    assert!(analyze(&blocks).unwrap_err().message.contains("nested deeper"));

    let unary = format!("#[kernel]\npub unsafe fn k() {{ let x = {}1; }}", "!".repeat(50_000));
    assert!(analyze(&unary).unwrap_err().message.contains("prefix operators"));

    let chain = format!(
        "#[kernel]\npub unsafe fn k(a: &[f32]) {{ let x = a[0]{}; }}",
        " + a[0]".repeat(50_000)
    );
    assert!(analyze(&chain).unwrap_err().message.contains("longer than"));
}

#[test]
fn nesting_within_the_limits_is_analyzed() {
    let src = format!(
        "#[kernel]\npub unsafe fn k(a: &[f32]) {{ let i = {}thread::index_1d() as usize{}; let v = a[i]; }}",
        "(".repeat(100),
        ")".repeat(100)
    );
    let report = analyze(&src).expect("analyzed");
    assert_eq!(
        report.kernels[0].accesses[0]
            .prediction
            .as_ref()
            .unwrap()
            .sectors_per_request,
        Some(4.0)
    );
}

#[test]
fn unexpanded_macros_and_recursion_are_reported_not_guessed() {
    let src = "fn r(i: usize) -> usize { if i == 0 { 0 } else { r(i - 1) } }\n\
               #[kernel]\npub unsafe fn k(a: &[f32], out: *mut f32) {\n\
               let i = thread::index_1d() as usize;\n\
               my_macro!(out, a[i]);\n\
               *out.add(i) = a[r(i)];\n}\n";
    let report = analyze(src).expect("analyzed");
    let kernel = &report.kernels[0];
    let messages: Vec<_> = kernel
        .unsupported
        .iter()
        .map(|u| (u.span.line, u.message.as_str()))
        .collect();
    assert_eq!(
        messages,
        [
            (
                5,
                "macro `my_macro!` is not expanded: accesses inside it are not analyzed"
            ),
            (6, "`r` is recursive; its accesses are not analyzed"),
        ]
    );
    let gathered = kernel
        .accesses
        .iter()
        .find(|a| a.index == "r(i)")
        .expect("the access is still listed");
    assert_eq!(
        gathered.prediction.as_ref().unwrap().class,
        kernel_lint_analyzer::AccessClass::Unknown
    );
}

#[test]
fn helper_functions_are_followed() {
    let src = "fn at(x: usize, y: usize, w: usize) -> usize { y * w + x }\n\
               #[kernel]\npub unsafe fn k(a: &[f32]) {\n\
               let i = thread::index_1d() as usize;\n\
               let v = a[at(0, i, 3)];\n}\n";
    let report = analyze(src).expect("analyzed");
    let p = report.kernels[0].accesses[0].prediction.clone().unwrap();
    assert_eq!((p.sectors_per_request, p.stride_bytes), (Some(12.0), Some(12)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Token soup built from kernel-like pieces never makes the analysis fail internally.
    #[test]
    fn arbitrary_token_soup_never_panics(pieces in prop::collection::vec(prop::sample::select(vec![
        "#[kernel]", "pub", "unsafe", "fn", "k", "(", ")", "{", "}", "[", "]", "a", ":", "&", "*", "mut", "f32",
        "let", "i", "=", "thread::index_1d()", "as", "usize", ";", "+", "-", "/", "%", "<<", ">>", "^", "&&", "if",
        "<", "0", "1", "32", "while", "for", "in", "..", "return", ".add(", ".x", "shared_array![f32; 4]", ",",
        "static", "#[address_space(shared)]", "match", "=>", "_", "loop", "break", "struct", "S", "u8", "\n",
    ]), 0..80)) {
        let text = format!("#[kernel]\npub unsafe fn k(a: &[f32], out: *mut f32) {{ {} }}", pieces.join(" "));
        if let Err(err) = analyze(&text) {
            prop_assert!(!err.message.starts_with("internal error"), "{}", err.message);
        }
    }
}

const FIXTURES: &[&str] = &[
    include_str!("../../fixtures/seeds/offset.rs"),
    include_str!("../../fixtures/seeds/aos_soa.rs"),
    include_str!("../../fixtures/seeds/transpose.rs"),
    include_str!("../../fixtures/seeds/matmul.rs"),
    include_str!("../../fixtures/patterns/hard_cases.rs"),
    include_str!("../../fixtures/patterns/gather.rs"),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Real kernels with a piece cut out and another piece pasted in elsewhere: whatever the
    /// result, the analysis answers with a report or a located error, never an internal failure.
    #[test]
    fn mutated_fixtures_never_fail_internally(
        which in 0..FIXTURES.len(),
        cut in (0.0f64..1.0, 0usize..40),
        paste in (0.0f64..1.0, 0.0f64..1.0, 0usize..60),
    ) {
        let chars: Vec<char> = FIXTURES[which].chars().collect();
        let at = |f: f64| ((chars.len() as f64 * f) as usize).min(chars.len());
        let (start, len) = (at(cut.0), cut.1);
        let mut mutated: Vec<char> = chars[..start].to_vec();
        mutated.extend_from_slice(&chars[(start + len).min(chars.len())..]);
        let from = at(paste.0).min(chars.len());
        let piece: Vec<char> = chars[from..(from + paste.2).min(chars.len())].to_vec();
        let into = ((mutated.len() as f64 * paste.1) as usize).min(mutated.len());
        mutated.splice(into..into, piece);
        let text: String = mutated.into_iter().collect();
        match analyze(&text) {
            Err(err) => {
                prop_assert!(!err.message.starts_with("internal error"), "{}", err.message);
                prop_assert!(err.span.is_some(), "{}", err.message);
            }
            Ok(report) => {
                for err in &report.errors {
                    prop_assert!(err.span.is_some(), "{}", err.message);
                }
            }
        }
    }
}
