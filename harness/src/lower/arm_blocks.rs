//! The block of a `match` arm, whatever form its body takes.

use syn::{Expr, Stmt};

/// A `match` arm's body as a block.
pub(super) fn arm_block(body: &Expr) -> syn::Block {
    match body {
        Expr::Block(b) if b.label.is_none() => b.block.clone(),
        other => syn::Block {
            brace_token: Default::default(),
            stmts: vec![Stmt::Expr(other.clone(), Some(Default::default()))],
        },
    }
}
