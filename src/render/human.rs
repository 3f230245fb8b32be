//! `check` output for people: each finding with its source snippet, then a summary line.

use crate::session::{Analyzed, Entry, Outcome, Totals};
use kernel_lint_analyzer::{Dialect, FileError};
use kernel_lint_analyzer::{SourceFile, Span};
use kernel_lint_lints::{Applicability, Diagnostic, Edit, Fix, Level};
use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents, Severity, SourceCode,
    SourceSpan, SpanContents,
};
use std::collections::BTreeMap;
use std::fmt;

/// Lines longer than this are not shown as snippets (a minified or generated line would flood
/// the terminal); the location is named in the message instead.
const MAX_SNIPPET_LINE: usize = 400;

/// Renders every entry of a run and the summary line.
pub fn check(outcome: &Outcome, color: bool) -> String {
    let renderer = Renderer::new(color);
    let mut out = String::new();
    for entry in &outcome.entries {
        match entry {
            Entry::Ok(file) => {
                for report in file_reports(file, outcome) {
                    renderer.render(&mut out, &report);
                }
            }
            Entry::Failed(err, source) => renderer.render(&mut out, &error_report(err, source.as_ref())),
        }
    }
    for line in unanalyzed_notes(outcome) {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&summary(&outcome.totals()));
    out.push('\n');
    out
}

/// One finding as `check` shows it, without colour, its fixes' diffs included: the text an
/// editor shows for it.
pub fn finding(diagnostic: &Diagnostic, source: &SourceFile, outcome: &Outcome) -> String {
    let mut report = diagnostic_report(diagnostic, source);
    let fixes: String = diagnostic
        .fixes
        .iter()
        .map(|fix| fix_text(fix, None, outcome))
        .collect();
    report.fix = (!fixes.is_empty()).then_some(fixes);
    let mut out = String::new();
    Renderer::new(false).render(&mut out, &report);
    out
}

/// `note: 3 kernels in CubeCL are not analyzed yet`, one line per dialect found.
pub fn unanalyzed_notes(outcome: &Outcome) -> Vec<String> {
    let mut counts: BTreeMap<Dialect, usize> = BTreeMap::new();
    for kernel in outcome.analyzed().flat_map(|f| &f.report.unanalyzed) {
        *counts.entry(kernel.dialect).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(dialect, n)| {
            let verb = if n == 1 { "is" } else { "are" };
            format!(
                "note: {} in {} {verb} not analyzed yet",
                plural(n, "kernel", "kernels"),
                dialect.name()
            )
        })
        .collect()
}

/// `kernel-lint: 20 kernels in 9 files, 61 global accesses; 12 warnings, 1 note, 0 errors`.
pub fn summary(totals: &Totals) -> String {
    format!(
        "kernel-lint: {} in {}, {}; {}, {}, {}",
        plural(totals.kernels, "kernel", "kernels"),
        plural(totals.files, "file", "files"),
        plural(totals.global_accesses, "global access", "global accesses"),
        plural(totals.warnings, "warning", "warnings"),
        plural(totals.notes, "note", "notes"),
        plural(totals.errors + totals.failed_files, "error", "errors"),
    )
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One thing to show: a header, and optionally a snippet with a label, help and notes.
struct Report<'a> {
    header: String,
    severity: Severity,
    source: Option<Named<'a>>,
    label: Option<(Span, String)>,
    help: Option<String>,
    notes: Vec<String>,
    /// The rewrite offered, with its gain and diff, already laid out.
    fix: Option<String>,
}

/// Left-out items of one file in source order, then its findings (code not analyzed among them,
/// as KL007) in the order of the analysis: most costly first.
///
/// Findings and notes in helpers of other files are shown with those files' text, after the
/// file's own.
fn file_reports<'a>(file: &'a Analyzed, outcome: &'a Outcome) -> Vec<Report<'a>> {
    let source_of = |path: Option<&String>| match path {
        Some(path) if *path != file.source.path => outcome.source(path).map(|s| (1, s)),
        _ => Some((0, &file.source)),
    };
    let mut items: Vec<((usize, usize, usize), Report<'a>)> = Vec::new();
    // A rewrite shared by several findings (every field of one struct) shows its diff once.
    // Two kernels may get rewrites of the same title: the edits tell them apart.
    let mut shown: Vec<(&Fix, usize)> = Vec::new();
    for (rank, diagnostic) in file.diagnostics.iter().enumerate() {
        if let Some((order, source)) = source_of(Some(&diagnostic.file)) {
            let mut report = diagnostic_report(diagnostic, source);
            // Every fix is shown: the first is the preferred one, the others are alternatives.
            let mut text = String::new();
            for fix in &diagnostic.fixes {
                let earlier = shown
                    .iter()
                    .find(|(f, _)| f.title == fix.title && f.edits == fix.edits)
                    .map(|(_, line)| *line);
                text.push_str(&fix_text(fix, earlier, outcome));
                if earlier.is_none() {
                    shown.push((fix, diagnostic.primary.span.line));
                }
            }
            if !text.is_empty() {
                report.fix = Some(text);
            }
            items.push(((order, 1, rank), report));
        }
    }
    for err in &file.report.errors {
        items.push((
            (0, 0, err.span.map_or(0, |s| s.start)),
            error_report(err, Some(&file.source)),
        ));
    }
    items.sort_by_key(|(key, _)| *key);
    items.into_iter().map(|(_, report)| report).collect()
}

/// `fix (unsafe): ...`, the predicted gain, what the host must change, and the diff (or a
/// pointer to the finding that showed it).
fn fix_text(fix: &Fix, shown_at: Option<usize>, outcome: &Outcome) -> String {
    let kind = match fix.applicability {
        Applicability::Safe => "fix",
        Applicability::Unsafe => "fix (unsafe: `fix --unsafe-fixes` applies it)",
        Applicability::DisplayOnly => "suggestion",
    };
    let mut out = format!("  {kind}: {}\n", fix.title);
    // DRAM bytes only where both sides have a footprint (a known block).
    let dram = match fix.gain.as_ref().map(|g| (g.dram_bytes_before, g.dram_bytes_after)) {
        // Caches that merge the old accesses' sectors leave DRAM traffic as it was: say so.
        Some((Some(before), Some(after))) if before == after => format!(
            "; the block moves the same {} from DRAM (estimated from its footprint)",
            bytes(after)
        ),
        Some((Some(before), Some(after))) => format!(
            "; the block moves {} from DRAM instead of {} (estimated from its footprint)",
            bytes(after),
            bytes(before)
        ),
        _ => String::new(),
    };
    if let Some(
        gain @ kernel_lint_lints::Gain {
            requests: Some((before, after)),
            ..
        },
    ) = &fix.gain
    {
        let now = match after {
            1 => format!("one request touches {}", sectors(gain.sectors_after)),
            n => format!("{n} requests touch {} sectors each", figure(gain.sectors_after)),
        };
        out.push_str(&format!(
            "    after the rewrite {now} where {before} requests touched {} each ({} -> {}){dram}\n",
            figure(gain.sectors_before),
            percent(gain.efficiency_before),
            percent(gain.efficiency_after)
        ));
    } else if let Some(gain) = fix.gain.as_ref().filter(|g| g.sectors_after == g.sectors_before) {
        // Proven by fewer sectors in all: each request touches the sectors it did, all used.
        out.push_str(&format!(
            "    after the rewrite this access touches {} sectors per request, as before, in fewer requests ({} -> {}){dram}\n",
            figure(gain.sectors_after),
            percent(gain.efficiency_before),
            percent(gain.efficiency_after)
        ));
    } else if let Some(gain) = fix
        .gain
        .as_ref()
        .filter(|g| g.unit == kernel_lint_lints::GainUnit::Wavefronts)
    {
        out.push_str(&format!(
            "    after the rewrite this access takes {} wavefronts per request instead of {} ({} -> {})\n",
            figure(gain.sectors_after),
            figure(gain.sectors_before),
            percent(gain.efficiency_before),
            percent(gain.efficiency_after)
        ));
    } else if let Some(gain) = &fix.gain {
        out.push_str(&format!(
            "    after the rewrite this access touches {} per request instead of {} ({} -> {}){dram}\n",
            sectors(gain.sectors_after),
            figure(gain.sectors_before),
            percent(gain.efficiency_before),
            percent(gain.efficiency_after)
        ));
    }
    for step in &fix.follow_up {
        out.push_str(&format!("    then by hand: {step}\n"));
    }
    if let Some(line) = shown_at {
        out.push_str(&format!("    (the rewrite shown at line {line})\n"));
        return out;
    }
    let mut files: Vec<&str> = fix.edits.iter().map(|e| e.file.as_str()).collect();
    files.dedup();
    for path in files {
        let Some(source) = outcome.source(path) else { continue };
        let edits: Vec<&Edit> = fix.edits.iter().filter(|e| e.file == path).collect();
        let fixed = kernel_lint_rewrite::edits::splice(&source.text, &edits);
        for line in kernel_lint_rewrite::edits::unified_diff(path, &source.text, &fixed).lines() {
            out.push_str(&format!("    {line}\n"));
        }
    }
    out
}

/// `1 sector`, `4 sectors`, `2.50 sectors`.
fn sectors(value: f64) -> String {
    if value == 1.0 {
        "1 sector".to_string()
    } else {
        format!("{} sectors", figure(value))
    }
}

fn figure(value: f64) -> String {
    if value.fract() == 0.0 {
        format!("{value:.0}")
    } else {
        format!("{value:.2}")
    }
}

/// A byte count, exactly: in KiB when it is a whole number of them (`6 KiB`), else in bytes.
fn bytes(count: u64) -> String {
    if count >= 1024 && count.is_multiple_of(1024) {
        format!("{} KiB", count / 1024)
    } else {
        format!("{count} bytes")
    }
}

fn percent(ratio: f64) -> String {
    let value = ratio * 100.0;
    if (value - value.round()).abs() < 0.05 {
        format!("{value:.0}%")
    } else {
        format!("{value:.1}%")
    }
}

fn diagnostic_report<'a>(diagnostic: &Diagnostic, source: &'a SourceFile) -> Report<'a> {
    let (word, severity) = match diagnostic.level {
        Level::Deny => ("error", Severity::Error),
        Level::Warn => ("warning", Severity::Warning),
        Level::Note | Level::Allow => ("note", Severity::Advice),
    };
    let kind = format!("{word}[{}]", diagnostic.code);
    let mut report = spanned(
        source,
        severity,
        &kind,
        &diagnostic.message,
        diagnostic.primary.span,
        diagnostic.primary.message.clone(),
    );
    report.help = diagnostic.help.clone();
    report.notes = diagnostic.notes.clone();
    report
}

fn error_report<'a>(err: &FileError, source: Option<&'a SourceFile>) -> Report<'a> {
    match (err.span, source) {
        (Some(span), Some(source)) => spanned(source, Severity::Error, "error", &err.message, span, String::new()),
        _ => Report {
            header: format!("error: {err}"),
            severity: Severity::Error,
            source: None,
            label: None,
            help: None,
            notes: Vec::new(),
            fix: None,
        },
    }
}

/// A report pointing into a file; the location goes into the header when no snippet is shown.
fn spanned<'a>(
    source: &'a SourceFile,
    severity: Severity,
    kind: &str,
    message: &str,
    span: Span,
    label: String,
) -> Report<'a> {
    match snippet_span(source, span) {
        Some(span) => Report {
            header: format!("{kind}: {message}"),
            severity,
            source: Some(Named(source)),
            label: Some((span, label)),
            help: None,
            notes: Vec::new(),
            fix: None,
        },
        None => Report {
            header: format!("{kind}: {}:{}:{}: {message}", source.path, span.line, span.column),
            severity,
            source: None,
            label: None,
            help: None,
            notes: Vec::new(),
            fix: None,
        },
    }
}

/// The span clamped to the text and to character boundaries; `None` when its line is too long
/// to show.
fn snippet_span(source: &SourceFile, span: Span) -> Option<Span> {
    let text = source.text.as_str();
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(span.start);
    let end = floor(span.end.max(start));
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    (text[line_start..line_end].chars().count() <= MAX_SNIPPET_LINE).then_some(Span { start, end, ..span })
}

/// A source file that miette reads snippets from, under its path as given.
struct Named<'a>(&'a SourceFile);

impl SourceCode for Named<'_> {
    fn read_span<'b>(
        &'b self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'b> + 'b>, MietteError> {
        // miette counts lines from the start of the text it is given: hand it only the lines
        // around the span (one more on each side than it reads), so that rendering costs the
        // snippet, not the file, per finding.
        let file = self.0;
        let (first, _) = file.line_column(span.offset());
        let (last, _) = file.line_column(span.offset() + span.len());
        let first = first.saturating_sub(context_lines_before + 1).max(1);
        let window_start = file.line_start(first);
        let window_end = file.line_start(last + context_lines_after + 2);
        let window = &file.text[window_start..window_end];
        let within = SourceSpan::new((span.offset() - window_start).into(), span.len());
        let inner = window.read_span(&within, context_lines_before, context_lines_after)?;
        let at = SourceSpan::new((inner.span().offset() + window_start).into(), inner.span().len());
        Ok(Box::new(MietteSpanContents::new_named(
            file.path.clone(),
            inner.data(),
            at,
            inner.line() + first - 1,
            inner.column(),
            inner.line_count(),
        )))
    }
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.header)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.header)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn severity(&self) -> Option<Severity> {
        Some(self.severity)
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let (span, label) = self.label.as_ref()?;
        let text = (!label.is_empty()).then(|| label.clone());
        let labeled = LabeledSpan::new_primary_with_span(text, (span.start, span.end - span.start));
        Some(Box::new(std::iter::once(labeled)))
    }
}

/// miette's graphical handler with the chosen coloring, plus the notes it has no place for.
struct Renderer {
    handler: GraphicalReportHandler,
    color: bool,
}

impl Renderer {
    fn new(color: bool) -> Self {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        // Messages carry the numbers; wrapping them mid-figure helps no one.
        let handler = GraphicalReportHandler::new_themed(theme)
            .without_syntax_highlighting()
            .with_wrap_lines(false);
        Self { handler, color }
    }

    fn render(&self, out: &mut String, report: &Report<'_>) {
        let mut text = String::new();
        if self.handler.render_report(&mut text, report).is_err() {
            // A span miette cannot read: still say what was found, and where.
            text = match (&report.source, &report.label) {
                (Some(Named(file)), Some((span, _))) => {
                    format!("  {} ({}:{}:{})\n", report.header, file.path, span.line, span.column)
                }
                _ => format!("  {}\n", report.header),
            };
        }
        out.push_str(&text);
        for note in &report.notes {
            let prefix = if self.color {
                "\u{1b}[36mnote:\u{1b}[0m"
            } else {
                "note:"
            };
            out.push_str(&format!("  {prefix} {note}\n"));
        }
        if let Some(fix) = &report.fix {
            out.push_str(fix);
        }
        out.push('\n');
    }
}
