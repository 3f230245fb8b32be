//! Calls: geometry functions, `core::slice::from_raw_parts`, `min`/`max`, helper functions of
//! the same file (followed with their arguments bound), and macros.

use super::geometry::GeometryValue;
use super::stmt::Flow;
use super::value::{why, Operand, DYNAMIC_SHARED, PTX_CONTEXT, SHARED_ARRAY, THREAD_INDEX};
use super::{CallFrame, Interpreter, MemorySpace, Op, Place, Pointer, Value};
use crate::algebra::{Atom, Axis, CmpOp, OpKind, Poly, Predicate, CANNOT_FOLLOW, READ_FROM_MEMORY};
use crate::model::items::{FunctionRef, Target};
use crate::model::layout::{is_atomic_cell, vector_constructor};
use crate::parse::last_segment;
use crate::workspace::MODELLED_CRATES;
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
    /// `ptr::copy_nonoverlapping(src, dst, count)` (and `ptr::copy`): element `k` of `src` read
    /// and written to element `k` of `dst`, for each `k` below `count`, as the loop it is.
    fn element_copy(&mut self, call: &syn::ExprCall) -> Value {
        let (src, dst) = (
            copy_side(self.value(&call.args[0])),
            copy_side(self.value(&call.args[1])),
        );
        let count = self.int(&call.args[2]);
        let span = self.span(call);
        self.copy_elements(span, src, dst, Some(count));
        Value::Unknown
    }

    /// A copy of `count` elements (all of them when `None`) from `src` to `dst`, element by
    /// element: a load and a store per element, in a loop the analysis counts by `k`.
    pub(crate) fn copy_elements(
        &mut self,
        span: crate::source::Span,
        src: Option<Place>,
        dst: Option<Place>,
        count: Option<Poly>,
    ) {
        let k = match count.as_ref().and_then(Poly::as_constant) {
            Some(1) => None,
            _ => Some(Poly::atom(Atom::Iter(self.fresh_id(), "k".into()))),
        };
        let bounded = match (&k, count) {
            (Some(k), Some(count)) => {
                self.guards.push(Predicate::Cmp(CmpOp::Lt, k.clone(), count));
                true
            }
            _ => false,
        };
        self.loop_depth += u32::from(k.is_some());
        // A side the analysis cannot place (a local array, a cast it does not follow) is left
        // out: it is not global or shared memory.
        for (place, op) in [(src, Op::Load), (dst, Op::Store)] {
            let Some(mut place) = place else { continue };
            if let Some(k) = &k {
                let size = place.layout.as_ref().map_or(1, |l| l.size) as i64;
                place.offset = place.offset.add(&k.scale(size));
            }
            self.access(&place, op, span);
        }
        self.loop_depth -= u32::from(k.is_some());
        if bounded {
            self.guards.pop();
        }
    }

    /// A call: a function of the analyzed workspace (followed), a modelled one (geometry,
    /// pointer and conversion functions, `min`), a tuple-struct constructor, and otherwise a
    /// value that may differ between lanes.
    pub(crate) fn call(&mut self, call: &syn::ExprCall) -> Value {
        let Expr::Path(path) = &*call.func else {
            self.value(&call.func);
            let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
            return self.invisible_call(call, &args);
        };
        let name = last_segment(&path.path);
        // A closure held in a variable: run at this call when it is only ever called, else
        // its body was walked where it was written.
        if let (Some(_), Some(Value::Closure(index))) = (path.path.get_ident(), self.lookup(&name)) {
            let index = *index;
            return self.call_closure(index, call);
        }
        if path.path.get_ident().is_some() && self.lookup(&name).is_some() {
            let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
            return self.invisible_call(call, &args);
        }
        if let Some(value) = self.cube_call(call, &path.path) {
            return value;
        }
        // glam's `uvec2(x, y)`, `UVec3::new(x, y, z)`, `Vec2::splat(v)`: a vector of numbers.
        if let Some(lanes) = vector_constructor(&path.path) {
            let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
            let components: Option<Vec<Poly>> = args
                .iter()
                .map(|a| match a {
                    Value::Int(p) => Some(p.clone()),
                    _ => None,
                })
                .collect();
            return match components {
                Some(c) if c.len() == lanes => Value::Vector(c),
                Some(c) if c.len() == 1 => Value::Vector(vec![c[0].clone(); lanes]),
                _ => Value::Unknown,
            };
        }
        // `usize::saturating_sub(x, r)`, `u32::max(a, b)`: a number's method called by path.
        if let Some(method) = number_method_by_path(call, &path.path) {
            return self.value(&Expr::MethodCall(method));
        }
        let turbofish = match &path.path.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(args)) => Some(args),
            _ => None,
        };
        // `A::f(..)` with `A` bound to a type: that type's `f`.
        if let Some(owner) = self.generic_owner(&path.path) {
            let index = self.sources.index;
            let found = index
                .methods_named(&name, self.module)
                .find(|f| f.self_type == Some(owner.as_str()));
            if let Some(function) = found {
                let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
                let callee = format!("{owner}::{name}");
                let exprs: Vec<&Expr> = call.args.iter().collect();
                let written = Written {
                    args: &exprs,
                    turbofish,
                };
                return self.inline_call(call, callee, function, None, args, written);
            }
        }
        let target = self.scope().resolve(&self.own_path(&path.path));
        if let Some(target) = target.as_ref().filter(|t| !is_modelled(t)) {
            if let Some(function) = self.sources.index.function(target) {
                let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
                let callee = self.text(&call.func);
                let exprs: Vec<&Expr> = call.args.iter().collect();
                let written = Written {
                    args: &exprs,
                    turbofish,
                };
                return self.inline_call(call, callee, function, None, args, written);
            }
            if self.sources.index.is_tuple_struct(target) {
                let fields = call
                    .args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| (i.to_string(), self.value(a)))
                    .collect();
                return Value::Struct { ty: Some(name), fields };
            }
        }
        // A path the index's names do not lead to a body (`T::zero()`, `Self::new(..)` of a
        // generic impl, a re-export it does not follow): asked of the Rust semantics, when
        // some workspace item has the name.
        let unresolved = match &target {
            Some(t) => !is_modelled(t),
            None => self.sources.index.methods_named(&name, self.module).next().is_some(),
        };
        if unresolved {
            if let Some(function) = self.resolved_function(self.span(call), false) {
                let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
                let callee = self.text(&call.func);
                let exprs: Vec<&Expr> = call.args.iter().collect();
                let written = Written {
                    args: &exprs,
                    turbofish,
                };
                return self.inline_call(call, callee, function, None, args, written);
            }
        }
        if matches!(name.as_str(), "copy_nonoverlapping" | "copy") && call.args.len() == 3 {
            return self.element_copy(call);
        }
        if let Some(value) = self.dialect_call(call, &path.path, &name, target.as_ref()) {
            return value;
        }
        if call.args.is_empty() {
            match self.geometry.call(&name) {
                Some(GeometryValue::Scalar(p)) => return Value::Int(p),
                Some(GeometryValue::Vector(v)) => return Value::Vector(v),
                Some(GeometryValue::Unit) => return Value::Unknown,
                None => {}
            }
            // cuda_std's `dynamic_shared_mem::<T>()`, cuda-oxide's `DynamicSharedArray::<T>::get()`.
            let oxide = path.path.segments.len() >= 2
                && name == "get"
                && path.path.segments[path.path.segments.len() - 2].ident == "DynamicSharedArray";
            if name == "dynamic_shared_mem" || oxide {
                let owner = if oxide {
                    let mut owner = path.path.clone();
                    owner.segments.pop();
                    owner
                } else {
                    path.path.clone()
                };
                let elem = turbofish_type(&owner).and_then(|t| self.scope().layout(t));
                return Value::Pointer(Pointer {
                    array: DYNAMIC_SHARED.into(),
                    offset: Poly::default(),
                    elem,
                    space: MemorySpace::Shared,
                    index: None,
                    len: None,
                    raw: false,
                });
            }
            if matches!(name.as_str(), "size_of" | "align_of") {
                let layout = turbofish_type(&path.path).and_then(|t| self.scope().layout(t));
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
            // `AtomicU32::from_ptr(p)` (core's, and the device crates' atomic cells): the cell
            // at `p`, whose methods are atomics on that place.
            "from_ptr" if args.len() == 1 && path.path.segments.len() >= 2 => {
                let mut owner = path.path.clone();
                owner.segments.pop();
                let cell = syn::Type::Path(syn::TypePath {
                    qself: None,
                    path: owner,
                });
                let layout = self.scope().layout(&cell).filter(|l| is_atomic_cell(&l.name));
                if let (Some(layout), Some(Value::Pointer(p))) = (layout, args.first()) {
                    let mut place = Place::at(p);
                    place.layout = Some(layout);
                    return Value::Place(place);
                }
            }
            // A slice made from a pointer and a length is that many elements long.
            "from_raw_parts" | "from_raw_parts_mut" if args.len() == 2 => {
                let len = args[1].as_int().cloned();
                return match args.into_iter().next() {
                    Some(Value::Pointer(mut p)) => {
                        p.len = len;
                        p.raw = false;
                        Value::Pointer(p)
                    }
                    other => other.unwrap_or(Value::Unknown),
                };
            }
            "from_raw_parts" | "from_raw_parts_mut" | "Some" | "Ok" | "Wrapping" | "transmute" => {
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
        if let Some(value) = self.atomic_function(call, &name, &args) {
            return value;
        }
        self.invisible_call(call, &args)
    }

    /// The index APIs that take a type argument or an argument, or return a value with methods:
    /// cuda-oxide's `index_2d::<S>()` and `index_2d_runtime(&slice)`, and `ptx_support`'s
    /// `Context::thread()` and `Context::block()` (unless `Context` is a workspace type).
    fn dialect_call(
        &mut self,
        call: &syn::ExprCall,
        path: &syn::Path,
        name: &str,
        target: Option<&Target>,
    ) -> Option<Value> {
        if !target.is_none_or(is_modelled) {
            return None;
        }
        let (x, y) = (self.geometry.global(Axis::X), self.geometry.global(Axis::Y));
        match name {
            "index_2d" if call.args.is_empty() => {
                let width = self.const_argument(path)?;
                Some(Value::Int(y.mul(&width).add(&x)))
            }
            "index_2d_runtime" if call.args.len() == 1 => {
                let slice = match &call.args[0] {
                    Expr::Reference(r) => self.text(&r.expr),
                    other => self.text(other),
                };
                // The row width is the slice's, the same for every lane.
                let width = self.opaque(format!("{slice}.row_width()"), false);
                let raw = y.mul(&width).add(&x);
                Some(Value::Struct {
                    ty: Some(THREAD_INDEX.to_string()),
                    fields: vec![
                        ("row".into(), Value::Int(y)),
                        ("col".into(), Value::Int(x)),
                        ("raw".into(), Value::Int(raw)),
                    ],
                })
            }
            "thread" | "block" if call.args.is_empty() => {
                let owner = path.segments.iter().rev().nth(1)?;
                if owner.ident != "Context" {
                    return None;
                }
                let axes = [Axis::X, Axis::Y, Axis::Z];
                let vector = |f: &dyn Fn(Axis) -> Poly| axes.map(f).to_vec();
                let index = if name == "thread" {
                    vector(&|a| self.geometry.thread(a))
                } else {
                    vector(&|a| self.geometry.block_idx(a))
                };
                // `Thread` dereferences to its index: `Context::thread().x` reads it too.
                let mut fields: Vec<(String, Value)> = ["x", "y", "z"]
                    .iter()
                    .zip(&index)
                    .map(|(n, p)| (n.to_string(), Value::Int(p.clone())))
                    .collect();
                fields.push(("index".into(), Value::Vector(index)));
                if name == "block" {
                    fields.push(("dims".into(), Value::Vector(vector(&|a| self.geometry.block_dim(a)))));
                }
                let ty = if name == "thread" { "Thread" } else { "Block" };
                Some(Value::Struct {
                    ty: Some(format!("{PTX_CONTEXT}{ty}")),
                    fields,
                })
            }
            _ => None,
        }
    }

    /// The constant of a path's first generic argument (`WIDTH` in `index_2d::<WIDTH>`).
    fn const_argument(&mut self, path: &syn::Path) -> Option<Poly> {
        let syn::PathArguments::AngleBracketed(args) = &path.segments.last()?.arguments else {
            return None;
        };
        match args.args.first()? {
            syn::GenericArgument::Const(e) => Some(self.int(e)),
            syn::GenericArgument::Type(syn::Type::Path(t)) if t.qself.is_none() => {
                let c = self.scope().const_named(&self.own_path(&t.path))?;
                Some(Poly::constant(c))
            }
            _ => None,
        }
    }

    /// A call without a body to follow: its result may differ between lanes even when its
    /// inputs do not, since the function may read the thread index itself.
    fn invisible_call(&mut self, call: &syn::ExprCall, args: &[Value]) -> Value {
        self.note_escaping_buffer(call, None, args);
        let why = if args.iter().any(Value::is_loaded_per_lane) {
            READ_FROM_MEMORY
        } else if args.iter().any(Value::is_lane_dependent) {
            CANNOT_FOLLOW
        } else {
            why::INVISIBLE_CALL
        };
        let id = self.fresh_id();
        Value::Int(Poly::opaque_because(id, self.text(call), true, why))
    }

    /// A global buffer handed to code the analysis cannot see may be read or written there
    /// (a library's matrix view, an iterator over it): say so, rather than report nothing.
    pub(crate) fn note_escaping_buffer(
        &mut self,
        call: &impl quote::ToTokens,
        receiver: Option<&Value>,
        args: &[Value],
    ) {
        let Some(buffer) = receiver.into_iter().chain(args).find_map(Value::global_buffer) else {
            return;
        };
        let message = format!(
            "`{}` takes the global buffer `{buffer}` and is not visible to the analysis: accesses through it are not analyzed",
            self.text(call)
        );
        self.unsupported(call, message);
    }

    /// Follows a call into a function or method of the workspace: its parameters (and `self`)
    /// bound to the argument values, its body walked in its own module and file, its accesses
    /// recorded with the call chain.
    pub(crate) fn inline_call(
        &mut self,
        call: &impl quote::ToTokens,
        callee: String,
        function: FunctionRef<'a>,
        receiver: Option<Value>,
        args: Vec<Value>,
        written: Written<'_, '_>,
    ) -> Value {
        let (generics, const_generics) = self.generic_arguments(&function.sig.generics, written.turbofish);
        let handed = receiver
            .iter()
            .chain(&args)
            .zip(written.args)
            .filter_map(|(value, expr)| {
                // A reference into a buffer (`&mut entries[slot].state`), not a whole buffer
                // whose element the callee picks: the call shows that one.
                let Value::Place(place) = value else {
                    return None;
                };
                let buffer = place.array.clone();
                let expr = match expr {
                    Expr::Reference(r) => &*r.expr,
                    other => other,
                };
                Some((buffer, self.span(expr)))
            })
            .collect();
        let inputs_vary = receiver.iter().chain(&args).any(Value::is_lane_dependent);
        if self.sources.index.is_recursive(&function) {
            self.unsupported(call, format!("`{callee}` is recursive; its accesses are not analyzed"));
            return Value::Int(self.opaque(self.text(call), true));
        }
        if self.calls.len() >= super::MAX_CALL_DEPTH {
            self.unsupported(
                call,
                format!(
                    "calls nested deeper than {} levels are not followed",
                    super::MAX_CALL_DEPTH
                ),
            );
            return Value::Int(self.opaque(self.text(call), true));
        }
        let Some(file) = self.sources.files.get(function.file) else {
            return Value::Int(self.opaque(self.text(call), true));
        };
        let frame = CallFrame {
            callee,
            file: self.file_id,
            span: self.span(call),
            handed,
        };
        let saved = (
            std::mem::replace(&mut self.scopes, vec![Default::default()]),
            std::mem::take(&mut self.returns),
            std::mem::replace(&mut self.call_guards, self.guards.len()),
            std::mem::replace(&mut self.file, file),
            std::mem::replace(&mut self.file_id, function.file),
            std::mem::replace(&mut self.module, function.module),
            std::mem::replace(&mut self.self_type, function.self_type.map(str::to_string)),
            std::mem::replace(&mut self.generics, generics),
        );
        self.calls.push(frame);
        // A helper called from a macro's expansion has places of its own.
        let expanding = self.expanding.take();
        for (name, value) in const_generics {
            self.define(name, value);
        }
        let mut args = args.into_iter();
        for input in &function.sig.inputs {
            match input {
                syn::FnArg::Receiver(_) => self.define("self".to_string(), receiver.clone().unwrap_or(Value::Unknown)),
                syn::FnArg::Typed(typed) => {
                    let value = args.next().unwrap_or(Value::Unknown);
                    self.bind_pattern(&typed.pat, value);
                }
            }
        }
        let (flow, tail) = self.block(function.block);
        self.expanding = expanding;
        self.calls.pop();
        let (scopes, outer_returns, call_guards, file, file_id, module, self_type, generics) = saved;
        let mut outcomes = std::mem::replace(&mut self.returns, outer_returns);
        (
            self.scopes,
            self.call_guards,
            self.file,
            self.file_id,
            self.module,
            self.self_type,
            self.generics,
        ) = (scopes, call_guards, file, file_id, module, self_type, generics);
        if flow == Flow::Falls {
            outcomes.push((tail, false));
        }
        // A helper returning `Option`: accesses go through the values it returns present.
        if outcomes.iter().any(|(v, _)| *v != Value::Absent) {
            outcomes.retain(|(v, _)| *v != Value::Absent);
        }
        let value = match outcomes.as_slice() {
            [(one, _)] => one.clone(),
            [(first, _), rest @ ..] if rest.iter().all(|(v, _)| v == first) => first.clone(),
            _ => {
                // Which `return` is taken differs between lanes when a condition on the way does.
                let lane = inputs_vary || outcomes.iter().any(|(v, guarded)| *guarded || v.is_lane_dependent());
                let inputs: Vec<&Value> = outcomes.iter().map(|(v, _)| v).collect();
                Value::Int(self.derived(self.text(call), lane, &inputs))
            }
        };
        // A reference into memory returned from another file is used here: its index is
        // located at the call, in this file.
        if function.file == self.file_id {
            return value;
        }
        let here = Some((self.text(call), self.span(call)));
        match value {
            Value::Place(mut place) if place.index.is_some() => {
                place.index = here;
                Value::Place(place)
            }
            Value::Pointer(mut pointer) if pointer.index.is_some() => {
                pointer.index = here;
                Value::Pointer(pointer)
            }
            other => other,
        }
    }

    /// A method of a workspace type (`grid.get_node(id)`, `info.image_offset(x, y)`,
    /// `ThreadId(i).as_usize()`), followed with `self` bound to the receiver; `None` when no
    /// workspace type has a method of this name for this receiver.
    pub(crate) fn workspace_method(&mut self, call: &syn::ExprMethodCall) -> Option<Value> {
        let method = call.method.to_string();
        let candidates: Vec<FunctionRef<'a>> = self
            .sources
            .index
            .methods_named(&method, self.module)
            .filter(|f| !f.module.first().is_some_and(|c| MODELLED_CRATES.contains(&c.as_str())))
            .collect();
        // No workspace type has a method of this name: it is a modelled or outside one.
        if candidates.is_empty() {
            return None;
        }
        let for_slices: Vec<FunctionRef<'a>> = candidates
            .iter()
            .filter(|f| f.self_type == Some("[T]"))
            .cloned()
            .collect();
        let function = self
            .named_method(call, candidates)
            .or_else(|| self.resolved_function(self.span(call), true))
            .or_else(|| self.slice_method(call, for_slices))?;
        // A method of slices (`impl Tr for [T]`) indexes the buffer itself; any other method
        // of a pointed-to value gets the value it points at.
        let of_buffer = function.self_type.is_some_and(|t| t.starts_with('[') || t == "*T");
        let receiver = match self.operand(&call.receiver) {
            Operand::Place(p) | Operand::Value(Value::Place(p)) => Value::Place(p),
            Operand::Value(Value::Pointer(p)) if of_buffer => Value::Pointer(p),
            Operand::Value(Value::Pointer(p)) => Value::Place(Place::at(&p)),
            Operand::Value(v) => v,
        };
        let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
        let callee = format!("{}.{method}", self.text(&call.receiver));
        let written: Vec<&Expr> = std::iter::once(&*call.receiver).chain(&call.args).collect();
        let syntax = Written {
            args: &written,
            turbofish: call.turbofish.as_ref(),
        };
        Some(self.inline_call(call, callee, function, Some(receiver), args, syntax))
    }

    /// The workspace function the Rust semantics find for the call at `span` (a method call
    /// when `method`), when the index's names alone do not: a method of a value whose type
    /// only the semantics know, of a wrapper or a trait. A function of a crate kernel-lint
    /// models itself is not followed.
    fn resolved_function(&self, span: crate::source::Span, method: bool) -> Option<FunctionRef<'a>> {
        let semantics = self.sources.semantics?.get();
        let callee = if method {
            semantics.method_call(self.file_id, span)?
        } else {
            semantics.path_call(self.file_id, span)?
        };
        let (file, range) = callee.defined?;
        let source = self.sources.files.get(file)?;
        let function = self.sources.index.function_at(file, &callee.name, range, source)?;
        let modelled = function
            .module
            .first()
            .is_some_and(|c| MODELLED_CRATES.contains(&c.as_str()));
        (!modelled).then_some(function)
    }

    /// The one method of this name implemented for slices (`impl Tr for [T]`), for a buffer
    /// receiver whose element type the semantics could not see: slices have no inherent
    /// method of that name (it is not one the analysis models), so the call can only be it.
    fn slice_method(
        &mut self,
        call: &syn::ExprMethodCall,
        mut for_slices: Vec<FunctionRef<'a>>,
    ) -> Option<FunctionRef<'a>> {
        let inherent = SLICE_METHODS.contains(&call.method.to_string().as_str());
        if inherent || for_slices.len() != 1 || !matches!(self.dry_operand(&call.receiver), Value::Pointer(_)) {
            return None;
        }
        for_slices.pop()
    }

    /// The method of a workspace type of this name whose type is the receiver's, as far as
    /// the index and the receiver's value tell.
    fn named_method(
        &mut self,
        call: &syn::ExprMethodCall,
        candidates: Vec<FunctionRef<'a>>,
    ) -> Option<FunctionRef<'a>> {
        // The receiver's type, from a dry evaluation: its loads are recorded when it is
        // evaluated for real below.
        let receiver_type = match self.dry_operand(&call.receiver) {
            Value::Place(p) => p.layout.map(|l| l.name),
            // Method calls do not look through a raw pointer: only the pointer's methods.
            Value::Pointer(p) if p.raw => Some("*T".to_string()),
            Value::Pointer(p) => p.elem.map(|l| l.name),
            Value::Struct { ty, .. } => ty,
            _ => None,
        };
        // Only a receiver of known type picks a method: `p.add(i)` on a pointer whose element
        // type is unknown is pointer arithmetic, not some type's `Add::add`.
        let receiver_type = receiver_type?;
        candidates
            .into_iter()
            .find(|f| f.self_type == Some(receiver_type.as_str()))
    }

    /// Macros: `shared_array!`, the standard ones whose arguments run, and the rest reported.
    pub(crate) fn macro_call(&mut self, mac: &syn::Macro) -> Value {
        if let Some(value) = self.cube_macro(mac) {
            return value;
        }
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
                .and_then(|ty| self.scope().layout(&ty));
            return Value::Pointer(Pointer {
                array: SHARED_ARRAY.into(),
                offset: Poly::default(),
                elem,
                space: MemorySpace::Shared,
                index: None,
                len: None,
                raw: false,
            });
        }
        // nalgebra's `vector![x, y]` and `point![x, y]`: a vector of the components.
        if matches!(name.as_str(), "vector" | "point") {
            if let Ok(args) = mac.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated) {
                let components: Vec<Poly> = args.iter().map(|a| self.int(a)).collect();
                return Value::Vector(components);
            }
        }
        // `matches!(value, pattern)`: a condition on the value, with no access of its own.
        if name == "matches" {
            let scrutinee = mac.parse_body_with(|input: syn::parse::ParseStream| {
                let value: Expr = input.parse()?;
                let _: proc_macro2::TokenStream = input.parse()?;
                Ok(value)
            });
            if let Ok(value) = scrutinee {
                let lane = self.value(&value).is_lane_dependent();
                let id = self.fresh_id();
                let test = Poly::opaque(id, self.text(mac), lane);
                return Value::Bool(Predicate::Cmp(CmpOp::Ne, test, Poly::default()));
            }
        }
        if EXPRESSION_MACROS.contains(&name.as_str()) {
            if let Ok(args) = mac.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated) {
                for arg in &args {
                    self.value(arg);
                }
                return Value::Unknown;
            }
        }
        // Inline PTX: its loads, stores and atomics at their address operands.
        if matches!(name.as_str(), "asm" | "ptx_asm") && self.inline_asm(mac) {
            return Value::Unknown;
        }
        // A `macro_rules!` macro: its expansion, walked as the code at the call.
        if let Some(value) = self.expanded_macro(mac) {
            return value;
        }
        // A macro of plain arithmetic on numbers cannot hide an access: it is noise to
        // mention it. One handed a buffer or a pointer may read or write through it.
        if may_access(mac.tokens.clone()) || self.names_memory(mac.tokens.clone()) {
            self.unsupported(
                mac,
                format!("macro `{name}!` is not expanded: accesses inside it are not analyzed"),
            );
        }
        Value::Unknown
    }
}

impl Interpreter<'_> {
    /// Whether tokens name a variable that holds a pointer, a slice or a place in memory.
    fn names_memory(&self, tokens: proc_macro2::TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            proc_macro2::TokenTree::Ident(ident) => matches!(
                self.lookup(&ident.to_string()),
                Some(Value::Pointer(_) | Value::Place(_))
            ),
            proc_macro2::TokenTree::Group(group) => self.names_memory(group.stream()),
            _ => false,
        })
    }

    /// The value of a macro call walked through its expansion by the Rust semantics; `None`
    /// when it does not expand, or is inside another expansion (a macro expanding to itself
    /// would not end). An expansion that is not Rust the analysis reads is said to be unread
    /// when it may touch memory, whatever the call's own tokens look like.
    fn expanded_macro(&mut self, mac: &syn::Macro) -> Option<Value> {
        if self.expanding.is_some() {
            return None;
        }
        let span = self.span(mac);
        let expansion = self.sources.semantics?.get().expand_macro(self.file_id, span)?;
        let text = &expansion.text;
        let Ok(block) = syn::parse_str::<syn::Block>(&format!("{{ {text} }}")) else {
            let tokens: proc_macro2::TokenStream = text.parse().unwrap_or_default();
            if may_access(tokens) {
                let name = last_segment(&mac.path);
                self.unsupported(
                    mac,
                    format!(
                        "macro `{name}!` expands to code the analysis cannot read: accesses inside it are not analyzed"
                    ),
                );
            }
            return Some(Value::Unknown);
        };
        // Byte offsets in the text as character columns, as the parser reports them.
        let origins = expansion
            .origins
            .iter()
            .map(|(at, origin)| (text.get(..*at).map_or(*at, |s| s.chars().count()), origin.clone()))
            .collect();
        self.expanding = Some(super::Expanding { call: span, origins });
        // An access placed in the macro's body names the call it was expanded at.
        self.calls.push(CallFrame {
            callee: format!("{}!", last_segment(&mac.path)),
            file: self.file_id,
            span,
            handed: Vec::new(),
        });
        let (_, value) = self.block(&block);
        self.calls.pop();
        self.expanding = None;
        Some(value)
    }
}

/// A call as written: its arguments (the receiver first, for a method) and its turbofish.
pub(crate) struct Written<'a, 'e> {
    pub(crate) args: &'a [&'e Expr],
    pub(crate) turbofish: Option<&'e syn::AngleBracketedGenericArguments>,
}

/// One side of a copy: the first element of a slice or pointer, or a place.
pub(crate) fn copy_side(value: Value) -> Option<Place> {
    match value {
        Value::Pointer(p) => Some(Place::at(&p)),
        Value::Place(p) => Some(p),
        _ => None,
    }
}

/// Whether a macro's tokens may read or write memory: an index (`a[i]`), a dereference
/// (`*p`), or a call (`f(x)`, `p.add(i)`, `s.get_unchecked(i)`).
fn may_access(tokens: proc_macro2::TokenStream) -> bool {
    use proc_macro2::{Delimiter, TokenTree};
    // Whether the previous token ends an operand: then `[..]` indexes and `(..)` calls, and
    // `*` multiplies instead of dereferencing.
    let mut after_operand = false;
    for token in tokens {
        match token {
            TokenTree::Group(group) => {
                let calls = after_operand && matches!(group.delimiter(), Delimiter::Bracket | Delimiter::Parenthesis);
                if calls || may_access(group.stream()) {
                    return true;
                }
                after_operand = true;
            }
            TokenTree::Punct(punct) => {
                if punct.as_char() == '*' && !after_operand {
                    return true;
                }
                after_operand = false;
            }
            TokenTree::Ident(ident) => after_operand = !matches!(ident.to_string().as_str(), "as" | "in" | "return"),
            TokenTree::Literal(_) => after_operand = true,
        }
    }
    false
}

/// Inherent methods of slices: a call of one of these names on a slice is never a trait's.
const SLICE_METHODS: &[&str] = &[
    "as_mut_ptr",
    "as_ptr",
    "chunks",
    "chunks_exact",
    "chunks_exact_mut",
    "chunks_mut",
    "clone_from_slice",
    "contains",
    "copy_from_slice",
    "fill",
    "first",
    "first_mut",
    "get",
    "get_mut",
    "get_unchecked",
    "get_unchecked_mut",
    "is_empty",
    "iter",
    "iter_mut",
    "last",
    "last_mut",
    "len",
    "split_at",
    "split_at_mut",
    "swap",
    "to_vec",
    "windows",
];

/// Whether a call target is one of the modelled crates' or outside the workspace.
fn is_modelled(target: &Target) -> bool {
    match target {
        Target::Module(m) | Target::Item(m, _) | Target::Associated(m, _, _) => {
            m.first().is_some_and(|c| MODELLED_CRATES.contains(&c.as_str()))
        }
        Target::External(_) => true,
    }
}

/// `u32::max(a, b)` as the method call `a.max(b)` it is: a function of a number type called
/// by its path with the receiver first. Conversions (`u32::from(x)`) and constructors are not.
fn number_method_by_path(call: &syn::ExprCall, path: &syn::Path) -> Option<syn::ExprMethodCall> {
    let [ty, method] = path.segments.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let ty_name = ty.ident.to_string();
    let number = INTEGER_TYPES.contains(&ty_name.as_str()) || matches!(ty_name.as_str(), "f32" | "f64");
    let name = method.ident.to_string();
    let conversion = name.starts_with("from")
        || name.starts_with("try_from")
        || matches!(name.as_str(), "new" | "default" | "cast_from");
    if !number || conversion || !ty.arguments.is_none() {
        return None;
    }
    let mut args = call.args.iter().cloned();
    let receiver = args.next()?;
    Some(syn::ExprMethodCall {
        attrs: Vec::new(),
        receiver: Box::new(receiver),
        dot_token: Default::default(),
        method: method.ident.clone(),
        turbofish: None,
        paren_token: call.paren_token,
        args: args.collect(),
    })
}
