use crate::text::cost;
use crate::{declare_lint, AccessContext, Applicability, Edit, Finding, Fix};
use kernel_lint_analyzer::{AccessClass, FieldOf, Prediction, SourceFile, Span};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use syn::punctuated::Punctuated;

declare_lint! {
    /// ## What it does
    /// Finds accesses to one field of an array of structs, `particles[i].x`, where consecutive
    /// lanes are one struct size apart.
    ///
    /// ## Why is this bad?
    /// Each lane wants 4 bytes but the warp's addresses are spread over 32 × the struct size:
    /// reading `x` of a 24-byte particle costs 24 sectors per request where 4 would do
    /// (16.7 %). The rest of every sector is fetched and thrown away.
    ///
    /// ## Example
    /// ```rust,ignore
    /// #[repr(C)] struct Particle { x: f32, y: f32, z: f32, vx: f32, vy: f32, vz: f32 }
    /// let x = (*p.add(i)).x;
    /// ```
    /// Use instead: a structure of arrays (`struct Particles { x: *mut f32, vx: *mut f32, .. }`
    /// read as `*p.x.add(i)`), or, for structs of 8 or 16 bytes, `#[repr(C, align(16))]` and
    /// one copy of the whole element per lane.
    ///
    /// ## Fix
    /// When every byte of the element is copied, `cargo kernel-lint fix --unsafe-fixes` gives
    /// the struct the alignment (`#[repr(C, align(16))]`, extending its `#[repr(..)]`). It is
    /// unsafe: the struct's layout changes, so the host's buffers must follow.
    pub static ARRAY_OF_STRUCTS_ACCESS = {
        code: "KL002",
        name: "array-of-structs-access",
        level: Warn,
        check: check,
        kernel_check: crate::no_kernel_check,
        fix: align_fix,
    }
}

fn check(cx: &AccessContext<'_>) -> Option<Finding> {
    let p = cx.verdict(AccessClass::Aos)?;
    let field = cx.access.field_of.as_ref()?;
    if cx.whole_copy() {
        return Some(whole_copy(cx, p, field));
    }
    let help = if field.size.is_power_of_two() && field.size <= 16 {
        format!(
            "give `{}` `#[repr(C, align({}))]` and copy whole elements (one {}-byte load per lane), or store it as a structure of arrays",
            field.type_name, field.size, field.size
        )
    } else {
        format!(
            "store `{}` as a structure of arrays (one array per field) so that lanes read consecutive values",
            field.type_name
        )
    };
    Some(Finding {
        message: format!(
            "array-of-structs access `{}`: a {}-byte field of the {}-byte `{}`, {}",
            cx.element(),
            cx.access.elem_bytes,
            field.size,
            field.type_name,
            cost(p)
        ),
        label: format!("lanes are {} bytes apart", field.size),
        span: cx.access.span,
        help: Some(help),
        notes: cx.notes(p),
    })
}

/// Every byte of the element is used, but its alignment splits the copy into one access per
/// field: aligning it, not splitting it into arrays, makes the copy one wide load.
fn whole_copy(cx: &AccessContext<'_>, p: &Prediction, field: &FieldOf) -> Finding {
    let leaves = cx.leaves().count();
    let help = if field.size <= 16 {
        let align = field.size.next_power_of_two();
        let pad = if align == field.size {
            String::new()
        } else {
            format!(" (padding it to {align} bytes)")
        };
        format!(
            "every byte of `{}` is used: give it `#[repr(C, align({align}))]`{pad} so that each lane copies it with one {align}-byte load",
            field.type_name
        )
    } else {
        format!(
            "every byte of `{}` is used: give it `#[repr(C, align(16))]` so that each lane copies it in 16-byte pieces, or stage the elements through shared memory",
            field.type_name
        )
    };
    Finding {
        message: format!(
            "array-of-structs access `{}`: the whole {}-byte `{}` is copied as {leaves} narrower accesses, each {}",
            cx.element(),
            field.size,
            field.type_name,
            cost(p)
        ),
        label: format!("lanes are {} bytes apart", field.size),
        span: cx.access.span,
        help: Some(help),
        notes: cx.notes(p),
    }
}

/// The alignment that makes a whole-element copy one wide load (16-byte pieces above 16 bytes).
fn wanted_alignment(size: u64) -> u64 {
    if size <= 16 {
        size.next_power_of_two()
    } else {
        16
    }
}

/// For a whole-element copy: give the struct the alignment the help asks for, extending its
/// `#[repr(..)]` or adding one. No fix when the struct's definition is not found exactly once
/// among the files read, or when its `repr` cannot take an alignment (`packed`, `transparent`).
fn align_fix(cx: &AccessContext<'_>, sources: &[SourceFile]) -> Vec<Fix> {
    let Some(field) = &cx.access.field_of else {
        return Vec::new();
    };
    if cx.verdict(AccessClass::Aos).is_none() || !cx.whole_copy() {
        return Vec::new();
    }
    let align = wanted_alignment(field.size);
    let Some(edit) = repr_edit(&field.type_name, align, sources) else {
        return Vec::new();
    };
    let padded = field.size.div_ceil(align) * align;
    let follow_up = if padded == field.size {
        format!(
            "the host must allocate `{}` buffers {align}-byte aligned",
            field.type_name
        )
    } else {
        format!(
            "`{}` grows from {} to {padded} bytes: the host must lay out its buffers with the padding",
            field.type_name, field.size
        )
    };
    vec![Fix {
        title: format!("give `{}` `#[repr(C, align({align}))]`", field.type_name),
        applicability: Applicability::Unsafe,
        edits: vec![edit],
        gain: None,
        follow_up: vec![follow_up],
    }]
}

/// The edit that gives struct `name` `#[repr(C, align(align))]`, when it is defined exactly
/// once among `sources`.
pub fn repr_edit(name: &str, align: u64, sources: &[SourceFile]) -> Option<Edit> {
    // A generic or qualified name is not looked up: the plain name must be the definition's.
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let mut found = Vec::new();
    for source in sources {
        // Parsing is the costly part: only files that may define it are parsed.
        let may_define = match source.struct_names() {
            Some(names) => names.contains(name),
            None => source.text.contains(name),
        };
        if !may_define {
            continue;
        }
        let Some(structs) = structs_of(source) else {
            continue;
        };
        found.extend(structs.iter().filter(|def| def.ident == name).map(|def| (source, def.clone())));
    }
    let [(source, def)] = found.as_slice() else {
        return None;
    };
    let reprs: Vec<&syn::Attribute> = def.attrs.iter().filter(|a| a.path().is_ident("repr")).collect();
    match reprs.as_slice() {
        [] => {
            let at = item_start(def);
            let start = source.offset(at.line, at.column);
            let line_start = source.text[..start].rfind('\n').map_or(0, |i| i + 1);
            let before = &source.text[line_start..start];
            let separator = if before.chars().all(char::is_whitespace) {
                format!("\n{before}")
            } else {
                " ".to_string()
            };
            Some(Edit {
                file: source.path.clone(),
                span: span_at(source, start, start, at),
                replacement: format!("#[repr(C, align({align}))]{separator}"),
            })
        }
        [attr] => {
            let hints = attr
                .parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
                .ok()?;
            let mut kept = vec!["C".to_string()];
            for hint in &hints {
                match hint {
                    syn::Meta::Path(path) if path.is_ident("C") => {}
                    syn::Meta::Path(path) if path.is_ident("packed") || path.is_ident("transparent") => return None,
                    syn::Meta::Path(path) => kept.push(path.get_ident()?.to_string()),
                    syn::Meta::List(list) if list.path.is_ident("align") => {}
                    _ => return None,
                }
            }
            let replacement = format!("#[repr({}, align({align}))]", kept.join(", "));
            let open = attr.pound_token.span.start();
            let close = attr.bracket_token.span.close().end();
            let start = source.offset(open.line, open.column);
            let end = source.offset(close.line, close.column);
            if source.text.get(start..end)? == replacement {
                return None;
            }
            Some(Edit {
                file: source.path.clone(),
                span: span_at(source, start, end, open),
                replacement,
            })
        }
        _ => None,
    }
}

/// Where an item's code starts after its attributes: its visibility, or `struct`.
fn item_start(def: &syn::ItemStruct) -> proc_macro2::LineColumn {
    use syn::spanned::Spanned;
    match &def.vis {
        syn::Visibility::Inherited => def.struct_token.span.start(),
        vis => vis.span().start(),
    }
}

fn span_at(source: &SourceFile, start: usize, end: usize, at: proc_macro2::LineColumn) -> Span {
    debug_assert!(start <= end && end <= source.text.len());
    Span {
        start,
        end,
        line: at.line,
        column: at.column + 1,
    }
}

/// The structs of a file, by its path, with the text they were read from.
type StructsByFile = HashMap<String, (String, Rc<Vec<syn::ItemStruct>>)>;

thread_local! {
    /// The structs of each file read for a definition: the findings of a file (and an editor's
    /// every change) look into the same files again, and a file is parsed once while its text
    /// stays the same.
    static STRUCTS: RefCell<StructsByFile> = RefCell::new(HashMap::new());
}

/// The structs `source` defines, inline modules included; `None` when it does not parse.
fn structs_of(source: &SourceFile) -> Option<Rc<Vec<syn::ItemStruct>>> {
    STRUCTS.with(|cell| {
        let mut kept = cell.borrow_mut();
        if let Some((text, structs)) = kept.get(&source.path) {
            if *text == source.text {
                return Some(Rc::clone(structs));
            }
        }
        let file = syn::parse_file(&source.text).ok()?;
        let mut structs = Vec::new();
        all_structs(&file.items, &mut structs);
        let structs = Rc::new(structs);
        kept.insert(source.path.clone(), (source.text.clone(), Rc::clone(&structs)));
        Some(structs)
    })
}

/// The structs among `items` and their inline modules.
fn all_structs(items: &[syn::Item], out: &mut Vec<syn::ItemStruct>) {
    for item in items {
        match item {
            syn::Item::Struct(def) => out.push(def.clone()),
            syn::Item::Mod(module) => {
                if let Some((_, inner)) = &module.content {
                    all_structs(inner, out);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::test_support::{assert_clean, findings};

    #[test]
    fn field_of_a_24_byte_struct() {
        let found = findings(
            "KL002",
            "#[repr(C)] struct P { x: f32, y: f32, z: f32, vx: f32, vy: f32, vz: f32 }
             #[kernel] pub unsafe fn k(p: *mut P) { let i = thread::index_1d() as usize; let v = (*p.add(i)).vx; }",
        );
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].message,
            "array-of-structs access `p[i].vx`: a 4-byte field of the 24-byte `P`, 24 sectors per request where 4 would do (16.7% efficiency)"
        );
        assert!(found[0]
            .help
            .as_deref()
            .unwrap()
            .starts_with("store `P` as a structure of arrays"));
    }

    #[test]
    fn wide_aligned_copy_is_fine() {
        assert_clean(
            "KL002",
            "#[repr(C, align(16))] struct F4 { x: f32, y: f32, z: f32, w: f32 }
             #[kernel] pub unsafe fn k(a: &[F4], out: *mut F4) { let i = thread::index_1d() as usize; *out.add(i) = a[i]; }",
            2,
        );
    }

    #[test]
    fn a_whole_struct_copy_suggests_alignment_once() {
        let found = findings(
            "KL002",
            "#[repr(C)] #[derive(Clone, Copy)] pub struct Q { x: f32, y: f32, z: f32 }
             #[kernel] pub unsafe fn k(queries: &[Q]) { let i = thread::index_1d() as usize; let q = queries[i]; }",
        );
        // One finding per leaf here; `check_file` keeps one per span.
        assert_eq!(found.len(), 3);
        assert_eq!(
            found[0].message,
            "array-of-structs access `queries[i]`: the whole 12-byte `Q` is copied as 3 narrower accesses, each 12 sectors per request where 4 would do (33.3% efficiency)"
        );
        assert_eq!(
            found[0].help.as_deref(),
            Some("every byte of `Q` is used: give it `#[repr(C, align(16))]` (padding it to 16 bytes) so that each lane copies it with one 16-byte load")
        );
    }

    #[test]
    fn a_whole_struct_copy_is_one_diagnostic() {
        let source = "#[repr(C)] #[derive(Clone, Copy)] pub struct Q { x: f32, y: f32, z: f32 }
             #[kernel] pub unsafe fn k(queries: &[Q]) { let i = thread::index_1d() as usize; let q = queries[i]; }";
        let file = kernel_lint_analyzer::SourceFile::new("snippet.rs", source);
        let report = kernel_lint_analyzer::analyze_source(&file, &kernel_lint_analyzer::LaunchPlan::default()).expect("parses");
        let found = crate::check_file(&report, &crate::LintLevels::default());
        let messages: Vec<&str> = found.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert!(messages[0].starts_with("array-of-structs access `queries[i]`: the whole"));
    }

    /// The fixes of every finding of a snippet linted with its own text (and `others`) as the
    /// files read.
    fn fixes_of(source: &str, others: &[kernel_lint_analyzer::SourceFile]) -> Vec<crate::Fix> {
        let file = kernel_lint_analyzer::SourceFile::new("snippet.rs", source);
        let report = kernel_lint_analyzer::analyze_source(&file, &kernel_lint_analyzer::LaunchPlan::default()).expect("parses");
        let mut sources = vec![file];
        sources.extend(others.iter().cloned());
        crate::check_file_with_fixes(&report, &crate::LintLevels::default(), &sources)
            .into_iter()
            .flat_map(|d| d.fixes)
            .collect()
    }

    const COPY: &str = "#[kernel] pub unsafe fn k(queries: &[Q]) { let i = thread::index_1d() as usize; let q = queries[i]; }";

    #[test]
    fn a_whole_copy_extends_the_repr() {
        let source = format!("#[repr(C)] #[derive(Clone, Copy)] pub struct Q {{ x: f32, y: f32, z: f32 }}\n{COPY}");
        let fixes = fixes_of(&source, &[]);
        assert_eq!(fixes.len(), 1);
        let fix = &fixes[0];
        assert_eq!(fix.title, "give `Q` `#[repr(C, align(16))]`");
        assert_eq!(fix.applicability, crate::Applicability::Unsafe);
        assert_eq!(
            fix.follow_up,
            vec!["`Q` grows from 12 to 16 bytes: the host must lay out its buffers with the padding".to_string()]
        );
        assert_eq!(fix.edits.len(), 1);
        let edit = &fix.edits[0];
        assert_eq!(edit.file, "snippet.rs");
        assert_eq!((edit.span.start, edit.span.end, edit.span.line, edit.span.column), (0, 10, 1, 1));
        assert_eq!(&source[edit.span.start..edit.span.end], "#[repr(C)]");
        assert_eq!(edit.replacement, "#[repr(C, align(16))]");
    }

    #[test]
    fn a_struct_without_repr_gets_one_on_its_own_line() {
        let source = format!("#[derive(Clone, Copy)]\n    pub struct Q {{ x: f32, y: f32 }}\n{COPY}");
        let fixes = fixes_of(&source, &[]);
        let edits: Vec<(usize, usize, &str)> = fixes
            .iter()
            .flat_map(|f| &f.edits)
            .map(|e| (e.span.start, e.span.end, e.replacement.as_str()))
            .collect();
        // Inserted before `pub`, keeping its indentation.
        assert_eq!(edits, vec![(27, 27, "#[repr(C, align(8))]\n    ")]);
        assert_eq!(fixes[0].follow_up, vec!["the host must allocate `Q` buffers 8-byte aligned".to_string()]);
    }

    #[test]
    fn the_struct_of_another_file_is_edited_there() {
        let other = kernel_lint_analyzer::SourceFile::new("types.rs", "pub struct Unrelated;\n#[repr(C, align(4))]\nstruct Q { x: f32, y: f32, z: f32 }\n");
        // The analyzer sees the struct only through the snippet, so it is defined there too:
        // two definitions, no fix.
        let source = format!("#[repr(C)] #[derive(Clone, Copy)] pub struct Q {{ x: f32, y: f32, z: f32 }}\n{COPY}");
        assert_eq!(fixes_of(&source, std::slice::from_ref(&other)), Vec::new());
        // Found once, in the other file: its `align(4)` is replaced.
        let fix = super::repr_edit("Q", 16, &[other]).expect("found");
        assert_eq!(fix.file, "types.rs");
        assert_eq!((fix.span.start, fix.span.end, fix.span.line, fix.span.column), (22, 42, 2, 1));
        assert_eq!(fix.replacement, "#[repr(C, align(16))]");
    }

    #[test]
    fn no_fix_for_packed_structs_or_single_fields() {
        let packed = format!("#[repr(C, packed)] #[derive(Clone, Copy)] pub struct Q {{ x: f32, y: f32, z: f32 }}\n{COPY}");
        assert_eq!(fixes_of(&packed, &[]), Vec::new());
        let field = "#[repr(C)] struct P { x: f32, y: f32, z: f32, vx: f32, vy: f32, vz: f32 }
             #[kernel] pub unsafe fn k(p: *mut P) { let i = thread::index_1d() as usize; let v = (*p.add(i)).vx; }";
        assert_eq!(fixes_of(field, &[]), Vec::new());
    }
}
