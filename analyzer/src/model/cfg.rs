//! `#[cfg(...)]` on items and statements, evaluated with what is known of the build: a crate's
//! enabled features when its manifest was read, `test` off (kernels are not test builds).
//! Anything else (target, `debug_assertions`, custom flags) stays open, and code under an open
//! predicate is kept, as it always was.

use std::collections::BTreeSet;
use syn::punctuated::Punctuated;
use syn::{Attribute, Meta, Token};

/// The device a kernel's code is compiled for, as `cfg(target_arch)` and `cfg(target_os)`
/// see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeviceTarget {
    pub arch: &'static str,
    pub os: &'static str,
}

/// CUDA kernels (`cuda_std`, cuda-oxide, `extern "ptx-kernel"`): `nvptx64-nvidia-cuda`.
pub const NVPTX: DeviceTarget = DeviceTarget {
    arch: "nvptx64",
    os: "cuda",
};

/// rust-gpu shaders: `spirv-unknown-*`.
pub const SPIRV: DeviceTarget = DeviceTarget {
    arch: "spirv",
    os: "unknown",
};

/// Whether every `#[cfg]` among `attrs` may hold; `features` is `None` when they are unknown.
pub fn active(attrs: &[Attribute], features: Option<&BTreeSet<String>>) -> bool {
    active_on(attrs, features, None)
}

/// Like [`active`], with `target_arch` and `target_os` decided by the device `target` when
/// it is known.
pub fn active_on(attrs: &[Attribute], features: Option<&BTreeSet<String>>, target: Option<DeviceTarget>) -> bool {
    attrs.iter().filter(|a| a.path().is_ident("cfg")).all(|a| {
        a.parse_args::<Meta>()
            .map_or(true, |m| eval_on(&m, features, target) != Some(false))
    })
}

/// A predicate's value: `None` when it depends on what is not known.
pub fn eval(meta: &Meta, features: Option<&BTreeSet<String>>) -> Option<bool> {
    eval_on(meta, features, None)
}

/// Like [`eval`], with `target_arch` and `target_os` decided by the device `target` when it is
/// known.
pub fn eval_on(meta: &Meta, features: Option<&BTreeSet<String>>, target: Option<DeviceTarget>) -> Option<bool> {
    eval_with(meta, &|leaf| match leaf {
        Meta::Path(p) if p.is_ident("test") => Some(false),
        Meta::NameValue(nv) if nv.path.is_ident("target_arch") || nv.path.is_ident("target_os") => {
            let target = target?;
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(value),
                ..
            }) = &nv.value
            else {
                return None;
            };
            let actual = if nv.path.is_ident("target_arch") {
                target.arch
            } else {
                target.os
            };
            Some(value.value() == actual)
        }
        Meta::NameValue(nv) if nv.path.is_ident("feature") => {
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(name),
                ..
            }) = &nv.value
            else {
                return None;
            };
            features.map(|f| f.contains(&name.value()))
        }
        _ => None,
    })
}

/// A predicate's value with `all`, `any` and `not` worked out, and each other predicate
/// valued by `leaf` (`None` when not known).
pub fn eval_with(meta: &Meta, leaf: &dyn Fn(&Meta) -> Option<bool>) -> Option<bool> {
    let Meta::List(list) = meta else {
        return leaf(meta);
    };
    let combinator = ["all", "any", "not"].into_iter().find(|c| list.path.is_ident(c));
    let Some(combinator) = combinator else {
        return leaf(meta);
    };
    let nested = list
        .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
        .ok()?;
    let values: Vec<Option<bool>> = nested.iter().map(|m| eval_with(m, leaf)).collect();
    match combinator {
        "all" if values.contains(&Some(false)) => Some(false),
        "all" => values.iter().all(|v| *v == Some(true)).then_some(true),
        "any" if values.contains(&Some(true)) => Some(true),
        "any" => values.iter().all(|v| *v == Some(false)).then_some(false),
        _ if values.len() == 1 => values[0].map(|v| !v),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(attr: &str, features: Option<&[&str]>) -> bool {
        let file: syn::File = syn::parse_str(&format!("{attr} fn f() {{}}")).unwrap();
        let syn::Item::Fn(f) = &file.items[0] else {
            unreachable!()
        };
        let set: Option<BTreeSet<String>> = features.map(|f| f.iter().map(|s| s.to_string()).collect());
        active(&f.attrs, set.as_ref())
    }

    #[test]
    fn features_decide_and_unknowns_keep() {
        let dim3 = Some(&["dim3", "f32"][..]);
        assert!(holds("#[cfg(feature = \"dim3\")]", dim3));
        assert!(!holds("#[cfg(feature = \"dim2\")]", dim3));
        assert!(holds("#[cfg(feature = \"dim2\")]", None));
        assert!(!holds("#[cfg(all(feature = \"dim2\", target_os = \"cuda\"))]", dim3));
        assert!(holds("#[cfg(any(feature = \"dim2\", target_os = \"cuda\"))]", dim3));
        assert!(holds("#[cfg(not(feature = \"std\"))]", dim3));
        assert!(!holds("#[cfg(test)]", None));
        assert!(holds("#[cfg(not(target_os = \"cuda\"))]", dim3));
    }
}
