//! The parameters of rust-gpu compute shaders: builtins become thread geometry, storage buffers
//! global arrays, uniforms and push constants values the same for every thread, workgroup
//! arrays shared memory.

use super::{Interpreter, MemorySpace, Pointer, Value};
use crate::algebra::{Axis, Poly};
use crate::model::rust_gpu::{Builtin, ShaderParam};

impl Interpreter<'_> {
    /// The value a compute shader's parameter `name: ty` starts with, by its `#[spirv(..)]` role.
    pub(crate) fn shader_parameter(&mut self, role: ShaderParam, name: &str, ty: &syn::Type) -> Value {
        match role {
            ShaderParam::Builtin(builtin) => self.builtin(builtin),
            ShaderParam::StorageBuffer => self.buffer(name, ty, MemorySpace::Global),
            ShaderParam::Workgroup => self.buffer(name, ty, MemorySpace::Shared),
            // A uniform or push-constant block is read like a struct passed by value: each
            // field a parameter of the dispatch (a value the configuration may give).
            ShaderParam::Uniform => {
                let by_value = match ty {
                    syn::Type::Reference(r) => &*r.elem,
                    ty => ty,
                };
                let scope = self.scope();
                self.parameter_value(scope, name, by_value, 0)
            }
            ShaderParam::Opaque => Value::Unknown,
        }
    }

    fn builtin(&self, builtin: Builtin) -> Value {
        let g = self.geometry;
        let per_axis = |f: &dyn Fn(Axis) -> Poly| Value::Vector([Axis::X, Axis::Y, Axis::Z].map(f).to_vec());
        match builtin {
            Builtin::GlobalInvocationId => per_axis(&|a| g.global(a)),
            Builtin::LocalInvocationId => per_axis(&|a| g.thread(a)),
            Builtin::WorkgroupId => per_axis(&|a| g.block_idx(a)),
            Builtin::NumWorkgroups => per_axis(&|a| g.grid_dim(a)),
            Builtin::LocalInvocationIndex => Value::Int(g.rank()),
            Builtin::SubgroupLocalInvocationId => Value::Int(g.lane_id()),
            Builtin::SubgroupId => Value::Int(g.warp_id()),
            Builtin::NumSubgroups => Value::Int(g.warps()),
            Builtin::SubgroupSize => Value::Int(Poly::constant(32)),
        }
    }

    /// A buffer: `&[T]`, `&mut [T]` and `&mut [T; N]` are arrays of `T`, `&mut T` one `T`.
    fn buffer(&self, name: &str, ty: &syn::Type, space: MemorySpace) -> Value {
        let scope = self.scope();
        let elem = match ty {
            syn::Type::Reference(r) => match &*r.elem {
                syn::Type::Slice(s) => &*s.elem,
                syn::Type::Array(a) => &*a.elem,
                elem => elem,
            },
            _ => return Value::Unknown,
        };
        Value::Pointer(Pointer {
            array: name.to_string(),
            offset: Poly::default(),
            elem: scope.layout(elem),
            space,
            index: None,
            len: None,
            raw: false,
        })
    }
}
