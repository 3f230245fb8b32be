//! The analysis a `check` runs, on bytes from a fuzzer: the bytes are one crate (split into
//! modules at `//@module` lines), analyzed, linted, given their rewrites (each re-analyzed),
//! and every fix applied and analyzed once more.
//!
//! A defect is a panic, an "internal error" the analysis caught, or a fix whose edits do not
//! fit the text they edit; anything else (a syntax error, a refused input) is a good answer.

use kernel_lint_analyzer::workspace::CrateFeatures;
use kernel_lint_analyzer::{analyze_configured, FileError, FileReport, LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_lints::{check_file_with_fixes, Diagnostic, LintLevels};
use kernel_lint_rewrite::{attach_fixes, Workspace};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// The line that starts another module of the crate.
pub const MODULE_MARK: &str = "\n//@module\n";

/// What a run produced, reduced to a hash of its shape (messages, verdicts, lint codes and
/// fix titles, without positions): distinct outcomes stand in for coverage on stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape(pub u64);

/// Analyzes the bytes as one crate; `Err` describes a defect.
pub fn run(data: &[u8]) -> Result<Shape, String> {
    let mut shape = DefaultHasher::new();
    let text = match SourceFile::from_bytes("lib.rs", data.to_vec()) {
        Ok(source) => source.text,
        Err(err) => {
            err.message.hash(&mut shape);
            return Ok(Shape(shape.finish()));
        }
    };
    let files: Vec<SourceFile> = text
        .split(MODULE_MARK)
        .enumerate()
        .map(|(i, part)| {
            let path = if i == 0 {
                "lib.rs".to_string()
            } else {
                format!("m{i}.rs")
            };
            SourceFile::new(path, part)
        })
        .collect();
    let reports = analyze(&files)?;
    for report in &reports {
        let diagnostics = lint(&files, report)?;
        shape_of(report, &diagnostics, &mut shape);
        for diagnostic in &diagnostics {
            for fix in &diagnostic.fixes {
                let fixed = apply(&files, &fix.edits)
                    .map_err(|why| format!("fix `{}` of {}: {why}", fix.title, diagnostic.code))?;
                // The fixed crate is analyzed and linted again, as `fix` does.
                for report in analyze(&fixed)? {
                    lint(&fixed, &report)?;
                }
            }
        }
    }
    Ok(Shape(shape.finish()))
}

fn modules(files: &[SourceFile]) -> Vec<ModuleSource> {
    files
        .iter()
        .enumerate()
        .map(|(i, source)| {
            let mut module = vec!["fuzz".to_string()];
            if i > 0 {
                module.push(format!("m{i}"));
            }
            ModuleSource {
                source: source.clone(),
                module,
            }
        })
        .collect()
}

fn analyze(files: &[SourceFile]) -> Result<Vec<FileReport>, String> {
    let plan = LaunchPlan::default();
    let results = analyze_configured(modules(files), &[], &CrateFeatures::new(), &[&plan]);
    let mut reports = Vec::new();
    for result in results {
        match result {
            Ok(report) => {
                let defect = |e: &&FileError| e.message.contains("internal error") || e.message.contains("time budget");
                if let Some(err) = report.errors.iter().find(defect) {
                    return Err(err.to_string());
                }
                reports.push(report);
            }
            Err(err) if err.message.contains("internal error") || err.message.contains("time budget") => {
                return Err(err.to_string())
            }
            Err(_) => {}
        }
    }
    Ok(reports)
}

fn lint(files: &[SourceFile], report: &FileReport) -> Result<Vec<Diagnostic>, String> {
    let mut diagnostics = check_file_with_fixes(report, &LintLevels::default(), files);
    let plan = LaunchPlan::default();
    let features = CrateFeatures::new();
    let workspace = Workspace::new(
        modules(files)
            .into_iter()
            .map(|m| (m.source, m.module, &plan))
            .collect(),
        &[],
        &features,
    );
    attach_fixes(&workspace, report, &mut diagnostics);
    for diagnostic in &diagnostics {
        let text = files
            .iter()
            .find(|f| f.path == diagnostic.file)
            .map(|f| f.text.as_str())
            .ok_or_else(|| format!("{} names file `{}`, not analyzed", diagnostic.code, diagnostic.file))?;
        let span = diagnostic.primary.span;
        if text.get(span.start..span.end).is_none() {
            return Err(format!(
                "{} at {}:{}: span {}..{} is not within the text",
                diagnostic.code, span.line, span.column, span.start, span.end
            ));
        }
    }
    Ok(diagnostics)
}

/// The files with the edits applied; an edit outside its file, off a character boundary or
/// overlapping another is a defect of the fix.
fn apply(files: &[SourceFile], edits: &[kernel_lint_lints::Edit]) -> Result<Vec<SourceFile>, String> {
    let mut out = Vec::with_capacity(files.len());
    for file in files {
        let mut mine: Vec<_> = edits.iter().filter(|e| e.file == file.path).collect();
        mine.sort_by_key(|e| (e.span.start, e.span.end));
        let mut text = String::with_capacity(file.text.len());
        let mut at = 0;
        for edit in mine {
            let (start, end) = (edit.span.start, edit.span.end);
            if start < at {
                return Err(format!("edits overlap at byte {start} of {}", file.path));
            }
            let kept = file
                .text
                .get(at..start)
                .ok_or_else(|| format!("edit {start}..{end} is not within {}", file.path))?;
            file.text
                .get(start..end)
                .ok_or_else(|| format!("edit {start}..{end} is not within {}", file.path))?;
            text.push_str(kept);
            text.push_str(&edit.replacement);
            at = end;
        }
        text.push_str(&file.text[at..]);
        out.push(SourceFile::new(file.path.clone(), text));
    }
    if let Some(edit) = edits.iter().find(|e| files.iter().all(|f| f.path != e.file)) {
        return Err(format!("an edit names file `{}`, not analyzed", edit.file));
    }
    Ok(out)
}

fn shape_of(report: &FileReport, diagnostics: &[Diagnostic], shape: &mut DefaultHasher) {
    for err in &report.errors {
        strip_numbers(&err.message).hash(shape);
    }
    for kernel in &report.kernels {
        for access in &kernel.accesses {
            access.prediction.as_ref().map(|p| format!("{:?}", p.class)).hash(shape);
        }
        for unsupported in &kernel.unsupported {
            strip_numbers(&unsupported.message).hash(shape);
        }
    }
    for diagnostic in diagnostics {
        diagnostic.code.hash(shape);
        for fix in &diagnostic.fixes {
            strip_numbers(&fix.title).hash(shape);
        }
    }
}

/// A message without its figures and names in backquotes, so that outcomes group by kind.
fn strip_numbers(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut quoted = false;
    for c in message.chars() {
        if c == '`' {
            quoted = !quoted;
            out.push(c);
        } else if !quoted && !c.is_ascii_digit() {
            out.push(c);
        }
    }
    out
}
