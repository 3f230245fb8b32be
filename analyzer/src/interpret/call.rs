//! Calls: geometry functions, `core::slice::from_raw_parts`, `min`/`max`, helper functions of
//! the same file (followed with their arguments bound), and macros.

use super::geometry::GeometryValue;
use super::stmt::Flow;
use super::value::why;
use super::{Interpreter, MemorySpace, Pointer, Value};
use crate::algebra::{OpKind, Poly, CANNOT_FOLLOW};
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

/// Integer types whose `from` and `try_from` keep the value.
const INTEGER_TYPES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
];

/// The type argument of a path such as `size_of::<T>`.
fn turbofish_type(path: &syn::Path) -> Option<&syn::Type> {
    match &path.segments.last()?.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

impl<'a> Interpreter<'a> {
    /// A call: geometry, pointer and conversion functions, helpers of the file (followed), and
    /// otherwise a value that may differ between lanes.
    pub(crate) fn call(&mut self, call: &syn::ExprCall) -> Value {
        let Expr::Path(path) = &*call.func else {
            self.value(&call.func);
            let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
            return self.invisible_call(call, &args);
        };
        let name = last_segment(&path.path);
        // A closure held in a variable: its body was walked where it was written.
        if path.path.get_ident().is_some() && self.lookup(&name).is_some() {
            let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
            return self.invisible_call(call, &args);
        }
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
            if matches!(name.as_str(), "size_of" | "align_of") {
                let layout = turbofish_type(&path.path).and_then(|t| self.layouts.layout(t));
                return Value::Int(match layout {
                    Some(l) => Poly::constant(if name == "size_of" { l.size } else { l.align } as i64),
                    None => self.opaque(self.text(call), false),
                });
            }
        }
        let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
        let conversion = matches!(name.as_str(), "from" | "try_from")
            && path.path.segments.len() == 2
            && INTEGER_TYPES.contains(&path.path.segments[0].ident.to_string().as_str());
        match name.as_str() {
            "from_raw_parts" | "from_raw_parts_mut" | "Some" | "Ok" | "Wrapping" => {
                return args.into_iter().next().unwrap_or(Value::Unknown);
            }
            _ if conversion && args.len() == 1 => return args.into_iter().next().unwrap_or(Value::Unknown),
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
        self.invisible_call(call, &args)
    }

    /// A call without a body to follow: its result may differ between lanes even when its
    /// inputs do not, since the function may read the thread index itself.
    fn invisible_call(&mut self, call: &syn::ExprCall, args: &[Value]) -> Value {
        let why = if args.iter().any(Value::is_lane_dependent) {
            CANNOT_FOLLOW
        } else {
            why::INVISIBLE_CALL
        };
        let id = self.fresh_id();
        Value::Int(Poly::opaque_because(id, self.text(call), true, why))
    }

    /// Follows a call to a helper function of the same file with its arguments bound.
    pub(crate) fn inline_call(&mut self, call: &syn::ExprCall, name: &str, args: Vec<Value>) -> Value {
        if self.functions.is_recursive(name) {
            self.unsupported(call, format!("`{name}` is recursive; its accesses are not analyzed"));
            return Value::Int(self.opaque(self.text(call), true));
        }
        if self.call_depth >= super::MAX_CALL_DEPTH {
            self.unsupported(
                call,
                format!(
                    "calls nested deeper than {} levels are not followed",
                    super::MAX_CALL_DEPTH
                ),
            );
            return Value::Int(self.opaque(self.text(call), true));
        }
        let Some(function) = self.functions.get(name).cloned() else {
            return Value::Unknown;
        };
        let inputs_vary = args.iter().any(Value::is_lane_dependent);
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![Default::default()]);
        let saved_returns = std::mem::take(&mut self.returns);
        let saved_call_guards = std::mem::replace(&mut self.call_guards, self.guards.len());
        for (input, value) in function.sig.inputs.iter().zip(args) {
            if let syn::FnArg::Typed(typed) = input {
                self.bind_pattern(&typed.pat, value);
            }
        }
        self.call_depth += 1;
        let (flow, tail) = self.block(&function.block);
        self.call_depth -= 1;
        let returns = std::mem::replace(&mut self.returns, saved_returns);
        self.call_guards = saved_call_guards;
        self.scopes = saved_scopes;
        let mut outcomes = returns;
        if flow == Flow::Falls {
            outcomes.push((tail, false));
        }
        match outcomes.as_slice() {
            [(one, _)] => one.clone(),
            [(first, _), rest @ ..] if rest.iter().all(|(v, _)| v == first) => first.clone(),
            _ => {
                // Which `return` is taken differs between lanes when a condition on the way does.
                let lane = inputs_vary || outcomes.iter().any(|(v, guarded)| *guarded || v.is_lane_dependent());
                Value::Int(self.opaque(self.text(call), lane))
            }
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
