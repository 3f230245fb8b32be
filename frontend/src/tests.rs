//! Each failure class of a hand-written front end, in a kernel written for the test: the
//! loaded workspace answers what the call, type, constant or layout is.

use super::*;

const KERNELS: &str = r#"
mod helpers;
use helpers::{Zero, fill};

pub struct ThreadId(u32);
impl ThreadId {
    pub fn current(x: u32) -> Self { Self(x) }
    pub fn as_usize(&self) -> usize { self.0 as usize }
}

pub struct DeviceBuf { ptr: *mut f32, len: usize }
impl DeviceBuf {
    pub fn new(ptr: *mut f32, len: usize) -> Self { Self { ptr, len } }
    pub unsafe fn set(&self, i: usize, v: f32) { *self.ptr.add(i) = v; }
}

pub struct Grid<const N: usize> { cells: [u32; N] }
impl<const N: usize> Grid<N> {
    pub fn width(&self) -> usize { N }
}

#[repr(C)]
pub struct Rec { a: f32, b: [f64; 2] }
pub const RECORDS: usize = 3usize.pow(5);

#[repr(u32)]
pub enum Mode { Copy = 1, Scale = 7 }
pub enum Step { Skip, Jump(u64) }

macro_rules! store {
    ($buf:expr, $i:expr) => { $buf.set($i, 1.0) };
}

pub unsafe fn kernel(p: *mut f32, q: *mut f64, a: &[f32], n: usize, s: &usize, g: &Grid<4>, r: &[Rec; RECORDS]) {
    let t = ThreadId::current(7);
    let buf = DeviceBuf::new(p, n);
    buf.set(t.as_usize(), 2.0);
    fill::<f64>(q, 3);
    let w = n * s;
    for i in (0..n).step_by(32).skip(1) { buf.set(i, 0.5); }
    for (k, x) in a.iter().enumerate() { buf.set(k, *x); }
    let cols = g.width();
    store!(buf, w);
}
"#;

const HELPERS: &str = r#"
pub trait Zero { fn zero() -> Self; }
impl Zero for f32 { fn zero() -> Self { 0.0 } }
impl Zero for f64 { fn zero() -> Self { 0.0 } }
pub fn fill<T: Zero + Copy>(out: *mut T, i: usize) { unsafe { *out.add(i) = T::zero(); } }
"#;

fn frontend() -> Frontend {
    Frontend::load(&Workspace {
        files: vec![
            SourceText {
                path: "kernels/src/lib.rs".into(),
                text: KERNELS.into(),
            },
            SourceText {
                path: "kernels/src/helpers.rs".into(),
                text: HELPERS.into(),
            },
        ],
        crates: vec![CrateRoot {
            name: "kernels".into(),
            root: 0,
            dependencies: Vec::new(),
            cfg: vec![CfgAtom::KeyValue("target_os".into(), "cuda".into())],
            edition: 2021,
        }],
    })
}

/// The bytes of the `nth` occurrence (from 0) of `needle` in `text`.
fn at(text: &str, needle: &str, nth: usize) -> Range<usize> {
    let start = text
        .match_indices(needle)
        .nth(nth)
        .map(|(i, _)| i)
        .expect("the text holds the needle");
    start..start + needle.len()
}

#[test]
fn a_method_of_a_value_built_with_self_resolves_to_its_type() {
    let fe = frontend();
    let call = fe.method_call(0, at(KERNELS, "t.as_usize()", 0)).expect("resolved");
    assert_eq!(call.name, "as_usize");
    assert_eq!(call.owner.as_deref(), Some("ThreadId"));
    let (file, item) = call.defined.expect("a workspace function");
    assert_eq!(file, 0);
    assert!(KERNELS[item].starts_with("pub fn as_usize(&self)"));
    let t = fe
        .binding_type(0, at(KERNELS, "let t", 0).end - 1..at(KERNELS, "let t", 0).end)
        .expect("typed");
    assert_eq!(t.display, "ThreadId");
    assert_eq!(t.layout, Some((4, 4)));
}

#[test]
fn a_wrapper_method_taking_self_by_reference_resolves() {
    let fe = frontend();
    let call = fe
        .method_call(0, at(KERNELS, "buf.set(t.as_usize(), 2.0)", 0))
        .expect("resolved");
    assert_eq!((call.name.as_str(), call.owner.as_deref()), ("set", Some("DeviceBuf")));
    let inner = fe
        .method_call(0, at(KERNELS, "self.ptr.add(i)", 0))
        .expect("a pointer method of core");
    assert_eq!((inner.name.as_str(), inner.defined), ("add", None));
}

#[test]
fn a_generic_helper_and_a_trait_method_resolve_with_their_arguments() {
    let fe = frontend();
    let call = fe.path_call(0, at(KERNELS, "fill::<f64>(q, 3)", 0)).expect("resolved");
    assert_eq!(call.name, "fill");
    assert_eq!(call.generic_args, vec!["f64".to_string()]);
    assert_eq!(call.defined.map(|d| d.0), Some(1), "defined in the helpers file");
    let zero = fe.path_call(1, at(HELPERS, "T::zero()", 0)).expect("resolved");
    assert_eq!((zero.name.as_str(), zero.owner.as_deref()), ("zero", Some("Zero")));
}

#[test]
fn operators_on_references_and_const_generic_methods_are_typed() {
    let fe = frontend();
    let w = fe.expr_type(0, at(KERNELS, "n * s", 0)).expect("typed");
    assert_eq!(w.display, "usize");
    let cols = fe.method_call(0, at(KERNELS, "g.width()", 0)).expect("resolved");
    assert_eq!(cols.owner.as_deref(), Some("Grid<N>"));
    let grid = fe.expr_type(0, at(KERNELS, "g.width()", 0)).expect("typed");
    assert_eq!(grid.display, "usize");
}

#[test]
fn iterator_adaptors_over_ranges_and_slices_are_typed() {
    let fe = frontend();
    let range = fe
        .expr_type(0, at(KERNELS, "(0..n).step_by(32).skip(1)", 0))
        .expect("typed");
    assert_eq!(range.display, "Skip<StepBy<Range<usize>>>");
    let i = fe
        .binding_type(0, at(KERNELS, "for i", 0).end - 1..at(KERNELS, "for i", 0).end)
        .expect("typed");
    assert_eq!(i.display, "usize");
    let x = at(KERNELS, "(k, x)", 0);
    let x = fe.binding_type(0, x.start + 4..x.start + 5).expect("typed");
    assert_eq!(x.display, "&f32");
}

#[test]
fn constants_evaluate_and_lengths_computed_by_methods_lay_out() {
    let fe = frontend();
    assert_eq!(fe.const_value(0, at(KERNELS, "RECORDS", 0)), Some(243));
    let rec = fe.adt_layout(0, at(KERNELS, "pub struct Rec", 0)).expect("laid out");
    assert_eq!((rec.size, rec.align), (24, 8));
    assert_eq!(rec.fields, vec![("a".to_string(), 0), ("b".to_string(), 8)]);
    let array = fe.binding_type(
        0,
        at(KERNELS, "r: &[Rec; RECORDS]", 0).start..at(KERNELS, "r: &[Rec; RECORDS]", 0).start + 1,
    );
    assert_eq!(array.map(|t| t.display), Some("&[Rec; 243]".to_string()));
}

#[test]
fn enums_are_laid_out() {
    let fe = frontend();
    let mode = fe.adt_layout(0, at(KERNELS, "pub enum Mode", 0)).expect("laid out");
    assert_eq!((mode.size, mode.align), (4, 4));
    let step = fe.adt_layout(0, at(KERNELS, "pub enum Step", 0)).expect("laid out");
    assert_eq!((step.size, step.align), (16, 8));
}

#[test]
fn an_edit_is_seen_at_the_next_question() {
    let mut fe = frontend();
    let edited = KERNELS.replace("3usize.pow(5)", "2usize.pow(10)");
    fe.set_text(0, &edited);
    assert_eq!(fe.const_value(0, at(&edited, "RECORDS", 0)), Some(1024));
}

#[test]
fn a_call_written_inside_a_macro_rules_body_resolves_in_its_expansion() {
    let fe = frontend();
    let call = fe
        .method_call(0, at(KERNELS, "buf, w", 0))
        .expect("resolved in the expansion");
    assert_eq!((call.name.as_str(), call.owner.as_deref()), ("set", Some("DeviceBuf")));
}

#[test]
fn a_parameter_s_pointee_is_laid_out_with_generic_arguments_substituted() {
    let text = "pub struct Params<S> { seed: S, w: f64, tiles: [u32; 3] }\n\
                pub unsafe fn kernel(p: &Params<u16>, rows: &[Params<u64>], raw: *const (u8, u32)) {}\n";
    let fe = Frontend::load(&Workspace {
        files: vec![SourceText {
            path: "k/src/lib.rs".into(),
            text: text.into(),
        }],
        crates: vec![CrateRoot {
            name: "k".into(),
            root: 0,
            dependencies: Vec::new(),
            cfg: Vec::new(),
            edition: 2021,
        }],
    });
    let p = fe.pointee_layout(0, at(text, "p:", 0)).expect("laid out");
    assert_eq!(
        (p.name.as_str(), p.size, p.align, p.primitive),
        ("Params", 24, 8, false)
    );
    let offsets: Vec<(&str, u64, u64)> = p
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.offset, f.layout.size))
        .collect();
    // Fields are reordered by alignment where no `repr` says otherwise, as rustc does.
    assert_eq!(offsets, [("seed", 20, 2), ("w", 0, 8), ("tiles", 8, 12)]);
    let w = p.fields.iter().find(|f| f.name == "w").expect("field w");
    assert_eq!((w.layout.name.as_str(), w.layout.primitive), ("f64", true));
    let tiles = p.fields.iter().find(|f| f.name == "tiles").expect("field tiles");
    assert_eq!((tiles.layout.size, tiles.layout.fields.len()), (12, 3));
    let row = fe.pointee_layout(0, at(text, "rows:", 0)).expect("the slice's element");
    assert_eq!((row.name.as_str(), row.size), ("Params", 32));
    let raw = fe.pointee_layout(0, at(text, "raw:", 0)).expect("the pointer's target");
    assert_eq!((raw.size, raw.fields.len()), (8, 2));
}

#[test]
fn a_macro_rules_call_expands_to_its_tokens_each_where_it_was_written() {
    let fe = frontend();
    let expansion = fe.expand_macro(0, at(KERNELS, "store!(buf, w)", 0)).expect("expands");
    assert_eq!(expansion.text, "buf . set ( w , 1.0 )");
    // `buf` and `w` come from the call's arguments, `.set(`, `,`, `1.0` and `)` from the body.
    let written: Vec<&str> = expansion
        .origins
        .iter()
        .map(|(_, origin)| {
            origin.as_ref().map_or("?", |(file, range)| {
                assert_eq!(*file, 0);
                &KERNELS[range.clone()]
            })
        })
        .collect();
    assert_eq!(written, ["buf", ".", "set", "(", "w", ",", "1.0", ")"]);
    let call = at(KERNELS, "store!(buf, w)", 0).start;
    let (_, buf) = expansion.origins[0].1.clone().expect("written");
    assert!(buf.start > call, "an argument is at the call");
    let (_, set) = expansion.origins[2].1.clone().expect("written");
    assert!(
        set.start < call,
        "the body is in the macro's definition, above the call"
    );
}

#[test]
fn a_module_file_of_a_2018_crate_is_read_with_its_crate_s_edition() {
    let root = "mod cells;\npub struct Cell(u32);\n";
    let cells = "use crate::Cell;\nimpl Cell {\n    pub fn get(&self) -> u32 { self.0 }\n}\npub fn read(c: &Cell) -> u32 { c.get() }\n";
    let fe = Frontend::load(&Workspace {
        files: vec![
            SourceText {
                path: "old/src/lib.rs".into(),
                text: root.into(),
            },
            SourceText {
                path: "old/src/cells.rs".into(),
                text: cells.into(),
            },
        ],
        crates: vec![CrateRoot {
            name: "old".into(),
            root: 0,
            dependencies: Vec::new(),
            cfg: Vec::new(),
            edition: 2018,
        }],
    });
    let call = fe
        .method_call(1, at(cells, "c.get()", 0))
        .expect("resolved in the module file");
    let (file, item) = call.defined.expect("a workspace function");
    assert_eq!((call.name.as_str(), file), ("get", 1));
    assert!(cells[item].starts_with("pub fn get(&self)"));
}
