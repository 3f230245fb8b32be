//! Places and pointers: indexing, fields, pointer arithmetic and the pointer and reference
//! methods (`add`, `offset`, `get_unchecked`, `write`, `as_ptr`, ...), and the loads and
//! stores they lead to.

use super::call::copy_side;
use super::value::{why, Operand, PTX_CONTEXT, THREAD_INDEX};
use super::{Interpreter, MemorySpace, Op, Place, Pointer, Value};
use crate::algebra::{Atom, Poly, READ_FROM_MEMORY};
use crate::model::layout::{FieldOf, Layout, POINTER};
use syn::Expr;

impl Interpreter<'_> {
    /// A path: a variable, an integer constant, or an opaque value. A constant from elsewhere
    /// (`Self::N`, `u32::MAX`, `other::LEN`) is the same for every lane; a plain lowercase
    /// name that is not a variable here was bound where the analysis does not see, and may
    /// differ between lanes.
    pub(crate) fn path_value(&mut self, p: &syn::ExprPath) -> Value {
        let Some(last) = p.path.segments.last() else {
            return Value::Unknown;
        };
        let name = last.ident.to_string();
        let single = p.path.segments.len() == 1 && p.qself.is_none();
        if single {
            if let Some(v) = self.lookup(&name) {
                return v.clone();
            }
            if name == "None" {
                return Value::Absent;
            }
        }
        if let Some(c) = self.generic_const(&p.path) {
            return Value::Int(Poly::constant(c));
        }
        if let Some(c) = self.scope().const_named(&self.own_path(&p.path)) {
            return Value::Int(Poly::constant(c));
        }
        // A constant vector (`const TILE: UVec2 = uvec2(16, 8)`).
        if let Some(v) = self.scope().const_vector(&Expr::Path(p.clone()), 0) {
            return Value::Vector(v.into_iter().map(Poly::constant).collect());
        }
        if let Some(c) = primitive_const(&p.path) {
            return c;
        }
        let text = self.text(p);
        let id = self.fresh_id();
        if single && name.starts_with(|c: char| c.is_lowercase() || c == '_') {
            return Value::Int(Poly::opaque_because(id, text, true, why::UNDEFINED));
        }
        Value::Int(Poly::opaque(id, text, false))
    }

    /// `base[index]`: an element of an array place or of a pointer, a sub-slice, or a vector
    /// component.
    pub(crate) fn index(&mut self, base: &Expr, index: &Expr, reference: bool) -> Operand {
        if let Expr::Range(range) = index {
            let base = self.value(base);
            let start = match &range.start {
                Some(s) => self.int(s),
                None => Poly::default(),
            };
            let end = range.end.as_ref().map(|end| {
                let end = self.int(end);
                match range.limits {
                    syn::RangeLimits::Closed(_) => end.add(&Poly::constant(1)),
                    syn::RangeLimits::HalfOpen(_) => end,
                }
            });
            return Operand::Value(match base {
                Value::Pointer(mut p) => {
                    let size = p.elem.as_ref().map_or(4, |l| l.size) as i64;
                    p.offset = p.offset.add(&start.scale(size));
                    p.len = match end {
                        Some(end) => Some(end.sub(&start)),
                        None => p.len.map(|len| len.sub(&start)),
                    };
                    Value::Pointer(p)
                }
                other => other,
            });
        }
        let base_expr = base;
        let base = self.operand(base);
        let text = self.text(index);
        let span = self.span(index);
        let i = self.int(index);
        let element = |container: Place| -> Option<Place> {
            let Some(layout) = container.layout.as_ref() else {
                // An element of a value whose layout is unknown is still read: the access is
                // recorded, and gets no figure.
                return Some(Place {
                    index: container.index.clone().or(Some((text.clone(), span))),
                    ..container
                });
            };
            let elem = layout.fields.first()?.layout.clone();
            let is_array = layout.name.starts_with('[');
            let offset = container.offset.add(&i.scale(elem.size as i64));
            // A vector indexed by component (`v[0]`, `v[j]` of a glam `Vec2`): its fields are
            // one scalar type, packed, so component `i` lies `i` of them in.
            let packed = !is_array
                && elem.pointee.is_none()
                && elem.name != POINTER
                && layout.fields.iter().enumerate().all(|(k, f)| {
                    f.layout.size == elem.size && f.layout.name == elem.name && f.offset == k as u64 * elem.size
                });
            if packed {
                let member = i
                    .as_constant()
                    .and_then(|c| usize::try_from(c).ok())
                    .and_then(|c| layout.fields.get(c))
                    .map_or_else(|| format!("[{text}]"), |f| f.name.clone());
                let field = match &container.field_of {
                    Some(outer) => format!("{}.{member}", outer.field),
                    None => member,
                };
                return Some(Place {
                    offset,
                    layout: Some(elem),
                    field_of: Some(match container.field_of {
                        Some(outer) => FieldOf { field, ..outer },
                        None => FieldOf {
                            type_name: layout.name.clone(),
                            field,
                            size: layout.size,
                        },
                    }),
                    ..container
                });
            }
            Some(match container.field_of {
                // An array field of a struct element (`particles[i].position[0]`): still one
                // field of that element, a struct size apart between lanes.
                Some(outer) if is_array => Place {
                    offset,
                    layout: Some(elem),
                    field_of: Some(FieldOf {
                        field: format!("{}[{text}]", outer.field),
                        ..outer
                    }),
                    ..container
                },
                None if is_array => Place {
                    offset,
                    layout: Some(elem),
                    index: Some(match &container.index {
                        Some((outer, _)) => (format!("{outer}][{text}"), span),
                        None => (text.clone(), span),
                    }),
                    field_of: None,
                    ..container
                },
                // A struct indexed through an impl the analysis does not follow: the element
                // is still read, at a place whose layout is unknown (reported, with no figure).
                _ => Place {
                    layout: None,
                    index: Some((text.clone(), span)),
                    ..container
                },
            })
        };
        // A struct that holds a device pointer and derefs (or indexes) through it, as a
        // slice wrapper does: the pointer is read from the struct, the element is its target's.
        let base = match base {
            Operand::Place(p) | Operand::Value(Value::Place(p)) if self.derefs_through_pointer(&p) => {
                match self.pointer_of_wrapper(&p, base_expr) {
                    Some(pointer) => Operand::Value(pointer),
                    None => Operand::Place(p),
                }
            }
            other => other,
        };
        let place = match base {
            Operand::Place(p) | Operand::Value(Value::Place(p)) => element(p),
            Operand::Value(Value::Pointer(p)) => {
                let size = p.elem.as_ref().map_or(4, |l| l.size) as i64;
                let mut place = Place::at(&p);
                place.offset = p.offset.add(&i.scale(size));
                place.index = Some((text, span));
                Some(place)
            }
            Operand::Value(Value::Vector(components)) => {
                let component = i
                    .as_constant()
                    .and_then(|c| usize::try_from(c).ok())
                    .and_then(|c| components.get(c).cloned());
                return Operand::Value(component.map_or(Value::Unknown, Value::Int));
            }
            Operand::Value(whole) => return Operand::Value(self.part_of(&whole, text)),
        };
        match place {
            Some(p) if reference => Operand::Value(Value::Place(p)),
            Some(p) => Operand::Place(p),
            None => Operand::Value(Value::Unknown),
        }
    }

    /// Whether the call takes the address of what a `core::cell` type holds, as the Rust
    /// semantics resolve it: `UnsafeCell::get`/`get_mut`/`raw_get`, `Cell::as_ptr`/`get_mut`.
    fn is_cell_address(&self, call: &syn::ExprMethodCall, method: &str) -> bool {
        if !matches!(method, "get" | "get_mut" | "raw_get" | "as_ptr") {
            return false;
        }
        let Some(semantics) = self.sources.semantics else {
            return false;
        };
        let Some(callee) = semantics.get().method_call(self.file_id, self.span(call)) else {
            return false;
        };
        let owner = callee
            .owner
            .as_deref()
            .map(|o| o.split('<').next().unwrap_or_default().trim());
        callee.defined.is_none()
            && match owner {
                Some("UnsafeCell" | "SyncUnsafeCell") => method != "as_ptr",
                Some("Cell") => matches!(method, "as_ptr" | "get_mut"),
                _ => false,
            }
    }

    /// Whether indexing a value at `place` goes through a pointer it holds: its type is a
    /// struct with one pointer field whose target is known, and the workspace gives the type
    /// a `Deref` or `Index` impl (a slice wrapper such as `struct Buf<'a, T> { ptr: &'a [T] }`).
    pub(crate) fn derefs_through_pointer(&self, place: &Place) -> bool {
        let Some(layout) = place.layout.as_ref() else {
            return false;
        };
        if layout.name.starts_with('[') || layout.primitive {
            return false;
        }
        let mut pointers = layout.fields.iter().filter(|f| f.layout.pointee.is_some());
        if pointers.next().is_none() || pointers.next().is_some() {
            return false;
        }
        let name = layout.name.split('<').next().unwrap_or_default().trim();
        ["deref", "index"].iter().any(|method| {
            self.sources.index.methods_named(method, self.module).any(|f| {
                f.self_type
                    .is_some_and(|t| t.split('<').next().unwrap_or_default().trim() == name)
            })
        })
    }

    /// The pointer a wrapper at `place` holds, read from its field where the wrapper lies in
    /// memory (a load every lane of a uniform place makes at one address).
    pub(crate) fn pointer_of_wrapper(&mut self, place: &Place, at: &Expr) -> Option<Value> {
        let layout = place.layout.as_ref()?;
        let field = layout.fields.iter().find(|f| f.layout.pointee.is_some())?.name.clone();
        let Operand::Place(field_place) = self.field(Operand::Place(place.clone()), &field) else {
            return None;
        };
        match self.load_at(&field_place, at) {
            pointer @ Value::Pointer(_) => Some(pointer),
            _ => None,
        }
    }

    /// A part (field, element) of a value the analysis holds no parts of: read from memory
    /// per lane when the whole is (a vector a library built from loaded values), else unknown.
    pub(crate) fn part_of(&mut self, whole: &Value, part: String) -> Value {
        if whole.is_loaded_per_lane() {
            let id = self.fresh_id();
            return Value::Int(Poly::opaque_because(id, part, true, READ_FROM_MEMORY));
        }
        Value::Unknown
    }

    /// `base.member`: a field of a place (its offset added), of a struct value, a vector
    /// component or a tuple element.
    pub(crate) fn field(&mut self, base: Operand, member: &str) -> Operand {
        let place = match base {
            Operand::Place(p) | Operand::Value(Value::Place(p)) => p,
            Operand::Value(Value::Pointer(p)) => Place::at(&p),
            Operand::Value(Value::Struct { fields, ty }) => {
                let found = fields.iter().find(|(n, _)| n == member).map(|(_, v)| v.clone());
                let whole = Value::Struct { fields, ty };
                return Operand::Value(found.unwrap_or_else(|| self.part_of(&whole, member.to_string())));
            }
            Operand::Value(Value::Vector(components)) => {
                let i = ["x", "y", "z", "w"].iter().position(|c| *c == member);
                return Operand::Value(
                    i.and_then(|i| components.get(i).cloned())
                        .map_or(Value::Unknown, Value::Int),
                );
            }
            Operand::Value(Value::Tuple(parts)) => {
                let v = member.parse::<usize>().ok().and_then(|i| parts.get(i).cloned());
                return Operand::Value(v.unwrap_or(Value::Unknown));
            }
            Operand::Value(whole) => return Operand::Value(self.part_of(&whole, member.to_string())),
        };
        let Some(layout) = place.layout.clone() else {
            return Operand::Place(Place { layout: None, ..place });
        };
        let Some(field) = layout.field(member) else {
            return Operand::Value(Value::Unknown);
        };
        let field_of = FieldOf {
            type_name: layout.name.clone(),
            field: member.to_string(),
            size: layout.size,
        };
        Operand::Place(Place {
            offset: place.offset.add(&Poly::constant(field.offset as i64)),
            layout: Some(field.layout.clone()),
            field_of: Some(match place.field_of {
                Some(outer) => FieldOf {
                    field: format!("{}.{member}", outer.field),
                    ..outer
                },
                None => field_of,
            }),
            ..place
        })
    }

    /// A method call: element references, writes and reads through pointers, `as_ptr`, and
    /// otherwise a method applied to the receiver's value.
    pub(crate) fn method_call(&mut self, call: &syn::ExprMethodCall) -> Operand {
        if let Some(value) = self.cube_method(call) {
            return Operand::Value(value);
        }
        if let Some(value) = self.workspace_method(call) {
            return Operand::Value(value);
        }
        let method = call.method.to_string();
        let arg = call.args.first();
        // `iter.for_each(|x| body)` is `for x in iter { body }`.
        if let (Some(Expr::Closure(closure)), "for_each", 1) = (arg, method.as_str(), call.args.len()) {
            if let [pat] = closure.inputs.iter().collect::<Vec<_>>()[..] {
                let body = match &*closure.body {
                    Expr::Block(b) => b.block.clone(),
                    other => syn::parse_quote!({ #other; }),
                };
                let as_loop = syn::ExprForLoop {
                    attrs: Vec::new(),
                    label: None,
                    for_token: Default::default(),
                    pat: Box::new(pat.clone()),
                    in_token: Default::default(),
                    expr: call.receiver.clone(),
                    body,
                };
                return Operand::Value(self.value(&Expr::ForLoop(as_loop)));
            }
        }
        match (method.as_str(), arg) {
            // `index_unchecked(_mut)` is spirv-std's `IndexUnchecked`, the same element.
            (
                "get_unchecked" | "get_unchecked_mut" | "get" | "get_mut" | "index_unchecked" | "index_unchecked_mut",
                Some(index),
            ) => {
                return self.index(&call.receiver, index, true);
            }
            // cuda-oxide's `slice.get_mut_indexed()`: the element at the thread's linear index,
            // with that index.
            ("get_mut_indexed", _) => {
                let index: Expr = syn::parse_quote!(thread::index_1d());
                let span = self.span(call);
                let element = match self.index(&call.receiver, &index, true) {
                    Operand::Place(mut p) | Operand::Value(Value::Place(mut p)) => {
                        p.index = Some(("thread::index_1d()".into(), span));
                        Value::Place(p)
                    }
                    Operand::Value(v) => v,
                };
                let index = self.value(&index);
                return Operand::Value(Value::Tuple(vec![element, index]));
            }
            // A pointer's `write(value)`; a `write(index, value)` is some other type's method.
            ("write" | "write_volatile" | "write_unaligned", Some(value)) if call.args.len() == 1 => {
                self.value(value);
                let span = self.span(call);
                match self.operand(&call.receiver) {
                    Operand::Place(p) | Operand::Value(Value::Place(p)) => self.access(&p, Op::Store, span),
                    Operand::Value(Value::Pointer(p)) => self.access(&Place::at(&p), Op::Store, span),
                    Operand::Value(_) => {}
                }
                return Operand::Value(Value::Unknown);
            }
            (
                "assume_init" | "assume_init_read" | "assume_init_ref" | "read" | "read_volatile" | "read_unaligned",
                _,
            ) if call.args.is_empty() => {
                return match self.operand(&call.receiver) {
                    Operand::Place(p) | Operand::Value(Value::Place(p)) => Operand::Place(p),
                    Operand::Value(Value::Pointer(p)) => Operand::Place(Place::at(&p)),
                    Operand::Value(v) => Operand::Value(v),
                };
            }
            _ => {}
        }
        // An interior-mutability cell's address (`UnsafeCell::get`, `Cell::as_ptr`): the
        // place itself, not a read of it.
        if call.args.is_empty() && self.is_cell_address(call, &method) {
            return match self.operand(&call.receiver) {
                Operand::Place(p) => Operand::Value(Value::Place(p)),
                other => other,
            };
        }
        let receiver = match self.operand(&call.receiver) {
            Operand::Place(p) if matches!(method.as_str(), "as_ptr" | "as_mut_ptr") => {
                let elem = p
                    .layout
                    .as_ref()
                    .and_then(|l| l.fields.first())
                    .map(|f| f.layout.clone());
                return Operand::Value(Value::Pointer(Pointer {
                    array: p.array,
                    offset: p.offset,
                    elem,
                    space: p.space,
                    index: None,
                    len: None,
                    raw: true,
                }));
            }
            // A slice or an array is passed by reference to a method the analysis does not
            // model: reading it whole would be an access no lane makes.
            Operand::Place(p) if p.layout.as_ref().is_some_and(|l| l.name.starts_with('[')) => Value::Place(p),
            Operand::Place(p) => self.load(&p, &call.receiver),
            Operand::Value(v) => v,
        };
        let args: Vec<Value> = call.args.iter().map(|a| self.value(a)).collect();
        Operand::Value(self.apply_method(call, &method, receiver, args))
    }

    /// The side of a copy its first argument gives: a place in memory, or none (a local
    /// value), said to be unread when it holds a global buffer the analysis cannot place.
    fn other_side(&mut self, call: &syn::ExprMethodCall, args: &[Value]) -> Option<Place> {
        let side = args.first().cloned().and_then(copy_side);
        if side.is_none() {
            self.note_escaping_buffer(call, None, &args[..args.len().min(1)]);
        }
        side
    }

    /// A method on a value that is not a place: pointer arithmetic and casts, pass-through
    /// conversions, integer methods.
    fn apply_method(&mut self, call: &syn::ExprMethodCall, method: &str, receiver: Value, args: Vec<Value>) -> Value {
        if let Some(value) = self.atomic_method(call, &receiver) {
            return value;
        }
        let first_int = |this: &mut Self, args: &[Value]| -> Option<Poly> {
            match args.first() {
                Some(Value::Int(p)) => Some(p.clone()),
                Some(_) => Some(this.opaque(this.text(&call.args[0]), true)),
                None => None,
            }
        };
        match (method, receiver) {
            // Copies between slices and through pointers: element by element.
            ("copy_from_slice" | "clone_from_slice", Value::Pointer(dst)) => {
                let count = dst.len.clone().or_else(|| match args.first() {
                    Some(Value::Pointer(src)) => src.len.clone(),
                    _ => None,
                });
                let src = self.other_side(call, &args);
                self.copy_elements(self.span(call), src, Some(Place::at(&dst)), count);
                Value::Unknown
            }
            ("copy_from" | "copy_from_nonoverlapping", Value::Pointer(dst)) => {
                let count = args.get(1).and_then(Value::as_int).cloned();
                let src = self.other_side(call, &args);
                self.copy_elements(self.span(call), src, Some(Place::at(&dst)), count);
                Value::Unknown
            }
            ("copy_to" | "copy_to_nonoverlapping", Value::Pointer(src)) => {
                let count = args.get(1).and_then(Value::as_int).cloned();
                let dst = self.other_side(call, &args);
                self.copy_elements(self.span(call), Some(Place::at(&src)), dst, count);
                Value::Unknown
            }
            ("fill", Value::Pointer(dst)) => {
                let count = dst.len.clone();
                self.copy_elements(self.span(call), None, Some(Place::at(&dst)), count);
                Value::Unknown
            }
            ("write_bytes", Value::Pointer(dst)) => {
                let count = args.get(1).and_then(Value::as_int).cloned();
                self.copy_elements(self.span(call), None, Some(Place::at(&dst)), count);
                Value::Unknown
            }
            ("add" | "offset" | "wrapping_add" | "wrapping_offset", Value::Pointer(mut p)) => {
                let Some(i) = first_int(self, &args) else {
                    return Value::Pointer(p);
                };
                let size = p.elem.as_ref().map_or(4, |l| l.size) as i64;
                p.offset = p.offset.add(&i.scale(size));
                p.index = Some((self.text(&call.args[0]), self.span(&call.args[0])));
                Value::Pointer(p)
            }
            ("sub" | "wrapping_sub", Value::Pointer(mut p)) => {
                let Some(i) = first_int(self, &args) else {
                    return Value::Pointer(p);
                };
                let size = p.elem.as_ref().map_or(4, |l| l.size) as i64;
                p.offset = p.offset.sub(&i.scale(size));
                Value::Pointer(p)
            }
            ("byte_add" | "byte_offset", Value::Pointer(mut p)) => {
                let Some(i) = first_int(self, &args) else {
                    return Value::Pointer(p);
                };
                p.offset = p.offset.add(&i);
                Value::Pointer(p)
            }
            ("cast", Value::Pointer(mut p)) => {
                let target = call
                    .turbofish
                    .as_ref()
                    .and_then(|t| t.args.first())
                    .and_then(|a| match a {
                        syn::GenericArgument::Type(t) => self.scope().layout(t),
                        _ => None,
                    });
                p.elem = target;
                Value::Pointer(p)
            }
            ("len", Value::Pointer(p)) => Value::Int(Poly::atom(Atom::Len(p.array))),
            ("is_empty" | "is_null", Value::Pointer(p)) => {
                let lane = p.offset.is_lane_dependent();
                Value::Int(self.opaque(self.text(call), lane))
            }
            // Conversions that keep the value, and pointer casts that change only mutability.
            (
                "as_ptr" | "as_mut_ptr" | "unwrap" | "expect" | "clone" | "into" | "try_into" | "to_owned" | "as_ref"
                | "as_mut" | "cast_mut" | "cast_const",
                v,
            ) => v,
            // `ptx_support`'s `Context::thread().index()`, `Context::block().dims()`, and the row
            // and column of a cuda-oxide 2-D thread index.
            ("index" | "dims" | "row" | "col", Value::Struct { ty: Some(ty), fields })
                if args.is_empty() && (ty.starts_with(PTX_CONTEXT) || ty == THREAD_INDEX) =>
            {
                fields
                    .into_iter()
                    .find(|(n, _)| n == method)
                    .map_or(Value::Unknown, |(_, v)| v)
            }
            // `Cell::get`, `NonZeroU32::get`, a thread index's `get`: the value inside.
            ("get", v) if args.is_empty() => v,
            // glam's swizzles of a geometry vector (`id.xy()`, `id.yx()`) and its casts
            // (`id.as_ivec2()`, `id.truncate()`).
            (_, Value::Vector(components)) if args.is_empty() && swizzle(method, &components).is_some() => {
                swizzle(method, &components).map_or(Value::Unknown, Value::Vector)
            }
            (_, Value::Int(a)) => self.int_method(call, method, a, &args),
            (_, receiver) => {
                self.note_escaping_buffer(call, Some(&receiver), &args);
                // A method of data read per lane (`a.distance(b)` of loaded vectors) gives
                // such data.
                if receiver.is_loaded_per_lane() || args.iter().any(Value::is_loaded_per_lane) {
                    let inputs = Value::Tuple(std::iter::once(receiver).chain(args).collect());
                    return self.part_of(&inputs, self.text(call));
                }
                // A method the analysis cannot see into may read the thread index itself.
                let id = self.fresh_id();
                Value::Int(Poly::opaque_because(id, self.text(call), true, why::INVISIBLE_CALL))
            }
        }
    }

    /// Reads a place: records the load; a primitive read becomes a load atom (a gather when its
    /// address differs between lanes).
    pub(crate) fn load(&mut self, place: &Place, expr: &Expr) -> Value {
        self.load_at(place, expr)
    }

    /// [`Self::load`] for any piece of syntax (a pattern that copies the value out).
    pub(crate) fn load_at(&mut self, place: &Place, expr: &impl quote::ToTokens) -> Value {
        let span = self.span(expr);
        // An element of a `const` table at a constant index is folded by the compiler.
        let folded = self.tables.contains(&place.array) && place.offset.as_constant().is_some();
        if !folded {
            self.access(place, Op::Load, span);
        }
        let lane = place.offset.is_lane_dependent();
        let text = self.text(expr);
        self.loaded(place.layout.as_ref(), &place.array, lane, text, 0)
    }

    /// The value a read gives: a load atom per primitive, by field for a struct (the same for
    /// every lane when the address is).
    fn loaded(&mut self, layout: Option<&Layout>, array: &str, lane: bool, text: String, depth: usize) -> Value {
        match layout {
            Some(l) if !l.primitive => {
                if l.name.starts_with('[') || l.fields.is_empty() || depth >= 4 {
                    return Value::Unknown;
                }
                let fields: Vec<(String, Value)> = l
                    .fields
                    .iter()
                    .map(|f| {
                        let text = format!("{text}.{}", f.name);
                        (
                            f.name.clone(),
                            self.loaded(Some(&f.layout), array, lane, text, depth + 1),
                        )
                    })
                    .collect();
                // A tuple read whole is a tuple value, so `(node, _)` patterns take its parts.
                if l.name == "tuple" {
                    return Value::Tuple(fields.into_iter().map(|(_, v)| v).collect());
                }
                Value::Struct {
                    ty: Some(l.name.clone()),
                    fields,
                }
            }
            // A device pointer read from the same address by every lane (a field of a struct
            // of pointers the kernel is given): the pointer itself, its target in global
            // memory (of unknown layout when the type's pointee was not laid out, so that an
            // access through it is reported, not dropped).
            Some(l) if l.name == POINTER && !lane => Value::Pointer(Pointer {
                array: text,
                offset: Poly::default(),
                elem: l.pointee.as_deref().cloned(),
                space: MemorySpace::Global,
                index: None,
                len: None,
                raw: false,
            }),
            _ => {
                let id = self.fresh_id();
                Value::Int(Poly::atom(Atom::Load {
                    id,
                    array: array.to_string(),
                    lane,
                    text,
                }))
            }
        }
    }

    /// `target = value`: the value's loads first, then the store to the place.
    pub(crate) fn store(&mut self, target: &Expr, value_first: &Expr) {
        // The right-hand side runs first: its loads come before the store.
        self.value(value_first);
        match self.operand(target) {
            Operand::Place(place) => {
                let span = self.span(target);
                self.access(&place, Op::Store, span);
            }
            Operand::Value(Value::Place(place)) => {
                let span = self.span(target);
                self.access(&place, Op::Store, span);
            }
            Operand::Value(_) => {}
        }
    }
}

/// `i64::MIN`, `u32::MAX`, `usize::BITS`: the constants of the primitive integer types, the
/// same for every lane; one beyond 64-bit arithmetic stays a constant, never a row length.
fn primitive_const(path: &syn::Path) -> Option<Value> {
    let [ty, name] =
        [path.segments.len().checked_sub(2)?, path.segments.len() - 1].map(|i| path.segments[i].ident.to_string());
    let bits: u32 = match ty.as_str() {
        "i8" | "u8" => 8,
        "i16" | "u16" => 16,
        "i32" | "u32" => 32,
        "i64" | "u64" | "isize" | "usize" => 64,
        "i128" | "u128" => 128,
        _ => return None,
    };
    let signed = ty.starts_with('i');
    let value: i128 = match (name.as_str(), signed) {
        ("BITS", _) => i128::from(bits),
        ("MIN", false) => 0,
        ("MIN", true) => -(1i128 << (bits - 1)),
        ("MAX", true) => (1i128 << (bits - 1)) - 1,
        ("MAX", false) if bits < 128 => (1i128 << bits) - 1,
        ("MAX", false) => i128::MAX,
        _ => return None,
    };
    Some(match i64::try_from(value) {
        Ok(v) => Value::Int(Poly::constant(v)),
        Err(_) => Value::Int(Poly::opaque_because(
            u32::MAX - 1,
            format!("{ty}::{name}"),
            false,
            why::CONSTANT,
        )),
    })
}

/// The components a glam swizzle or cast of a vector keeps: `xy` the first two, `yx` them
/// exchanged, `truncate` all but the last, `as_uvec2` (any `as_*vecN`) the first `N`.
fn swizzle(method: &str, components: &[Poly]) -> Option<Vec<Poly>> {
    let pick = |names: &str| -> Option<Vec<Poly>> {
        names
            .chars()
            .map(|c| "xyzw".find(c).and_then(|i| components.get(i).cloned()))
            .collect()
    };
    if method == "truncate" {
        return Some(components.get(..components.len().checked_sub(1)?)?.to_vec());
    }
    if let Some(lanes) = method
        .strip_prefix("as_")
        .and_then(|rest| rest.split_once("vec"))
        .map(|(_, n)| n)
    {
        let n: usize = lanes.parse().ok()?;
        return Some(components.get(..n)?.to_vec());
    }
    if (2..=4).contains(&method.len()) && method.chars().all(|c| "xyzw".contains(c)) {
        return pick(method);
    }
    None
}
