//! Closures bound to a name and only ever called (`let at = |k| a[i * 4 + k]; at(0) + at(1)`):
//! the body runs at each call with the call's arguments, so each call is its own access. A
//! closure used any other way (passed to an iterator or a function) is walked once where it
//! is written, its parameters unknown.

use super::{CallFrame, Interpreter, Value};
use syn::visit::Visit;
use syn::{Expr, Pat, Stmt};

impl Interpreter<'_> {
    /// `let name = |..| ..;` where every later use of `name` in the block is a call: binds the
    /// closure for inlining and says so; otherwise leaves the statement to be walked.
    pub(crate) fn bind_called_closure(&mut self, stmt: &Stmt, rest: &[&Stmt]) -> bool {
        let Stmt::Local(local) = stmt else { return false };
        let (Pat::Ident(ident), Some(init)) = (&local.pat, &local.init) else {
            return false;
        };
        let Expr::Closure(closure) = &*init.expr else {
            return false;
        };
        let name = ident.ident.to_string();
        let mut uses = Uses {
            name: &name,
            other: false,
        };
        for stmt in rest {
            uses.visit_stmt(stmt);
        }
        if uses.other {
            return false;
        }
        // What it captures is what the names held here: a closure that borrows them keeps
        // them from changing, a `move` closure copies them.
        self.closures.push((closure.clone(), self.scopes.clone()));
        self.define(name, Value::Closure(self.closures.len() - 1));
        true
    }

    /// A call of closure `index`: its parameters bound to the arguments, its body walked here.
    pub(crate) fn call_closure(&mut self, index: usize, call: &syn::ExprCall) -> Value {
        let Some((closure, captured)) = self.closures.get(index).cloned() else {
            return Value::Unknown;
        };
        let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
        let here = std::mem::replace(&mut self.scopes, captured);
        self.scopes.push(Default::default());
        self.calls.push(CallFrame {
            callee: self.text(&call.func),
            file: self.file_id,
            span: self.span(call),
            handed: Vec::new(),
        });
        for (input, arg) in closure.inputs.iter().zip(args) {
            self.bind_pattern(input, arg);
        }
        // A `return` inside leaves the closure, not the function around it.
        let outer = std::mem::take(&mut self.returns);
        let tail = self.value(&closure.body);
        let returned = std::mem::replace(&mut self.returns, outer);
        self.calls.pop();
        self.scopes = here;
        if returned.is_empty() || returned.iter().all(|(v, _)| *v == tail) {
            return tail;
        }
        let lane = tail.is_lane_dependent() || returned.iter().any(|(v, guarded)| *guarded || v.is_lane_dependent());
        let mut inputs: Vec<&Value> = returned.iter().map(|(v, _)| v).collect();
        inputs.push(&tail);
        Value::Int(self.derived(self.text(call), lane, &inputs))
    }
}

/// Whether a name is used other than as the callee of a call.
struct Uses<'n> {
    name: &'n str,
    other: bool,
}

impl<'ast> Visit<'ast> for Uses<'_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Call(call) if matches!(&*call.func, Expr::Path(p) if p.path.is_ident(self.name)) => {
                for arg in &call.args {
                    self.visit_expr(arg);
                }
            }
            Expr::Path(p) if p.path.is_ident(self.name) => self.other = true,
            _ => syn::visit::visit_expr(self, expr),
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // Inside a macro's tokens a use cannot be told from a call: not inlined.
        let named = |t: &proc_macro2::TokenTree| matches!(t, proc_macro2::TokenTree::Ident(i) if i == self.name);
        if mentions(mac.tokens.clone(), &named) {
            self.other = true;
        }
    }
}

fn mentions(tokens: proc_macro2::TokenStream, named: &dyn Fn(&proc_macro2::TokenTree) -> bool) -> bool {
    tokens.into_iter().any(|t| match &t {
        proc_macro2::TokenTree::Group(g) => mentions(g.stream(), named),
        other => named(other),
    })
}
