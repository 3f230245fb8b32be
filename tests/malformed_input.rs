//! Bad input gets a clear message with a location, never a panic or an abort.

use kernel_lint_analyzer::{analyze_source, LaunchPlan, SourceFile};
use proptest::prelude::*;

fn analyze(text: &str) -> Result<kernel_lint_analyzer::FileReport, kernel_lint_analyzer::FileError> {
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
    include_str!("../fixtures/seeds/offset.rs"),
    include_str!("../fixtures/seeds/aos_soa.rs"),
    include_str!("../fixtures/seeds/transpose.rs"),
    include_str!("../fixtures/seeds/matmul.rs"),
    include_str!("../fixtures/patterns/hard_cases.rs"),
    include_str!("../fixtures/patterns/gather.rs"),
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
        if let Err(err) = analyze(&text) {
            prop_assert!(!err.message.starts_with("internal error"), "{}", err.message);
            prop_assert!(err.span.is_some(), "{}", err.message);
        }
    }
}
