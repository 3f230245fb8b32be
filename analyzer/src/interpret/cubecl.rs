//! CubeCL device code as the interpreter sees it: the topology constants (`ABSOLUTE_POS`,
//! `UNIT_POS_X`, `CUBE_DIM`, ..) as thread geometry, `Array<T>`, `Tensor<T>` and slices as
//! global buffers whose element may be a `Line<F>` (or `Vector<F, N>`) of `line_size`
//! elements, their `len`, `shape` and `stride` as values of the launch, `SharedMemory` as
//! shared memory, `terminate!()` as an early return and `comptime!(..)` as its expression.

use super::geometry::Geometry;
use super::value::SHARED_ARRAY;
use super::{Interpreter, MemorySpace, Pointer, Value};
use crate::algebra::{Atom, Axis, Poly};
use crate::model::cubecl::{line_size_key, primitive_size, type_size_key};
use crate::model::layout::Layout;
use crate::parse::last_segment;
use std::collections::BTreeMap;
use syn::punctuated::Punctuated;
use syn::{Expr, GenericArgument, PathArguments, Type};

/// The warp width CubeCL's `PLANE_DIM` has on NVIDIA GPUs.
const PLANE_DIM: i64 = 32;

/// Buffer types of CubeCL kernels, by the last segment of their path.
const BUFFER_TYPES: &[&str] = &["Array", "Tensor", "Slice", "SliceMut", "SharedMemory"];

/// The values of a CubeCL launch the interpreter reads: line sizes and element sizes
/// (see [`line_size_key`], [`type_size_key`]), and the assumptions made where it has none.
#[derive(Debug, Default)]
pub(crate) struct CubeLaunch {
    /// The launch's integer values, by name.
    pub(crate) values: BTreeMap<String, i64>,
    /// What was assumed about each buffer's element, said with every access to it.
    pub(crate) assumptions: BTreeMap<String, Vec<String>>,
}

/// Whether a macro call ends the unit like `return` (`terminate!()`).
pub(crate) fn is_terminate(mac: &syn::Macro) -> bool {
    last_segment(&mac.path) == "terminate"
}

/// A topology constant's value: polynomials over the thread geometry, as CubeCL's CUDA
/// back end computes them.
pub(crate) fn topology(geometry: &Geometry, name: &str) -> Option<Poly> {
    let axes = [Axis::X, Axis::Y, Axis::Z];
    let axis = |suffix: &str| match suffix {
        "X" => Some(Axis::X),
        "Y" => Some(Axis::Y),
        "Z" => Some(Axis::Z),
        _ => None,
    };
    let [bdx, bdy, bdz] = axes.map(|a| geometry.block_dim(a));
    let [gx, gy, gz] = axes.map(|a| geometry.grid_dim(a));
    Some(match name {
        // z * (gx*bdx) * (gy*bdy) + y * (gx*bdx) + x, over the absolute positions.
        "ABSOLUTE_POS" => {
            let [x, y, z] = axes.map(|a| geometry.global(a));
            let row = gx.mul(&bdx);
            z.mul(&row).mul(&gy.mul(&bdy)).add(&y.mul(&row)).add(&x)
        }
        "UNIT_POS" => {
            let [tx, ty, tz] = axes.map(|a| geometry.thread(a));
            tz.mul(&bdx).mul(&bdy).add(&ty.mul(&bdx)).add(&tx)
        }
        "CUBE_POS" => {
            let [bx, by, bz] = axes.map(|a| geometry.block_idx(a));
            bz.mul(&gy).mul(&gx).add(&by.mul(&gx)).add(&bx)
        }
        "CUBE_DIM" => bdx.mul(&bdy).mul(&bdz),
        "CUBE_COUNT" => gx.mul(&gy).mul(&gz),
        "PLANE_DIM" => Poly::constant(PLANE_DIM),
        "UNIT_POS_PLANE" => geometry.lane_id(),
        _ => {
            let (stem, suffix) = name.rsplit_once('_')?;
            let a = axis(suffix)?;
            match stem {
                "ABSOLUTE_POS" => geometry.global(a),
                "UNIT_POS" => geometry.thread(a),
                "CUBE_POS" => geometry.block_idx(a),
                "CUBE_DIM" => geometry.block_dim(a),
                "CUBE_COUNT" => geometry.grid_dim(a),
                _ => return None,
            }
        }
    })
}

/// The first type argument of a path's last segment (`T` of `Array<T>`), and the second
/// (`N` of `Vector<F, N>`) when there is one.
fn type_arguments(ty: &Type) -> Option<(String, Vec<&Type>)> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let args = match &last.arguments {
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                GenericArgument::Type(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    Some((last.ident.to_string(), args))
}

impl<'a> Interpreter<'a> {
    /// The value of a CubeCL name that is not a variable: a topology constant.
    pub(crate) fn cube_constant(&self, name: &str) -> Option<Value> {
        self.cube.as_ref()?;
        if self.lookup(name).is_some() {
            return None;
        }
        topology(&self.geometry, name).map(Value::Int)
    }

    /// A buffer parameter of a CubeCL kernel (`input: &Array<Line<F>>`, `t: &Tensor<F>`,
    /// `out: &mut [Vector<F, N>]`): a global pointer to its elements.
    pub(crate) fn cube_parameter(&mut self, name: &str, ty: &Type) -> Option<Value> {
        self.cube.as_ref()?;
        let inner = match ty {
            Type::Reference(r) => &*r.elem,
            other => other,
        };
        let elem = match inner {
            Type::Slice(s) => &*s.elem,
            other => match type_arguments(other) {
                Some((wrapper, args)) if BUFFER_TYPES.contains(&wrapper.as_str()) => *args.first()?,
                // A scalar or a struct passed by reference (`dim: &u32`) is a launch argument
                // held in registers, not a buffer.
                _ => return Some(self.parameter_value(self.scope(), name, other, 0)),
            },
        };
        let layout = self.cube_element(name, elem);
        Some(Value::Pointer(Pointer {
            array: name.to_string(),
            offset: Poly::default(),
            elem: Some(layout),
            space: MemorySpace::Global,
            index: None,
            len: None,
            raw: false,
        }))
    }

    /// The layout of a buffer's element: a scalar, or a line of `line_size` scalars moved by
    /// one access. What the launch does not give is assumed, and the assumption recorded.
    fn cube_element(&mut self, buffer: &str, elem: &Type) -> Layout {
        let (scalar, line) = match type_arguments(elem) {
            Some((wrapper, args)) if matches!(wrapper.as_str(), "Line" | "Vector") && !args.is_empty() => {
                (args[0], true)
            }
            _ => (elem, false),
        };
        let scalar_text = quote::ToTokens::to_token_stream(scalar).to_string().replace(' ', "");
        let mut notes = Vec::new();
        let values = self.cube.as_ref().map(|c| &c.values);
        let scalar_size = match primitive_size(&scalar_text) {
            Some(size) => size,
            None => match values.and_then(|v| v.get(&type_size_key(&scalar_text))) {
                Some(&size) => size,
                None => {
                    notes.push(format!(
                        "assumes `{scalar_text}` is 4 bytes wide (f32): the launch does not name the element type"
                    ));
                    4
                }
            },
        };
        let line_size = if line {
            match values.and_then(|v| v.get(&line_size_key(buffer))) {
                Some(&n) if n > 0 => n,
                _ => {
                    notes.push(format!(
                        "assumes a line size of 1 for `{buffer}`: the launch does not give it; a line of N elements moves N times the bytes per lane"
                    ));
                    if !self.body.assumed_line_sizes.iter().any(|b| b == buffer) {
                        self.body.assumed_line_sizes.push(buffer.to_string());
                    }
                    1
                }
            }
        } else {
            1
        };
        if let Some(cube) = self.cube.as_mut() {
            if !notes.is_empty() {
                cube.assumptions.insert(buffer.to_string(), notes);
            }
        }
        let size = (scalar_size * line_size).unsigned_abs();
        let name = if line {
            format!("Line<{scalar_text}>")
        } else {
            scalar_text
        };
        Layout {
            name,
            size,
            align: size,
            fields: Vec::new(),
            primitive: true,
            pointee: None,
        }
    }

    /// `len`, `buffer_len`, `shape(dim)`, `stride(dim)`, `rank` and `line_size` of a CubeCL
    /// buffer: the same for every unit of a launch, values of the launch when it gives them.
    pub(crate) fn cube_method(&mut self, call: &syn::ExprMethodCall) -> Option<Value> {
        self.cube.as_ref()?;
        let method = call.method.to_string();
        if !matches!(
            method.as_str(),
            "len" | "buffer_len" | "shape" | "stride" | "rank" | "line_size"
        ) {
            return None;
        }
        let Value::Pointer(buffer) = self.value(&call.receiver) else {
            return None;
        };
        let array = buffer.array;
        let name = match (method.as_str(), call.args.first()) {
            ("len" | "buffer_len", _) => return Some(Value::Int(Poly::atom(Atom::Len(array)))),
            ("shape" | "stride", Some(dim)) => {
                self.value(dim);
                format!("{array}.{method}({})", self.text(dim))
            }
            ("rank", _) => format!("{array}.rank()"),
            ("line_size", _) => line_size_key(&array),
            _ => return None,
        };
        // A line size the layout assumed is the same value here.
        let assumed = (method == "line_size" && self.body.assumed_line_sizes.contains(&array)).then_some(1);
        let known = self
            .cube
            .as_ref()
            .and_then(|c| c.values.get(&name))
            .copied()
            .or(assumed);
        Some(Value::Int(
            known.map_or_else(|| Poly::atom(Atom::Param(name)), Poly::constant),
        ))
    }

    /// CubeCL calls with a meaning for memory: `SharedMemory::<T>::new(n)` and
    /// `new_lined(n, line_size)` allocate shared memory; `T::cast_from(x)` keeps `x`.
    pub(crate) fn cube_call(&mut self, call: &syn::ExprCall, path: &syn::Path) -> Option<Value> {
        self.cube.as_ref()?;
        let name = last_segment(path);
        // Barriers: no value, no access.
        if matches!(
            name.as_str(),
            "sync_cube" | "sync_units" | "sync_plane" | "sync_storage"
        ) {
            return Some(Value::Unknown);
        }
        let owner = path.segments.iter().rev().nth(1)?;
        match (owner.ident.to_string().as_str(), name.as_str()) {
            ("SharedMemory", "new" | "new_lined" | "new_aligned") => {
                for arg in &call.args {
                    self.value(arg);
                }
                let elem = match &owner.arguments {
                    PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                        GenericArgument::Type(t) => Some(t.clone()),
                        _ => None,
                    }),
                    _ => None,
                };
                let line = (name == "new_lined")
                    .then(|| call.args.iter().nth(1))
                    .flatten()
                    .and_then(|e| self.int(e).as_constant());
                let layout = elem.map(|t| {
                    let mut layout = self.cube_element(SHARED_ARRAY, &t);
                    if let Some(n) = line.filter(|n| *n > 1) {
                        layout.size *= n.unsigned_abs();
                        layout.align = layout.size;
                        layout.name = format!("Line<{}>", layout.name);
                    }
                    layout
                });
                if let Some(cube) = self.cube.as_mut() {
                    cube.assumptions.remove(SHARED_ARRAY);
                }
                Some(Value::Pointer(Pointer {
                    array: SHARED_ARRAY.into(),
                    offset: Poly::default(),
                    elem: layout,
                    space: MemorySpace::Shared,
                    index: None,
                    len: None,
                    raw: false,
                }))
            }
            (_, "cast_from") if call.args.len() == 1 => Some(self.value(&call.args[0])),
            _ => None,
        }
    }

    /// `comptime!(expr)`: the expression, evaluated like any other; `terminate!()`: no value.
    pub(crate) fn cube_macro(&mut self, mac: &syn::Macro) -> Option<Value> {
        self.cube.as_ref()?;
        match last_segment(&mac.path).as_str() {
            "comptime" => {
                let args = mac
                    .parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
                    .ok()?;
                let mut value = Value::Unknown;
                for arg in &args {
                    value = self.value(arg);
                }
                Some(value)
            }
            "terminate" => Some(Value::Unknown),
            _ => None,
        }
    }

    /// What was assumed about a buffer's element, for each access to it.
    pub(crate) fn cube_assumptions(&self, array: &str) -> Vec<String> {
        self.cube
            .as_ref()
            .and_then(|c| c.assumptions.get(array))
            .cloned()
            .unwrap_or_default()
    }
}
