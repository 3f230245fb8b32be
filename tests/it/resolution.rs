//! Names resolve across modules and crates the way rustc resolves them, and what cannot be
//! resolved is said to be unknown rather than guessed.

use kernel_lint_analyzer::{analyze_program, AccessClass, CrateUse, FileReport, LaunchPlan, ModuleSource, SourceFile};

fn module(path: &str, module: &[&str], text: &str) -> ModuleSource {
    ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|s| s.to_string()).collect(),
        also_in: Vec::new(),
    }
}

fn analyze(inputs: Vec<ModuleSource>, uses: &[CrateUse]) -> Vec<FileReport> {
    let plan = LaunchPlan::default();
    analyze_program(inputs, uses, &[&plan])
        .into_iter()
        .map(|r| r.expect("analyzed"))
        .collect()
}

#[test]
fn a_helper_named_like_its_kernel_is_followed_not_called_recursive() {
    let reports = analyze(
        vec![
            module(
                "src/lib.rs",
                &["blur"],
                "mod kernel;\n#[kernel]\npub unsafe fn blur(a: &[f32], out: *mut f32) {\n    kernel::blur(a, out);\n}\n",
            ),
            module(
                "src/kernel.rs",
                &["blur", "kernel"],
                "pub unsafe fn blur(a: &[f32], out: *mut f32) {\n    let i = cuda_std::thread::index_1d() as usize;\n    *out.add(i) = a[i + 1];\n}\n",
            ),
        ],
        &[],
    );
    let kernel = &reports[0].kernels[0];
    assert_eq!(kernel.name, "blur");
    assert!(kernel.unsupported.is_empty(), "{:?}", kernel.unsupported);
    let found: Vec<(Option<&str>, usize, &str, Option<f64>)> = kernel
        .accesses
        .iter()
        .map(|a| {
            (
                a.file.as_deref(),
                a.span.line,
                a.array.as_str(),
                a.prediction.as_ref().and_then(|p| p.sectors_per_request),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (Some("src/kernel.rs"), 3, "a", Some(5.0)),
            (Some("src/kernel.rs"), 3, "out", Some(4.0))
        ]
    );
    assert_eq!(kernel.accesses[0].via[0].callee, "kernel::blur");
    assert_eq!(kernel.accesses[0].via[0].span.line, 4);
}

#[test]
fn a_field_of_an_element_whose_layout_is_unknown_gets_no_figure() {
    // `Header` comes from a crate outside the analysis: its size is not known, so neither is
    // the distance between lanes reading `headers[i].count`.
    let reports = analyze(
        vec![module(
            "k.rs",
            &["k"],
            "use other_crate::Header;\n#[kernel]\npub unsafe fn k(headers: &[Header], out: *mut u32) {\n    let i = cuda_std::thread::index_1d() as usize;\n    *out.add(i) = headers[i].count;\n}\n",
        )],
        &[],
    );
    let access = &reports[0].kernels[0].accesses[0];
    assert_eq!(access.array, "headers");
    let prediction = access.prediction.as_ref().expect("global");
    assert_eq!(prediction.class, AccessClass::Unknown);
    assert_eq!(prediction.sectors_per_request, None);
    assert_eq!(
        prediction.assumptions,
        ["the layout of the element is not known (a type outside the analyzed crates, an enum with data, or a generic parameter): its width and the distance between lanes cannot be computed"]
    );
}

#[test]
fn renamed_path_dependencies_globs_aliases_and_associated_consts_resolve() {
    let types = "pub mod shapes { pub type Float = f32;\n #[repr(C)] pub struct Pair { pub a: Float, pub b: Float }\n pub struct Tile;\n impl Tile { pub const WIDTH: usize = 8; } }\npub use shapes::*;\n";
    let kernel = "use geometry::{Pair, Tile};\n#[kernel]\npub unsafe fn k(p: &[Pair], out: *mut f32) {\n    let i = cuda_std::thread::index_1d() as usize;\n    *out.add(i) = p[i * Tile::WIDTH].a;\n}\n";
    let reports = analyze(
        vec![
            module("kernels/lib.rs", &["kernels"], kernel),
            module("types/lib.rs", &["gpu_types"], types),
        ],
        &[CrateUse {
            from: "kernels".into(),
            name: "geometry".into(),
            root: "gpu_types".into(),
        }],
    );
    let access = &reports[0].kernels[0].accesses[0];
    let field = access.field_of.as_ref().expect("a field of Pair");
    assert_eq!((field.type_name.as_str(), field.size), ("Pair", 8));
    let prediction = access.prediction.as_ref().expect("global");
    // 8 pairs of 8 bytes apart: 64 bytes between lanes, one sector each.
    assert_eq!(
        (prediction.class, prediction.sectors_per_request),
        (AccessClass::Strided, Some(32.0))
    );
}

#[test]
fn a_crate_the_code_does_not_use_is_not_searched_for_methods() {
    // Both crates have a `Grid::cell`; only the one the kernel's crate uses is followed, and
    // an unrelated crate's `add` never stands in for pointer arithmetic.
    let used = "pub struct Grid { pub cells: *mut f32 }\nimpl Grid { pub unsafe fn cell(&self, i: usize) -> f32 { *self.cells.add(i) } }\n";
    let unrelated = "pub struct Grid { pub cells: *mut f64 }\nimpl Grid { pub unsafe fn cell(&self, i: usize) -> f64 { *self.cells.add(2 * i) } }\npub struct V(f32);\nimpl V { pub fn add(self, o: V) -> V { V(self.0 + o.0) } }\n";
    let kernel = "use grid::Grid;\n#[kernel]\npub unsafe fn k(g: Grid, out: *mut f32) {\n    let i = cuda_std::thread::index_1d() as usize;\n    *out.add(i) = g.cell(i);\n}\n";
    let reports = analyze(
        vec![
            module("k.rs", &["k"], kernel),
            module("grid.rs", &["grid"], used),
            module("other.rs", &["other"], unrelated),
        ],
        &[CrateUse {
            from: "k".into(),
            name: "grid".into(),
            root: "grid".into(),
        }],
    );
    let found: Vec<(&str, Option<&str>, Option<f64>, u64)> = reports[0].kernels[0]
        .accesses
        .iter()
        .map(|a| {
            (
                a.array.as_str(),
                a.file.as_deref(),
                a.prediction.as_ref().and_then(|p| p.sectors_per_request),
                a.elem_bytes,
            )
        })
        .collect();
    assert_eq!(
        found,
        [("g.cells", Some("grid.rs"), Some(4.0), 4), ("out", None, Some(4.0), 4)]
    );
}

#[test]
fn a_method_of_a_trait_from_a_crate_not_loaded_is_a_note_not_an_access_at_the_buffer_start() {
    let reports = analyze(
        vec![module(
            "src/lib.rs",
            &["slots"],
            "use pool::Slots;\n#[kernel]\npub unsafe fn fill(out: &mut [f32], inp: &[f32]) {\n    let i = cuda_std::thread::index_1d() as usize;\n    out.write(i, inp.read(i));\n}\n",
        )],
        &[],
    );
    let kernel = &reports[0].kernels[0];
    assert_eq!(kernel.name, "fill");
    assert!(kernel.accesses.is_empty(), "{:?}", kernel.accesses);
    let notes: Vec<&str> = kernel.unsupported.iter().map(|u| u.message.as_str()).collect();
    assert_eq!(
        notes,
        [
            "`inp.read(i)` takes the global buffer `inp` and is not visible to the analysis: accesses through it are not analyzed",
            "`out.write(i, inp.read(i))` takes the global buffer `out` and is not visible to the analysis: accesses through it are not analyzed",
        ]
    );
}

#[test]
fn a_method_of_a_value_built_with_self_in_another_crate_is_followed_to_its_access() {
    let reports = analyze(
        vec![
            module(
                "kernels/src/lib.rs",
                &["kernels"],
                "use grid::Cursor;\n#[kernel]\npub unsafe fn bump(cells: *mut u32) {\n    let c = Cursor::at_lane();\n    c.bump(cells);\n}\n",
            ),
            module(
                "grid/src/lib.rs",
                &["grid"],
                "pub struct Cursor(usize);\npub struct Other(usize);\nimpl Cursor {\n    pub fn at_lane() -> Self { Self(cuda_std::thread::index_1d() as usize * 2) }\n    pub unsafe fn bump(&self, cells: *mut u32) { *cells.add(self.0) += 1; }\n}\nimpl Other {\n    pub unsafe fn bump(&self, cells: *mut u32) { *cells.add(self.0) += 1; }\n}\n",
            ),
        ],
        &[CrateUse {
            from: "kernels".into(),
            name: "grid".into(),
            root: "grid".into(),
        }],
    );
    let kernel = &reports[0].kernels[0];
    assert!(kernel.unsupported.is_empty(), "{:?}", kernel.unsupported);
    type Found<'a> = (Option<&'a str>, usize, Option<AccessClass>, Option<f64>);
    let found: Vec<Found> = kernel
        .accesses
        .iter()
        .map(|a| {
            (
                a.file.as_deref(),
                a.span.line,
                a.prediction.as_ref().map(|p| p.class),
                a.prediction.as_ref().and_then(|p| p.sectors_per_request),
            )
        })
        .collect();
    // Lanes two `u32` apart: 8 sectors for the load and for the store.
    assert_eq!(
        found,
        [
            (Some("grid/src/lib.rs"), 5, Some(AccessClass::Strided), Some(8.0)),
            (Some("grid/src/lib.rs"), 5, Some(AccessClass::Strided), Some(8.0)),
        ]
    );
}

/// `fn any(self) -> bool { #[cfg(feature = "one")] { .. } #[cfg(not(feature = "one"))] self.any() }`:
/// the branch the crate's features leave out is not compiled, so it is no recursion, and the
/// statements it leaves out are not run.
#[test]
fn a_branch_the_features_leave_out_is_neither_recursion_nor_run() {
    let text = "pub struct Flags(u32);\n\
                pub trait AnyExt { fn any(self) -> bool; fn pick(&self, i: usize) -> usize; }\n\
                impl AnyExt for Flags {\n\
                \x20   fn any(self) -> bool {\n\
                \x20       #[cfg(feature = \"one\")]\n\
                \x20       { self.0 != 0 }\n\
                \x20       #[cfg(not(feature = \"one\"))]\n\
                \x20       self.any()\n\
                \x20   }\n\
                \x20   fn pick(&self, i: usize) -> usize {\n\
                \x20       #[cfg(feature = \"one\")]\n\
                \x20       return i;\n\
                \x20       #[cfg(not(feature = \"one\"))]\n\
                \x20       return 3 * i;\n\
                \x20   }\n\
                }\n\
                #[kernel]\n\
                pub unsafe fn k(a: &[f32], out: *mut f32) {\n\
                \x20   let i = cuda_std::thread::index_1d() as usize;\n\
                \x20   let f = Flags(1);\n\
                \x20   if f.any() {\n\
                \x20       *out.add(i) = a[f.pick(i)];\n\
                \x20   }\n\
                }\n";
    let mut features = kernel_lint_analyzer::workspace::CrateFeatures::new();
    features.insert("k".to_string(), ["one".to_string()].into_iter().collect());
    let plan = LaunchPlan::default();
    let reports: Vec<FileReport> =
        kernel_lint_analyzer::analyze_configured(vec![module("src/lib.rs", &["k"], text)], &[], &features, &[&plan])
            .into_iter()
            .map(|r| r.expect("analyzed"))
            .collect();
    let kernel = &reports[0].kernels[0];
    assert_eq!(kernel.name, "k");
    let notes: Vec<&str> = kernel.unsupported.iter().map(|u| u.message.as_str()).collect();
    assert!(!notes.iter().any(|n| n.contains("recursive")), "{notes:?}");
    let found: Vec<(usize, &str, Option<f64>)> = kernel
        .accesses
        .iter()
        .map(|a| {
            (
                a.span.line,
                a.array.as_str(),
                a.prediction.as_ref().and_then(|p| p.sectors_per_request),
            )
        })
        .collect();
    // `a[f.pick(i)]` is `a[i]` under `one`: 4 sectors, not the 12 of `3 * i`.
    assert_eq!(found, [(22, "a", Some(4.0)), (22, "out", Some(4.0))]);
}
