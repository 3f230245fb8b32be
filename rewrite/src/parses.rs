//! The parses the drafts of rewrites read: each text once per workspace, taken from the
//! program the analysis left on this thread when it holds the file.

use kernel_lint_analyzer::SourceFile;
use std::cell::RefCell;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// Texts parsed, by a hash of the text, or syn's message.
type ParsedTexts = HashMap<u64, Result<Rc<syn::File>, String>>;

thread_local! {
    /// Texts parsed for drafts, by a hash of the text, with syn's message when one does not
    /// parse; kept for one workspace.
    static TEXTS: RefCell<(u64, ParsedTexts)> = RefCell::new((u64::MAX, Default::default()));
}

/// The drafts that follow are of the workspace numbered `workspace`: the texts parsed for
/// another one are let go, so that a long session (the language server's) keeps only the
/// parses of its last one.
pub fn drafting_in(workspace: u64) {
    TEXTS.with(|texts| {
        let mut texts = texts.borrow_mut();
        if texts.0 != workspace {
            *texts = (workspace, Default::default());
        }
    });
}

/// A file's text parsed once per run, or syn's message: every draft of every finding of a
/// file reads the same text.
pub fn parse_text(text: &str) -> Result<Rc<syn::File>, String> {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    let key = hasher.finish();
    TEXTS.with(|texts| {
        texts
            .borrow_mut()
            .1
            .entry(key)
            // The program this thread analyzed holds most files already.
            .or_insert_with(|| match kernel_lint_analyzer::kept_syntax(text) {
                Some(syntax) => Ok(syntax),
                None => syn::parse_file(text).map(Rc::new).map_err(|e| e.to_string()),
            })
            .clone()
    })
}

/// The syntax of a file, parsed once per run: every draft of every finding looks at the same
/// files, through [`parse_text`] or this.
pub fn parsed(source: &SourceFile) -> Option<Rc<syn::File>> {
    parse_text(&source.text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_is_parsed_once_per_workspace_and_let_go_with_it() {
        let text = "pub fn at(i: usize) -> usize { i }\n";
        drafting_in(1);
        let parsed = parse_text(text).expect("parses");
        assert!(Rc::ptr_eq(&parsed, &parse_text(text).expect("parses")), "one parse");
        drafting_in(1);
        assert!(
            Rc::ptr_eq(&parsed, &parse_text(text).expect("parses")),
            "kept for its workspace"
        );
        drafting_in(2);
        assert!(
            !Rc::ptr_eq(&parsed, &parse_text(text).expect("parses")),
            "let go for another"
        );
        assert!(parse_text("fn broken( {}").is_err());
    }
}
