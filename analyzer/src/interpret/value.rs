//! The abstract values the interpreter tracks for kernel variables.

use crate::algebra::{Poly, Predicate};
use crate::model::layout::FieldOf;
use crate::model::layout::Layout;
use crate::source::Span;

/// Which memory a pointer or place refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum MemorySpace {
    /// Device global memory.
    Global,
    /// Per-block shared memory.
    Shared,
    /// Constant memory (`__constant__`, cuda-oxide's `#[constant]` statics), read through the
    /// constant cache rather than as global loads.
    Constant,
}

/// Whether an access reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// A read.
    Load,
    /// A write.
    Store,
}

impl Op {
    /// `load` or `store`.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Load => "load",
            Op::Store => "store",
        }
    }
}

/// A pointer into an array: a base assumed 256-byte aligned plus a byte offset.
#[derive(Debug, Clone, PartialEq)]
pub struct Pointer {
    /// The name the user gave the array (`a`, `p.vx`, `TILE`).
    pub array: String,
    /// Bytes from the aligned base.
    pub offset: Poly,
    /// Layout of one element, when known.
    pub elem: Option<Layout>,
    /// Global or shared.
    pub space: MemorySpace,
    /// Index text of the last pointer arithmetic (`i` in `c.add(i)`), for reports.
    pub index: Option<(String, Span)>,
    /// Elements in the slice from `offset` on, when the code says (`a[lo..hi]`,
    /// `from_raw_parts(p, n)`).
    pub len: Option<Poly>,
    /// A raw pointer (`*const T`, `*mut T`): its methods are the pointer's own (`add`,
    /// `read`), never the element's, since method calls do not look through raw pointers.
    /// A reference or a slice is not raw.
    pub raw: bool,
}

/// A location in memory that a load or store may use.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    /// The array the place lies in.
    pub array: String,
    /// Bytes from the array's aligned base.
    pub offset: Poly,
    /// Layout of the value at the place.
    pub layout: Option<Layout>,
    /// Global or shared.
    pub space: MemorySpace,
    /// The index, as written, and its span.
    pub index: Option<(String, Span)>,
    /// The struct field this place is, if any.
    pub field_of: Option<FieldOf>,
}

impl Place {
    /// The place at the start of a pointer's element.
    pub fn at(pointer: &Pointer) -> Place {
        Place {
            array: pointer.array.clone(),
            offset: pointer.offset.clone(),
            layout: pointer.elem.clone(),
            space: pointer.space,
            index: pointer.index.clone(),
            field_of: None,
        }
    }
}

/// The value of a kernel variable as far as memory addressing is concerned.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// An integer (or a number the analysis treats as one).
    Int(Poly),
    /// A condition.
    Bool(Predicate),
    /// A geometry vector (`thread_idx()`, `index_2d()`): components x, y, z.
    Vector(Vec<Poly>),
    /// A pointer or slice.
    Pointer(Pointer),
    /// A reference to a place (`&mut *p.add(i)`, `a.get_unchecked(i)`).
    Place(Place),
    /// A struct value, by field, with its type's name when known (for its methods).
    Struct {
        /// The type's name (`Grid`).
        ty: Option<String>,
        /// Field values in declaration order.
        fields: Vec<(String, Value)>,
    },
    /// A tuple.
    Tuple(Vec<Value>),
    /// `None`: an `Option` with nothing in it, through which no access can go.
    Absent,
    /// A closure bound to a name that is only ever called: its body runs at each call, by its
    /// number among the interpreter's closures.
    Closure(usize),
    /// Nothing worth tracking (floats read from memory, unit).
    Unknown,
}

impl Value {
    /// The integer, if this is one.
    pub fn as_int(&self) -> Option<&Poly> {
        match self {
            Value::Int(p) => Some(p),
            _ => None,
        }
    }

    /// Whether the value may differ between the lanes of a warp. A value the analysis does
    /// not track may: only what derives from uniform sources is known to be the same.
    pub fn is_lane_dependent(&self) -> bool {
        match self {
            Value::Int(p) => p.is_lane_dependent(),
            Value::Bool(p) => p.is_lane_dependent(),
            Value::Vector(components) => components.iter().any(Poly::is_lane_dependent),
            Value::Pointer(p) => p.offset.is_lane_dependent(),
            Value::Place(p) => p.offset.is_lane_dependent(),
            Value::Struct { fields, .. } => fields.iter().any(|(_, v)| v.is_lane_dependent()),
            Value::Tuple(parts) => parts.iter().any(Value::is_lane_dependent),
            Value::Absent | Value::Closure(_) => false,
            Value::Unknown => true,
        }
    }

    /// Whether the value is read from memory at per-lane addresses, or made from such values:
    /// an address computed from it is a gather.
    pub fn is_loaded_per_lane(&self) -> bool {
        match self {
            Value::Int(p) => p.is_loaded_per_lane(),
            Value::Vector(components) => components.iter().any(Poly::is_loaded_per_lane),
            Value::Struct { fields, .. } => fields.iter().any(|(_, v)| v.is_loaded_per_lane()),
            Value::Tuple(parts) => parts.iter().any(Value::is_loaded_per_lane),
            _ => false,
        }
    }

    /// The name of a global-memory buffer this value is or holds (a pointer, a place, a
    /// struct or tuple with one inside): what an invisible callee could read or write.
    pub fn global_buffer(&self) -> Option<&str> {
        match self {
            Value::Pointer(p) if p.space == MemorySpace::Global => Some(&p.array),
            Value::Place(p) if p.space == MemorySpace::Global => Some(&p.array),
            Value::Struct { fields, .. } => fields.iter().find_map(|(_, v)| v.global_buffer()),
            Value::Tuple(parts) => parts.iter().find_map(Value::global_buffer),
            _ => None,
        }
    }
}

/// The type name of a cuda-oxide 2-D thread index (`index_2d_runtime`): fields `row`, `col`
/// and `raw`, the element it stands for.
pub(crate) const THREAD_INDEX: &str = "cuda_device::ThreadIndex";

/// The prefix of the type names of `ptx_support`'s `Context::thread()` and `Context::block()`
/// values, whose `index()` and `dims()` are geometry vectors.
pub(crate) const PTX_CONTEXT: &str = "ptx_support::";

/// Why a value is opaque: each completes "the index depends on `x`, which ...".
pub(crate) mod why {
    /// A name bound by a pattern whose parts the analysis does not track.
    pub(crate) const PATTERN: &str = "is bound by a pattern the analysis does not follow";
    /// A closure's parameter: the closure may be called with anything.
    pub(crate) const CLOSURE_PARAMETER: &str = "is a closure parameter the analysis does not follow";
    /// An item of an iterator other than a range.
    pub(crate) const ITEM: &str = "is an item of an iterator the analysis does not follow";
    /// A literal that is not an integer (`1.5`).
    pub(crate) const LITERAL: &str = "is a literal, not an integer";
    /// A constant of a primitive type whose value does not fit the analysis.
    pub(crate) const CONSTANT: &str = "is a constant too large for 64-bit arithmetic";
    /// A name that is neither a variable, a constant nor a static of the file.
    pub(crate) const UNDEFINED: &str = "is not defined in this kernel";
    /// A call without a body to follow: it may read the thread index itself.
    pub(crate) const INVISIBLE_CALL: &str = "is not visible to the analysis";
}

/// An expression evaluated where a place may stand: either a memory location (not yet read)
/// or a plain value.
pub(crate) enum Operand {
    /// A memory location, not yet read.
    Place(Place),
    /// A value.
    Value(Value),
}

/// The name of the block's dynamic shared memory, as the code asks for it.
pub(crate) const DYNAMIC_SHARED: &str = "dynamic_shared_mem()";
/// The name of a `shared_array!` not bound to a variable, until a `let` names it.
pub(crate) const SHARED_ARRAY: &str = "shared_array!";
