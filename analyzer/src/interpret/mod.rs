//! Abstract interpretation of a kernel body: every variable becomes an index polynomial, a
//! pointer or a place, and every load and store of memory becomes an [`Access`] with its byte
//! address, the guards it runs under and its exact span.

mod arith;
mod asm;
mod atomics;
mod call;
mod closures;
mod cubecl;
mod expr;
mod flow;
mod generics;
mod geometry;
mod iterate;
mod pattern;
mod place;
mod rust_gpu;
mod stmt;
pub mod trips;
mod value;

pub use geometry::Geometry;
pub use value::{MemorySpace, Op, Place, Pointer, Value};

use crate::algebra::{Atom, Poly, Predicate, READ_FROM_MEMORY};
use crate::model::items::{ItemIndex, ModulePath};
use crate::model::kernel::Kernel;
use crate::model::layout::{FieldOf, Scope};
use crate::model::semantics::LazySemantics;
use crate::source::Unsupported;
use crate::source::{SourceFile, Span};
use std::collections::{BTreeMap, HashMap, HashSet};
use syn::Expr;

/// One load or store of memory by every lane of a warp.
#[derive(Debug, Clone)]
pub struct Access {
    /// The access expression.
    pub span: Span,
    /// The index expression.
    pub index_span: Span,
    /// The array, as written.
    pub array: String,
    /// The index, as written.
    pub index_text: String,
    /// Load or store.
    pub op: Op,
    /// Global or shared.
    pub space: MemorySpace,
    /// Bytes each lane moves.
    pub width: u64,
    /// Byte address relative to the array's aligned base.
    pub address: Poly,
    /// The struct field accessed, if any.
    pub field_of: Option<FieldOf>,
    /// Conditions under which the access runs.
    pub guards: Vec<Predicate>,
    /// Things assumed about the access (unknown element type, say).
    pub notes: Vec<String>,
    /// The file the access is written in (an index into the analyzed files).
    pub file: usize,
    /// The calls followed from the kernel to reach it, outermost first.
    pub via: Vec<CallFrame>,
    /// How many loops (`for`, `while`, `loop`) enclose it, in the kernel and the helpers
    /// followed: the analysis has no trip counts, so this says where repeats are.
    pub loop_depth: u32,
}

/// A call the interpreter followed into a helper or method.
#[derive(Debug, Clone, PartialEq)]
pub struct CallFrame {
    /// The function called, as the call names it (`kernel::blur`, `grid.get_node`).
    pub callee: String,
    /// The file of the call (an index into the analyzed files).
    pub file: usize,
    /// The call expression.
    pub span: Span,
    /// The arguments (the receiver first) that hand the callee a place in memory: the buffer's
    /// name and the argument as written, where an access the callee makes in a dependency is
    /// shown.
    pub handed: Vec<(String, Span)>,
}

/// What the interpreter reads: every analyzed file, and the items of every module.
#[derive(Debug, Clone, Copy)]
pub struct Sources<'a> {
    /// The analyzed files, by index.
    pub files: &'a [SourceFile],
    /// The items of every module of those files.
    pub index: &'a ItemIndex,
    /// Rust semantics of the same files, for the calls the index cannot resolve by name.
    pub semantics: Option<LazySemantics<'a>>,
}

/// The accesses of a kernel body and what could not be analyzed.
#[derive(Debug, Default)]
pub struct KernelBody {
    /// Accesses in execution order.
    pub accesses: Vec<Access>,
    /// Code that was not analyzed, and why.
    pub unsupported: Vec<Unsupported>,
    /// CubeCL buffers of lines whose line size the launch does not give (assumed 1).
    pub assumed_line_sizes: Vec<String>,
    /// The types the kernel's generic parameters were taken to be, and why.
    pub instantiated: Vec<String>,
}

/// The variables of one block, in name order so that merges number fresh unknowns the same way
/// on every run.
type Bindings = BTreeMap<String, Value>;

/// Why an access whose element type has no known layout gets no figure.
pub const UNKNOWN_LAYOUT: &str = "the layout of the element is not known (a type outside the analyzed crates, an enum with data, or a generic parameter): its width and the distance between lanes cannot be computed";

/// Most nested helper calls followed.
const MAX_CALL_DEPTH: usize = 8;

/// Loop bodies walked in one kernel before loops stop getting a second walk: past it, every
/// variable a loop changes is taken to differ between lanes from the start (sound, less
/// precise), so that nested loops cannot multiply the work.
const MAX_LOOP_WALKS: usize = 1024;

/// Walks one kernel.
pub(crate) struct Interpreter<'a> {
    sources: Sources<'a>,
    /// The file of the code being walked (the kernel's, or a helper's).
    file: &'a SourceFile,
    file_id: usize,
    /// The kernel's own file.
    kernel_file: usize,
    /// The module of the code being walked: names resolve from here.
    module: &'a ModulePath,
    /// The calls being followed, outermost first.
    calls: Vec<CallFrame>,
    /// The type whose method is being walked, for `Self`.
    self_type: Option<String>,
    /// The types the generic type parameters of the function being walked stand for, by
    /// parameter name (`A` -> `Qwen`): given by the call's turbofish, or for the kernel by
    /// the one type of the workspace that meets its bounds.
    generics: BTreeMap<String, String>,
    geometry: Geometry,
    /// The closures bound to names that are only called, by [`Value::Closure`] number, with
    /// the variables they capture.
    closures: Vec<(syn::ExprClosure, Vec<Bindings>)>,
    scopes: Vec<Bindings>,
    statics: HashMap<String, Place>,
    /// The `const` arrays among `statics`: read from memory only at a run-time index.
    tables: HashSet<String>,
    guards: Vec<Predicate>,
    body: KernelBody,
    next_id: u32,
    /// Values of `return` expressions in the helper being inlined, each with whether it runs
    /// under a condition (inside the helper) that differs between lanes.
    returns: Vec<(Value, bool)>,
    /// Guards that were in force when the helper being inlined was called.
    call_guards: usize,
    /// Guards that were in force when the innermost loop body began.
    loop_guards: usize,
    /// Whether the innermost loop walked so far has a `break` or `continue` under a condition
    /// that differs between lanes.
    lane_exits: LaneExits,
    /// Where the `?` operators of the statement being walked gave a value, when that differs
    /// between lanes: the rest of the block runs only there.
    tried: Vec<Predicate>,
    /// The variables as each `break` of the innermost loop walked so far leaves it, with the
    /// conditions it is taken under inside the loop: what the loop hands on is any of them,
    /// besides what its last iteration leaves.
    break_scopes: Vec<BreakExit>,
    /// Loop bodies walked so far, to bound the second walks nested loops may ask for.
    loop_walks: usize,
    /// Loops enclosing the code being walked.
    loop_depth: u32,
    /// The launch values of a CubeCL kernel; `None` for the other dialects.
    cube: Option<cubecl::CubeLaunch>,
    /// While the expansion of a macro call is walked: the call, and where its tokens were
    /// written.
    expanding: Option<Expanding>,
    /// The device the kernel is compiled for (`None` for CubeCL, compiled for several).
    target: Option<crate::model::cfg::DeviceTarget>,
}

/// Where lanes part ways in a loop: a `break` under a lane-dependent condition lets lanes
/// leave after different iterations; a `continue` lets them skip different parts of one.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct LaneExits {
    breaks: bool,
    continues: bool,
}

/// The state of the loop around one being entered, restored when it is left.
pub(crate) struct SavedLoop {
    guards: usize,
    exits: LaneExits,
    breaks: Vec<BreakExit>,
}

/// The variables as a `break` leaves its loop, and the conditions it is taken under there.
pub(crate) type BreakExit = (Vec<Bindings>, Vec<Predicate>);

/// Interprets the body of a kernel written in file `file` (module `module`) under its launch.
pub fn interpret(
    sources: Sources<'_>,
    file: usize,
    module: &ModulePath,
    syntax: &syn::File,
    kernel: &Kernel,
) -> KernelBody {
    let Some((file_ref, module)) = sources.files.get(file).zip(sources.index.module_key(module)) else {
        return KernelBody::default();
    };
    let mut interpreter = Interpreter {
        sources,
        file: file_ref,
        file_id: file,
        kernel_file: file,
        module,
        calls: Vec::new(),
        self_type: None,
        generics: BTreeMap::new(),
        closures: Vec::new(),
        geometry: Geometry {
            block: kernel.launch.block,
        },
        scopes: vec![Bindings::new()],
        statics: HashMap::new(),
        tables: HashSet::new(),
        guards: Vec::new(),
        body: KernelBody::default(),
        next_id: 0,
        returns: Vec::new(),
        call_guards: 0,
        loop_guards: 0,
        lane_exits: LaneExits::default(),
        tried: Vec::new(),
        break_scopes: Vec::new(),
        loop_walks: 0,
        expanding: None,
        loop_depth: 0,
        target: if crate::model::cubecl::is_launch_entry(&kernel.item) {
            None
        } else if crate::model::rust_gpu::is_compute_shader(&kernel.item) {
            Some(crate::model::cfg::SPIRV)
        } else {
            Some(crate::model::cfg::NVPTX)
        },
        cube: crate::model::cubecl::is_launch_entry(&kernel.item).then(|| cubecl::CubeLaunch {
            values: kernel.launch.params.clone(),
            assumptions: BTreeMap::new(),
        }),
    };
    interpreter.declare_statics(&syntax.items);
    interpreter.instantiate_kernel(&kernel.item.sig.generics);
    for input in &kernel.item.sig.inputs {
        interpreter.bind_parameter(input);
    }
    interpreter.block(&kernel.item.block);
    interpreter.body
}

impl<'a> Interpreter<'a> {
    /// Types, constants and paths as the code being walked sees them.
    fn scope(&self) -> Scope<'a> {
        Scope::new(self.sources.index, self.module)
    }

    /// A path with a leading `Self` replaced by the type whose method is being walked.
    fn own_path(&self, path: &syn::Path) -> syn::Path {
        let mut path = path.clone();
        if let (Some(first), Some(ty)) = (path.segments.first_mut(), &self.self_type) {
            if first.ident == "Self" {
                first.ident = syn::Ident::new(ty, first.ident.span());
            }
        }
        path
    }

    fn fresh_id(&mut self) -> u32 {
        self.next_id += 1;
        self.next_id
    }

    fn span(&self, node: &impl quote::ToTokens) -> Span {
        match &self.expanding {
            // Code a macro expanded to is where its body wrote it, when that is in this file;
            // else at the call.
            Some(expanding) => expanding
                .written(node, self.file_id, self.file)
                .unwrap_or(expanding.call),
            None => self.file.span_of_node(node),
        }
    }

    fn text(&self, node: &impl quote::ToTokens) -> String {
        let span = self.span(node);
        let snippet = if self.expanding.is_some() {
            ""
        } else {
            self.file.snippet(span)
        };
        if snippet.is_empty() {
            quote::ToTokens::to_token_stream(node).to_string()
        } else {
            snippet.to_string()
        }
    }

    fn unsupported(&mut self, node: &impl quote::ToTokens, message: String) {
        let span = self.span(node);
        let file = (self.file_id != self.kernel_file).then(|| self.file.path.clone());
        if !self
            .body
            .unsupported
            .iter()
            .any(|u| u.span == span && u.message == message && u.file == file)
        {
            self.body.unsupported.push(Unsupported { span, file, message });
        }
    }

    /// An opaque integer standing for something the analysis cannot follow.
    fn opaque(&mut self, text: String, lane: bool) -> Poly {
        let id = self.fresh_id();
        Poly::opaque(id, text, lane)
    }

    /// An opaque value made from `inputs`: read from memory per lane when any input is (an
    /// address made from it is a gather), else differing between lanes when `lane` says so.
    fn derived(&mut self, text: String, lane: bool, inputs: &[&Value]) -> Poly {
        if inputs.iter().any(|v| v.is_loaded_per_lane()) {
            let id = self.fresh_id();
            return Poly::opaque_because(id, text, true, READ_FROM_MEMORY);
        }
        self.opaque(text, lane)
    }

    fn lookup(&self, name: &str) -> Option<&Value> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn define(&mut self, name: String, value: Value) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name, value);
        }
    }

    /// Rebinds an existing variable where it was defined.
    fn assign(&mut self, name: &str, value: Value) {
        for scope in self.scopes.iter_mut().rev() {
            if let Some(slot) = scope.get_mut(name) {
                *slot = value;
                return;
            }
        }
        self.define(name.to_string(), value);
    }

    fn declare_statics(&mut self, items: &[syn::Item]) {
        for item in items {
            match item {
                syn::Item::Static(s) => self.declare_static(s),
                syn::Item::Const(c) if is_table(&c.ty) => self.declare_table(c),
                syn::Item::Mod(m) => {
                    if let Some((_, items)) = &m.content {
                        self.declare_statics(items);
                    }
                }
                _ => {}
            }
        }
    }

    /// A `static` array: shared memory when marked `#[address_space(shared)]` or of
    /// cuda-oxide's type `SharedArray<T, N>` (an array of `N` `T`), constant memory when marked
    /// `#[constant]` or of type `ConstantMemory<T>`, else global.
    fn declare_static(&mut self, s: &syn::ItemStatic) {
        let shared_array = shared_array_type(&s.ty);
        let constant_memory = wrapped_type(&s.ty, "ConstantMemory");
        let marked = |name: &str, arg: Option<&str>| {
            s.attrs.iter().any(|a| {
                a.path().segments.last().is_some_and(|seg| seg.ident == name)
                    && arg.is_none_or(|arg| quote::ToTokens::to_token_stream(&a.meta).to_string().contains(arg))
            })
        };
        let space = if shared_array.is_some() || marked("address_space", Some("shared")) {
            MemorySpace::Shared
        } else if constant_memory.is_some() || marked("constant", None) {
            MemorySpace::Constant
        } else {
            MemorySpace::Global
        };
        let name = s.ident.to_string();
        let ty = shared_array.as_ref().or(constant_memory.as_ref()).unwrap_or(&s.ty);
        let place = Place {
            array: name.clone(),
            offset: Poly::default(),
            layout: self.scope().layout(ty),
            space,
            index: None,
            field_of: None,
        };
        self.statics.insert(name, place);
    }

    /// A `const` table (`const ROW: [u32; 4] = [..]`): indexed by a run-time value, the
    /// compiler reads it from a read-only copy in global memory; a constant index is folded.
    fn declare_table(&mut self, c: &syn::ItemConst) {
        let name = c.ident.to_string();
        let ty = match &*c.ty {
            syn::Type::Reference(r) => &*r.elem,
            ty => ty,
        };
        let place = Place {
            array: name.clone(),
            offset: Poly::default(),
            layout: self.scope().layout(ty),
            space: MemorySpace::Global,
            index: None,
            field_of: None,
        };
        self.tables.insert(name.clone());
        self.statics.insert(name, place);
    }

    fn bind_parameter(&mut self, input: &syn::FnArg) {
        let syn::FnArg::Typed(typed) = input else { return };
        // `(w, h): (u32, u32)` takes the parts of a parameter, the same for every lane.
        let name = match &*typed.pat {
            syn::Pat::Ident(ident) => ident.ident.to_string(),
            other => self.text(other),
        };
        let value = match crate::model::rust_gpu::shader_param(&typed.attrs) {
            Some(role) => self.shader_parameter(role, &name, &typed.ty),
            None => match self.cube_parameter(&name, &typed.ty) {
                Some(buffer) => buffer,
                None => self.parameter_value(self.scope(), &name, &typed.ty, 0),
            },
        };
        // A pointee whose type the index cannot lay out (a generic struct, a type of another
        // crate's re-export): laid out by the Rust semantics.
        let value = match value {
            Value::Pointer(mut pointer) if pointer.elem.is_none() => {
                pointer.elem = self.semantic_pointee(&typed.pat);
                Value::Pointer(pointer)
            }
            other => other,
        };
        self.bind_pattern(&typed.pat, value);
    }

    /// The layout of what the binding `pat` points to, asked of the Rust semantics.
    pub(crate) fn semantic_pointee(&self, pat: &syn::Pat) -> Option<crate::model::layout::Layout> {
        let span = self.span(pat);
        self.sources
            .semantics
            .and_then(|s| s.get().pointee_layout(self.file_id, span))
    }

    /// The value a parameter of type `ty` (written in `scope`) starts with.
    fn parameter_value(&mut self, scope: Scope<'a>, name: &str, ty: &syn::Type, depth: usize) -> Value {
        let pointer = |elem: &syn::Type, raw: bool| {
            Value::Pointer(Pointer {
                array: name.to_string(),
                offset: Poly::default(),
                elem: scope.layout(elem),
                space: MemorySpace::Global,
                index: None,
                len: None,
                raw,
            })
        };
        match ty {
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(s) => pointer(&s.elem, false),
                elem => pointer(elem, false),
            },
            syn::Type::Ptr(p) => pointer(&p.elem, true),
            syn::Type::Paren(p) => self.parameter_value(scope, name, &p.elem, depth),
            syn::Type::Tuple(t) if depth < 4 => Value::Tuple(
                t.elems
                    .iter()
                    .enumerate()
                    .map(|(i, ty)| self.parameter_value(scope, &format!("{name}.{i}"), ty, depth + 1))
                    .collect(),
            ),
            syn::Type::Path(path) => {
                if let Some(elem) = slice_element(&path.path) {
                    return pointer(elem, false);
                }
                if let Some((field_scope, fields)) = scope.struct_fields(&path.path).filter(|_| depth < 4) {
                    let fields = fields
                        .iter()
                        .map(|(field, ty)| {
                            (
                                field.clone(),
                                self.parameter_value(field_scope, &format!("{name}.{field}"), ty, depth + 1),
                            )
                        })
                        .collect();
                    let ty = path.path.segments.last().map(|s| s.ident.to_string());
                    Value::Struct { ty, fields }
                } else {
                    // A glam or vek vector passed by value: one parameter per component.
                    match scope.layout(ty).filter(is_vector) {
                        Some(layout) => Value::Vector(
                            layout
                                .fields
                                .iter()
                                .map(|f| Poly::atom(Atom::Param(format!("{name}.{}", f.name))))
                                .collect(),
                        ),
                        None => Value::Int(Poly::atom(Atom::Param(name.to_string()))),
                    }
                }
            }
            _ => Value::Unknown,
        }
    }

    /// Where an access made at `span` is shown: there, with the calls that led to it; or, inside
    /// a crates.io dependency's source, at the call in the user's code that led into it (its
    /// file, the argument that handed over `array` or else the call for both spans, and the
    /// calls before that one).
    fn user_site(&self, span: Span, index_span: Span, array: &str) -> (usize, Span, Span, Vec<CallFrame>) {
        let dependency = |file: usize| {
            self.sources
                .files
                .get(file)
                .is_some_and(|f| crate::workspace::is_registry_source(&f.path))
        };
        if !dependency(self.file_id) {
            return (self.file_id, span, index_span, self.calls.clone());
        }
        match self.calls.iter().rposition(|frame| !dependency(frame.file)) {
            Some(at) => {
                let frame = &self.calls[at];
                let shown = frame
                    .handed
                    .iter()
                    .find(|(buffer, _)| buffer == array)
                    .map_or(frame.span, |(_, argument)| *argument);
                (frame.file, shown, shown, self.calls[..at].to_vec())
            }
            None => (self.file_id, span, index_span, self.calls.clone()),
        }
    }

    /// Records an access to a place, one per leaf when a copy is not one wide access.
    pub(crate) fn access(&mut self, place: &Place, op: Op, span: Span) {
        let (mut index_text, index_span) = place.index.clone().unwrap_or_else(|| (String::new(), span));
        let (file, span, index_span, via) = self.user_site(span, index_span, &place.array);
        if file != self.file_id {
            // The dependency's own names mean nothing here: the call shows what is indexed.
            let call = self
                .sources
                .files
                .get(file)
                .and_then(|f| f.text.get(span.start..span.end));
            index_text = call.unwrap_or_default().to_string();
        }
        let assumed = self.cube_assumptions(&place.array);
        let record = |this: &mut Self, width: u64, offset: Poly, field_of: Option<FieldOf>, mut notes: Vec<String>| {
            notes.extend(assumed.iter().cloned());
            this.body.accesses.push(Access {
                span,
                index_span,
                array: place.array.clone(),
                index_text: index_text.clone(),
                op,
                space: place.space,
                width,
                address: offset,
                field_of,
                guards: this.guards.clone(),
                notes,
                file,
                via: via.clone(),
                loop_depth: this.loop_depth,
            });
        };
        match &place.layout {
            // Without the element's layout neither its width nor the distance between lanes is
            // known: the access is recorded, and its prediction says why it has none.
            None => record(
                self,
                4,
                place.offset.clone(),
                place.field_of.clone(),
                vec![UNKNOWN_LAYOUT.to_string()],
            ),
            Some(layout) if layout.is_single_access() => record(
                self,
                layout.size,
                place.offset.clone(),
                place.field_of.clone(),
                Vec::new(),
            ),
            Some(layout) => {
                for (field, offset, size) in layout.leaves().into_iter().take(64) {
                    // A struct-valued field of an array's element (`entries[i].key = k`): each
                    // leaf is still a field of the element, an element size apart.
                    let field_of = Some(match &place.field_of {
                        Some(outer) => FieldOf {
                            field: format!("{}.{field}", outer.field),
                            ..outer.clone()
                        },
                        None => FieldOf {
                            type_name: layout.name.clone(),
                            field,
                            size: layout.size,
                        },
                    });
                    let address = place.offset.add(&Poly::constant(offset as i64));
                    record(self, size, address, field_of, Vec::new());
                }
            }
        }
    }
}

/// Whether a layout is a small vector of numbers (`x`, `y`, `z`, `w`).
fn is_vector(layout: &crate::model::layout::Layout) -> bool {
    (2..=4).contains(&layout.fields.len())
        && layout
            .fields
            .iter()
            .zip(["x", "y", "z", "w"])
            .all(|(f, name)| f.name == name && f.layout.primitive)
}

/// cuda-oxide's `SharedArray<T, N[, ALIGN]>` as the array type `[T; N]` it holds.
/// An array type, or an array behind a reference (`&[f32; 4]`).
fn is_table(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Array(_) => true,
        syn::Type::Reference(r) => matches!(&*r.elem, syn::Type::Array(_)),
        _ => false,
    }
}

/// `T` of `Wrapper<T>`.
fn wrapped_type(ty: &syn::Type, wrapper: &str) -> Option<syn::Type> {
    let syn::Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != wrapper {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    }
}

fn shared_array_type(ty: &syn::Type) -> Option<syn::Type> {
    let syn::Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "SharedArray" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut args = args.args.iter();
    let syn::GenericArgument::Type(elem) = args.next()? else {
        return None;
    };
    let len: Expr = match args.next()? {
        syn::GenericArgument::Const(e) => e.clone(),
        // A bare constant name parses as a type argument.
        syn::GenericArgument::Type(syn::Type::Path(p)) => Expr::Path(syn::ExprPath {
            attrs: Vec::new(),
            qself: p.qself.clone(),
            path: p.path.clone(),
        }),
        _ => return None,
    };
    Some(syn::parse_quote!([#elem; #len]))
}

/// Slice and pointer types of the GPU crates passed by value: `DisjointSlice<f32>` (cuda-oxide)
/// is a slice of `f32`, `DevicePointer<T>` (parry, cust) a pointer to `T`.
const SLICE_TYPES: &[&str] = &["DisjointSlice", "DevicePointer", "DeviceSlice"];

/// The element type of a slice type passed by value.
fn slice_element(path: &syn::Path) -> Option<&syn::Type> {
    let last = path.segments.last()?;
    if !SLICE_TYPES.contains(&last.ident.to_string().as_str()) {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// The expansion of a macro call being walked: the call, and for each token of the expansion's
/// text (by character offset) the file and bytes it was written at.
pub(crate) struct Expanding {
    pub(crate) call: Span,
    /// Character offset in the text parsed (after the `{ ` it is wrapped in) and origin.
    pub(crate) origins: Vec<(usize, Option<crate::model::semantics::Written>)>,
}

/// How far apart the first and last tokens of a node written in a macro's body may be for the
/// node to be shown as one span there (a `$arg` substituted from the call is elsewhere).
const MAX_WRITTEN_SPAN: usize = 400;

impl Expanding {
    /// Where a node of the expansion was written, when its first token comes from file
    /// `file_id` (`file`): from that token to its last token when both are in one stretch of it.
    fn written(&self, node: &impl quote::ToTokens, file_id: usize, file: &SourceFile) -> Option<Span> {
        // The origin of the token at a character column of the text (the first token at or
        // before it, for a token's end), parsed as `{ text }` on one line.
        let origin = |column: usize, at_end: bool| {
            let offset = column.checked_sub(2)?;
            let found = match at_end {
                false => self.origins.binary_search_by_key(&offset, |(at, _)| *at).ok()?,
                true => self.origins.partition_point(|(at, _)| *at < offset).checked_sub(1)?,
            };
            self.origins[found]
                .1
                .clone()
                .filter(|(f, _)| *f == file_id)
                .map(|(_, range)| range)
        };
        let tokens: Vec<proc_macro2::TokenTree> = node.to_token_stream().into_iter().collect();
        let first = tokens.first()?;
        let start = origin(first.span().start().column, false)?;
        // Tokens from the call's arguments (`$i`) are elsewhere: the span ends at the last
        // token written on the same side of the call as the first.
        let in_call = |r: &std::ops::Range<usize>| self.call.start <= r.start && r.start < self.call.end;
        let end = tokens
            .iter()
            .filter_map(|t| origin(t.span().end().column, true))
            .filter(|r| in_call(r) == in_call(&start) && r.end >= start.end && r.end - start.start <= MAX_WRITTEN_SPAN)
            .map(|r| r.end)
            .max()
            .unwrap_or(start.end);
        let (line, column) = file.line_column(start.start);
        Some(Span {
            start: start.start,
            end,
            line,
            column,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{analyze_source, AccessClass, LaunchPlan, Op, SourceFile};

    fn first_store(src: &str) -> crate::Prediction {
        let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
        let access = report.kernels[0]
            .accesses
            .iter()
            .find(|a| a.array == "out")
            .expect("store to out");
        access.prediction.clone().expect("global")
    }

    #[test]
    fn a_raw_pointers_own_methods_win_over_the_elements_operator_methods() {
        // `Half` has an `add` and a `read` of its own; `table.add(i).read()` on a raw pointer
        // to it is still pointer arithmetic and a load, since method calls do not look
        // through raw pointers.
        let src = "#[derive(Clone, Copy)] #[repr(transparent)] pub struct Half(u16);
             impl core::ops::Add for Half { type Output = Half; fn add(self, o: Half) -> Half { Half(self.0 + o.0) } }
             impl Half { pub fn read(&self) -> u16 { self.0 } }
             #[kernel] pub unsafe fn k(table: *const Half, out: *mut Half, n: usize) {
                 let i = thread::index_1d() as usize;
                 let v = table.add(i * n).read();
                 out.add(i).write(v);
             }";
        let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
        let seen: Vec<(&str, usize, Option<f64>)> = report.kernels[0]
            .accesses
            .iter()
            .map(|a| {
                let p = a.prediction.as_ref().expect("global");
                (a.array.as_str(), a.span.line, p.sectors_per_request)
            })
            .collect();
        assert_eq!(
            seen,
            [("table", 6, None), ("out", 7, Some(2.0))],
            "{:?}",
            report.kernels[0].accesses
        );
    }

    #[test]
    fn a_store_through_a_loaded_pointer_of_unknown_pointee_is_reported() {
        // `Opaque` is defined nowhere the analysis reads: the store through the pointer the
        // lanes load is still an access, unknown for want of a layout, not dropped.
        let src = "#[repr(C)] pub struct Params { pub flags: *mut Opaque, pub n: usize }
             #[kernel] pub unsafe fn k(params: &mut Params) {
                 let i = thread::index_1d() as usize;
                 *params.flags.add(i) = Opaque::default();
             }";
        let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
        let seen: Vec<(Op, usize, AccessClass, Vec<String>)> = report.kernels[0]
            .accesses
            .iter()
            .map(|a| {
                let p = a.prediction.as_ref().expect("global");
                (a.op, a.span.line, p.class, p.assumptions.clone())
            })
            .collect();
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert_eq!((seen[0].0, seen[0].1, seen[0].2), (Op::Load, 4, AccessClass::Broadcast));
        assert_eq!((seen[1].0, seen[1].1, seen[1].2), (Op::Store, 4, AccessClass::Unknown));
        assert!(
            seen[1].3[0].starts_with("the layout of the element is not known"),
            "{seen:?}"
        );
    }

    fn global_rows(src: &str) -> Vec<(Op, usize, AccessClass, Option<f64>)> {
        let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
        assert_eq!(report.kernels.len(), 1, "the kernel is found");
        report.kernels[0]
            .accesses
            .iter()
            .filter_map(|a| {
                let p = a.prediction.as_ref()?;
                Some((a.op, a.span.line, p.class, p.sectors_per_request))
            })
            .collect()
    }

    #[test]
    fn an_atomic_cell_made_from_a_pointer_is_read_and_written_at_it() {
        // `AtomicU32::from_ptr(p)` is the cell at `p`: its `load` is one load, its `store` one
        // store, and a read-modify-write both, at the slot the lane's key picks.
        let rows = global_rows(
            "use core::sync::atomic::{AtomicU32, Ordering};
             #[kernel] pub unsafe fn k(keys: &[u32], counts: *mut u32, seen: *mut u32) {
                 let i = thread::index_1d() as usize;
                 let slot = keys[i] as usize;
                 AtomicU32::from_ptr(counts.add(slot)).fetch_add(1, Ordering::Relaxed);
                 let flag = AtomicU32::from_ptr(seen.add(i));
                 if flag.load(Ordering::Relaxed) == 0 { flag.store(1, Ordering::Relaxed); }
             }",
        );
        use AccessClass::*;
        assert_eq!(
            rows,
            [
                (Op::Load, 4, Coalesced, Some(4.0)),
                (Op::Load, 5, Gather, None),
                (Op::Store, 5, Gather, None),
                (Op::Load, 7, Coalesced, Some(4.0)),
                (Op::Store, 7, Coalesced, Some(4.0)),
            ]
        );
    }

    #[test]
    fn the_question_mark_operator_passes_the_payload_on() {
        // `first(..)?` reads through the helper and gives its `Some` value to the caller; the
        // store after it runs only in the lanes that got one, which the note says.
        let src = "fn first(xs: &[f32], at: usize) -> Option<f32> { if at < xs.len() { Some(xs[at]) } else { None } }
             fn twice(xs: &[f32], at: usize, out: *mut f32) -> Option<f32> {
                 let v = first(xs, at)?;
                 unsafe { *out.add(at) = v; }
                 Some(v * 2.0)
             }
             #[kernel] pub unsafe fn k(xs: &[f32], out: *mut f32) {
                 let i = thread::index_1d() as usize;
                 twice(xs, i, out);
             }";
        use AccessClass::*;
        assert_eq!(
            global_rows(src),
            [
                (Op::Load, 1, Coalesced, Some(4.0)),
                (Op::Store, 4, Coalesced, Some(4.0))
            ]
        );
        let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
        let store = report.kernels[0].accesses[1].prediction.as_ref().expect("global");
        assert_eq!(
            store.assumptions,
            ["the lanes that run it depend on `first(xs, at)?`, which the analysis cannot follow: the figure counts every lane, so each request touches at most that many sectors"]
        );
    }

    #[test]
    fn a_per_thread_share_computed_from_unknowns_is_the_row_length_explored() {
        // Each lane starts its own share of `len` bytes, `(len + n - 1) / n` of them: that
        // share is the distance between lanes, whatever `len` is, and for any share of a warp
        // or more each lane has a sector of its own.
        let rows = global_rows(
            "#[kernel] pub unsafe fn k(text: &[u8], out: *mut u32) {
                 let tid = thread::index_1d() as usize;
                 let threads = (thread::block_dim_x() * thread::grid_dim_x()) as usize;
                 let share = (text.len() + threads - 1) / threads;
                 let mut p = tid * share;
                 let mut lines = 0;
                 while p < text.len() && text[p] != 10 { p += 1; lines += 1; }
                 *out.add(tid) = lines;
             }",
        );
        assert_eq!(rows[0].1, 7);
        assert_eq!(
            (rows[0].2, rows[0].3),
            (AccessClass::Transposed, Some(32.0)),
            "{rows:?}"
        );
    }

    #[test]
    fn a_match_on_the_lane_index_runs_each_literal_arm_in_its_lanes() {
        // Arm `0` runs in one lane, `1 | 2` in two, and `_` in the lanes no earlier arm took.
        let rows = global_rows(
            "#[kernel] pub unsafe fn k(out: *mut u32) {
                 let t = thread::thread_idx_x() as usize;
                 match t {
                     0 => *out.add(t) = 7,
                     1 | 2 => *out.add(2 * t) = 8,
                     _ => *out.add(t) = 9,
                 }
             }",
        );
        use AccessClass::*;
        assert_eq!(
            rows,
            [
                (Op::Store, 4, Broadcast, Some(1.0)),
                (Op::Store, 5, Coalesced, Some(1.0)),
                (Op::Store, 6, Coalesced, Some(4.0)),
            ]
        );
    }

    #[test]
    fn glam_vectors_are_built_combined_and_read_by_component() {
        // A constant vector, the constructors and arithmetic on whole vectors keep each
        // component: the row length is the grid's width in threads.
        let rows = global_rows(
            "use spirv_std::glam::{uvec2, UVec2, UVec3, Vec3Swizzles};
             const TILE: UVec2 = uvec2(8, 4);
             #[spirv(compute(threads(8, 4)))]
             pub fn k(#[spirv(global_invocation_id)] id: UVec3, #[spirv(num_workgroups)] groups: UVec3,
                      #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] out: &mut [u32]) {
                 let size = UVec2::new(groups.x, groups.y) * TILE;
                 let at = id.xy() * 2 + UVec2::splat(1);
                 out[(at.x + at.y * size.x) as usize] = 1;
             }",
        );
        assert_eq!(rows.len(), 1);
        assert_eq!(rows, [(Op::Store, 8, AccessClass::Strided, Some(8.0))]);
    }

    #[test]
    fn a_method_of_vectors_read_per_lane_gives_data() {
        // The distance between two loaded points picks the slot: a gather, not an index the
        // analysis cannot follow.
        let rows = global_rows(
            "use spirv_std::glam::{UVec3, Vec3};
             #[spirv(compute(threads(64)))]
             pub fn k(#[spirv(global_invocation_id)] id: UVec3,
                      #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] xs: &[f32],
                      #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] bins: &mut [u32]) {
                 let i = id.x as usize;
                 let p = Vec3::new(xs[3 * i], xs[3 * i + 1], xs[3 * i + 2]);
                 let d = p.distance(Vec3::ZERO);
                 bins[d as usize] = 1;
             }",
        );
        assert_eq!(
            rows.last(),
            Some(&(Op::Store, 9, AccessClass::Gather, None)),
            "{rows:?}"
        );
    }

    #[test]
    fn a_diverging_else_guards_the_rest_of_the_block() {
        let p = first_store(
            "#[kernel] pub unsafe fn k(out: *mut f32) {
                 let i = thread::index_1d() as usize;
                 if i == 0 { } else { return; }
                 *out.add(i) = 1.0;
             }",
        );
        assert_eq!((p.class, p.sectors_per_request), (AccessClass::Broadcast, Some(1.0)));
    }

    #[test]
    fn a_pointer_made_from_an_integer_is_a_note_at_the_cast() {
        let src = "#[kernel] pub unsafe fn k(out: *mut f32, skip: usize) {
                 let p = &mut *out.add(thread::index_1d() as usize);
                 let q = p as *mut f32;
                 *((q as usize + skip) as *mut f32) = 1.0;
             }";
        let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
        let kernel = &report.kernels[0];
        let notes: Vec<(usize, &str)> = kernel
            .unsupported
            .iter()
            .map(|u| (u.span.line, u.message.as_str()))
            .collect();
        // The pointer variable cast to a pointer is no integer: one note, at the arithmetic.
        assert_eq!(
            notes,
            [(
                4,
                "`(q as usize + skip)` makes a pointer from an integer: accesses through it are not analyzed"
            )]
        );
    }

    #[test]
    fn a_value_a_break_hands_on_under_a_data_condition_is_data() {
        // Each lane leaves the search at the first entry above its own value: the slot it
        // stores to depends on the data, not one address for the warp.
        let p = first_store(
            "#[kernel] pub unsafe fn k(xs: &[f32], table: &[f32], out: *mut u32, n: u32) {
                 let i = thread::index_1d() as usize;
                 let x = xs[i];
                 let mut level = n;
                 for j in 0..n { if x < table[j as usize] { level = j; break; } }
                 *out.add(level as usize) = 1;
             }",
        );
        assert_eq!((p.class, p.sectors_per_request), (AccessClass::Gather, None), "{p:?}");
    }

    #[test]
    fn a_value_set_under_a_lane_condition_differs_between_lanes() {
        let p = first_store(
            "#[kernel] pub unsafe fn k(out: *mut f32) {
                 let i = thread::index_1d() as usize;
                 let mut j = 0;
                 if i % 2 == 0 { j = i; }
                 *out.add(j) = 1.0;
             }",
        );
        // Followed lane by lane: even lanes store to `out[i]`, odd lanes to `out[0]`, which
        // lies in another sector for every warp of a block past the first: 4 + 1.
        assert_eq!(p.sectors_per_request, Some(5.0), "{p:?}");
        assert_eq!(p.class, AccessClass::Strided);
        assert_eq!(p.row_length, None);
    }

    #[test]
    fn grid_stride_loops_advance_by_a_uniform_step() {
        let p = first_store(
            "#[kernel] pub unsafe fn k(out: *mut f32, n: usize) {
                 let mut i = thread::index_1d() as usize;
                 while i < n {
                     *out.add(i) = 1.0;
                     i += (thread::block_dim_x() * thread::grid_dim_x()) as usize;
                 }
             }",
        );
        assert_eq!((p.class, p.sectors_per_request), (AccessClass::Coalesced, Some(4.0)));
    }

    #[test]
    fn a_number_s_method_called_by_its_path_is_that_method() {
        // A window that starts `r` before each lane's column: the same misalignment as
        // `x.saturating_sub(r)` written as a method.
        let p = first_store(
            "#[kernel] pub unsafe fn k(src: &[f32], out: *mut f32, r: usize) {
                 let x = thread::index_1d() as usize;
                 let start = usize::saturating_sub(x, 3);
                 let end = u32::max(start as u32, 1) as usize;
                 *out.add(start) = src[end];
             }",
        );
        assert_eq!(p.class, AccessClass::Misaligned);
        assert_eq!(p.sectors_per_request, Some(5.0));
    }

    #[test]
    fn tuples_chosen_by_a_condition_keep_their_elements() {
        // `(Some(a), Some(b))` on one side, `(None, None)` on the other: what goes through
        // each option is its present side.
        let found = accesses(
            "#[kernel] pub unsafe fn k(w: *mut f32, m: *mut f32, n: usize) {
                 let i = thread::index_1d() as usize;
                 let (w_opt, m_opt) = if i < n { (Some(&mut *w.add(i)), Some(&mut *m.add(i))) } else { (None, None) };
                 if let (Some(w_ref), Some(m_ref)) = (w_opt, m_opt) {
                     *m_ref = *w_ref;
                 }
             }",
        );
        assert_eq!(
            found,
            [
                ("w".to_string(), "load", Some(4.0), String::new()),
                ("m".to_string(), "store", Some(4.0), String::new()),
            ]
        );
    }

    #[test]
    fn for_each_over_a_slice_wrapper_walks_the_slice_it_holds() {
        let src = "use core::ops::Deref;
             pub struct Wrap<'a, T: Copy> { pub ptr: &'a [T] }
             impl<'a, T: Copy> Deref for Wrap<'a, T> { type Target = [T]; fn deref(&self) -> &[T] { self.ptr } }
             pub struct Args<'a> { pub table: Wrap<'a, u32> }
             #[kernel] pub unsafe fn k(args: &Args, out: *mut u32) {
                 let i = thread::index_1d() as usize;
                 let mut sum = 0;
                 args.table.iter().for_each(|t| sum += *t);
                 *out.add(i) = sum;
             }";
        let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
        let kernel = &report.kernels[0];
        assert!(kernel.unsupported.is_empty(), "{:?}", kernel.unsupported);
        let table: Vec<(String, Option<AccessClass>, Option<f64>)> = kernel
            .accesses
            .iter()
            .filter(|a| a.array.contains("table"))
            .map(|a| {
                let p = a.prediction.as_ref();
                (
                    a.array.clone(),
                    p.map(|p| p.class),
                    p.and_then(|p| p.sectors_per_request),
                )
            })
            .collect();
        // The slice's address read from the argument struct, then its elements: every lane
        // at one address each time.
        assert!(!table.is_empty());
        assert!(
            table
                .iter()
                .all(|(_, c, s)| *c == Some(AccessClass::Broadcast) && *s == Some(1.0)),
            "{table:?}"
        );
        assert!(table.iter().any(|(a, ..)| a == "args.table"), "{table:?}");
    }

    #[test]
    fn a_macro_not_expanded_that_is_handed_a_buffer_is_a_note() {
        let src = "#[kernel] pub unsafe fn k(out: *mut f32) {
                 let i = thread::index_1d() as usize;
                 unknown_macro!(out, i);
             }";
        let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
        let notes: Vec<&str> = report.kernels[0]
            .unsupported
            .iter()
            .map(|u| u.message.as_str())
            .collect();
        assert_eq!(
            notes,
            ["macro `unknown_macro!` is not expanded: accesses inside it are not analyzed"]
        );
    }

    fn accesses(src: &str) -> Vec<(String, &'static str, Option<f64>, String)> {
        let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
        report.kernels[0]
            .accesses
            .iter()
            .map(|a| {
                let p = a.prediction.as_ref();
                let field = a.field_of.as_ref().map_or(String::new(), |f| f.field.clone());
                (
                    a.array.clone(),
                    a.op.as_str(),
                    p.and_then(|p| p.sectors_per_request),
                    field,
                )
            })
            .collect()
    }

    /// (array, op, space, class) of every access of the first kernel.
    fn spaces(src: &str) -> Vec<(String, &'static str, crate::MemorySpace, Option<AccessClass>)> {
        let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
        report.kernels[0]
            .accesses
            .iter()
            .map(|a| {
                (
                    a.array.clone(),
                    a.op.as_str(),
                    a.space,
                    a.prediction.as_ref().map(|p| p.class),
                )
            })
            .collect()
    }

    #[test]
    fn const_tables_are_read_from_global_memory_at_run_time_indices_only() {
        use crate::MemorySpace::Global;
        let found = spaces(
            "const ROW: [u32; 4] = [11, 22, 33, 44];
             #[kernel] pub unsafe fn k(idx: *const u32, out: *mut u32) {
                 let i = thread::index_1d() as usize;
                 let folded = ROW[2];
                 *out.add(i) = ROW[i & 3] + ROW[*idx.add(i) as usize & 3] + folded;
             }",
        );
        assert_eq!(
            found,
            [
                // Four words of one sector.
                ("ROW".to_string(), "load", Global, Some(AccessClass::Coalesced)),
                ("idx".to_string(), "load", Global, Some(AccessClass::Coalesced)),
                ("ROW".to_string(), "load", Global, Some(AccessClass::Gather)),
                ("out".to_string(), "store", Global, Some(AccessClass::Coalesced)),
            ]
        );
    }

    #[test]
    fn constant_memory_statics_are_not_global_accesses() {
        let found = spaces(
            "#[constant] static COEFFS: ConstantMemory<[f32; 2]> = ConstantMemory::UNINIT;
             #[kernel] pub unsafe fn k(out: *mut f32) {
                 let i = thread::index_1d() as usize;
                 let c = COEFFS.get();
                 *out.add(i) = c[0] + c[1];
             }",
        );
        let constant: Vec<_> = found.iter().filter(|a| a.2 == crate::MemorySpace::Constant).collect();
        assert_eq!(constant.len(), 2, "{found:?}");
        assert!(constant
            .iter()
            .all(|a| a.0 == "COEFFS" && a.1 == "load" && a.3.is_none()));
        assert_eq!(
            found.last().map(|a| (a.0.as_str(), a.2)),
            Some(("out", crate::MemorySpace::Global))
        );
    }

    #[test]
    fn element_copies_read_the_source_and_write_the_destination() {
        let copied = accesses(
            "#[kernel] pub unsafe fn k(src: *const u32, dst: *mut u32) {
                 let i = thread::index_1d() as usize;
                 core::ptr::copy_nonoverlapping(src.add(i), dst.add(i), 1);
                 core::ptr::copy_nonoverlapping(src.add(i * 4), dst.add(i * 4), 4);
             }",
        );
        let figures: Vec<_> = copied.iter().map(|(a, op, s, _)| (a.as_str(), *op, *s)).collect();
        assert_eq!(figures[..2], [("src", "load", Some(4.0)), ("dst", "store", Some(4.0))]);
        // A copy of several elements is the loop that copies them one by one.
        let looped = accesses(
            "#[kernel] pub unsafe fn k(src: *const u32, dst: *mut u32) {
                 let i = thread::index_1d() as usize;
                 for k in 0..4 { *dst.add(i * 4 + k) = *src.add(i * 4 + k); }
             }",
        );
        let looped: Vec<_> = looped.iter().map(|(a, op, s, _)| (a.as_str(), *op, *s)).collect();
        assert_eq!(looped.len(), 2);
        assert!(looped[0].2.is_some_and(|s| s > 4.0), "{looped:?}");
        assert_eq!(figures[2..], looped[..]);
    }

    #[test]
    fn an_indexed_element_of_a_disjoint_slice_is_the_threads_own() {
        let found = accesses(
            "#[kernel] pub fn k(input: &[u32], mut out: DisjointSlice<u32>) {
                 if let Some((slot, idx)) = out.get_mut_indexed() {
                     *slot = input[idx.get()];
                 }
             }",
        );
        let figures: Vec<_> = found.iter().map(|(a, op, s, _)| (a.as_str(), *op, *s)).collect();
        assert_eq!(figures, [("input", "load", Some(4.0)), ("out", "store", Some(4.0))]);
    }

    #[test]
    fn every_access_form_of_the_model() {
        let found = accesses(
            "#[repr(C)] #[derive(Clone, Copy)] pub struct Pair(f32, f32);
             #[kernel] pub unsafe fn k(a: &[f32], p: *mut f32, q: *const f32, t: &[Pair], out: *mut f32) {
                 let i = thread::index_1d() as usize;
                 let x = *a.get_unchecked(i);
                 let y = *q.offset(i as isize);
                 let z = t[i].0;
                 let e = &mut *p.add(2 * i);
                 *e = x + y + z;
                 *out.add(i) += 1.0;
                 let s = core::slice::from_raw_parts_mut(out, 64);
                 s[i] = 0.0;
             }",
        );
        let expected: Vec<(String, &str, Option<f64>, String)> = vec![
            ("a".into(), "load", Some(4.0), String::new()),
            ("q".into(), "load", Some(4.0), String::new()),
            ("t".into(), "load", Some(8.0), "0".into()),
            ("p".into(), "store", Some(8.0), String::new()),
            ("out".into(), "load", Some(4.0), String::new()),
            ("out".into(), "store", Some(4.0), String::new()),
            ("out".into(), "store", Some(4.0), String::new()),
        ];
        assert_eq!(found, expected);
    }

    #[test]
    fn struct_copies_are_one_wide_access_only_when_aligned() {
        let found = accesses(
            "#[repr(C)] #[derive(Clone, Copy)] pub struct P3 { x: f32, y: f32, z: f32 }
             #[repr(C, align(8))] #[derive(Clone, Copy)] pub struct P2 { x: f32, y: f32 }
             #[kernel] pub unsafe fn k(a: &[P3], b: &[P2]) {
                 let i = thread::index_1d() as usize;
                 let u = a[i];
                 let v = b[i];
             }",
        );
        let expected: Vec<(String, &str, Option<f64>, String)> = vec![
            ("a".into(), "load", Some(12.0), "x".into()),
            ("a".into(), "load", Some(12.0), "y".into()),
            ("a".into(), "load", Some(12.0), "z".into()),
            ("b".into(), "load", Some(8.0), String::new()),
        ];
        assert_eq!(found, expected);
    }
}
