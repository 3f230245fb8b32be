//! Finding kernels in a file and resolving the launch each runs under.

use crate::model::launch::{parse_hint, BlockSource, LaunchPlan, ResolvedLaunch, DEFAULT_BLOCK};
use crate::source::Unsupported;
use crate::source::{SourceFile, Span};
use syn::{Attribute, Item, ItemFn};

/// A kernel entry point.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// Function name.
    pub name: String,
    /// Span of the name.
    pub span: Span,
    /// The function itself.
    pub item: ItemFn,
    /// The launch its predictions assume.
    pub launch: ResolvedLaunch,
}

/// Finds the kernels of a file (also inside inline modules), in source order.
pub fn find_kernels(
    file: &SourceFile,
    syntax: &syn::File,
    plan: &LaunchPlan,
    unsupported: &mut Vec<Unsupported>,
) -> Vec<Kernel> {
    let mut found = Vec::new();
    collect(&syntax.items, &mut found);
    found
        .into_iter()
        .map(|item| {
            let name = item.sig.ident.to_string();
            let span = file.span_of(item.sig.ident.span());
            let spec = plan.find(&file.path, &name);
            let first_line = item
                .attrs
                .iter()
                .map(|a| file.span_of_node(a).line)
                .chain([file.span_of_node(&item.sig).line])
                .min()
                .unwrap_or(span.line);
            let hint = hint_above(file, first_line, unsupported);
            let (block, block_source) = match (spec.and_then(|s| s.block), hint) {
                (Some(block), _) => (block, BlockSource::Config),
                (None, Some(block)) => (block, BlockSource::Hint),
                (None, None) => (DEFAULT_BLOCK, BlockSource::Default),
            };
            let launch = ResolvedLaunch {
                block,
                grid: spec.and_then(|s| s.grid),
                block_source,
                params: spec.map(|s| s.params.clone()).unwrap_or_default(),
            };
            Kernel {
                name,
                span,
                item: item.clone(),
                launch,
            }
        })
        .collect()
}

fn collect<'a>(items: &'a [Item], out: &mut Vec<&'a ItemFn>) {
    for item in items {
        match item {
            Item::Fn(f) if is_kernel(f) => out.push(f),
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect(items, out);
                }
            }
            _ => {}
        }
    }
}

/// Whether a function is a kernel: `#[kernel]`, `#[cuda_std::kernel]`,
/// `#[cfg_attr(.., kernel)]` or `extern "ptx-kernel"`.
pub fn is_kernel(f: &ItemFn) -> bool {
    let ptx_abi = f
        .sig
        .abi
        .as_ref()
        .and_then(|abi| abi.name.as_ref())
        .is_some_and(|name| name.value() == "ptx-kernel");
    ptx_abi || f.attrs.iter().any(is_kernel_attr)
}

fn is_kernel_attr(attr: &Attribute) -> bool {
    let last = |path: &syn::Path| path.segments.last().is_some_and(|s| s.ident == "kernel");
    if last(attr.path()) {
        return true;
    }
    if !attr.path().is_ident("cfg_attr") {
        return false;
    }
    let Ok(list) = attr.meta.require_list() else {
        return false;
    };
    let Ok(metas) = list.parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
    else {
        return false;
    };
    metas.iter().skip(1).any(|m| last(m.path()))
}

/// Reads a `// kernel-lint: block(..)` hint from the comment and attribute lines directly above
/// a kernel.
fn hint_above(file: &SourceFile, first_line: usize, unsupported: &mut Vec<Unsupported>) -> Option<[u32; 3]> {
    let mut line = first_line.checked_sub(1)?;
    while line >= 1 {
        let text = file.line_text(line)?;
        let trimmed = text.trim_start();
        if !(trimmed.starts_with("//") || trimmed.starts_with("#[")) {
            return None;
        }
        match parse_hint(trimmed) {
            Some(Ok(block)) => return Some(block),
            Some(Err(message)) => {
                let start = file.offset(line, 0) + (text.len() - trimmed.len());
                let column = text.len() - trimmed.len() + 1;
                unsupported.push(Unsupported {
                    span: Span {
                        start,
                        end: start + trimmed.len(),
                        line,
                        column,
                    },
                    file: None,
                    message: format!("ignored malformed launch hint: {message}"),
                });
                return None;
            }
            None => line -= 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::launch::LaunchSpec;

    fn kernels(src: &str, plan: &LaunchPlan) -> (Vec<Kernel>, Vec<Unsupported>) {
        let file = SourceFile::new("k.rs", src);
        let syntax = syn::parse_file(src).unwrap();
        let mut unsupported = Vec::new();
        (find_kernels(&file, &syntax, plan, &mut unsupported), unsupported)
    }

    #[test]
    fn every_kernel_spelling_is_found() {
        let src = r#"
#[kernel]
pub unsafe fn a() {}
#[cuda_std::kernel]
pub unsafe fn b() {}
#[cfg_attr(target_os = "cuda", kernel)]
pub unsafe fn c() {}
#[no_mangle]
pub unsafe extern "ptx-kernel" fn d() {}
pub fn not_a_kernel() {}
mod inner { #[kernel] pub unsafe fn e() {} }
"#;
        let (found, _) = kernels(src, &LaunchPlan::default());
        let names: Vec<_> = found.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c", "d", "e"]);
        assert_eq!(found[0].span.line, 3);
        assert_eq!(found[0].launch.block_source, BlockSource::Default);
    }

    #[test]
    fn config_beats_hint_beats_default() {
        let src = "// kernel-lint: block(16, 16)\n#[kernel]\npub unsafe fn t() {}\n// kernel-lint: block(32)\n#[kernel]\npub unsafe fn u() {}\n";
        let plan = LaunchPlan {
            specs: vec![LaunchSpec {
                kernel: "u".into(),
                block: Some([64, 2, 1]),
                ..Default::default()
            }],
        };
        let (found, _) = kernels(src, &plan);
        assert_eq!(
            (found[0].launch.block, found[0].launch.block_source),
            ([16, 16, 1], BlockSource::Hint)
        );
        assert_eq!(
            (found[1].launch.block, found[1].launch.block_source),
            ([64, 2, 1], BlockSource::Config)
        );
    }

    #[test]
    fn malformed_hint_is_reported_and_ignored() {
        let src = "\n  // kernel-lint: block(16, x)\n#[kernel]\npub unsafe fn t() {}\n";
        let (found, unsupported) = kernels(src, &LaunchPlan::default());
        assert_eq!(found[0].launch.block_source, BlockSource::Default);
        assert_eq!(unsupported.len(), 1);
        assert_eq!((unsupported[0].span.line, unsupported[0].span.column), (2, 3));
        assert!(
            unsupported[0].message.contains("`x` is not a block extent"),
            "{}",
            unsupported[0].message
        );
    }
}
