//! Splits a file's top-level tokens into items before syn sees them, so that an item that
//! cannot be parsed (or must not be) costs only that item, not the whole file.
//!
//! An item ends at a top-level `;`, or at a `{...}` block that is its body: not one in the
//! expression of a `const` or `static` (after a top-level `=`), not a const generic argument
//! (inside `<...>`), not a `use` tree (after `use` or `::`).

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};

/// A file's top-level tokens, cut into the file's inner attributes and its items.
#[derive(Debug, Default)]
pub struct Split {
    /// The leading `#![...]` attributes (and `//!` comments).
    pub inner_attrs: Vec<TokenTree>,
    /// The tokens of each item, in source order; a chunk normally holds one item.
    pub items: Vec<Vec<TokenTree>>,
}

/// Cuts a file's tokens into inner attributes and items.
pub fn split(tokens: TokenStream) -> Split {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut split = Split::default();
    let mut rest = trees.as_slice();
    while let [TokenTree::Punct(hash), TokenTree::Punct(bang), TokenTree::Group(group), tail @ ..] = rest {
        if hash.as_char() != '#' || bang.as_char() != '!' || group.delimiter() != Delimiter::Bracket {
            break;
        }
        split.inner_attrs.extend_from_slice(&rest[..3]);
        rest = tail;
    }
    let mut current: Vec<TokenTree> = Vec::new();
    let mut angle_depth = 0usize;
    let mut in_expression = false;
    for tree in rest {
        let ends = match tree {
            TokenTree::Punct(punct) => punct.as_char() == ';',
            TokenTree::Group(group) => {
                group.delimiter() == Delimiter::Brace
                    && !in_expression
                    && angle_depth == 0
                    && !continues_use_tree(&current)
            }
            _ => false,
        };
        if let TokenTree::Punct(punct) = tree {
            match punct.as_char() {
                '<' => angle_depth += 1,
                '>' if !closes_arrow(&current) => angle_depth = angle_depth.saturating_sub(1),
                // Outside `<...>`, item headers hold no comparison or compound assignment: a
                // top-level `=` starts an initializer (`const`, `static`, `type`).
                '=' if angle_depth == 0 => in_expression = true,
                _ => {}
            }
        }
        current.push(tree.clone());
        if ends {
            // A lone `;` after a braced item (`macro_rules! m { .. };`) holds nothing to parse.
            let lone_semicolon = current.len() == 1 && matches!(&current[0], TokenTree::Punct(_));
            if !lone_semicolon {
                split.items.push(std::mem::take(&mut current));
            }
            current.clear();
            angle_depth = 0;
            in_expression = false;
        }
    }
    if !current.is_empty() {
        split.items.push(current);
    }
    split
}

/// Whether a `{` following these tokens opens a `use` tree (`use {a, b}`, `use a::{b, c}`).
fn continues_use_tree(before: &[TokenTree]) -> bool {
    match before {
        [.., TokenTree::Ident(ident)] => ident == "use",
        [.., TokenTree::Punct(first), TokenTree::Punct(second)] => {
            first.as_char() == ':' && first.spacing() == Spacing::Joint && second.as_char() == ':'
        }
        _ => false,
    }
}

/// Whether a `>` following these tokens is the second half of `->` or `=>`.
fn closes_arrow(before: &[TokenTree]) -> bool {
    matches!(before.last(), Some(TokenTree::Punct(p)) if matches!(p.as_char(), '-' | '=') && p.spacing() == Spacing::Joint)
}

/// How an error names the item it skipped: "`fn k`", "`struct S`", "`macro_rules! m`";
/// `None` for items without a name of their own (`impl` blocks, `use` declarations).
pub fn label(tokens: &[TokenTree]) -> Option<String> {
    let mut rest = tokens;
    loop {
        rest = match rest {
            [TokenTree::Punct(hash), TokenTree::Group(_), tail @ ..] if hash.as_char() == '#' => tail,
            [TokenTree::Ident(vis), TokenTree::Group(group), tail @ ..]
                if vis == "pub" && group.delimiter() == Delimiter::Parenthesis =>
            {
                tail
            }
            [TokenTree::Ident(qualifier), TokenTree::Literal(_), tail @ ..] if qualifier == "extern" => tail,
            [TokenTree::Ident(qualifier), tail @ ..]
                if matches!(
                    qualifier.to_string().as_str(),
                    "pub" | "unsafe" | "async" | "extern" | "default" | "safe"
                ) || (qualifier == "const"
                    && matches!(tail.first(), Some(TokenTree::Ident(next)) if is_keyword_after_const(next))) =>
            {
                tail
            }
            _ => break,
        };
    }
    match rest {
        [TokenTree::Ident(keyword), TokenTree::Punct(bang), TokenTree::Ident(name), ..]
            if keyword == "macro_rules" && bang.as_char() == '!' =>
        {
            Some(format!("`macro_rules! {name}`"))
        }
        [TokenTree::Ident(keyword), TokenTree::Ident(word), TokenTree::Ident(name), ..]
            if keyword == "static" && word == "mut" =>
        {
            Some(format!("`static mut {name}`"))
        }
        [TokenTree::Ident(keyword), TokenTree::Ident(name), ..]
            if matches!(
                keyword.to_string().as_str(),
                "fn" | "struct" | "enum" | "union" | "trait" | "mod" | "static" | "const" | "type"
            ) =>
        {
            Some(format!("`{keyword} {name}`"))
        }
        _ => None,
    }
}

/// Whether `const` qualifies a function (`const fn`, `const unsafe fn`) rather than naming a
/// constant.
fn is_keyword_after_const(next: &proc_macro2::Ident) -> bool {
    matches!(next.to_string().as_str(), "fn" | "unsafe" | "async" | "extern")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The source text of each chunk, spaces as proc-macro2 prints them.
    fn chunks(text: &str) -> (usize, Vec<String>) {
        let split = split(text.parse().expect("tokens"));
        let items = split
            .items
            .iter()
            .map(|item| item.iter().cloned().collect::<TokenStream>().to_string())
            .collect();
        (split.inner_attrs.len(), items)
    }

    #[test]
    fn items_end_at_their_body_or_semicolon() {
        let text =
            "#![allow(x)]\n//! docs\n#[kernel] pub unsafe fn k(a: &[f32]) -> f32 where T: Fn(u8) -> u8 { a[0] }\n\
                    struct Unit;\nstruct Tuple(u8, u16);\nstruct Named { a: u8 }\nimpl X for Y { fn f() {} }\n\
                    mod m { fn g() {} }\nmacro_rules! mac { () => {} }\n";
        let (inner, items) = chunks(text);
        assert_eq!(inner, 6);
        assert_eq!(
            items,
            [
                "# [kernel] pub unsafe fn k (a : & [f32]) -> f32 where T : Fn (u8) -> u8 { a [0] }",
                "struct Unit ;",
                "struct Tuple (u8 , u16) ;",
                "struct Named { a : u8 }",
                "impl X for Y { fn f () { } }",
                "mod m { fn g () { } }",
                "macro_rules ! mac { () => { } }",
            ]
        );
    }

    #[test]
    fn blocks_inside_initializers_generics_and_use_trees_do_not_end_items() {
        let text = "static X: S = S { a: 1 };\nconst C: u8 = { 1 + 2 };\nfn f() -> Foo<{ N }> {}\n\
                    impl<const N: usize> A<N> where B<{ N > 0 }>: C {}\nuse a::{b, c};\nuse {d, e};\n\
                    const fn h<const M: usize = { 3 }>() -> bool { M == 3 }\nmacro_rules! n { () => {} };\nstatic Y: u8 = 1;";
        let (_, items) = chunks(text);
        assert_eq!(
            items,
            [
                "static X : S = S { a : 1 } ;",
                "const C : u8 = { 1 + 2 } ;",
                "fn f () -> Foo < { N } > { }",
                "impl < const N : usize > A < N > where B < { N > 0 } >: C { }",
                "use a :: { b , c } ;",
                "use { d , e } ;",
                "const fn h < const M : usize = { 3 } > () -> bool { M == 3 }",
                "macro_rules ! n { () => { } }",
                "static Y : u8 = 1 ;",
            ]
        );
    }

    #[test]
    fn an_unfinished_item_is_its_own_chunk() {
        let (_, items) = chunks("fn f() {}\nfn g() ->");
        assert_eq!(items, ["fn f () { }", "fn g () ->"]);
    }

    #[test]
    fn labels_name_the_item() {
        let label_of = |text: &str| {
            label(
                &text
                    .parse::<TokenStream>()
                    .expect("tokens")
                    .into_iter()
                    .collect::<Vec<_>>(),
            )
        };
        assert_eq!(label_of("#[kernel]\npub unsafe fn k() {}").as_deref(), Some("`fn k`"));
        assert_eq!(label_of("pub(crate) const unsafe fn c() {}").as_deref(), Some("`fn c`"));
        assert_eq!(label_of("const N: usize = 3;").as_deref(), Some("`const N`"));
        assert_eq!(label_of("pub static mut S: u8 = 0;").as_deref(), Some("`static mut S`"));
        assert_eq!(label_of("extern \"C\" fn e() {}").as_deref(), Some("`fn e`"));
        assert_eq!(
            label_of("macro_rules! m { () => {} }").as_deref(),
            Some("`macro_rules! m`")
        );
        assert_eq!(label_of("impl X { }"), None);
    }
}
