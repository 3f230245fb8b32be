//! Suppression comments: `// kernel-lint: allow(KL002, strided-access)` silences the findings of
//! those lints on its line (written at the end of it), in the statement below it, or in the
//! item (fn, kernel) below it. A suppression that silences nothing is reported as
//! [`UNUSED_SUPPRESSION`](crate::rules::kl008_unused_suppression::UNUSED_SUPPRESSION).
//!
//! The comment grammar is the launch hints' (`kernel-lint:` then a key and its arguments);
//! comments are not in syn's tree, so they are lexed from the text and syn only gives the
//! extent of the statement or item below them.

use crate::rules::kl008_unused_suppression::UNUSED_SUPPRESSION;
use crate::{find, Diagnostic, Label, Level, LintLevels};
use kernel_lint_analyzer::{comments, Comment};
use kernel_lint_analyzer::{directive_key, hint_text, SUPPRESSION_KEY};
use kernel_lint_analyzer::{SourceFile, Span};
use std::collections::BTreeMap;
use syn::visit::Visit;

/// Parses what follows `kernel-lint:`: `None` when it is not a suppression (a launch hint),
/// else the lints named, as written, or what is wrong with the list.
pub fn parse_allow(text: &str) -> Option<Result<Vec<String>, String>> {
    let text = text.trim();
    if directive_key(text) != SUPPRESSION_KEY {
        return None;
    }
    let rest = text[SUPPRESSION_KEY.len()..].trim_start();
    let Some(rest) = rest.strip_prefix('(') else {
        return Some(Err("expected `(` after `allow`".to_string()));
    };
    let Some((inner, after)) = rest.split_once(')') else {
        return Some(Err("missing `)` after the lints".to_string()));
    };
    let after = after.trim();
    if !after.is_empty() {
        return Some(Err(format!("unexpected `{after}` after `allow({inner})`")));
    }
    let codes: Vec<String> = inner.split(',').map(|c| c.trim().to_string()).collect();
    if inner.trim().is_empty() {
        return Some(Err("`allow()` names no lint: expected `allow(KL001, ...)`".to_string()));
    }
    if codes.iter().any(String::is_empty) {
        return Some(Err(format!("missing lint in `allow({inner})`")));
    }
    Some(Ok(codes))
}

/// What a suppression comment covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cover {
    /// The line it ends (1-based).
    Line(usize),
    /// The byte range of the statement or item below it.
    Range(usize, usize),
    /// Nothing: no statement or item follows directly.
    Nothing,
}

/// One suppression comment of a file.
#[derive(Debug, Clone)]
pub struct Suppression {
    /// The comment.
    pub span: Span,
    /// The lints named, as written, each with whether a finding matched it.
    pub codes: Vec<(String, bool)>,
    /// What it covers.
    pub cover: Cover,
    /// Why it is malformed, when it is.
    pub error: Option<String>,
}

impl Suppression {
    fn covers(&self, span: Span) -> bool {
        match self.cover {
            Cover::Line(line) => span.line == line,
            Cover::Range(start, end) => span.start >= start && span.start < end,
            Cover::Nothing => false,
        }
    }
}

/// The suppression comments of a file, in source order.
pub fn suppressions(file: &SourceFile) -> Vec<Suppression> {
    let text = &file.text;
    let all = comments(text);
    let mut found: Vec<(Comment, Result<Vec<String>, String>)> = all
        .iter()
        .filter(|c| !c.is_inner_doc(text))
        .filter_map(|c| Some((*c, parse_allow(hint_text(c.body(text))?)?)))
        .collect();
    if found.is_empty() {
        return Vec::new();
    }
    let extents = extents(file, &all);
    found
        .drain(..)
        .map(|(comment, parsed)| {
            let (line, column) = file.line_column(comment.start);
            let span = Span {
                start: comment.start,
                end: comment.end,
                line,
                column,
            };
            let cover = cover(file, &all, &comment, &extents);
            let (codes, error) = match parsed {
                Ok(codes) => (codes.into_iter().map(|c| (c, false)).collect(), None),
                Err(err) => (Vec::new(), Some(err)),
            };
            Suppression {
                span,
                codes,
                cover,
                error,
            }
        })
        .collect()
}

/// What a comment covers: its line when code precedes it there, else the statement or item
/// that starts right after it and the comments stacked with it.
fn cover(file: &SourceFile, all: &[Comment], comment: &Comment, extents: &[(usize, usize)]) -> Cover {
    let text = &file.text;
    let line_start = text[..comment.start].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..comment.start].trim().is_empty() {
        return Cover::Line(file.line_column(comment.start).0);
    }
    // Past the comments stacked below this one, with no blank line in between.
    let mut offset = comment.end;
    let mut next = all.partition_point(|c| c.start < offset);
    loop {
        let rest = &text[offset..];
        let code = rest.len() - rest.trim_start().len();
        if rest[..code].matches('\n').count() > 1 {
            return Cover::Nothing;
        }
        let at = offset + code;
        match all.get(next) {
            Some(c) if c.start == at => {
                offset = c.end;
                next += 1;
            }
            _ => {
                offset = at;
                break;
            }
        }
    }
    extents
        .iter()
        .filter(|&&(start, _)| start == offset)
        .max_by_key(|&&(start, end)| end - start)
        .map_or(Cover::Nothing, |&(start, end)| Cover::Range(start, end))
}

/// The byte extents of every statement and item of a file, attributes included; each starts
/// at its first token outside a comment, as doc comments are attributes to syn.
fn extents(file: &SourceFile, all: &[Comment]) -> Vec<(usize, usize)> {
    struct Collect<'a> {
        file: &'a SourceFile,
        comments: &'a [Comment],
        out: Vec<(usize, usize)>,
    }
    impl Collect<'_> {
        fn push(&mut self, node: &impl quote::ToTokens) {
            let end = self.file.span_of_node(node).end;
            let in_comment = |at: usize| {
                let i = self.comments.partition_point(|c| c.end <= at);
                self.comments.get(i).is_some_and(|c| c.start <= at)
            };
            let start = node
                .to_token_stream()
                .into_iter()
                .map(|token| self.file.span_of(token.span()).start)
                .find(|&at| !in_comment(at));
            if let Some(start) = start {
                self.out.push((start, end));
            }
        }

        /// An item also starts after its outer attributes: a comment between `#[kernel]` and
        /// `fn` is inside the item, as rustc reads it, and covers it.
        fn push_after_attributes(&mut self, node: &impl quote::ToTokens, attrs: &[syn::Attribute]) {
            let outer = attrs
                .iter()
                .filter(|a| matches!(a.style, syn::AttrStyle::Outer))
                .count();
            if outer == 0 {
                return;
            }
            let end = self.file.span_of_node(node).end;
            // Each outer attribute is two token trees, `#` and its brackets (doc comments too).
            let rest = node.to_token_stream().into_iter().nth(2 * outer);
            if let Some(token) = rest {
                self.out.push((self.file.span_of(token.span()).start, end));
            }
        }
    }
    impl<'ast> Visit<'ast> for Collect<'_> {
        fn visit_stmt(&mut self, node: &'ast syn::Stmt) {
            self.push(node);
            syn::visit::visit_stmt(self, node);
        }
        fn visit_item(&mut self, node: &'ast syn::Item) {
            self.push(node);
            if let Some(attrs) = item_attributes(node) {
                self.push_after_attributes(node, attrs);
            }
            syn::visit::visit_item(self, node);
        }
        fn visit_impl_item(&mut self, node: &'ast syn::ImplItem) {
            self.push(node);
            if let syn::ImplItem::Fn(f) = node {
                self.push_after_attributes(node, &f.attrs);
            }
            syn::visit::visit_impl_item(self, node);
        }
        fn visit_trait_item(&mut self, node: &'ast syn::TraitItem) {
            self.push(node);
            if let syn::TraitItem::Fn(f) = node {
                self.push_after_attributes(node, &f.attrs);
            }
            syn::visit::visit_trait_item(self, node);
        }
    }
    let Ok(parsed) = kernel_lint_analyzer::parse_file(file) else {
        return Vec::new();
    };
    let mut collect = Collect {
        file,
        comments: all,
        out: Vec::new(),
    };
    collect.visit_file(&parsed.syntax);
    collect.out
}

/// The attributes of the items that hold code a finding can be in.
fn item_attributes(item: &syn::Item) -> Option<&[syn::Attribute]> {
    match item {
        syn::Item::Fn(f) => Some(&f.attrs),
        syn::Item::Impl(i) => Some(&i.attrs),
        syn::Item::Mod(m) => Some(&m.attrs),
        syn::Item::Trait(t) => Some(&t.attrs),
        syn::Item::Const(c) => Some(&c.attrs),
        syn::Item::Static(s) => Some(&s.attrs),
        _ => None,
    }
}

/// The suppressions of the files a run reports on, by path.
#[derive(Debug, Default)]
pub struct Suppressions {
    files: BTreeMap<String, Vec<Suppression>>,
}

impl Suppressions {
    /// Reads the suppression comments of a file; findings reported in it may be silenced by them.
    pub fn add(&mut self, file: &SourceFile) {
        if !self.files.contains_key(&file.path) {
            self.files.insert(file.path.clone(), suppressions(file));
        }
    }

    /// Drops the findings a comment of their file suppresses, marking the comment used.
    pub fn apply(&mut self, diagnostics: &mut Vec<Diagnostic>) {
        diagnostics.retain(|d| {
            let Some(found) = self.files.get_mut(&d.file) else {
                return true;
            };
            let mut suppressed = false;
            for suppression in found.iter_mut().filter(|s| s.covers(d.primary.span)) {
                for (code, used) in &mut suppression.codes {
                    if find(code).is_some_and(|lint| lint.code == d.code) {
                        *used = true;
                        suppressed = true;
                    }
                }
            }
            !suppressed
        });
    }

    /// The problems of a file's suppressions once every finding went through [`Self::apply`]:
    /// malformed ones, unknown lints, and lints that matched no finding. A lint that is
    /// allowed (off) is not reported unused: nothing could have matched it.
    pub fn unused(&self, path: &str, levels: &LintLevels) -> Vec<Diagnostic> {
        let level = levels.level(&UNUSED_SUPPRESSION);
        if level == Level::Allow {
            return Vec::new();
        }
        let Some(found) = self.files.get(path) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for suppression in found {
            let mut report = |message: String, label: &str, help: Option<&str>| {
                out.push(unused_diagnostic(path, level, suppression.span, message, label, help));
            };
            if let Some(error) = &suppression.error {
                report(
                    format!("malformed suppression: {error}"),
                    "malformed",
                    Some("write `// kernel-lint: allow(KL001, strided-access)`"),
                );
                continue;
            }
            for (code, used) in &suppression.codes {
                match find(code) {
                    None => report(
                        format!("unknown lint `{code}` in suppression"),
                        "unknown lint",
                        Some("`cargo kernel-lint rule` lists the lints"),
                    ),
                    Some(lint) if !*used && levels.level(lint) != Level::Allow => {
                        let place = match suppression.cover {
                            Cover::Line(_) => "on its line",
                            Cover::Range(..) => "in the statement or item below it",
                            Cover::Nothing => "here: no statement or item follows it directly",
                        };
                        report(
                            format!("unused suppression: no `{}` ({}) finding {place}", lint.code, lint.name),
                            "suppresses nothing",
                            Some("remove it, or move it to the line or statement of the finding"),
                        );
                    }
                    Some(_) => {}
                }
            }
        }
        out
    }
}

fn unused_diagnostic(
    path: &str,
    level: Level,
    span: Span,
    message: String,
    label: &str,
    help: Option<&str>,
) -> Diagnostic {
    Diagnostic {
        code: UNUSED_SUPPRESSION.code,
        name: UNUSED_SUPPRESSION.name,
        level,
        file: path.to_string(),
        kernel: String::new(),
        message,
        primary: Label {
            span,
            message: label.to_string(),
        },
        secondary: Vec::new(),
        help: help.map(str::to_string),
        notes: Vec::new(),
        fixes: Vec::new(),
        impact: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check_file;
    use kernel_lint_analyzer::{analyze_source, LaunchPlan};

    /// `(code, line, message)` of what a snippet reports once its suppressions are applied.
    fn reported(source: &str) -> Vec<(&'static str, usize, String)> {
        let file = SourceFile::new("snippet.rs", source);
        let report = analyze_source(&file, &LaunchPlan::default()).expect("snippet parses");
        let levels = LintLevels::default();
        let mut diagnostics = check_file(&report, &levels);
        let mut suppressions = Suppressions::default();
        suppressions.add(&file);
        suppressions.apply(&mut diagnostics);
        diagnostics.extend(suppressions.unused("snippet.rs", &levels));
        diagnostics
            .into_iter()
            .map(|d| (d.code, d.primary.span.line, d.message))
            .collect()
    }

    fn codes(source: &str) -> Vec<(&'static str, usize)> {
        reported(source).into_iter().map(|(c, l, _)| (c, l)).collect()
    }

    const HEAD: &str =
        "#[kernel]\npub unsafe fn k(a: &[f32], c: *mut f32) {\n    let i = thread::index_1d() as usize;\n";

    #[test]
    fn grammar() {
        assert_eq!(parse_allow("allow(KL002)"), Some(Ok(vec!["KL002".to_string()])));
        assert_eq!(
            parse_allow(" allow ( KL002 ,strided-access ) "),
            Some(Ok(vec!["KL002".to_string(), "strided-access".to_string()]))
        );
        assert_eq!(parse_allow("block(32)"), None);
        assert_eq!(parse_allow("allowed(KL001)"), None);
        assert_eq!(
            parse_allow("allow KL001"),
            Some(Err("expected `(` after `allow`".to_string()))
        );
        assert_eq!(
            parse_allow("allow(KL001"),
            Some(Err("missing `)` after the lints".to_string()))
        );
        assert_eq!(
            parse_allow("allow(KL001,)"),
            Some(Err("missing lint in `allow(KL001,)`".to_string()))
        );
        assert_eq!(
            parse_allow("allow()"),
            Some(Err("`allow()` names no lint: expected `allow(KL001, ...)`".to_string()))
        );
        assert_eq!(
            parse_allow("allow(KL001) x"),
            Some(Err("unexpected `x` after `allow(KL001)`".to_string()))
        );
    }

    #[test]
    fn unsuppressed_finding_is_reported() {
        assert_eq!(codes(&format!("{HEAD}    let x = a[i * 2];\n}}\n")), [("KL001", 4)]);
    }

    #[test]
    fn at_the_end_of_the_line() {
        let source = format!("{HEAD}    let x = a[i * 2]; // kernel-lint: allow(KL001)\n    let y = a[i * 3];\n}}\n");
        assert_eq!(codes(&source), [("KL001", 5)]);
    }

    #[test]
    fn stacked_above_a_statement_spanning_lines() {
        let source = format!(
            "{HEAD}    // kernel-lint: allow(strided-access)\n    // why: the layout is fixed by the host\n    let x = a[\n        i * 2\n    ];\n    let y = a[i * 3];\n}}\n"
        );
        assert_eq!(codes(&source), [("KL001", 9)]);
    }

    #[test]
    fn above_the_item_and_its_attributes() {
        let source = format!("// kernel-lint: allow(KL001)\n{HEAD}    let x = a[i * 2];\n    let y = a[i * 3];\n}}\n");
        assert_eq!(codes(&source), []);
    }

    #[test]
    fn between_the_attributes_and_the_fn() {
        let source = "#[kernel]\n// kernel-lint: allow(KL001)\npub unsafe fn k(a: &[f32], c: *mut f32) {\n    let i = thread::index_1d() as usize;\n    let x = a[i * 2];\n}\n";
        assert_eq!(reported(source), []);
        // The same comment names a lint with no finding there: it is reported as unused by that
        // lint, not as covering nothing.
        let source = "/// Docs.\n#[kernel]\n// kernel-lint: allow(KL003)\npub unsafe fn k(a: &[f32], c: *mut f32) {\n    let i = thread::index_1d() as usize;\n    let x = a[i * 2];\n}\n";
        assert_eq!(
            reported(source),
            [
                ("KL001", 6, "strided access to `a[i * 2]`: lanes are 8 bytes apart, 8 sectors per request where 4 would do (50% efficiency)".to_string()),
                ("KL008", 3, "unused suppression: no `KL003` (misaligned-access) finding in the statement or item below it".to_string()),
            ]
        );
    }

    #[test]
    fn doc_comments_around_it_do_not_detach_it() {
        let source = format!("/// Reads every other element.\n// kernel-lint: allow(KL001)\n/// More docs.\n{HEAD}    let x = a[i * 2];\n}}\n");
        assert_eq!(codes(&source), []);
        let source = format!("/// kernel-lint: allow(KL001)\n{HEAD}    let x = a[i * 2];\n}}\n");
        assert_eq!(codes(&source), []);
    }

    #[test]
    fn a_blank_line_detaches_the_comment() {
        let source = format!("{HEAD}    // kernel-lint: allow(KL001)\n\n    let x = a[i * 2];\n}}\n");
        assert_eq!(
            reported(&source),
            [
                ("KL001", 6, "strided access to `a[i * 2]`: lanes are 8 bytes apart, 8 sectors per request where 4 would do (50% efficiency)".to_string()),
                ("KL008", 4, "unused suppression: no `KL001` (strided-access) finding here: no statement or item follows it directly".to_string()),
            ]
        );
    }

    #[test]
    fn unused_suppression_names_the_code_and_spans_the_comment() {
        let source = format!("{HEAD}    // kernel-lint: allow(KL001, KL002)\n    let x = a[i * 2];\n}}\n");
        let file = SourceFile::new("snippet.rs", source.as_str());
        let report = analyze_source(&file, &LaunchPlan::default()).expect("parses");
        let levels = LintLevels::default();
        let mut diagnostics = check_file(&report, &levels);
        let mut suppressions = Suppressions::default();
        suppressions.add(&file);
        suppressions.apply(&mut diagnostics);
        assert!(diagnostics.is_empty());
        let unused = suppressions.unused("snippet.rs", &levels);
        assert_eq!(unused.len(), 1);
        assert_eq!(
            unused[0].message,
            "unused suppression: no `KL002` (array-of-structs-access) finding in the statement or item below it"
        );
        assert_eq!((unused[0].code, unused[0].level), ("KL008", Level::Warn));
        let comment = "// kernel-lint: allow(KL001, KL002)";
        let start = source.find(comment).expect("comment");
        assert_eq!(
            unused[0].primary.span,
            Span {
                start,
                end: start + comment.len(),
                line: 4,
                column: 5
            }
        );
    }

    #[test]
    fn unknown_code_and_malformed_comment() {
        let source = format!("{HEAD}    let x = a[i * 2]; // kernel-lint: allow(KL001, KL999)\n    // kernel-lint: allow(KL001\n    let y = a[i];\n}}\n");
        assert_eq!(
            reported(&source),
            [
                ("KL008", 4, "unknown lint `KL999` in suppression".to_string()),
                (
                    "KL008",
                    5,
                    "malformed suppression: missing `)` after the lints".to_string()
                ),
            ]
        );
    }

    #[test]
    fn suppressions_are_not_launch_hints_and_string_text_is_no_comment() {
        let source = format!(
            "// kernel-lint: allow(KL001)\n// kernel-lint: block(64)\n{HEAD}    let s = \"// kernel-lint: allow(KL002)\";\n    let x = a[i * 2];\n}}\n"
        );
        let file = SourceFile::new("snippet.rs", source.as_str());
        let report = analyze_source(&file, &LaunchPlan::default()).expect("parses");
        assert!(report.unsupported.is_empty(), "{:?}", report.unsupported);
        assert_eq!(report.kernels[0].launch.block, [64, 1, 1]);
        assert_eq!(codes(&source), []);
    }

    #[test]
    fn kernel_level_findings_have_a_span_too() {
        let body = "    *c.add(i) = load!(a[i]);\n}\n";
        assert_eq!(codes(&format!("{HEAD}{body}")), [("KL007", 4)]);
        assert_eq!(
            codes(&format!(
                "{HEAD}    // kernel-lint: allow(unfollowed-construct)\n{body}"
            )),
            []
        );
        assert_eq!(codes(&format!("// kernel-lint: allow(KL007)\n{HEAD}{body}")), []);
        let trailing = "    *c.add(i) = load!(a[i]); // kernel-lint: allow(KL007)\n}\n";
        assert_eq!(codes(&format!("{HEAD}{trailing}")), []);
    }

    #[test]
    fn a_suppression_covers_its_statement_only() {
        let source =
            format!("{HEAD}    // kernel-lint: allow(KL001)\n    let x = a[i * 2];\n    let y = a[i * 3];\n}}\n");
        assert_eq!(codes(&source), [("KL001", 6)]);
        // Above a block statement, it covers the whole block.
        let source = format!(
            "{HEAD}    // kernel-lint: allow(KL001)\n    for j in 0..4 {{\n        let y = a[i * 3 + j];\n    }}\n}}\n"
        );
        assert_eq!(codes(&source), []);
    }

    #[test]
    fn allowed_lints_are_not_reported_unused() {
        let source = format!("{HEAD}    let x = a[i]; // kernel-lint: allow(KL006)\n}}\n");
        let file = SourceFile::new("snippet.rs", source.as_str());
        let mut levels = LintLevels::default();
        levels.set("KL006", Level::Allow).expect("known lint");
        let mut suppressions = Suppressions::default();
        suppressions.add(&file);
        assert!(suppressions.unused("snippet.rs", &levels).is_empty());
        assert_eq!(suppressions.unused("snippet.rs", &LintLevels::default()).len(), 1);
    }
}
