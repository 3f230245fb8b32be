//! Which fixes to apply and the text they give: a pure function of the diagnostics and the
//! files' texts, so that it is tested without the lints and without a disk.

use kernel_lint_lints::{Applicability, Diagnostic, Edit, Fix};
use std::collections::BTreeMap;

/// Which fixes may be applied.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Apply `Unsafe` fixes too (`--unsafe-fixes`).
    pub unsafe_fixes: bool,
}

/// The text of each file a fix may edit, by printed path; an `Err` says why a file cannot be
/// edited (it does not exist, it is outside the workspace).
pub type Texts = BTreeMap<String, Result<String, String>>;

/// What became of one diagnostic's fixes.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// No fix that is ever applied (none, or display-only ones).
    NoFix,
    /// Its fix is unsafe and `--unsafe-fixes` was not given.
    NeedsUnsafe,
    /// Its fix (by index into its fixes) was applied.
    Applied(usize),
    /// Its fix overlaps the applied fix of the diagnostic `overlaps` (by index).
    Skipped {
        /// The fix, by index into the diagnostic's fixes.
        fix: usize,
        /// The diagnostic whose fix was applied instead.
        overlaps: usize,
    },
    /// Its fix could not be applied.
    Failed {
        /// The fix, by index into the diagnostic's fixes.
        fix: usize,
        /// Why, one sentence with its location.
        reason: String,
    },
}

/// A file's text before and after its fixes.
#[derive(Debug, Clone, PartialEq)]
pub struct FileChange {
    /// The printed path.
    pub path: String,
    /// The text read.
    pub original: String,
    /// The text with the fixes applied; it parses.
    pub fixed: String,
    /// The diagnostics (by index) whose fixes edit this file.
    pub diagnostics: Vec<usize>,
}

/// The fixes to apply and the text they give.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// One per diagnostic, in order.
    pub outcomes: Vec<Outcome>,
    /// The files that change, in order of their first fix.
    pub files: Vec<FileChange>,
}

impl Plan {
    /// How many diagnostics had their fix applied.
    pub fn fixed(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|o| matches!(o, Outcome::Applied(_)))
            .count()
    }

    /// How many unsafe fixes `--unsafe-fixes` would apply.
    pub fn hidden_unsafe(&self) -> usize {
        self.outcomes.iter().filter(|o| **o == Outcome::NeedsUnsafe).count()
    }

    /// Whether some fix failed.
    pub fn has_failures(&self) -> bool {
        self.outcomes.iter().any(|o| matches!(o, Outcome::Failed { .. }))
    }

    /// Marks every applied fix that edits `path` as failed, for `reason`.
    pub fn fail_file(&mut self, path: &str, reason: &str) {
        let Some(change) = self.files.iter().find(|c| c.path == path) else {
            return;
        };
        for &d in &change.diagnostics {
            if let Outcome::Applied(fix) = self.outcomes[d] {
                self.outcomes[d] = Outcome::Failed {
                    fix,
                    reason: reason.to_string(),
                };
            }
        }
    }
}

/// Chooses each diagnostic's fix (the first applicable one), drops those that overlap an
/// earlier one, applies the rest and keeps a file's fixes only when the fixed text parses.
pub fn plan(diagnostics: &[Diagnostic], texts: &Texts, options: Options) -> Plan {
    let mut outcomes = Vec::with_capacity(diagnostics.len());
    // The edits taken so far, per file, with the diagnostic that owns each.
    let mut taken: BTreeMap<&str, Vec<(&Edit, usize)>> = BTreeMap::new();
    let mut accepted: Vec<usize> = Vec::new();
    for (d, diagnostic) in diagnostics.iter().enumerate() {
        let outcome = choose(d, diagnostic, texts, options, &mut taken);
        if matches!(outcome, Outcome::Applied(_)) {
            accepted.push(d);
        }
        outcomes.push(outcome);
    }
    // A fix whose file does not parse afterwards is dropped, wherever else it edits; dropping
    // one can only make the others' texts parse, so this ends.
    loop {
        let files = apply(diagnostics, &outcomes, &accepted, texts);
        let rejected = check_parses(diagnostics, &outcomes, &files, texts);
        if rejected.is_empty() {
            return Plan { outcomes, files };
        }
        for (d, reason) in rejected {
            if let Outcome::Applied(fix) = outcomes[d] {
                outcomes[d] = Outcome::Failed { fix, reason };
            }
            accepted.retain(|&a| a != d);
        }
    }
}

/// The outcome of one diagnostic, recording its edits in `taken` when it is applied.
fn choose<'a>(
    d: usize,
    diagnostic: &'a Diagnostic,
    texts: &Texts,
    options: Options,
    taken: &mut BTreeMap<&'a str, Vec<(&'a Edit, usize)>>,
) -> Outcome {
    let allowed = |fix: &Fix| match fix.applicability {
        Applicability::Safe => true,
        Applicability::Unsafe => options.unsafe_fixes,
        Applicability::DisplayOnly => false,
    };
    let Some((index, fix)) = diagnostic.fixes.iter().enumerate().find(|(_, f)| allowed(f)) else {
        let unsafe_one = diagnostic
            .fixes
            .iter()
            .any(|f| f.applicability == Applicability::Unsafe);
        return if unsafe_one {
            Outcome::NeedsUnsafe
        } else {
            Outcome::NoFix
        };
    };
    if let Err(reason) = valid(fix, texts) {
        return Outcome::Failed { fix: index, reason };
    }
    let already = |taken: &BTreeMap<&str, Vec<(&Edit, usize)>>, e: &Edit| {
        taken
            .get(e.file.as_str())
            .is_some_and(|t| t.iter().any(|(x, _)| *x == e))
    };
    // The same edit made by another diagnostic's fix (two accesses of one struct): fixed too.
    if fix.edits.iter().all(|e| already(taken, e)) {
        return Outcome::Applied(index);
    }
    for edit in &fix.edits {
        let clash = taken
            .get(edit.file.as_str())
            .and_then(|t| t.iter().find(|(x, _)| *x != edit && overlap(x, edit)));
        if let Some((_, owner)) = clash {
            return Outcome::Skipped {
                fix: index,
                overlaps: *owner,
            };
        }
    }
    for edit in &fix.edits {
        if !already(taken, edit) {
            taken.entry(edit.file.as_str()).or_default().push((edit, d));
        }
    }
    Outcome::Applied(index)
}

/// Whether two edits of one file touch the same text; two insertions at one place overlap,
/// as their order would be a guess.
fn overlap(a: &Edit, b: &Edit) -> bool {
    let (a, b) = (&a.span, &b.span);
    a.start == b.start || (a.start < b.end && b.start < a.end)
}

/// Whether a fix's edits lie inside their files, on character boundaries, without
/// overlapping one another.
fn valid(fix: &Fix, texts: &Texts) -> Result<(), String> {
    for (i, edit) in fix.edits.iter().enumerate() {
        let text = match texts.get(&edit.file) {
            Some(Ok(text)) => text,
            Some(Err(reason)) => return Err(reason.clone()),
            None => return Err(format!("`{}` is not among the files read", edit.file)),
        };
        let (start, end) = (edit.span.start, edit.span.end);
        if start > end || end > text.len() || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            return Err(format!(
                "its edit at {}:{}:{} lies outside the file's text",
                edit.file, edit.span.line, edit.span.column
            ));
        }
        if fix.edits[..i].iter().any(|e| e.file == edit.file && overlap(e, edit)) {
            return Err(format!(
                "its edits at {}:{}:{} overlap one another",
                edit.file, edit.span.line, edit.span.column
            ));
        }
    }
    Ok(())
}

/// The text of every file edited by the `accepted` diagnostics' fixes.
fn apply(diagnostics: &[Diagnostic], outcomes: &[Outcome], accepted: &[usize], texts: &Texts) -> Vec<FileChange> {
    let mut files: Vec<FileChange> = Vec::new();
    let mut edits: BTreeMap<String, Vec<&Edit>> = BTreeMap::new();
    for &d in accepted {
        let Outcome::Applied(fix) = outcomes[d] else {
            continue;
        };
        for edit in &diagnostics[d].fixes[fix].edits {
            let Some(Ok(original)) = texts.get(&edit.file) else {
                continue;
            };
            let list = edits.entry(edit.file.clone()).or_default();
            if !list.contains(&edit) {
                list.push(edit);
            }
            match files.iter_mut().find(|f| f.path == edit.file) {
                Some(change) if change.diagnostics.contains(&d) => {}
                Some(change) => change.diagnostics.push(d),
                None => files.push(FileChange {
                    path: edit.file.clone(),
                    original: original.clone(),
                    fixed: String::new(),
                    diagnostics: vec![d],
                }),
            }
        }
    }
    for change in &mut files {
        change.fixed = splice(&change.original, &edits[&change.path]);
    }
    files
}

pub use kernel_lint_rewrite::edits::splice;

/// The diagnostics whose fixes make a file unparsable, each with syn's message. In a file that
/// does not parse with all its fixes, they are tried one by one in order, keeping those after
/// which it still parses.
fn check_parses(
    diagnostics: &[Diagnostic],
    outcomes: &[Outcome],
    files: &[FileChange],
    texts: &Texts,
) -> Vec<(usize, String)> {
    let mut rejected = Vec::new();
    for change in files {
        if syn::parse_file(&change.fixed).is_ok() {
            continue;
        }
        if let Err(err) = syn::parse_file(&change.original) {
            let reason = format!("`{}` does not parse before fixing: {}", change.path, located(&err));
            rejected.extend(change.diagnostics.iter().map(|&d| (d, reason.clone())));
            continue;
        }
        let Some(Ok(original)) = texts.get(&change.path) else {
            continue;
        };
        let mut kept: Vec<&Edit> = Vec::new();
        for &d in &change.diagnostics {
            let Outcome::Applied(fix) = outcomes[d] else {
                continue;
            };
            let mine = diagnostics[d].fixes[fix].edits.iter().filter(|e| e.file == change.path);
            let mut trial = kept.clone();
            trial.extend(mine.filter(|e| !kept.contains(e)));
            match syn::parse_file(&splice(original, &trial)) {
                Ok(_) => kept = trial,
                Err(err) => rejected.push((
                    d,
                    format!("the fixed text of `{}` does not parse: {}", change.path, located(&err)),
                )),
            }
        }
    }
    rejected
}

/// `3:14: expected `;``: syn's message at its 1-based line and column.
fn located(err: &syn::Error) -> String {
    let at = err.span().start();
    format!("{}:{}: {err}", at.line, at.column + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_lint_analyzer::Span;
    use kernel_lint_lints::{Label, Level};

    fn span(start: usize, end: usize) -> Span {
        Span {
            start,
            end,
            line: 1,
            column: start + 1,
        }
    }

    fn edit(file: &str, start: usize, end: usize, replacement: &str) -> Edit {
        Edit {
            file: file.to_string(),
            span: span(start, end),
            replacement: replacement.to_string(),
        }
    }

    fn fix(applicability: Applicability, edits: Vec<Edit>) -> Fix {
        Fix {
            title: "fix it".to_string(),
            applicability,
            edits,
            gain: None,
            follow_up: Vec::new(),
        }
    }

    fn diagnostic(fixes: Vec<Fix>) -> Diagnostic {
        Diagnostic {
            code: "KL002",
            name: "array-of-structs-access",
            level: Level::Warn,
            file: "a.rs".to_string(),
            kernel: "k".to_string(),
            message: "m".to_string(),
            primary: Label {
                span: span(0, 1),
                message: String::new(),
            },
            secondary: Vec::new(),
            help: None,
            notes: Vec::new(),
            fixes,
            impact: None,
        }
    }

    fn texts(files: &[(&str, &str)]) -> Texts {
        files.iter().map(|(p, t)| (p.to_string(), Ok(t.to_string()))).collect()
    }

    const A: &str = "struct A; struct B;";

    fn fixed(plan: &Plan, path: &str) -> Option<String> {
        plan.files.iter().find(|f| f.path == path).map(|f| f.fixed.clone())
    }

    #[test]
    fn edits_apply_in_order_of_their_offsets() {
        // Given out of order, with a replacement longer than what it replaces before a later one.
        let diagnostics = vec![diagnostic(vec![fix(
            Applicability::Safe,
            vec![edit("a.rs", 17, 18, "Bee"), edit("a.rs", 7, 8, "Alpha")],
        )])];
        let plan = plan(&diagnostics, &texts(&[("a.rs", A)]), Options::default());
        assert_eq!(plan.outcomes, vec![Outcome::Applied(0)]);
        assert_eq!(fixed(&plan, "a.rs").as_deref(), Some("struct Alpha; struct Bee;"));
        assert_eq!(plan.files[0].diagnostics, vec![0]);
        assert_eq!(plan.fixed(), 1);
    }

    #[test]
    fn an_overlapping_fix_is_skipped_and_the_first_one_wins() {
        let diagnostics = vec![
            diagnostic(vec![fix(Applicability::Safe, vec![edit("a.rs", 7, 8, "X")])]),
            diagnostic(vec![fix(Applicability::Safe, vec![edit("a.rs", 0, 9, "struct Y;")])]),
            // Two insertions at one place overlap too.
            diagnostic(vec![fix(Applicability::Safe, vec![edit("a.rs", 10, 10, "#[a] ")])]),
            diagnostic(vec![fix(Applicability::Safe, vec![edit("a.rs", 10, 10, "#[b] ")])]),
            // The very same edit as an applied one is applied with it.
            diagnostic(vec![fix(Applicability::Safe, vec![edit("a.rs", 7, 8, "X")])]),
        ];
        let plan = plan(&diagnostics, &texts(&[("a.rs", A)]), Options::default());
        assert_eq!(
            plan.outcomes,
            vec![
                Outcome::Applied(0),
                Outcome::Skipped { fix: 0, overlaps: 0 },
                Outcome::Applied(0),
                Outcome::Skipped { fix: 0, overlaps: 2 },
                Outcome::Applied(0),
            ]
        );
        assert_eq!(fixed(&plan, "a.rs").as_deref(), Some("struct X; #[a] struct B;"));
    }

    #[test]
    fn applicability_decides_what_is_applied() {
        let diagnostics = vec![
            diagnostic(vec![fix(Applicability::Unsafe, vec![edit("a.rs", 7, 8, "X")])]),
            diagnostic(vec![fix(Applicability::DisplayOnly, vec![edit("a.rs", 17, 18, "Y")])]),
            // The first applicable fix of a diagnostic, and only that one.
            diagnostic(vec![
                fix(Applicability::DisplayOnly, vec![edit("a.rs", 0, 0, "#[d] ")]),
                fix(Applicability::Safe, vec![edit("a.rs", 0, 0, "#[s] ")]),
                fix(Applicability::Safe, vec![edit("a.rs", 10, 10, "#[t] ")]),
            ]),
        ];
        let texts = texts(&[("a.rs", A)]);
        let safe = plan(&diagnostics, &texts, Options::default());
        assert_eq!(
            safe.outcomes,
            vec![Outcome::NeedsUnsafe, Outcome::NoFix, Outcome::Applied(1)]
        );
        assert_eq!(safe.hidden_unsafe(), 1);
        assert_eq!(fixed(&safe, "a.rs").as_deref(), Some("#[s] struct A; struct B;"));
        let all = plan(&diagnostics, &texts, Options { unsafe_fixes: true });
        assert_eq!(
            all.outcomes,
            vec![Outcome::Applied(0), Outcome::NoFix, Outcome::Applied(1)]
        );
        assert_eq!(fixed(&all, "a.rs").as_deref(), Some("#[s] struct X; struct B;"));
        assert_eq!(all.hidden_unsafe(), 0);
    }

    #[test]
    fn a_fix_that_breaks_the_syntax_fails_and_the_others_stay() {
        let diagnostics = vec![
            diagnostic(vec![fix(Applicability::Safe, vec![edit("a.rs", 8, 9, "")])]),
            diagnostic(vec![fix(Applicability::Safe, vec![edit("a.rs", 17, 18, "C")])]),
        ];
        let plan = plan(&diagnostics, &texts(&[("a.rs", A)]), Options::default());
        assert_eq!(
            plan.outcomes,
            vec![
                Outcome::Failed {
                    fix: 0,
                    reason: "the fixed text of `a.rs` does not parse: 1:10: expected one of: `where`, parentheses, curly braces, `;`".to_string()
                },
                Outcome::Applied(0),
            ]
        );
        assert_eq!(fixed(&plan, "a.rs").as_deref(), Some("struct A; struct C;"));
        assert!(plan.has_failures());
    }

    #[test]
    fn a_fix_over_two_files_fails_in_both_when_one_does_not_parse() {
        let diagnostics = vec![
            diagnostic(vec![fix(
                Applicability::Safe,
                vec![edit("a.rs", 7, 8, "X"), edit("b.rs", 0, 6, "fn")],
            )]),
            diagnostic(vec![fix(Applicability::Safe, vec![edit("a.rs", 17, 18, "C")])]),
        ];
        let plan = plan(&diagnostics, &texts(&[("a.rs", A), ("b.rs", A)]), Options::default());
        assert!(
            matches!(&plan.outcomes[0], Outcome::Failed { reason, .. } if reason.starts_with("the fixed text of `b.rs` does not parse"))
        );
        assert_eq!(plan.outcomes[1], Outcome::Applied(0));
        assert_eq!(fixed(&plan, "a.rs").as_deref(), Some("struct A; struct C;"));
        assert_eq!(fixed(&plan, "b.rs"), None);
    }

    #[test]
    fn a_fix_alone_that_breaks_the_syntax_leaves_the_text_untouched() {
        let diagnostics = vec![diagnostic(vec![fix(
            Applicability::Safe,
            vec![edit("a.rs", 0, 6, "fn")],
        )])];
        let plan = plan(&diagnostics, &texts(&[("a.rs", A)]), Options::default());
        assert_eq!(plan.files, Vec::new());
        assert!(
            matches!(&plan.outcomes[0], Outcome::Failed { reason, .. } if reason.starts_with("the fixed text of `a.rs` does not parse: 1:"))
        );
    }

    #[test]
    fn a_fix_of_a_file_that_cannot_be_edited_fails_in_every_file() {
        let mut files = texts(&[("a.rs", A)]);
        files.insert("gone.rs".to_string(), Err("`gone.rs` does not exist".to_string()));
        let diagnostics = vec![
            diagnostic(vec![fix(
                Applicability::Safe,
                vec![edit("a.rs", 7, 8, "X"), edit("gone.rs", 0, 0, "x")],
            )]),
            diagnostic(vec![fix(Applicability::Safe, vec![edit("elsewhere.rs", 0, 0, "x")])]),
            diagnostic(vec![fix(Applicability::Safe, vec![edit("a.rs", 7, 40, "x")])]),
        ];
        let plan = plan(&diagnostics, &files, Options::default());
        assert_eq!(
            plan.outcomes,
            vec![
                Outcome::Failed {
                    fix: 0,
                    reason: "`gone.rs` does not exist".to_string()
                },
                Outcome::Failed {
                    fix: 0,
                    reason: "`elsewhere.rs` is not among the files read".to_string()
                },
                Outcome::Failed {
                    fix: 0,
                    reason: "its edit at a.rs:1:8 lies outside the file's text".to_string()
                },
            ]
        );
        assert_eq!(plan.files, Vec::new());
    }
}
