//! Kernels called as ordinary functions by other kernels: cuda-oxide's `#[kernel]` expands
//! into a callable implementation function plus the entry, so `scaled_gather::<f32>(a, b, c,
//! lc)` runs the callee's body in the caller's threads. The callee is lowered a second time
//! as a device function, under a name of its own, besides its kernel twin.

use super::{Context, Lowered, Scope};
use kernel_lint_analyzer::model::kernel::is_kernel;
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::{Expr, Item};

/// The device copy of a kernel a call names, and how many parameters the kernel declares.
#[derive(Clone)]
pub(super) struct KernelFunction {
    pub(super) name: String,
    pub(super) params: usize,
}

/// `scaled_gather::<f32>` with literal arguments, or the bare name of a call without any.
/// Only a call by the kernel's own name: `common::blur(..)` is another crate's function.
fn call_key(path: &syn::Path) -> Option<String> {
    if path.leading_colon.is_some() || path.segments.len() != 1 {
        return None;
    }
    let last = path.segments.last()?;
    if last.arguments.is_none() {
        return Some(last.ident.to_string());
    }
    super::generics::instance_call(path)
}

#[derive(Default)]
struct Calls {
    found: Vec<(String, syn::Path)>,
}

impl<'ast> Visit<'ast> for Calls {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Expr::Path(p) = &*c.func {
            if let Some(key) = call_key(&p.path) {
                self.found.push((key, p.path.clone()));
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
}

/// The device copies of the kernels among `items` that `callers` (and the copies) call as
/// functions, each a plain function named unlike any in `taken`.
pub(super) fn device_copies(
    items: &[&Item],
    callers: &[&syn::ItemFn],
    taken: &mut HashSet<String>,
) -> (Vec<syn::ItemFn>, HashMap<String, KernelFunction>) {
    let kernels: Vec<&syn::ItemFn> = items
        .iter()
        .filter_map(|i| match i {
            Item::Fn(f) if is_kernel(f) => Some(f),
            _ => None,
        })
        .collect();
    let mut copies = Vec::new();
    let mut by_call = HashMap::new();
    if kernels.is_empty() {
        return (copies, by_call);
    }
    let mut calls = Calls::default();
    for f in callers {
        calls.visit_item_fn(f);
    }
    while let Some((key, path)) = calls.found.pop() {
        let Some(last) = path.segments.last() else { continue };
        let Some(kernel) = kernels.iter().find(|k| k.sig.ident == last.ident) else {
            continue;
        };
        if by_call.contains_key(&key) {
            continue;
        }
        let generic = kernel
            .sig
            .generics
            .params
            .iter()
            .any(|p| !matches!(p, syn::GenericParam::Lifetime(_)));
        let values = super::generics::literal_arguments(&last.arguments).unwrap_or_default();
        let words: Vec<&str> = values
            .iter()
            .flat_map(|v| v.split(|c: char| !c.is_ascii_alphanumeric()))
            .filter(|w| !w.is_empty())
            .collect();
        let mut name = format!("{}_device", kernel.sig.ident);
        if !words.is_empty() {
            name = format!("{name}_{}", words.join("_"));
        }
        while !taken.insert(name.clone()) {
            name.push('_');
        }
        let copy = if generic {
            // A generic kernel called without literal arguments stays unknown to the call.
            if values.is_empty() {
                continue;
            }
            match super::generics::instantiate(kernel, &values, &name) {
                Some(copy) => copy,
                None => continue,
            }
        } else {
            let mut copy = (*kernel).clone();
            copy.sig.ident = syn::Ident::new(&name, kernel.sig.ident.span());
            copy
        };
        let mut copy = copy;
        // No longer an entry: neither the attribute nor the kernel ABI.
        copy.attrs.clear();
        copy.sig.abi = None;
        calls.visit_item_fn(&copy);
        by_call.insert(
            key,
            KernelFunction {
                name,
                params: copy.sig.inputs.len(),
            },
        );
        copies.push(copy);
    }
    (copies, by_call)
}

impl Context<'_> {
    /// A call of a kernel as a function: a call of its device copy. cuda-oxide appends the
    /// caller's launch context as a last argument when the callee reads the thread index; the
    /// copy takes the index from the builtins, so that argument (a binding, no access) goes.
    pub(super) fn kernel_function_call(&self, c: &syn::ExprCall, scope: &mut Scope) -> Lowered<Option<String>> {
        let Expr::Path(p) = &*c.func else { return Ok(None) };
        let Some(f) = call_key(&p.path).and_then(|k| self.kernel_functions.get(&k)) else {
            return Ok(None);
        };
        let context_argument = c.args.len() == f.params + 1
            && matches!(c.args.last(), Some(Expr::Path(a)) if a.path.get_ident().is_some());
        if c.args.len() != f.params && !context_argument {
            return self.fail(
                c,
                format!(
                    "call of kernel `{}` as a function with {} arguments for {} parameters",
                    self.text(&c.func),
                    c.args.len(),
                    f.params
                ),
            );
        }
        let mut call = c.clone();
        *call.func = Expr::Path(syn::ExprPath {
            attrs: Vec::new(),
            qself: None,
            path: syn::Ident::new(&f.name, proc_macro2::Span::call_site()).into(),
        });
        call.args = c.args.iter().take(f.params).cloned().collect();
        self.call(&call, scope).map(Some)
    }
}
