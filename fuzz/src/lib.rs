//! The analysis a `check` runs, on bytes from a fuzzer: the bytes are one crate (split into
//! modules at `//@module` lines), checked through the tool's [`Session`] (analyzed, linted,
//! given their rewrites, each re-analyzed), and every fix applied and checked once more.
//!
//! A defect is a panic, an "internal error" the analysis caught, or a fix whose edits do not
//! fit the text they edit; anything else (a syntax error, a refused input) is a good answer.

use kernel_lint::{Diagnostic, Edit, Entry, FileReport, Outcome, Session, Settings, SourceFile};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

/// The line that starts another module of the crate.
pub const MODULE_MARK: &str = "\n//@module\n";

/// What a run produced, reduced to a hash of its shape (messages, verdicts, lint codes and
/// fix titles, without positions): distinct outcomes stand in for coverage on stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape(pub u64);

/// A crate as `(path, text)` pairs, its root first.
type Files = Vec<(String, String)>;

/// Checks the bytes as one crate; `Err` describes a defect.
pub fn run(data: &[u8]) -> Result<Shape, String> {
    let mut shape = DefaultHasher::new();
    let text = match SourceFile::from_bytes("lib.rs", data.to_vec()) {
        Ok(source) => source.text,
        Err(err) => {
            err.message.hash(&mut shape);
            return Ok(Shape(shape.finish()));
        }
    };
    let files: Files = text
        .split(MODULE_MARK)
        .enumerate()
        .map(|(i, part)| {
            let path = if i == 0 {
                "lib.rs".to_string()
            } else {
                format!("m{i}.rs")
            };
            (path, part.to_string())
        })
        .collect();
    let session = Session::new(Settings {
        jobs: Some(1),
        ..Settings::default()
    });
    let outcome = check(&session, &files)?;
    for analyzed in outcome.analyzed() {
        shape_of(&analyzed.report, &analyzed.diagnostics, &mut shape);
        for diagnostic in &analyzed.diagnostics {
            for fix in &diagnostic.fixes {
                let fixed = apply(&files, &fix.edits)
                    .map_err(|why| format!("fix `{}` of {}: {why}", fix.title, diagnostic.code))?;
                // The fixed crate is checked again, as `fix` does.
                check(&session, &fixed)?;
            }
        }
    }
    Ok(Shape(shape.finish()))
}

/// `check` of the crate; an internal error, a time budget run out or a finding whose span is
/// not within its file's text is a defect.
fn check(session: &Session, files: &Files) -> Result<Outcome, String> {
    let outcome = session.check_texts("fuzz", files.clone());
    let defect = |message: &str| message.contains("internal error") || message.contains("time budget");
    if let Some(err) = outcome.errors().find(|e| defect(&e.message)) {
        return Err(err.to_string());
    }
    for entry in &outcome.entries {
        let Entry::Ok(analyzed) = entry else {
            continue;
        };
        for diagnostic in &analyzed.diagnostics {
            spanned(files, diagnostic)?;
        }
    }
    Ok(outcome)
}

fn spanned(files: &Files, diagnostic: &Diagnostic) -> Result<(), String> {
    let text = files
        .iter()
        .find(|(path, _)| *path == diagnostic.file)
        .map(|(_, text)| text.as_str())
        .ok_or_else(|| format!("{} names file `{}`, not analyzed", diagnostic.code, diagnostic.file))?;
    let span = diagnostic.primary.span;
    if text.get(span.start..span.end).is_none() {
        return Err(format!(
            "{} at {}:{}: span {}..{} is not within the text",
            diagnostic.code, span.line, span.column, span.start, span.end
        ));
    }
    Ok(())
}

/// The files with the edits applied; an edit outside its file, off a character boundary or
/// overlapping another is a defect of the fix.
fn apply(files: &Files, edits: &[Edit]) -> Result<Files, String> {
    let mut out = Vec::with_capacity(files.len());
    for (path, original) in files {
        let mut mine: Vec<_> = edits.iter().filter(|e| e.file == *path).collect();
        mine.sort_by_key(|e| (e.span.start, e.span.end));
        let mut text = String::with_capacity(original.len());
        let mut at = 0;
        for edit in mine {
            let (start, end) = (edit.span.start, edit.span.end);
            if start < at {
                return Err(format!("edits overlap at byte {start} of {path}"));
            }
            let kept = original
                .get(at..start)
                .ok_or_else(|| format!("edit {start}..{end} is not within {path}"))?;
            original
                .get(start..end)
                .ok_or_else(|| format!("edit {start}..{end} is not within {path}"))?;
            text.push_str(kept);
            text.push_str(&edit.replacement);
            at = end;
        }
        text.push_str(&original[at..]);
        out.push((path.clone(), text));
    }
    if let Some(edit) = edits.iter().find(|e| files.iter().all(|(path, _)| *path != e.file)) {
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
