//! Functions defined inside a kernel's body (`fn nested_identity<T: Copy>(v: T) -> T`): helpers
//! like those of the file, called by the kernel with or without explicit arguments.

use syn::{Item, Stmt};

/// The functions the kernels define among their statements, first of each name, skipping
/// names the file's own functions already take.
pub(super) fn nested_helpers(kernels: &[&syn::ItemFn], taken: &[&syn::ItemFn]) -> Vec<syn::ItemFn> {
    let mut out: Vec<syn::ItemFn> = Vec::new();
    for kernel in kernels {
        for stmt in &kernel.block.stmts {
            let Stmt::Item(Item::Fn(f)) = stmt else { continue };
            let name = &f.sig.ident;
            if taken.iter().any(|t| t.sig.ident == *name) || out.iter().any(|o| o.sig.ident == *name) {
                continue;
            }
            out.push(f.clone());
        }
    }
    out
}
