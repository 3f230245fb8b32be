//! Array of structs to structure of arrays: one array per field, so that the lanes reading a
//! field of consecutive elements read consecutive values.
//!
//! A kernel that takes `p: *mut Particle` gets `p: ParticleSoa`, a struct of one pointer per
//! field (`(*p.add(i)).x` becomes `*p.x.add(i)`); one that takes `data: &[Pair]` gets one
//! slice per field it uses (`data[i].x` becomes `data_x[i]`). Any other use of the array (a
//! whole-element copy, a call that takes it, a reference kept) leaves the rewrite undone,
//! with the reason.

use crate::callers::Index;
use crate::draft::{Declined, Draft};
use crate::edits::Splice;
use crate::syntax;
use crate::workspace::Workspace;
use kernel_lint_analyzer::{AccessReport, KernelReport, SourceFile};
use kernel_lint_lints::Applicability;
use proc_macro2::Span;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, FnArg, Pat, Type};

pub(crate) use crate::syntax::Style;

/// One function whose array parameter the rewrite changes: the kernel, or a function the
/// array is passed to.
struct Site {
    /// Index of the function in the workspace's [`Index`].
    def: usize,
    /// The parameter's name.
    param: String,
    /// The bytes of the parameter (`p: *mut Particle`).
    arg: std::ops::Range<usize>,
    /// The parameter's pattern as written (`p`, `mut p`).
    pat: String,
    /// The element type as written (`Particle`, `types::Particle`).
    element_path: String,
    style: Style,
    uses: Uses,
}

/// How the rewritten struct is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// One array per field.
    Soa,
    /// One array per field the kernels use; the fields no kernel uses in an array of structs
    /// of their own, which the kernels are not given.
    HotCold,
}

/// The structure-of-arrays rewrite of the array an access reads a field of, in the kernel and
/// in every function the array is passed to.
pub fn draft(ws: &Workspace<'_>, path: &str, kernel: &KernelReport, access: &AccessReport) -> Result<Draft, Declined> {
    draft_with(ws, path, kernel, access, Layout::Soa).map(|d| d.expect("a structure of arrays always applies"))
}

/// The rewrite in the given layout; `Ok(None)` for [`Layout::HotCold`] when every field is
/// used by some kernel that takes the struct, or the array is passed as slices (which already
/// name the used fields only).
pub(crate) fn draft_with(
    ws: &Workspace<'_>,
    path: &str,
    kernel: &KernelReport,
    access: &AccessReport,
    layout: Layout,
) -> Result<Option<Draft>, Declined> {
    let field_of = access
        .field_of
        .as_ref()
        .ok_or_else(|| Declined::new("the access is not to a field of a struct"))?;
    let position = |path: &str| ws.files.iter().position(|(f, ..)| f.path == path);
    let kernel_file = position(path).ok_or_else(|| Declined::new(format!("the text of `{path}` was not read")))?;
    let access_path = access.file.as_deref().unwrap_or(path);
    let access_file =
        position(access_path).ok_or_else(|| Declined::new(format!("the text of `{access_path}` was not read")))?;
    let index = Index::build(ws, &field_of.type_name, [kernel_file, access_file]);
    let holder = index.enclosing(access_file, access.span.start).ok_or_else(|| {
        Declined::new(format!(
            "the function that makes the access in `{access_path}` was not found"
        ))
    })?;
    let kernel_def = index
        .fns
        .iter()
        .position(|f| f.file == kernel_file && f.name == kernel.name)
        .ok_or_else(|| Declined::new(format!("the kernel `{}` was not found in `{path}`", kernel.name)))?;
    // The analysis names an array reached through calls by the kernel's own expression
    // when it can: the component then starts at the kernel.
    let start = [holder, kernel_def]
        .into_iter()
        .find(|def| parameter(&index.fns[*def].sig, &access.array).is_ok());
    let Some(start) = start else {
        if let Some((base, _)) = access.array.split_once('.') {
            return Err(Declined::new(format!(
                "`{}` is a field of `{base}`, not an array parameter: the rewrite changes arrays passed as parameters only",
                access.array
            )));
        }
        return Err(parameter(&index.fns[holder].sig, &access.array).expect_err("no function takes it"));
    };
    let (_, style, element) = parameter(&index.fns[start].sig, &access.array)?;
    if element != field_of.type_name {
        return Err(Declined::new(format!(
            "`{}` is an array of `{element}`, not of `{}`",
            access.array, field_of.type_name
        )));
    }
    let fields = struct_fields(ws, &element)?;
    let mut sites = component(&index, start, &access.array, style, &element)?;
    // In the order of the files and the functions in them, whichever the finding started at.
    sites.sort_by_key(|s| (index.fns[s.def].file, index.fns[s.def].range.start));
    if !sites.iter().any(|s| s.def == kernel_def) {
        return Err(Declined::new(format!(
            "`{}` of `{}` is not an array parameter of the kernel passed down to it",
            access.array, index.fns[start].name
        )));
    }
    let mut used: Vec<String> = Vec::new();
    for site in &sites {
        for (name, ..) in &site.uses.fields {
            if !fields.iter().any(|(f, _)| f == name) {
                return Err(Declined::new(format!("`{element}` has no field `{name}`")));
            }
            if !used.contains(name) {
                used.push(name.clone());
            }
        }
    }
    if used.is_empty() {
        return Err(Declined::new(format!(
            "no field of `{}` is read in the kernel",
            access.array
        )));
    }
    // In declaration order, as the host will write them.
    used.sort_by_key(|f| fields.iter().position(|(g, _)| g == f));
    let cold: Vec<&(String, Type)> = match (layout, style) {
        (Layout::Soa, _) => Vec::new(),
        (Layout::HotCold, Style::Slice { .. }) => return Ok(None),
        (Layout::HotCold, Style::Pointer { .. }) => {
            if !only_named_by(&index, &element, &sites) {
                return Ok(None);
            }
            let cold: Vec<&(String, Type)> = fields.iter().filter(|(f, _)| !used.contains(f)).collect();
            if cold.is_empty() {
                return Ok(None);
            }
            cold
        }
    };
    let kernels: Vec<String> = sites
        .iter()
        .filter(|s| index.fns[s.def].kernel)
        .map(|s| format!("`{}`", index.fns[s.def].name))
        .collect();
    let launches = if kernels.len() > 1 {
        format!(" (launches of {})", kernels.join(", "))
    } else {
        String::new()
    };
    let mut splices: Vec<(String, Splice)> = Vec::new();
    let mut follow_up = Vec::new();
    let mut cold_name = String::new();
    let soa_name = match style {
        Style::Pointer { .. } => {
            let mutable = sites.iter().any(|s| s.style == Style::Pointer { mutable: true });
            let (def_file, def_item) = struct_site(ws, &element)?;
            let mut files: Vec<usize> = sites.iter().map(|s| index.fns[s.def].file).collect();
            files.push(index.file_of(&def_file.path).unwrap_or(kernel_file));
            let suffix = if layout == Layout::Soa { "Soa" } else { "Hot" };
            let name = free_name_in(&index, &files, &format!("{element}{suffix}"));
            let ident = format_ident!("{}", name);
            let stored: Vec<&(String, Type)> = fields
                .iter()
                .filter(|(f, _)| layout == Layout::Soa || used.contains(f))
                .collect();
            let members = stored.iter().map(|(f, ty)| {
                let f = format_ident!("{}", f);
                if mutable {
                    quote!(pub #f: *mut #ty)
                } else {
                    quote!(pub #f: *const #ty)
                }
            });
            let doc = match layout {
                Layout::Soa => format!(" `{element}` stored as a structure of arrays: one array per field."),
                Layout::HotCold => format!(
                    " The fields of `{element}` the kernels use, one array per field; the others are in `{element}Cold`."
                ),
            };
            let item: syn::Item = syn::parse_quote! {
                #[doc = #doc]
                #[repr(C)]
                #[derive(Clone, Copy)]
                pub struct #ident { #(#members,)* }
            };
            let mut text = syntax::format_item(item);
            cold_name = free_name_in(&index, &files, &format!("{element}Cold"));
            if layout == Layout::HotCold {
                let cold_ident = format_ident!("{}", cold_name);
                let members = cold.iter().map(|(f, ty)| {
                    let f = format_ident!("{}", f);
                    quote!(pub #f: #ty)
                });
                let doc =
                    format!(" The fields of `{element}` no kernel uses, kept by the host as an array of structs.");
                let item: syn::Item = syn::parse_quote! {
                    #[doc = #doc]
                    #[repr(C)]
                    #[derive(Clone, Copy)]
                    pub struct #cold_ident { #(#members,)* }
                };
                text = format!("{text}\n\n{}", syntax::format_item(item));
            }
            if def_file.path == path {
                // Beside the kernel that takes it, when the struct is the kernel file's own.
                let kernel_syntax = crate::parses::parse_text(&def_file.text)
                    .map_err(|e| Declined::new(format!("`{path}` does not parse: {e}")))?;
                let function = syntax::kernel_fn(&kernel_syntax, &kernel.name)
                    .ok_or_else(|| Declined::new(format!("the kernel `{}` was not found in `{path}`", kernel.name)))?;
                let at = item_start(&def_file.text, def_file, function);
                splices.push((
                    path.to_string(),
                    Splice {
                        range: at..at,
                        text: format!("{text}\n\n"),
                    },
                ));
            } else {
                // Beside the struct, in its module.
                splices.push((
                    def_file.path.clone(),
                    Splice {
                        range: def_item.end..def_item.end,
                        text: format!("\n\n{text}"),
                    },
                ));
            }
            for site in &sites {
                let def = &index.fns[site.def];
                let file = index.sources[def.file];
                let soa_path = match site.element_path.rsplit_once("::") {
                    Some((module, _)) => format!("{module}::{name}"),
                    None => name.clone(),
                };
                splices.push((
                    file.path.clone(),
                    Splice {
                        range: site.arg.clone(),
                        text: format!("{}: {soa_path}", site.pat),
                    },
                ));
            }
            // Files that name the struct by a `use` of it import the new one beside it.
            let mut imported: Vec<usize> = Vec::new();
            for site in &sites {
                let file = index.fns[site.def].file;
                if site.element_path.contains("::")
                    || index.sources[file].path == def_file.path
                    || imported.contains(&file)
                {
                    continue;
                }
                imported.push(file);
                if let Some(splice) = import_beside(index.sources[file], &element, &name) {
                    splices.push((index.sources[file].path.clone(), splice));
                }
            }
            let list = |fields: &[&(String, Type)]| {
                fields
                    .iter()
                    .map(|(f, _)| format!("`{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            follow_up.push(match layout {
                Layout::Soa => format!(
                    "the host must allocate one buffer per field of `{element}` ({}) and pass a `{name}` of their pointers in place of the `{element}` buffer{launches}",
                    list(&stored)
                ),
                Layout::HotCold => format!(
                    "the host must allocate one buffer per field the kernels use ({}) and pass a `{name}` of their pointers in place of the `{element}` buffer{launches}, and keep the fields no kernel uses ({}) in an array of `{cold_name}`",
                    list(&stored),
                    list(&cold)
                ),
            });
            Some(name)
        }
        Style::Slice { .. } => {
            for site in &sites {
                let file = index.sources[index.fns[site.def].file];
                let reference = if site.style == (Style::Slice { mutable: true }) {
                    "&mut "
                } else {
                    "&"
                };
                let params: Vec<String> = used
                    .iter()
                    .map(|f| {
                        let ty = &fields.iter().find(|(g, _)| g == f).expect("checked above").1;
                        format!(
                            "{}_{f}: {reference}[{}]",
                            site.param,
                            quote!(#ty).to_string().replace(' ', "")
                        )
                    })
                    .collect();
                splices.push((
                    file.path.clone(),
                    Splice {
                        range: site.arg.clone(),
                        text: params.join(", "),
                    },
                ));
                for (.., at) in &site.uses.calls {
                    let args: Vec<String> = used.iter().map(|f| format!("{}_{f}", site.param)).collect();
                    splices.push((
                        file.path.clone(),
                        Splice {
                            range: at.clone(),
                            text: args.join(", "),
                        },
                    ));
                }
            }
            let array = &sites
                .iter()
                .find(|s| s.def == kernel_def)
                .expect("the kernel is a site")
                .param;
            follow_up.push(format!(
                "the host must pass one slice per field ({}) in place of the slice of `{element}`{launches}",
                used.iter()
                    .map(|f| format!("`{array}_{f}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            None
        }
    };
    let first_field = used.first().cloned().unwrap_or_default();
    for site in &sites {
        let file = index.sources[index.fns[site.def].file];
        for (field, at, form) in &site.uses.fields {
            splices.push((
                file.path.clone(),
                Splice {
                    range: at.clone(),
                    text: form.rewrite(&site.param, field, file),
                },
            ));
        }
        for at in &site.uses.lengths {
            // `data.len()` is the length of every field's slice.
            splices.push((
                file.path.clone(),
                Splice {
                    range: at.clone(),
                    text: format!("{}_{first_field}", site.param),
                },
            ));
        }
    }
    // Grouped by file (in the order the files first appear), each in text order: one diff
    // per file.
    let mut order: Vec<String> = Vec::new();
    for (file, _) in &splices {
        if !order.contains(file) {
            order.push(file.clone());
        }
    }
    splices.sort_by_key(|(file, s)| (order.iter().position(|f| f == file), s.range.start, s.range.end));
    let target = splices
        .iter()
        .position(|(file, s)| {
            file == access_path
                && s.range.start <= access.span.start
                && access.span.start < s.range.end.max(s.range.start + 1)
        })
        .ok_or_else(|| Declined::new("the access is not among the ones the rewrite changes"))?;
    let array = &sites
        .iter()
        .find(|s| s.def == kernel_def)
        .expect("the kernel is a site")
        .param;
    let helpers: Vec<String> = sites
        .iter()
        .filter(|s| !index.fns[s.def].kernel)
        .map(|s| format!("`{}`", index.fns[s.def].name))
        .collect();
    let through = if helpers.is_empty() {
        String::new()
    } else {
        format!(", and in {}", helpers.join(", "))
    };
    let title = match &soa_name {
        Some(name) if layout == Layout::HotCold => format!(
            "split `{element}` into the fields the kernels use (`{name}`, one pointer per field) and the others (`{cold_name}`, an array of structs){through}"
        ),
        Some(name) => format!("store `{element}` as a structure of arrays (`{name}`, one pointer per field){through}"),
        None => format!("pass `{array}` as one slice per field of `{element}`{through}"),
    };
    Ok(Some(Draft {
        title,
        applicability: Applicability::Unsafe,
        splices,
        target,
        follow_up,
    }))
}

/// Whether `element` is named only by the functions of `sites` and by its own definition: no
/// other function takes or returns it and no struct holds it (a grid of device pointers whose
/// methods reach other fields). Only then are the fields the sites leave unused unused by all.
fn only_named_by(index: &Index<'_>, element: &str, sites: &[Site]) -> bool {
    let names = |tokens: String| {
        tokens
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == element)
    };
    let in_signatures = index.fns.iter().enumerate().any(|(i, f)| {
        let sig = &f.sig;
        !sites.iter().any(|s| s.def == i)
            && index.sources[f.file].text.contains(element)
            && names(quote!(#sig).to_string())
    });
    if in_signatures {
        return false;
    }
    struct Holders<'e> {
        element: &'e str,
        found: bool,
    }
    impl<'a> Visit<'a> for Holders<'_> {
        fn visit_item_struct(&mut self, s: &'a syn::ItemStruct) {
            let fields = &s.fields;
            let tokens = quote!(#fields).to_string();
            if tokens
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|w| w == self.element)
            {
                self.found = true;
            }
        }
    }
    index.sources.iter().all(|source| {
        if !source.text.contains(element) {
            return true;
        }
        let Some(file) = crate::parses::parsed(source) else {
            return false;
        };
        let mut holders = Holders { element, found: false };
        holders.visit_file(&file);
        !holders.found
    })
}

/// The functions the array reaches from `start`'s parameter `param`: those it is passed to, and
/// those that pass theirs to one of them, each with its uses of it. Declines when a caller
/// passes something other than an array parameter of its own, or a callee is not found once.
fn component(index: &Index<'_>, start: usize, param: &str, style: Style, element: &str) -> Result<Vec<Site>, Declined> {
    let mut sites: Vec<Site> = Vec::new();
    let mut queue: Vec<(usize, String)> = vec![(start, param.to_string())];
    while let Some((def_index, name)) = queue.pop() {
        if sites.iter().any(|s| s.def == def_index) {
            if sites.iter().any(|s| s.def == def_index && s.param == name) {
                continue;
            }
            return Err(Declined::new(format!(
                "`{}` is given two arrays of `{element}`: the rewrite changes one array per function",
                index.fns[def_index].name
            )));
        }
        let def = &index.fns[def_index];
        let file = index.sources[def.file];
        let (arg, site_style, site_element) = parameter(&def.sig, &name)?;
        if site_element != element || std::mem::discriminant(&site_style) != std::mem::discriminant(&style) {
            return Err(Declined::new(format!(
                "`{}` takes `{name}` as `{}`, not as the kernel's array of `{element}`",
                def.name,
                snippet(file, arg.ty.span())
            )));
        }
        let element_path = match &*arg.ty {
            Type::Ptr(p) => quote!(#p).to_string(),
            Type::Reference(r) => quote!(#r).to_string(),
            _ => String::new(),
        };
        let element_path = written_element(file, arg).unwrap_or(element_path);
        let uses = uses(file, &def.block, &name, site_style);
        // Before following calls: a name shadowed by a local is no longer the array.
        if let Some(other) = uses.other.first() {
            return Err(Declined::new(format!(
                "`{name}` is also used in `{}`, which the rewrite does not follow: a structure of arrays has no whole `{element}` to give it",
                snippet(file, other.1)
            )));
        }
        // Down: the functions it passes the array to.
        for (callee, method, position, _) in &uses.calls {
            let candidates: Vec<usize> = index
                .fns
                .iter()
                .enumerate()
                .filter(|(_, f)| &f.name == callee && (!method || f.has_receiver()))
                .map(|(i, _)| i)
                .collect();
            let [callee_def] = candidates.as_slice() else {
                return Err(Declined::new(if candidates.is_empty() {
                    format!("`{name}` is passed to `{callee}`, whose definition was not found")
                } else {
                    format!(
                        "`{callee}` is defined {} times in the workspace: the rewrite cannot tell which one `{name}` is passed to",
                        candidates.len()
                    )
                }));
            };
            let at = position + usize::from(*method);
            let Some(syn::FnArg::Typed(target)) = index.fns[*callee_def].sig.inputs.iter().nth(at) else {
                return Err(Declined::new(format!("`{callee}` has no parameter for `{name}`")));
            };
            let Pat::Ident(target_name) = &*target.pat else {
                return Err(Declined::new(format!(
                    "`{callee}` takes `{name}` by a pattern, not by a name"
                )));
            };
            queue.push((*callee_def, target_name.ident.to_string()));
        }
        // Up: every call of a function other than a kernel must come from a function that
        // gives it its own array parameter.
        if !def.kernel {
            let position = def
                .sig
                .inputs
                .iter()
                .position(|i| matches!(i, FnArg::Typed(t) if matches!(&*t.pat, Pat::Ident(p) if p.ident == name)))
                .expect("the parameter was found above");
            let arity = def.sig.inputs.len();
            for call in index.calls.iter().filter(|c| c.callee == def.name) {
                let offset = usize::from(call.method && def.has_receiver());
                if call.args.len() + offset != arity || (call.method && !def.has_receiver()) {
                    continue;
                }
                let Some((_, given)) = call.args.get(position - offset) else {
                    continue;
                };
                let caller = index.enclosing(call.file, call.range.start);
                let caller_name = caller.map_or_else(
                    || "outside any function".to_string(),
                    |c| format!("`{}`", index.fns[c].name),
                );
                let passed = caller
                    .zip(given.clone())
                    .filter(|(c, given)| parameter(&index.fns[*c].sig, given).is_ok_and(|(_, _, e)| e == element));
                match passed {
                    Some((c, given)) => queue.push((c, given)),
                    None => {
                        return Err(Declined::new(format!(
                            "`{}` is also called from {caller_name}, which keeps `{element}`",
                            def.name
                        )))
                    }
                }
            }
        }
        sites.push(Site {
            def: def_index,
            param: name.clone(),
            arg: range(file, arg.span()),
            pat: snippet(file, arg.pat.span()),
            element_path,
            style: site_style,
            uses,
        });
    }
    Ok(sites)
}

/// The element type as the parameter writes it (`types::Particle` of `*mut types::Particle`).
fn written_element(file: &SourceFile, arg: &syn::PatType) -> Option<String> {
    let element = match &*arg.ty {
        Type::Ptr(p) => &*p.elem,
        Type::Reference(r) => match &*r.elem {
            Type::Slice(s) => &*s.elem,
            _ => return None,
        },
        _ => return None,
    };
    Some(snippet(file, element.span()))
}

/// The splice that imports `new` beside the `use` of `name` in a file, when there is one.
fn import_beside(file: &SourceFile, name: &str, new: &str) -> Option<Splice> {
    fn find(tree: &syn::UseTree, name: &str, grouped: bool) -> Option<(proc_macro2::Span, bool)> {
        match tree {
            syn::UseTree::Path(p) => find(&p.tree, name, false),
            syn::UseTree::Name(n) if n.ident == name => Some((n.ident.span(), grouped)),
            syn::UseTree::Group(g) => g.items.iter().find_map(|t| find(t, name, true)),
            _ => None,
        }
    }
    let syntax = crate::parses::parsed(file)?;
    syntax.items.iter().find_map(|item| {
        let syn::Item::Use(u) = item else { return None };
        let (span, grouped) = find(&u.tree, name, false)?;
        let at = range(file, span);
        let text = if grouped {
            format!("{name}, {new}")
        } else {
            format!("{{{name}, {new}}}")
        };
        Some(Splice { range: at, text })
    })
}

/// A name declared in none of `files`: `base`, else `base2`, `base3`...
fn free_name_in(index: &Index<'_>, files: &[usize], base: &str) -> String {
    let parsed: Vec<std::rc::Rc<syn::File>> = files
        .iter()
        .filter_map(|f| crate::parses::parsed(index.sources[*f]))
        .collect();
    let free = |name: &str| parsed.iter().all(|f| !syntax::declares(f, name));
    if free(base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}{n}"))
        .find(|name| free(name))
        .expect("some suffix is free")
}

/// The file that defines the struct `name` and the bytes of its item.
fn struct_site<'w>(ws: &'w Workspace<'_>, name: &str) -> Result<(&'w SourceFile, std::ops::Range<usize>), Declined> {
    for (source, ..) in &ws.files {
        if !source.text.contains(name) {
            continue;
        }
        let Some(file) = crate::parses::parsed(source) else {
            continue;
        };
        if let Some(item) = syntax::struct_item(&file, name) {
            return Ok((source, range(source, item.span())));
        }
    }
    Err(Declined::new(format!("the definition of `{name}` was not found")))
}

/// The kernel parameter named `array`, how it is taken and the name of its element type.
pub(crate) fn parameter<'f>(
    sig: &'f syn::Signature,
    array: &str,
) -> Result<(&'f syn::PatType, Style, String), Declined> {
    let found = syntax::array_parameter(sig, array)
        .ok_or_else(|| Declined::new(format!("`{array}` is not a parameter of `{}`", sig.ident)))?;
    let (arg, style, element) = found?;
    // A rust-gpu buffer is a descriptor binding: new buffers need bindings the host creates.
    if arg
        .attrs
        .iter()
        .any(|a| a.path().segments.last().is_some_and(|s| s.ident == "spirv"))
    {
        return Err(Declined::new(format!(
            "`{array}` is a descriptor binding (`#[spirv(..)]`): one buffer per field needs new bindings that the host's pipeline layout must create too"
        )));
    }
    let element = syntax::type_name(element)
        .ok_or_else(|| Declined::new(format!("the element type of `{array}` is not a named struct")))?;
    Ok((arg, style, element))
}

/// The named fields of the struct `name`, found in the files of the workspace.
pub(crate) fn struct_fields(ws: &Workspace<'_>, name: &str) -> Result<Vec<(String, Type)>, Declined> {
    type Fields = Result<Vec<(String, Type)>, Declined>;
    thread_local! {
        /// The fields found, by workspace and struct: every finding on a struct asks.
        static FOUND: std::cell::RefCell<(u64, std::collections::HashMap<String, Fields>)> =
            std::cell::RefCell::new((u64::MAX, Default::default()));
    }
    let kept = FOUND.with(|found| {
        let found = found.borrow();
        (found.0 == ws.id).then(|| found.1.get(name).cloned()).flatten()
    });
    if let Some(kept) = kept {
        return kept;
    }
    let fields = find_struct_fields(ws, name);
    FOUND.with(|found| {
        let mut found = found.borrow_mut();
        if found.0 != ws.id {
            *found = (ws.id, Default::default());
        }
        found.1.insert(name.to_string(), fields.clone());
    });
    fields
}

fn find_struct_fields(ws: &Workspace<'_>, name: &str) -> Result<Vec<(String, Type)>, Declined> {
    let mut found = Vec::new();
    for (source, ..) in &ws.files {
        if !source.text.contains(name) {
            continue;
        }
        let Some(file) = crate::parses::parsed(source) else {
            continue;
        };
        if let Some(item) = syntax::struct_item(&file, name) {
            found.push(item.clone());
        }
    }
    let [item] = found.as_slice() else {
        return Err(Declined::new(if found.is_empty() {
            format!("the definition of `{name}` was not found")
        } else {
            format!("`{name}` is defined {} times in the workspace", found.len())
        }));
    };
    if !item.generics.params.is_empty() {
        return Err(Declined::new(format!("`{name}` is generic")));
    }
    match &item.fields {
        syn::Fields::Named(named) => Ok(named
            .named
            .iter()
            .filter_map(|f| Some((f.ident.as_ref()?.to_string(), f.ty.clone())))
            .collect()),
        _ => Err(Declined::new(format!("`{name}` has no named fields"))),
    }
}

/// How an access to a field is written.
#[derive(Debug, Clone)]
pub(crate) enum Form {
    /// `(*p.add(i)).x`: the method (`add`, `offset`, `wrapping_add`), the index range, and
    /// whether it must stay parenthesized (a method is called on it, or a field read).
    Pointer {
        method: String,
        index: std::ops::Range<usize>,
        parens: bool,
    },
    /// `p[i].x`: the index range.
    Slice { index: std::ops::Range<usize> },
}

impl Form {
    fn rewrite(&self, array: &str, field: &str, file: &SourceFile) -> String {
        let text = |r: &std::ops::Range<usize>| file.text.get(r.clone()).unwrap_or("").to_string();
        match self {
            Form::Pointer { method, index, parens } => {
                let expr = format!("*{array}.{field}.{method}({})", text(index));
                if *parens {
                    format!("({expr})")
                } else {
                    expr
                }
            }
            Form::Slice { index } => format!("{array}_{field}[{}]", text(index)),
        }
    }
}

/// The uses of the array in the kernel body.
#[derive(Default)]
pub(crate) struct Uses {
    /// Field accesses: field, the range of the whole expression, its form.
    pub(crate) fields: Vec<(String, std::ops::Range<usize>, Form)>,
    /// `array.len()`: the range of the receiver `array`.
    pub(crate) lengths: Vec<std::ops::Range<usize>>,
    /// Calls that pass the array itself: the callee, whether it is a method call, the
    /// argument's position (receiver excluded) and its range.
    pub(crate) calls: Vec<(String, bool, usize, std::ops::Range<usize>)>,
    /// Any other mention of the array, with the statement it is in.
    pub(crate) other: Vec<(Span, Span)>,
}

pub(crate) fn uses(file: &SourceFile, body: &syn::Block, array: &str, style: Style) -> Uses {
    struct Walk<'n> {
        file: &'n SourceFile,
        array: &'n str,
        style: Style,
        uses: Uses,
        /// Ranges of the array's path expressions that a recognized form consumed.
        consumed: Vec<std::ops::Range<usize>>,
        mentions: Vec<(Span, Span)>,
        /// The statements being walked, innermost last.
        statements: Vec<Span>,
        /// Field expressions that are receivers of a method call or bases of a field read.
        postfix_bases: Vec<std::ops::Range<usize>>,
    }
    impl Walk<'_> {
        fn is_array(&self, expr: &Expr) -> bool {
            matches!(expr, Expr::Path(p) if p.path.is_ident(self.array))
        }
        fn byte_range(&self, span: Span) -> std::ops::Range<usize> {
            range(self.file, span)
        }
        /// `(*p.add(i)).x` or `p[i].x`, recognized from the field expression.
        fn field_form(&self, f: &syn::ExprField) -> Option<(String, Form, std::ops::Range<usize>)> {
            let syn::Member::Named(field) = &f.member else {
                return None;
            };
            match (self.style, &*f.base) {
                (Style::Pointer { .. }, Expr::Paren(paren)) => {
                    let Expr::Unary(u) = &*paren.expr else { return None };
                    if !matches!(u.op, syn::UnOp::Deref(_)) {
                        return None;
                    }
                    let Expr::MethodCall(m) = &*u.expr else { return None };
                    let method = m.method.to_string();
                    if !matches!(method.as_str(), "add" | "offset" | "wrapping_add" | "wrapping_offset")
                        || !self.is_array(&m.receiver)
                        || m.args.len() != 1
                    {
                        return None;
                    }
                    let index = self.byte_range(m.args[0].span());
                    Some((
                        field.to_string(),
                        Form::Pointer {
                            method,
                            index,
                            parens: false,
                        },
                        self.byte_range(m.receiver.span()),
                    ))
                }
                (Style::Slice { .. }, Expr::Index(i)) if self.is_array(&i.expr) => Some((
                    field.to_string(),
                    Form::Slice {
                        index: self.byte_range(i.index.span()),
                    },
                    self.byte_range(i.expr.span()),
                )),
                _ => None,
            }
        }
    }
    impl<'a> Visit<'a> for Walk<'_> {
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let Expr::Path(p) = &*c.func {
                if let Some(last) = p.path.segments.last() {
                    for (position, arg) in c.args.iter().enumerate() {
                        if self.is_array(arg) {
                            let at = self.byte_range(arg.span());
                            self.uses
                                .calls
                                .push((last.ident.to_string(), false, position, at.clone()));
                            self.consumed.push(at);
                        }
                    }
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            for (position, arg) in m.args.iter().enumerate() {
                if self.is_array(arg) {
                    let at = self.byte_range(arg.span());
                    self.uses.calls.push((m.method.to_string(), true, position, at.clone()));
                    self.consumed.push(at);
                }
            }
            if matches!(&*m.receiver, Expr::Field(_)) {
                self.postfix_bases.push(self.byte_range(m.receiver.span()));
            }
            if m.method == "len" && m.args.is_empty() && self.is_array(&m.receiver) {
                if let Style::Slice { .. } = self.style {
                    let at = self.byte_range(m.receiver.span());
                    self.uses.lengths.push(at.clone());
                    self.consumed.push(at);
                }
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_expr_field(&mut self, f: &'a syn::ExprField) {
            if matches!(&*f.base, Expr::Field(_)) {
                self.postfix_bases.push(self.byte_range(f.base.span()));
            }
            if let Some((field, form, receiver)) = self.field_form(f) {
                self.uses.fields.push((field, self.byte_range(f.span()), form));
                self.consumed.push(receiver);
            }
            syn::visit::visit_expr_field(self, f);
        }
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if p.path.is_ident(self.array) {
                let statement = self.statements.last().copied().unwrap_or_else(|| p.span());
                self.mentions.push((p.span(), statement));
            }
        }
        fn visit_stmt(&mut self, s: &'a syn::Stmt) {
            self.statements.push(s.span());
            syn::visit::visit_stmt(self, s);
            self.statements.pop();
        }
    }
    let mut walk = Walk {
        file,
        array,
        style,
        uses: Uses::default(),
        consumed: Vec::new(),
        mentions: Vec::new(),
        statements: Vec::new(),
        postfix_bases: Vec::new(),
    };
    walk.visit_block(body);
    // A field expression is visited before its receiver's parents are known: settle the
    // parentheses now that every postfix base is.
    for (_, range, form) in &mut walk.uses.fields {
        if let Form::Pointer { parens, .. } = form {
            *parens = walk.postfix_bases.contains(range);
        }
    }
    let (consumed, file) = (&walk.consumed, walk.file);
    walk.uses.other = walk
        .mentions
        .into_iter()
        .filter(|(s, _)| !consumed.contains(&range(file, *s)))
        .collect();
    walk.uses
}

/// The byte range of a span in the file.
pub(crate) fn range(file: &SourceFile, span: Span) -> std::ops::Range<usize> {
    let s = file.span_of(span);
    s.start..s.end
}

/// The first line of the text of a byte range.
pub(crate) fn snippet_range(file: &SourceFile, at: &std::ops::Range<usize>) -> String {
    file.text
        .get(at.clone())
        .unwrap_or("")
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

pub(crate) fn snippet(file: &SourceFile, span: Span) -> String {
    let s = file.span_of(span);
    let text = file.snippet(s);
    let line = text.lines().next().unwrap_or("");
    line.to_string()
}

/// A name not declared in the file: `base`, else `base2`, `base3`...
pub(crate) fn free_name(file: &syn::File, base: &str) -> String {
    if !syntax::declares(file, base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}{n}"))
        .find(|name| !syntax::declares(file, name))
        .expect("some suffix is free")
}

/// Where to insert an item before the kernel: above its attributes and the comment lines
/// directly above them (a launch hint stays with its kernel).
fn item_start(text: &str, file: &SourceFile, function: &syn::ItemFn) -> usize {
    let first = function
        .attrs
        .first()
        .map(|a| a.span())
        .unwrap_or_else(|| function.sig.span());
    let mut start = file.span_of(first).start;
    // Back to the start of the line.
    start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    while let Some(prev_end) = start.checked_sub(1) {
        let prev_start = text[..prev_end].rfind('\n').map_or(0, |i| i + 1);
        if text[prev_start..prev_end].trim_start().starts_with("//") {
            start = prev_start;
        } else {
            break;
        }
    }
    start
}
