//! rust-gpu compute shaders: builtin parameters become locals computed from `threadIdx` and
//! `blockIdx`, uniform and push-constant blocks structs passed by value, workgroup arrays
//! `__shared__` arrays; storage buffer slices are lowered as any slice (a pointer and a length).

use super::{Context, Lowered, Param, Scope};
use kernel_lint_analyzer::model::rust_gpu::{Builtin, ShaderParam};
use syn::Type;

/// What a shader parameter lowers to: the kernel parameter it stays (none for a builtin or a
/// workgroup array) and the declarations that open the body.
pub(super) struct ShaderLowering {
    pub(super) param: Option<(Param, String)>,
    pub(super) prologue: String,
}

/// `blockIdx.x * blockDim.x + threadIdx.x` and the like, per axis.
fn per_axis(f: impl Fn(&str) -> String) -> String {
    ["x", "y", "z"].map(f).join(", ")
}

/// The thread's linear rank in its block.
const RANK: &str = "(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y)";

impl Context<'_> {
    /// The lowering of a compute shader's parameter `name: ty` by its `#[spirv(..)]` role; `None`
    /// where it lowers as any kernel parameter (a storage buffer slice or reference).
    pub(super) fn shader_param(
        &self,
        role: ShaderParam,
        name: &str,
        ty: &Type,
        scope: &mut Scope,
    ) -> Lowered<Option<ShaderLowering>> {
        let referent = match ty {
            Type::Reference(r) => Some(&*r.elem),
            _ => None,
        };
        let prologue = |prologue: String| Ok(Some(ShaderLowering { param: None, prologue }));
        match role {
            ShaderParam::Builtin(builtin) => {
                let vector = |value: String| format!("kl::UVec3 {name} = {{{value}}};\n");
                let scalar = |value: &str| format!("unsigned int {name} = {value};\n");
                prologue(match builtin {
                    Builtin::GlobalInvocationId => {
                        vector(per_axis(|a| format!("blockIdx.{a} * blockDim.{a} + threadIdx.{a}")))
                    }
                    Builtin::LocalInvocationId => vector(per_axis(|a| format!("threadIdx.{a}"))),
                    Builtin::WorkgroupId => vector(per_axis(|a| format!("blockIdx.{a}"))),
                    Builtin::NumWorkgroups => vector(per_axis(|a| format!("gridDim.{a}"))),
                    Builtin::LocalInvocationIndex => scalar(RANK),
                    Builtin::SubgroupLocalInvocationId => scalar(&format!("{RANK} % 32u")),
                    Builtin::SubgroupId => scalar(&format!("{RANK} / 32u")),
                    Builtin::NumSubgroups => scalar("(blockDim.x * blockDim.y * blockDim.z + 31u) / 32u"),
                    Builtin::SubgroupSize => scalar("32u"),
                })
            }
            ShaderParam::StorageBuffer => match referent {
                Some(Type::Array(_)) => self.fail(ty, "a storage buffer of a fixed-size array is not lowered"),
                _ => Ok(None),
            },
            // Passed by value: the driver gives each field a value, as for a struct parameter.
            ShaderParam::Uniform => {
                let by_value = referent.unwrap_or(ty);
                let param = self.kernel_param(name, by_value, scope)?;
                let c_param = match &param {
                    Param::Scalar { c_type, .. } | Param::Struct { c_type, .. } => format!("{c_type} {name}"),
                    _ => return self.fail(ty, "a uniform block that is not a struct or a number is not lowered"),
                };
                Ok(Some(ShaderLowering {
                    param: Some((param, c_param)),
                    prologue: String::new(),
                }))
            }
            ShaderParam::Workgroup => match referent {
                Some(array @ Type::Array(_)) => prologue(format!("__shared__ {};\n", self.declarator(array, name)?)),
                _ => self.fail(
                    ty,
                    "a workgroup parameter that is not a reference to an array is not lowered",
                ),
            },
            ShaderParam::Opaque => self.fail(
                ty,
                format!("the shader parameter `{name}` (an image, a sampler or a builtin not modelled) is not lowered"),
            ),
        }
    }
}
