//! CubeCL: which functions are its kernels (`#[cube(launch)]`, `#[cube(launch_unchecked)]`),
//! which are its device helpers (`#[cube]`), and the names under which a launch's line sizes
//! and element types reach the analysis.

use std::collections::BTreeMap;
use syn::ItemFn;

/// What a CubeCL launch says beyond the block and grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CubeArgs {
    /// For each kernel argument, `Some` when it is a buffer (`ArrayArg`, `TensorArg`), with
    /// its line size when the launch gives one.
    pub line_sizes: Vec<Option<Option<i64>>>,
    /// The type arguments of the launch, as written (`f32`, `R`).
    pub types: Vec<String>,
}

/// The arguments of a launch that stand for the kernel's parameters: newer CubeCL versions
/// pass the vector size of every `Vector<F, N>` buffer first, which is returned apart.
pub fn kernel_arguments<'a, T>(sig: &syn::Signature, args: &'a [T]) -> (Option<&'a T>, &'a [T]) {
    match args.split_first() {
        Some((first, rest)) if rest.len() == sig.inputs.len() => (Some(first), rest),
        _ => (None, args),
    }
}

/// The values a CubeCL launch gives the analysis: the line size of each buffer parameter
/// ([`line_size_key`]) and the size of each generic element type the launch names as a
/// primitive ([`type_size_key`]).
pub fn launch_values(sig: &syn::Signature, args: &[Option<i64>], cube: &CubeArgs) -> BTreeMap<String, i64> {
    let mut values = BTreeMap::new();
    let (vector_size, _) = kernel_arguments(sig, args);
    let (_, line_sizes) = kernel_arguments(sig, &cube.line_sizes);
    let names = sig.inputs.iter().map(|input| match input {
        syn::FnArg::Typed(t) => match &*t.pat {
            syn::Pat::Ident(i) => Some(i.ident.to_string()),
            _ => None,
        },
        syn::FnArg::Receiver(_) => None,
    });
    for (name, line) in names.zip(line_sizes) {
        let (Some(name), Some(line)) = (name, line) else {
            continue;
        };
        if let Some(n) = line.or(vector_size.copied().flatten()) {
            values.insert(line_size_key(&name), n);
        }
    }
    let generics = sig.generics.type_params().map(|p| p.ident.to_string());
    for (generic, ty) in generics.zip(&cube.types) {
        if let Some(size) = primitive_size(ty) {
            values.insert(type_size_key(&generic), size);
        }
    }
    values
}

/// The words of a `#[cube(..)]` attribute of `f` (`["launch_unchecked"]`), if it has one.
fn cube_words(f: &ItemFn) -> Option<Vec<String>> {
    f.attrs.iter().find_map(|attr| {
        if attr.path().segments.last()?.ident != "cube" {
            return None;
        }
        Some(match &attr.meta {
            syn::Meta::List(list) => list
                .tokens
                .to_string()
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        })
    })
}

/// Whether `f` is a CubeCL entry point: `#[cube(launch)]` or `#[cube(launch_unchecked)]`.
pub fn is_launch_entry(f: &ItemFn) -> bool {
    cube_words(f).is_some_and(|words| words.iter().any(|w| w == "launch" || w == "launch_unchecked"))
}

/// Whether `f` is CubeCL device code: an entry point or a `#[cube]` helper.
pub fn is_cube_function(f: &ItemFn) -> bool {
    cube_words(f).is_some()
}

/// The launch value that holds the line size of buffer parameter `param`
/// (`ArrayArg::from_raw_parts::<F>(&h, len, 4)` gives `input.line_size = 4`).
pub fn line_size_key(param: &str) -> String {
    format!("{param}.line_size")
}

/// The launch value that holds the size in bytes of the kernel's generic element type `ty`
/// (`kernel::launch::<f32, R>` gives `size_of::<F> = 4`).
pub fn type_size_key(ty: &str) -> String {
    format!("size_of::<{ty}>")
}

/// The size in bytes of a primitive element type a launch names (`f32`, `half::f16`).
pub fn primitive_size(ty: &str) -> Option<i64> {
    let last = ty.rsplit("::").next()?.trim();
    Some(match last {
        "u8" | "i8" | "e4m3" | "e5m2" => 1,
        "u16" | "i16" | "f16" | "bf16" => 2,
        "u32" | "i32" | "f32" | "flex32" | "tf32" => 4,
        "u64" | "i64" | "f64" => 8,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_points_and_helpers() {
        let f = |src: &str| syn::parse_str::<ItemFn>(src).expect("fn");
        assert!(is_launch_entry(&f("#[cube(launch)] fn k() {}")));
        assert!(is_launch_entry(&f("#[cubecl::cube(launch_unchecked)] fn k() {}")));
        assert!(is_launch_entry(&f("#[cube(launch_unchecked, debug)] fn k() {}")));
        assert!(!is_launch_entry(&f("#[cube] fn helper() {}")));
        assert!(is_cube_function(&f("#[cube] fn helper() {}")));
        assert!(!is_cube_function(&f("#[kernel] fn k() {}")));
        assert_eq!(primitive_size("half::f16"), Some(2));
        assert_eq!(primitive_size("F"), None);
    }
}
