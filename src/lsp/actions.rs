//! The fixes of the findings in a range, as quick fixes with their edits.

use super::convert::{self, Encoding};
use crate::session::Editor;
use kernel_lint_lints::Applicability;
use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, TextEdit, Uri, WorkspaceEdit};
use std::collections::HashMap;
use std::path::Path;

/// One quick fix per fix of each finding of file `path` that overlaps bytes `start..=end`;
/// the first safe fix of a finding is the preferred one, and display-only fixes, which say
/// what to do but carry no edit, are not offered.
pub fn quick_fixes(
    state: &Editor,
    path: &Path,
    start: usize,
    end: usize,
    encoding: Encoding,
) -> Vec<CodeActionOrCommand> {
    let Some(uri) = convert::uri_of(path) else {
        return Vec::new();
    };
    let Some(text) = state.text(path) else {
        return Vec::new();
    };
    let findings = state.findings();
    let Some((diagnostics, _)) = findings.get(path) else {
        return Vec::new();
    };
    let mut actions = Vec::new();
    for finding in diagnostics {
        let span = finding.primary.span;
        if span.start > end || span.end < start {
            continue;
        }
        let linked = convert::diagnostic(finding, &text, &uri, encoding);
        let mut preferred_given = false;
        for fix in &finding.fixes {
            if fix.applicability == Applicability::DisplayOnly || fix.edits.is_empty() {
                continue;
            }
            let Some(edit) = workspace_edit(state, fix, encoding) else {
                continue;
            };
            let preferred = fix.applicability == Applicability::Safe && !preferred_given;
            preferred_given |= preferred;
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: fix.one_line_title(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![linked.clone()]),
                edit: Some(edit),
                is_preferred: preferred.then_some(true),
                ..Default::default()
            }));
        }
    }
    actions
}

/// A fix's edits by file; `None` when a file it edits cannot be named or read.
// The protocol's map is keyed by `Uri`, whose cell caches a parse and takes no part in its hash.
#[allow(clippy::mutable_key_type)]
fn workspace_edit(state: &Editor, fix: &kernel_lint_lints::Fix, encoding: Encoding) -> Option<WorkspaceEdit> {
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for edit in &fix.edits {
        let path = state.path_of(&edit.file);
        let text = state.text(&path)?;
        let uri = convert::uri_of(&path)?;
        changes.entry(uri).or_default().push(TextEdit {
            range: convert::range(&text, edit.span, encoding),
            new_text: edit.replacement.clone(),
        });
    }
    Some(WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    })
}
