//! A token-level guard against input nested deeper than a recursive parser can follow.
//!
//! syn parses nested groups, prefix operators and operator chains by recursion, and dropping the
//! resulting tree recurses as deep; input nested thousands deep would overflow the stack and
//! abort the process. The token stream itself is built without recursion, so it is measured
//! here, iteratively, first.

use crate::source::{SourceFile, Span};
use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// Deepest nesting of brackets accepted.
pub const MAX_GROUP_DEPTH: usize = 128;
/// Longest run of prefix operators (`- - - x`, `!!!x`, `&&&x`) accepted.
pub const MAX_PREFIX_RUN: usize = 128;
/// Most tokens accepted in one statement or one item between separators.
pub const MAX_RUN_TOKENS: usize = 4096;

/// Returns the first place where the limits are exceeded.
pub fn check(file: &SourceFile, tokens: TokenStream) -> Result<(), (String, Span)> {
    let mut stack = vec![(tokens.into_iter(), 0usize)];
    let mut prefix_run = 0usize;
    let mut previous_is_operand = false;
    while let Some((iter, run)) = stack.last_mut() {
        let Some(tree) = iter.next() else {
            stack.pop();
            previous_is_operand = true;
            continue;
        };
        *run += 1;
        if *run > MAX_RUN_TOKENS {
            return Err((
                format!("a statement longer than {MAX_RUN_TOKENS} tokens is not analyzed"),
                file.span_of(tree.span()),
            ));
        }
        match tree {
            TokenTree::Group(group) => {
                if stack.len() > MAX_GROUP_DEPTH {
                    return Err((
                        format!("brackets nested deeper than {MAX_GROUP_DEPTH} levels are not analyzed"),
                        file.span_of(group.span_open()),
                    ));
                }
                prefix_run = 0;
                previous_is_operand = false;
                if group.delimiter() != Delimiter::None || !group.stream().is_empty() {
                    stack.push((group.stream().into_iter(), 0));
                }
            }
            TokenTree::Punct(punct) => {
                let ch = punct.as_char();
                if matches!(ch, ';' | ',') {
                    *run = 0;
                }
                let is_prefix = matches!(ch, '-' | '!' | '*' | '&') && !previous_is_operand;
                if is_prefix {
                    prefix_run += 1;
                    if prefix_run > MAX_PREFIX_RUN {
                        return Err((
                            format!("more than {MAX_PREFIX_RUN} prefix operators in a row are not analyzed"),
                            file.span_of(punct.span()),
                        ));
                    }
                } else {
                    prefix_run = 0;
                }
                previous_is_operand = false;
            }
            TokenTree::Ident(_) | TokenTree::Literal(_) => {
                prefix_run = 0;
                previous_is_operand = true;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Result<(), (String, Span)> {
        let file = SourceFile::new("t.rs", text);
        check(&file, file.text.parse().unwrap())
    }

    #[test]
    fn ordinary_code_passes() {
        assert!(run("fn f(a: &[f32]) -> f32 { let x = -(-a[0]); !!true; x }").is_ok());
    }

    #[test]
    fn deep_brackets_are_refused_with_location() {
        let text = format!("fn f() {{ let x = {}1{}; }}", "(".repeat(5000), ")".repeat(5000));
        let (message, span) = run(&text).unwrap_err();
        assert!(message.contains("nested deeper than 128"), "{message}");
        assert_eq!(span.line, 1);
    }

    #[test]
    fn long_prefix_chains_are_refused() {
        let text = format!("fn f() {{ let x = {}1; }}", "- ".repeat(10000));
        assert!(run(&text).unwrap_err().0.contains("prefix operators"));
    }

    #[test]
    fn long_binary_chains_are_refused() {
        let text = format!("fn f() {{ let x = 1{}; }}", " + 1".repeat(10000));
        assert!(run(&text).unwrap_err().0.contains("longer than"));
    }
}
