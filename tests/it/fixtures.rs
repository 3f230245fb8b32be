//! Every fixture kernel against the expectations written beside its lines:
//! `//~ KL001 sectors=32` means that line has a KL001 finding and a global access predicted at
//! 32 sectors per request, `//~ KL009 wavefronts=32` a shared access predicted at 32
//! wavefronts per request; lines without `//~` have no finding at all.

use kernel_lint_analyzer::MemorySpace;
use kernel_lint_analyzer::{analyze_source, FileReport, LaunchPlan, SourceFile};
use kernel_lint_lints::{check_file, Level, LintLevels, LINTS};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone)]
struct Expectation {
    line: usize,
    code: String,
}

/// The folders of fixtures with analyzed kernels, each with inline expectations.
const FOLDERS: [&str; 6] = ["seeds", "patterns", "idioms", "dialects", "shared", "frontend"];

fn fixture_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut files = Vec::new();
    for dir in FOLDERS {
        for entry in std::fs::read_dir(root.join(dir)).expect("fixture folder") {
            let path = entry.expect("entry").path();
            if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The `//~ CODE [sectors=N] [wavefronts=N]` annotations of a file: (line, code), (line,
/// sectors) and (line, wavefronts).
type Figures = Vec<(usize, f64)>;

fn expectations(text: &str) -> (BTreeSet<Expectation>, Figures, Figures) {
    let mut codes = BTreeSet::new();
    let mut sectors = Vec::new();
    let mut wavefronts = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some((_, annotation)) = line.split_once("//~") else {
            continue;
        };
        for word in annotation.split_whitespace() {
            if word.starts_with("KL") {
                codes.insert(Expectation {
                    line: i + 1,
                    code: word.to_string(),
                });
            } else if let Some(n) = word.strip_prefix("sectors=") {
                sectors.push((i + 1, n.parse().expect("sectors=N")));
            } else if let Some(n) = word.strip_prefix("wavefronts=") {
                wavefronts.push((i + 1, n.parse().expect("wavefronts=N")));
            }
        }
    }
    (codes, sectors, wavefronts)
}

fn analyze(path: &Path) -> (String, FileReport) {
    let text = std::fs::read_to_string(path).expect("fixture");
    let file = SourceFile::new(path.display().to_string(), text.clone());
    (
        text,
        analyze_source(&file, &LaunchPlan::default()).expect("fixture parses"),
    )
}

#[test]
fn fixtures_match_their_inline_expectations() {
    let mut levels = LintLevels::default();
    for lint in LINTS {
        levels.set(lint.code, Level::Warn).expect("known lint");
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for path in fixture_files() {
        let (text, report) = analyze(&path);
        let (expected, expected_sectors, expected_wavefronts) = expectations(&text);
        let diagnostics = check_file(&report, &levels);
        for d in &diagnostics {
            // Uniform message style: lowercase first word, no trailing period.
            let first = d.message.chars().next().unwrap_or(' ');
            if !(first.is_lowercase() || first == '`') || d.message.ends_with('.') {
                failures.push(format!("{}: message style: {:?}", d.code, d.message));
            }
        }
        let found: BTreeSet<Expectation> = diagnostics
            .into_iter()
            .map(|d| Expectation {
                line: d.primary.span.line,
                code: d.code.to_string(),
            })
            .collect();
        for missing in expected.difference(&found) {
            failures.push(format!(
                "{}:{}: expected {} not reported",
                path.display(),
                missing.line,
                missing.code
            ));
        }
        for extra in found.difference(&expected) {
            failures.push(format!("{}:{}: unexpected {}", path.display(), extra.line, extra.code));
        }
        for (line, sectors) in expected_sectors {
            let predicted: Vec<Option<f64>> = report
                .kernels
                .iter()
                .flat_map(|k| &k.accesses)
                .filter(|a| a.space == MemorySpace::Global && (a.span.line == line || a.index_span.line == line))
                .map(|a| a.prediction.as_ref().and_then(|p| p.sectors_per_request))
                .collect();
            if !predicted.contains(&Some(sectors)) {
                failures.push(format!(
                    "{}:{line}: expected sectors={sectors}, predicted {predicted:?}",
                    path.display()
                ));
            }
        }
        for (line, wavefronts) in expected_wavefronts {
            let predicted: Vec<Option<f64>> = report
                .kernels
                .iter()
                .flat_map(|k| &k.accesses)
                .filter(|a| a.space == MemorySpace::Shared && (a.span.line == line || a.index_span.line == line))
                .map(|a| a.banks.as_ref().and_then(|b| b.wavefronts_per_request))
                .collect();
            if !predicted.contains(&Some(wavefronts)) {
                failures.push(format!(
                    "{}:{line}: expected wavefronts={wavefronts}, predicted {predicted:?}",
                    path.display()
                ));
            }
            checked += 1;
        }
        checked += expected.len();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 20, "only {checked} expectations found");
}

#[test]
fn every_fixture_kernel_is_found_and_fully_analyzed() {
    let mut kernels = 0;
    let mut dialect_kernels = 0;
    for path in fixture_files() {
        let (_, report) = analyze(&path);
        assert!(
            report.unsupported.is_empty(),
            "{}: {:?}",
            path.display(),
            report.unsupported
        );
        for kernel in &report.kernels {
            assert!(
                kernel.unsupported.is_empty(),
                "{} {}: {:?}",
                path.display(),
                kernel.name,
                kernel.unsupported
            );
            assert!(
                !kernel.accesses.is_empty(),
                "{} {}: no accesses",
                path.display(),
                kernel.name
            );
        }
        if path.parent().is_some_and(|p| p.ends_with("dialects")) {
            dialect_kernels += report.kernels.len();
        } else {
            kernels += report.kernels.len();
        }
    }
    assert_eq!(kernels, 85);
    assert_eq!(dialect_kernels, 25);
}
