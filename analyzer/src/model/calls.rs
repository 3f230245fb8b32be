//! The file's device functions and the call graph between them, so that helpers called from a
//! kernel can be followed and recursive ones refused.

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::{Item, ItemFn};

/// Free functions of a file by name, with the set of those that are (mutually) recursive.
#[derive(Debug, Default)]
pub struct Functions {
    by_name: HashMap<String, ItemFn>,
    recursive: HashSet<String>,
}

impl Functions {
    /// Collects the free functions of a file (also in inline modules) and their call graph.
    pub fn collect(file: &syn::File) -> Functions {
        let mut by_name = HashMap::new();
        gather(&file.items, &mut by_name);
        let mut graph = DiGraph::<&str, ()>::new();
        let nodes: HashMap<&str, _> = by_name
            .keys()
            .map(|n| (n.as_str(), graph.add_node(n.as_str())))
            .collect();
        for (name, item) in &by_name {
            let mut calls = CallCollector::default();
            calls.visit_block(&item.block);
            for callee in calls.names {
                if let Some(&to) = nodes.get(callee.as_str()) {
                    graph.add_edge(nodes[name.as_str()], to, ());
                }
            }
        }
        let mut recursive = HashSet::new();
        for component in tarjan_scc(&graph) {
            let self_loop = component.len() == 1 && graph.contains_edge(component[0], component[0]);
            if component.len() > 1 || self_loop {
                recursive.extend(component.iter().map(|&n| graph[n].to_string()));
            }
        }
        Functions { by_name, recursive }
    }

    /// The function with this name.
    pub fn get(&self, name: &str) -> Option<&ItemFn> {
        self.by_name.get(name)
    }

    /// Whether the function calls itself, directly or through others.
    pub fn is_recursive(&self, name: &str) -> bool {
        self.recursive.contains(name)
    }
}

fn gather(items: &[Item], out: &mut HashMap<String, ItemFn>) {
    for item in items {
        match item {
            Item::Fn(f) => {
                out.insert(f.sig.ident.to_string(), f.clone());
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    gather(items, out);
                }
            }
            _ => {}
        }
    }
}

#[derive(Default)]
struct CallCollector {
    names: Vec<String>,
}

impl<'ast> Visit<'ast> for CallCollector {
    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*call.func {
            if let Some(last) = p.path.segments.last() {
                self.names.push(last.ident.to_string());
            }
        }
        syn::visit::visit_expr_call(self, call);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recursion_is_found_through_cycles() {
        let file = syn::parse_file(
            "fn a() { b() } fn b() { a() } fn c() { c() } fn d() -> u32 { helper::e() } mod helper { pub fn e() -> u32 { 1 } }",
        )
        .unwrap();
        let fns = Functions::collect(&file);
        assert!(fns.is_recursive("a") && fns.is_recursive("b") && fns.is_recursive("c"));
        assert!(!fns.is_recursive("d") && !fns.is_recursive("e"));
        assert!(fns.get("e").is_some());
    }
}
