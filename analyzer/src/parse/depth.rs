//! A token-level guard against input nested deeper than a recursive parser can follow.
//!
//! syn parses nested groups, prefix operators and operator chains by recursion, and dropping the
//! resulting tree recurses as deep; input nested thousands deep would overflow the stack and
//! abort the process. The token stream itself is built without recursion, so it is measured
//! here, iteratively, first, one top-level item at a time.

use crate::source::{SourceFile, Span};
use proc_macro2::{Delimiter, TokenStream, TokenTree};

/// Deepest nesting of brackets accepted.
pub const MAX_GROUP_DEPTH: usize = 128;
/// Longest run of prefix operators (`- - - x`, `!!!x`, `&&&x`) accepted.
pub const MAX_PREFIX_RUN: usize = 128;
/// Most tokens accepted in one statement, one item, or one element of a list.
///
/// Counting restarts after `;` and `,`, and after a `{...}` block that ends a statement or an
/// item (the next token starts a new one), so a module or a function body of any length is
/// accepted while a single expression chain stays short enough for syn to parse.
pub const MAX_RUN_TOKENS: usize = 4096;

/// One level of the walk: the rest of a group's tokens, how many were counted since the last
/// statement boundary, and whether the previous token was a `{...}` block.
struct Level {
    tokens: proc_macro2::token_stream::IntoIter,
    run: usize,
    after_block: bool,
}

/// Returns why and where the limits are first exceeded in one item's tokens.
pub fn check(file: &SourceFile, tokens: TokenStream) -> Result<(), (String, Span)> {
    let mut stack = vec![Level {
        tokens: tokens.into_iter(),
        run: 0,
        after_block: false,
    }];
    let mut prefix_run = 0usize;
    let mut previous_is_operand = false;
    while let Some(level) = stack.last_mut() {
        let Some(tree) = level.tokens.next() else {
            stack.pop();
            previous_is_operand = true;
            continue;
        };
        if level.after_block && starts_statement(&tree) {
            level.run = 0;
        }
        level.after_block = matches!(&tree, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace);
        level.run += 1;
        if level.run > MAX_RUN_TOKENS {
            return Err((
                format!("a statement longer than {MAX_RUN_TOKENS} tokens"),
                file.span_of(tree.span()),
            ));
        }
        match tree {
            TokenTree::Group(group) => {
                if stack.len() > MAX_GROUP_DEPTH {
                    return Err((
                        format!("brackets nested deeper than {MAX_GROUP_DEPTH} levels"),
                        file.span_of(group.span_open()),
                    ));
                }
                prefix_run = 0;
                previous_is_operand = false;
                if group.delimiter() != Delimiter::None || !group.stream().is_empty() {
                    stack.push(Level {
                        tokens: group.stream().into_iter(),
                        run: 0,
                        after_block: false,
                    });
                }
            }
            TokenTree::Punct(punct) => {
                let ch = punct.as_char();
                if matches!(ch, ';' | ',') {
                    level.run = 0;
                }
                let is_prefix = matches!(ch, '-' | '!' | '*' | '&') && !previous_is_operand;
                if is_prefix {
                    prefix_run += 1;
                    if prefix_run > MAX_PREFIX_RUN {
                        return Err((
                            format!("more than {MAX_PREFIX_RUN} prefix operators in a row"),
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

/// Whether a token right after a `{...}` block starts a new statement or item rather than
/// continuing the expression the block belongs to (`} else {`, `}.len()`, `} + 1`, `}(x)`).
///
/// Only tokens that cannot continue an expression qualify, so an operator chain through
/// blocks (`{1} + {1} + ...`) or an `else if` chain is still counted as one statement.
fn starts_statement(tree: &TokenTree) -> bool {
    match tree {
        TokenTree::Ident(ident) => ident != "else" && ident != "as",
        TokenTree::Literal(_) => true,
        TokenTree::Punct(punct) => punct.as_char() == '#',
        TokenTree::Group(group) => group.delimiter() == Delimiter::Brace,
    }
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
        assert_eq!(message, "brackets nested deeper than 128 levels");
        assert_eq!((span.line, span.column), (1, 17 + 128));
    }

    #[test]
    fn long_prefix_chains_are_refused() {
        let text = format!("fn f() {{ let x = {}1; }}", "- ".repeat(10000));
        let (message, span) = run(&text).unwrap_err();
        assert_eq!(message, "more than 128 prefix operators in a row");
        assert_eq!((span.line, span.column), (1, 18 + 2 * 128));
    }

    #[test]
    fn long_binary_chains_are_refused() {
        let text = format!("fn f() {{ let x = 1{}; }}", " + 1".repeat(10000));
        assert_eq!(run(&text).unwrap_err().0, "a statement longer than 4096 tokens");
    }

    #[test]
    fn blocks_ending_statements_restart_the_count() {
        let items = "#[inline] pub fn f(a: &[f32]) -> f32 { a[0] }\n".repeat(2000);
        assert!(run(&format!("mod m {{ {items} }}")).is_ok());
        let statements = "if a { b(); } else { c(); } for i in 0..n { d(i); } loop { break; }\n".repeat(2000);
        assert!(run(&format!("fn f() {{ {statements} }}")).is_ok());
    }

    #[test]
    fn chains_through_blocks_are_still_counted() {
        let through_blocks = format!("fn f() {{ let x = {{1}}{}; }}", " + {1}".repeat(5000));
        assert!(run(&through_blocks).unwrap_err().0.contains("longer than"));
        let else_if = format!("fn f() {{ if a {{}}{} }}", " else if a {}".repeat(5000));
        assert!(run(&else_if).unwrap_err().0.contains("longer than"));
        let methods = format!("fn f() {{ let x = {{1}}{}; }}", ".max({1})".repeat(5000));
        assert!(run(&methods).unwrap_err().0.contains("longer than"));
    }
}
