//! rust-gpu compute shaders: `#[spirv(compute(threads(x, y, z)))]` entry points, the block
//! their attribute fixes, and what each `#[spirv(..)]` parameter is (a builtin, a buffer,
//! workgroup memory). Also written inside `#[cfg_attr(target_arch = "spirv", spirv(..))]`.

use crate::model::launch::{Dim3, MAX_BLOCK_THREADS};
use syn::punctuated::Punctuated;
use syn::{Attribute, ItemFn, Meta, Token};

/// A builtin input of a compute shader, bound to a parameter by `#[spirv(name)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    /// `global_invocation_id`: `workgroup_id * workgroup size + local_invocation_id`.
    GlobalInvocationId,
    /// `local_invocation_id`: the thread index in its workgroup.
    LocalInvocationId,
    /// `workgroup_id`: the block index.
    WorkgroupId,
    /// `num_workgroups`: the grid.
    NumWorkgroups,
    /// `local_invocation_index`: the thread's linear rank in its workgroup.
    LocalInvocationIndex,
    /// `subgroup_local_invocation_id`: the lane, with subgroups of 32 as on NVIDIA GPUs.
    SubgroupLocalInvocationId,
    /// `subgroup_id`: the warp of the thread in its workgroup.
    SubgroupId,
    /// `num_subgroups`: the warps of a workgroup.
    NumSubgroups,
    /// `subgroup_size`: 32 on NVIDIA GPUs.
    SubgroupSize,
}

/// What a parameter of a compute shader is, from its `#[spirv(..)]` attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShaderParam {
    /// A builtin input.
    Builtin(Builtin),
    /// `storage_buffer`: global memory (`&[T]`, `&mut [T]`, `&mut [T; N]`, `&mut T`).
    StorageBuffer,
    /// `uniform` or `push_constant`: values the same for every thread of a dispatch.
    Uniform,
    /// `workgroup`: shared memory of the workgroup.
    Workgroup,
    /// Anything else (images, samplers, builtins not modelled): no memory the analysis scores.
    Opaque,
}

/// The arguments of the `spirv` attribute among `attrs`, also inside `cfg_attr(.., spirv(..))`.
fn spirv_args(attrs: &[Attribute]) -> Option<Punctuated<Meta, Token![,]>> {
    spirv_attrs(attrs).into_iter().next().map(|(_, args)| args)
}

/// Every `spirv` attribute among `attrs`, in order, with its arguments and the `cfg_attr`
/// predicate it is written under (`None` when it is written plainly).
fn spirv_attrs(attrs: &[Attribute]) -> Vec<(Option<Meta>, Punctuated<Meta, Token![,]>)> {
    attrs
        .iter()
        .filter_map(|attr| {
            let list = attr.meta.require_list().ok()?;
            if is_spirv(attr.path()) {
                return Some((None, list.parse_args_with(Punctuated::parse_terminated).ok()?));
            }
            if !attr.path().is_ident("cfg_attr") {
                return None;
            }
            let metas = list
                .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .ok()?;
            let predicate = metas.first()?.clone();
            metas.iter().skip(1).find_map(|meta| {
                let inner = meta.require_list().ok().filter(|l| is_spirv(&l.path))?;
                Some((
                    Some(predicate.clone()),
                    inner.parse_args_with(Punctuated::parse_terminated).ok()?,
                ))
            })
        })
        .collect()
}

fn is_spirv(path: &syn::Path) -> bool {
    path.segments.last().is_some_and(|s| s.ident == "spirv")
}

/// The `compute(..)` argument of a function's `spirv` attribute, if it is a compute shader.
fn compute_meta(f: &ItemFn) -> Option<Meta> {
    spirv_args(&f.attrs)?
        .into_iter()
        .find(|meta| meta.path().is_ident("compute"))
}

/// Whether a function is a rust-gpu compute shader entry point.
pub fn is_compute_shader(f: &ItemFn) -> bool {
    compute_meta(f).is_some()
}

/// The workgroup size a compute shader's attribute declares: `threads(x)`, `threads(x, y)` or
/// `threads(x, y, z)`, the missing extents 1. `None` when `f` is no compute shader; `Some(Err)`
/// with the reason when its size cannot be read. Where several `cfg_attr`s declare one each,
/// the first; [`declared_sizes`] gives them all.
pub fn workgroup_size(f: &ItemFn) -> Option<Result<Dim3, String>> {
    let compute = compute_meta(f)?;
    Some(threads_of(&compute))
}

/// A workgroup size a compute shader's attribute declares, with the `cfg_attr` predicate it
/// is written under (`None`: in every build).
#[derive(Debug, Clone)]
pub struct DeclaredSize {
    pub predicate: Option<Meta>,
    pub size: Result<Dim3, String>,
}

/// Every workgroup size `f`'s attributes declare, in order: one per `spirv(compute(..))`,
/// plain or under a `cfg_attr` (a shader compiled as several crates, each with its features,
/// may declare one per build).
pub fn declared_sizes(f: &ItemFn) -> Vec<DeclaredSize> {
    spirv_attrs(&f.attrs)
        .into_iter()
        .filter_map(|(predicate, args)| {
            let compute = args.into_iter().find(|meta| meta.path().is_ident("compute"))?;
            Some(DeclaredSize {
                predicate,
                size: threads_of(&compute),
            })
        })
        .collect()
}

fn threads_of(compute: &Meta) -> Result<Dim3, String> {
    let missing = "`#[spirv(compute(..))]` has no `threads(..)`".to_string();
    let list = compute.require_list().map_err(|_| missing.clone())?;
    let args = list
        .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        .map_err(|e| format!("`compute({})` does not parse: {e}", list.tokens))?;
    let threads = args.iter().find(|m| m.path().is_ident("threads")).ok_or(missing)?;
    let threads = threads
        .require_list()
        .map_err(|_| "`threads` needs its extents: `threads(x, y, z)`".to_string())?;
    let extents = threads
        .parse_args_with(Punctuated::<syn::Expr, Token![,]>::parse_terminated)
        .map_err(|e| format!("`threads({})` does not parse: {e}", threads.tokens))?;
    if extents.is_empty() || extents.len() > 3 {
        return Err(format!("a workgroup has 1 to 3 extents, found {}", extents.len()));
    }
    let mut dims = [1u32; 3];
    for (slot, extent) in dims.iter_mut().zip(&extents) {
        let value = match extent {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(int),
                ..
            }) => int.base10_parse::<u32>().ok(),
            _ => None,
        };
        let text = quote::ToTokens::to_token_stream(extent).to_string();
        *slot = value
            .filter(|v| (1..=MAX_BLOCK_THREADS).contains(v))
            .ok_or_else(|| format!("`{text}` is not a workgroup extent (1 to {MAX_BLOCK_THREADS})"))?;
    }
    let threads: u64 = dims.iter().map(|&d| u64::from(d)).product();
    if threads > u64::from(MAX_BLOCK_THREADS) {
        return Err(format!(
            "a workgroup holds at most {MAX_BLOCK_THREADS} threads, found {threads}"
        ));
    }
    Ok(dims)
}

/// What a shader parameter is, from its attributes; `None` without a `spirv` attribute.
pub fn shader_param(attrs: &[Attribute]) -> Option<ShaderParam> {
    let args = spirv_args(attrs)?;
    let words: Vec<String> = args
        .iter()
        .filter_map(|m| match m {
            Meta::Path(p) => p.get_ident().map(ToString::to_string),
            _ => None,
        })
        .collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    if has("storage_buffer") {
        return Some(ShaderParam::StorageBuffer);
    }
    if has("uniform") || has("push_constant") {
        return Some(ShaderParam::Uniform);
    }
    if has("workgroup") {
        return Some(ShaderParam::Workgroup);
    }
    let builtin = words.iter().find_map(|w| {
        Some(match w.as_str() {
            "global_invocation_id" => Builtin::GlobalInvocationId,
            "local_invocation_id" => Builtin::LocalInvocationId,
            "workgroup_id" => Builtin::WorkgroupId,
            "num_workgroups" => Builtin::NumWorkgroups,
            "local_invocation_index" => Builtin::LocalInvocationIndex,
            "subgroup_local_invocation_id" => Builtin::SubgroupLocalInvocationId,
            "subgroup_id" => Builtin::SubgroupId,
            "num_subgroups" => Builtin::NumSubgroups,
            "subgroup_size" => Builtin::SubgroupSize,
            _ => return None,
        })
    });
    Some(builtin.map_or(ShaderParam::Opaque, ShaderParam::Builtin))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(src: &str) -> Option<Result<Dim3, String>> {
        let f: ItemFn = syn::parse_str(src).expect("parses");
        workgroup_size(&f)
    }

    #[test]
    fn the_attribute_gives_the_workgroup_size() {
        assert_eq!(size("#[spirv(compute(threads(64)))] fn k() {}"), Some(Ok([64, 1, 1])));
        assert_eq!(
            size("#[spirv(compute(threads(16, 16)))] fn k() {}"),
            Some(Ok([16, 16, 1]))
        );
        assert_eq!(
            size("#[spirv(compute(threads(1, 2u32, 3i128)))] fn k() {}"),
            Some(Ok([1, 2, 3]))
        );
        assert_eq!(
            size("#[cfg_attr(target_arch = \"spirv\", spirv(compute(threads(8, 8))))] fn k() {}"),
            Some(Ok([8, 8, 1]))
        );
        assert_eq!(
            size("#[spirv_std::spirv(compute(threads(32), entry_point_name = \"m\"))] fn k() {}"),
            Some(Ok([32, 1, 1]))
        );
        assert_eq!(size("#[spirv(fragment)] fn k() {}"), None);
        assert_eq!(size("#[kernel] fn k() {}"), None);
    }

    #[test]
    fn unreadable_sizes_say_why() {
        assert_eq!(
            size("#[spirv(compute(threads(N)))] fn k() {}"),
            Some(Err("`N` is not a workgroup extent (1 to 1024)".into()))
        );
        assert_eq!(
            size("#[spirv(compute(threads(64, 32)))] fn k() {}"),
            Some(Err("a workgroup holds at most 1024 threads, found 2048".into()))
        );
        assert_eq!(
            size("#[spirv(compute)] fn k() {}"),
            Some(Err("`#[spirv(compute(..))]` has no `threads(..)`".into()))
        );
    }

    #[test]
    fn parameters_by_their_attribute() {
        let f: ItemFn = syn::parse_str(
            "#[spirv(compute(threads(64)))]
             fn k(
                 #[spirv(global_invocation_id)] id: UVec3,
                 #[spirv(descriptor_set = 0, binding = 1, storage_buffer)] a: &[f32],
                 #[spirv(push_constant)] c: &Params,
                 #[spirv(uniform, descriptor_set = 0, binding = 0)] d: &Dims,
                 #[spirv(workgroup)] tile: &mut [f32; 64],
                 #[cfg_attr(target_arch = \"spirv\", spirv(local_invocation_index))] l: u32,
                 #[spirv(descriptor_set = 0, binding = 2)] image: &Image2d,
                 plain: u32,
             ) {}",
        )
        .expect("parses");
        let roles: Vec<Option<ShaderParam>> = f
            .sig
            .inputs
            .iter()
            .map(|input| match input {
                syn::FnArg::Typed(t) => shader_param(&t.attrs),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        use ShaderParam::*;
        assert_eq!(
            roles,
            [
                Some(Builtin(super::Builtin::GlobalInvocationId)),
                Some(StorageBuffer),
                Some(Uniform),
                Some(Uniform),
                Some(Workgroup),
                Some(Builtin(super::Builtin::LocalInvocationIndex)),
                Some(Opaque),
                None,
            ]
        );
    }
}
