//! The lints of kernel-lint: one file per lint under [`rules`], each declared with its code,
//! name, default level and user documentation, listed once in [`rules`] as [`LINTS`].

pub mod diagnostic;
pub mod impact;
pub mod rules;
pub mod suppression;

pub use diagnostic::{Applicability, Diagnostic, Edit, Fix, Gain, GainUnit, Label, Level};
pub use impact::{sort_by_impact, Impact, Thresholds};

use kernel_lint_analyzer::{AccessClass, AccessReport, FileReport, KernelReport, Prediction, SourceFile};
use std::collections::HashMap;

/// What a lint's check sees: one access of one kernel in one file.
#[derive(Clone, Copy)]
pub struct AccessContext<'a> {
    /// The file.
    pub file: &'a FileReport,
    /// The kernel.
    pub kernel: &'a KernelReport,
    /// The access.
    pub access: &'a AccessReport,
}

impl<'a> AccessContext<'a> {
    /// The access's prediction when its verdict is `class`: the first question of every check.
    pub fn verdict(&self, class: AccessClass) -> Option<&Prediction> {
        self.access.prediction.as_ref().filter(|p| p.class == class)
    }

    /// The other leaves recorded for the same source access: a struct copied leaf by leaf
    /// (not one wide access) gives one access per leaf, all with the span of the copy.
    pub fn leaves(&self) -> impl Iterator<Item = &'a AccessReport> + '_ {
        let a = self.access;
        self.kernel.accesses.iter().filter(move |b| {
            b.span == a.span
                && b.op == a.op
                && b.file == a.file
                && b.via == a.via
                && b.array == a.array
                && b.field_of.as_ref().map(|f| &f.type_name) == a.field_of.as_ref().map(|f| &f.type_name)
        })
    }

    /// Whether the access is one leaf of a whole-element copy that uses every byte of the
    /// element: the same lanes move all of its fields with one source access.
    pub fn whole_copy(&self) -> bool {
        let Some(field) = &self.access.field_of else {
            return false;
        };
        let (count, bytes) = self
            .leaves()
            .fold((0usize, 0u64), |(n, b), l| (n + 1, b + l.elem_bytes));
        count > 1 && bytes == field.size
    }

    /// The element as the source names it: `queries[i]` for a whole-element copy, whose field
    /// paths are the analysis's, not the user's.
    pub fn element(&self) -> String {
        if self.whole_copy() {
            let a = self.access;
            return if a.index.is_empty() {
                format!("*{}", a.array)
            } else {
                format!("{}[{}]", a.array, a.index)
            };
        }
        text::element(self.access)
    }

    /// The notes a finding carries: the launch assumed, then what the prediction assumed.
    pub fn notes(&self, prediction: &Prediction) -> Vec<String> {
        let mut notes = vec![text::launch_note(self.kernel)];
        notes.extend(prediction.assumptions.iter().cloned());
        notes
    }
}

/// What a lint reports, before its code, level and location are attached.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// One lowercase sentence with the numbers, no trailing period.
    pub message: String,
    /// The label under the primary span.
    pub label: String,
    /// The primary span (the index expression, usually).
    pub span: kernel_lint_analyzer::Span,
    /// What to do instead, one line.
    pub help: Option<String>,
    /// Assumptions and context.
    pub notes: Vec<String>,
}

/// A lint: its identity, documentation and check.
pub struct Lint {
    /// `KL001`.
    pub code: &'static str,
    /// `strided-access`.
    pub name: &'static str,
    /// The level it runs at unless configured otherwise.
    pub default_level: Level,
    /// The documentation: what it does, why it matters, an example, the fix.
    pub docs: &'static str,
    /// The check, run on every access.
    pub check: fn(&AccessContext<'_>) -> Option<Finding>,
    /// The check run once per kernel, on what is not tied to one access: each finding with
    /// its file when that is not the kernel's (a helper of another module).
    pub kernel_check: fn(&FileReport, &KernelReport) -> Vec<KernelFinding>,
    /// The fixes of an access's finding, built from the text of the files read (the element's
    /// struct may be defined in another file); none for most lints.
    pub fix: fn(&AccessContext<'_>, &[SourceFile]) -> Vec<Fix>,
}

/// A kernel-level finding, with its file when that is not the kernel's.
pub type KernelFinding = (Option<String>, Finding);

/// The fixes of lints that suggest none.
pub fn no_fix(_: &AccessContext<'_>, _: &[SourceFile]) -> Vec<Fix> {
    Vec::new()
}

/// The kernel check of lints that look at accesses only.
pub fn no_kernel_check(_: &FileReport, _: &KernelReport) -> Vec<KernelFinding> {
    Vec::new()
}

impl Lint {
    /// The first sentence of the documentation's first paragraph (which may span lines).
    pub fn summary(&self) -> String {
        let paragraph: Vec<&str> = self
            .docs
            .lines()
            .map(str::trim)
            .skip_while(|l| l.is_empty() || l.starts_with('#'))
            .take_while(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        let text = paragraph.join(" ");
        match text.find(". ") {
            Some(end) => text[..=end].to_string(),
            None => text,
        }
    }
}

/// Declares a lint; its doc comment becomes its documentation.
#[macro_export]
macro_rules! declare_lint {
    ($(#[doc = $doc:literal])+ pub static $ident:ident = { code: $code:literal, name: $name:literal, level: $level:ident, check: $check:path $(,)? }) => {
        $crate::declare_lint! {
            $(#[doc = $doc])+
            pub static $ident = { code: $code, name: $name, level: $level, check: $check, kernel_check: $crate::no_kernel_check }
        }
    };
    ($(#[doc = $doc:literal])+ pub static $ident:ident = { code: $code:literal, name: $name:literal, level: $level:ident, check: $check:path, kernel_check: $kernel_check:path $(,)? }) => {
        $crate::declare_lint! {
            $(#[doc = $doc])+
            pub static $ident = { code: $code, name: $name, level: $level, check: $check, kernel_check: $kernel_check, fix: $crate::no_fix }
        }
    };
    ($(#[doc = $doc:literal])+ pub static $ident:ident = { code: $code:literal, name: $name:literal, level: $level:ident, check: $check:path, kernel_check: $kernel_check:path, fix: $fix:path $(,)? }) => {
        $(#[doc = $doc])+
        pub static $ident: $crate::Lint = $crate::Lint {
            code: $code,
            name: $name,
            default_level: $crate::Level::$level,
            docs: concat!($($doc, "\n"),+),
            check: $check,
            kernel_check: $kernel_check,
            fix: $fix,
        };
    };
}

pub use rules::LINTS;

/// The lint table of the README, generated from [`LINTS`] so that it cannot drift.
pub fn markdown_table() -> String {
    let mut out = String::from("| code | name | default | summary |\n| --- | --- | --- | --- |\n");
    for lint in LINTS {
        out.push_str(&format!(
            "| {} | `{}` | {} | {} |\n",
            lint.code,
            lint.name,
            lint.default_level.as_str(),
            lint.summary()
        ));
    }
    out
}

/// Finds a lint by code (`KL001`, any case) or name (`strided-access`).
pub fn find(key: &str) -> Option<&'static Lint> {
    LINTS
        .iter()
        .copied()
        .find(|l| l.code.eq_ignore_ascii_case(key) || l.name == key)
}

/// Levels chosen by the user, by lint code; the rest run at their default.
#[derive(Debug, Clone, Default)]
pub struct LintLevels {
    overrides: HashMap<&'static str, Level>,
}

impl LintLevels {
    /// Sets the level of a lint given by code or name; an error names an unknown lint.
    pub fn set(&mut self, key: &str, level: Level) -> Result<(), String> {
        let lint = find(key).ok_or_else(|| format!("unknown lint `{key}`"))?;
        self.overrides.insert(lint.code, level);
        Ok(())
    }

    /// The level a lint runs at.
    pub fn level(&self, lint: &Lint) -> Level {
        self.overrides.get(lint.code).copied().unwrap_or(lint.default_level)
    }
}

/// Runs every enabled lint over a file's accesses, in source order, without fixes.
pub fn check_file(file: &FileReport, levels: &LintLevels) -> Vec<Diagnostic> {
    check_file_with_fixes(file, levels, &[])
}

/// Runs every enabled lint over a file's accesses, in source order; the findings carry the
/// fixes their lint builds from `sources`, the text of every file read.
pub fn check_file_with_fixes(file: &FileReport, levels: &LintLevels, sources: &[SourceFile]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for kernel in &file.kernels {
        for access in &kernel.accesses {
            let cx = AccessContext { file, kernel, access };
            for lint in LINTS {
                let level = levels.level(lint);
                if level == Level::Allow {
                    continue;
                }
                if let Some(mut finding) = (lint.check)(&cx) {
                    let path = access.file.clone().unwrap_or_else(|| file.path.clone());
                    // A compound assignment loads and stores one place: one finding is enough;
                    // a helper reached twice by the same chain of calls is one place too.
                    if out.iter().any(|d: &Diagnostic| {
                        d.code == lint.code
                            && d.primary.span == finding.span
                            && d.file == path
                            && d.kernel == kernel.name
                    }) {
                        continue;
                    }
                    let mut notes = std::mem::take(&mut finding.notes);
                    if !access.via.is_empty() {
                        notes.insert(0, call_chain(&kernel.name, access));
                    }
                    let impact = Impact::of(kernel, access);
                    notes.extend(impact.note());
                    let mut found = diagnostic(lint, level, path, &kernel.name, finding, notes);
                    found.impact = Some(impact);
                    if !sources.is_empty() {
                        found.fixes = (lint.fix)(&cx, sources);
                    }
                    out.push(found);
                }
            }
        }
        for lint in LINTS {
            let level = levels.level(lint);
            if level == Level::Allow {
                continue;
            }
            for (path, finding) in (lint.kernel_check)(file, kernel) {
                let path = path.unwrap_or_else(|| file.path.clone());
                // Each launch of a kernel is analyzed on its own: say a thing about its code once.
                if out.iter().any(|d: &Diagnostic| {
                    d.code == lint.code
                        && d.primary.span == finding.span
                        && d.file == path
                        && d.kernel == kernel.name
                        && d.message == finding.message
                }) {
                    continue;
                }
                let notes = finding.notes.clone();
                out.push(diagnostic(lint, level, path, &kernel.name, finding, notes));
            }
        }
    }
    out
}

fn diagnostic(
    lint: &Lint,
    level: Level,
    file: String,
    kernel: &str,
    finding: Finding,
    notes: Vec<String>,
) -> Diagnostic {
    Diagnostic {
        code: lint.code,
        name: lint.name,
        level,
        file,
        kernel: kernel.to_string(),
        message: finding.message,
        primary: Label {
            span: finding.span,
            message: finding.label,
        },
        secondary: Vec::new(),
        help: finding.help,
        notes,
        fixes: Vec::new(),
        impact: None,
    }
}

/// `in kernel `k`, called through `kernel::blur` (src/lib.rs:20:5)`: how the kernel reaches an
/// access written in a helper, as rustc shows macro backtraces.
fn call_chain(kernel: &str, access: &AccessReport) -> String {
    let calls: Vec<String> = access
        .via
        .iter()
        .map(|call| {
            format!(
                "`{}` ({}:{}:{})",
                call.callee, call.file, call.span.line, call.span.column
            )
        })
        .collect();
    format!("in kernel `{kernel}`, called through {}", calls.join(" then "))
}

/// Text pieces shared by the lints' messages.
pub mod text {
    use kernel_lint_analyzer::{AccessReport, Case, KernelReport, Prediction};

    /// `a[k]`, `p[idx].vx`, `*c.add(i)` as the user would name the element.
    pub fn element(access: &AccessReport) -> String {
        let base = if access.index.is_empty() {
            access.array.clone()
        } else {
            format!("{}[{}]", access.array, access.index)
        };
        match &access.field_of {
            Some(field) => format!("{base}.{}", field.field),
            None if access.index.is_empty() => format!("*{}", access.array),
            None => base,
        }
    }

    /// `4` or `4.5`: a figure without needless decimals.
    pub fn figure(value: f64) -> String {
        if (value - value.round()).abs() < 1e-9 {
            format!("{}", value.round() as i64)
        } else {
            format!("{value:.2}")
        }
    }

    /// `4 when s == 1`, `1 (broadcast) when n >= 32`: a case of a prediction, with its verdict
    /// where it is not the prediction's.
    pub fn case(prediction: &Prediction, case: &Case) -> String {
        let sectors = figure(case.sectors_per_request);
        if case.class == prediction.class {
            format!("{sectors} when {}", case.condition)
        } else {
            format!("{sectors} ({}) when {}", case.class.as_str(), case.condition)
        }
    }

    /// `8 sectors per request where 4 would do (50% efficiency)`.
    pub fn cost(prediction: &Prediction) -> String {
        match (
            prediction.sectors_per_request,
            prediction.ideal_sectors_per_request,
            prediction.efficiency,
        ) {
            (Some(s), Some(i), Some(e)) => format!(
                "{} sectors per request where {} would do ({}% efficiency)",
                figure(s),
                figure(i),
                percent(e)
            ),
            _ => {
                let cases: Vec<String> = prediction.cases.iter().map(|c| case(prediction, c)).collect();
                format!("sectors per request: {}", cases.join(", "))
            }
        }
    }

    /// `80`, `16.7`, `12.5`: a percentage with one decimal where it has one.
    pub fn percent(ratio: f64) -> String {
        let tenths = (ratio * 1000.0).round() / 10.0;
        if (tenths - tenths.round()).abs() < 1e-9 {
            format!("{}", tenths.round() as i64)
        } else {
            format!("{tenths:.1}")
        }
    }

    /// The launch assumption, as a note.
    pub fn launch_note(kernel: &KernelReport) -> String {
        let [x, y, z] = kernel.launch.block;
        let source = match kernel.launch.block_source {
            kernel_lint_analyzer::BlockSource::Config => "from the configuration",
            kernel_lint_analyzer::BlockSource::Hint => "from the `kernel-lint: block(..)` hint",
            kernel_lint_analyzer::BlockSource::Launch => "from the launch site",
            kernel_lint_analyzer::BlockSource::Attribute => "from the `#[spirv(compute(threads(..)))]` attribute",
            kernel_lint_analyzer::BlockSource::Default => {
                "assumed: no configuration or hint gives it (add `// kernel-lint: block(x, y)` above the kernel)"
            }
        };
        let mut note = format!("block ({x}, {y}, {z}) {source}");
        if let Some(site) = &kernel.launch_site {
            note.push_str(&format!(" {}:{}", site.file, site.span.line));
        }
        // Host launches that were not used say why, so that the block above is not taken for
        // the one the host really uses.
        for why in kernel.launch_notes.iter().chain(&kernel.instantiated) {
            note.push_str("; ");
            note.push_str(why);
        }
        note
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;
    use kernel_lint_analyzer::{analyze_source, LaunchPlan, SourceFile};

    /// Asserts that a lint finds nothing on a snippet whose kernels were found and whose
    /// `global_accesses` global accesses were all predicted: silence, not a missed kernel.
    pub fn assert_clean(code: &str, source: &str, global_accesses: usize) {
        let file = SourceFile::new("snippet.rs", source);
        let report = analyze_source(&file, &LaunchPlan::default()).expect("snippet parses");
        assert!(!report.kernels.is_empty(), "no kernel found");
        let predicted = report
            .kernels
            .iter()
            .flat_map(|k| &k.accesses)
            .filter(|a| a.prediction.as_ref().is_some_and(|p| p.sectors_per_request.is_some()))
            .count();
        assert_eq!(predicted, global_accesses, "global accesses predicted");
        assert_eq!(findings(code, source), Vec::new());
    }

    /// The messages of one lint's kernel-level findings on a snippet.
    pub fn kernel_findings(code: &str, source: &str) -> Vec<String> {
        let file = SourceFile::new("snippet.rs", source);
        let report = analyze_source(&file, &LaunchPlan::default()).expect("snippet parses");
        let lint = find(code).expect("lint exists");
        report
            .kernels
            .iter()
            .flat_map(|k| (lint.kernel_check)(&report, k))
            .map(|(_, f)| f.message)
            .collect()
    }

    /// The findings of one lint on a snippet.
    pub fn findings(code: &str, source: &str) -> Vec<Finding> {
        let file = SourceFile::new("snippet.rs", source);
        let report = analyze_source(&file, &LaunchPlan::default()).expect("snippet parses");
        let lint = find(code).expect("lint exists");
        let mut out = Vec::new();
        for kernel in &report.kernels {
            for access in &kernel.accesses {
                if let Some(f) = (lint.check)(&AccessContext {
                    file: &report,
                    kernel,
                    access,
                }) {
                    out.push(f);
                }
            }
        }
        out
    }
}
