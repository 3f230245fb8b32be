//! Calls: geometry functions, `core::slice::from_raw_parts`, `min`/`max`, helper functions of
//! the same file (followed with their arguments bound), and macros.

use super::geometry::GeometryValue;
use super::stmt::Flow;
use super::{Interpreter, MemorySpace, Pointer, Value};
use crate::algebra::{OpKind, Poly};
use crate::parse::last_segment;
use syn::punctuated::Punctuated;
use syn::Expr;

/// Macros whose arguments are ordinary expressions that run.
const EXPRESSION_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "println",
    "print",
    "format",
    "format_args",
    "write",
    "writeln",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "dbg",
];

impl<'a> Interpreter<'a> {
    pub(crate) fn call(&mut self, call: &syn::ExprCall) -> Value {
        let Expr::Path(path) = &*call.func else {
            for a in &call.args {
                self.value(a);
            }
            return Value::Unknown;
        };
        let name = last_segment(&path.path);
        if call.args.is_empty() {
            match self.geometry.call(&name) {
                Some(GeometryValue::Scalar(p)) => return Value::Int(p),
                Some(GeometryValue::Vector(v)) => return Value::Vector(v),
                Some(GeometryValue::Unit) => return Value::Unknown,
                None => {}
            }
            if name == "dynamic_shared_mem" {
                let elem = path.path.segments.last().and_then(|s| match &s.arguments {
                    syn::PathArguments::AngleBracketed(a) => a.args.first().and_then(|g| match g {
                        syn::GenericArgument::Type(t) => self.layouts.layout(t),
                        _ => None,
                    }),
                    _ => None,
                });
                return Value::Pointer(Pointer {
                    array: "<dynamic shared memory>".into(),
                    offset: Poly::default(),
                    elem,
                    space: MemorySpace::Shared,
                    index: None,
                });
            }
        }
        let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
        match name.as_str() {
            "from_raw_parts" | "from_raw_parts_mut" | "Some" | "Wrapping" => {
                return args.into_iter().next().unwrap_or(Value::Unknown);
            }
            "min" | "max" if args.len() == 2 => {
                if let (Value::Int(a), Value::Int(b)) = (&args[0], &args[1]) {
                    let kind = if name == "min" { OpKind::Min } else { OpKind::Max };
                    return Value::Int(Poly::op(kind, a, b));
                }
            }
            _ => {}
        }
        if self.functions.get(&name).is_some() && path.path.segments.len() <= 2 {
            return self.inline_call(call, &name, args);
        }
        let lane = args.iter().any(|v| match v {
            Value::Int(p) => p.is_lane_dependent(),
            Value::Bool(p) => p.is_lane_dependent(),
            _ => true,
        }) && !args.is_empty();
        Value::Int(self.opaque(self.text(call), lane))
    }

    /// Follows a call to a helper function of the same file with its arguments bound.
    pub(crate) fn inline_call(&mut self, call: &syn::ExprCall, name: &str, args: Vec<Value>) -> Value {
        let lane = args
            .iter()
            .any(|v| !matches!(v, Value::Int(p) if !p.is_lane_dependent()));
        if self.functions.is_recursive(name) {
            self.unsupported(call, format!("`{name}` is recursive; its accesses are not analyzed"));
            return Value::Int(self.opaque(self.text(call), lane));
        }
        if self.call_depth >= super::MAX_CALL_DEPTH {
            self.unsupported(
                call,
                format!(
                    "calls nested deeper than {} levels are not followed",
                    super::MAX_CALL_DEPTH
                ),
            );
            return Value::Int(self.opaque(self.text(call), lane));
        }
        let Some(function) = self.functions.get(name).cloned() else {
            return Value::Unknown;
        };
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![Default::default()]);
        let saved_returns = std::mem::take(&mut self.returns);
        for (input, value) in function.sig.inputs.iter().zip(args) {
            if let syn::FnArg::Typed(typed) = input {
                self.bind_pattern(&typed.pat, value);
            }
        }
        self.call_depth += 1;
        let (flow, tail) = self.block(&function.block);
        self.call_depth -= 1;
        let returns = std::mem::replace(&mut self.returns, saved_returns);
        self.scopes = saved_scopes;
        let mut outcomes = returns;
        if flow == Flow::Falls {
            outcomes.push(tail);
        }
        match outcomes.as_slice() {
            [one] => one.clone(),
            [first, rest @ ..] if rest.iter().all(|v| v == first) => first.clone(),
            _ => Value::Int(self.opaque(self.text(call), lane)),
        }
    }

    /// Macros: `shared_array!`, the standard ones whose arguments run, and the rest reported.
    pub(crate) fn macro_call(&mut self, mac: &syn::Macro) -> Value {
        let name = last_segment(&mac.path);
        if name == "shared_array" {
            let elem = mac
                .parse_body_with(|input: syn::parse::ParseStream| {
                    let ty: syn::Type = input.parse()?;
                    let _: syn::Token![;] = input.parse()?;
                    let _: Expr = input.parse()?;
                    Ok(ty)
                })
                .ok()
                .and_then(|ty| self.layouts.layout(&ty));
            return Value::Pointer(Pointer {
                array: "<shared_array>".into(),
                offset: Poly::default(),
                elem,
                space: MemorySpace::Shared,
                index: None,
            });
        }
        if EXPRESSION_MACROS.contains(&name.as_str()) {
            if let Ok(args) = mac.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated) {
                for arg in &args {
                    self.value(arg);
                }
                return Value::Unknown;
            }
        }
        self.unsupported(
            mac,
            format!("macro `{name}!` is not expanded: accesses inside it are not analyzed"),
        );
        Value::Unknown
    }
}
