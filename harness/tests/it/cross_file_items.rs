//! Items of the kernel's file that an item of another file names (a grid struct of another
//! module holding a pointer to the kernel file's block headers, calling their methods) are
//! defined before that item, once; associated constants of struct type lower as their
//! initializer; a field's declared type picks the method of its receiver.
//!
//! Kernels in the shape of dimforge/sparkl (29cebe6e29bae35d9cc980e04db53ebee3230ade),
//! `src_kernels/cuda/sort.rs` with `src_kernels/gpu_grid.rs`.

use kernel_lint_analyzer::{LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_harness::driver::{self, Sources};

use crate::support;
use support::check_with_gxx;

/// Emits crate `gpu` holding `kernels` (the reported file) and a sibling module `grid`.
fn emit(kernel: &str, grid: &str) -> driver::Emitted {
    let file = |path: &str, text: &str, module: &[&str]| ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|m| m.to_string()).collect(),
        also_in: Vec::new(),
    };
    let sources = Sources {
        inputs: vec![
            file("src/kernels.rs", kernel, &["gpu", "kernels"]),
            file("src/grid.rs", grid, &["gpu", "grid"]),
            file("src/lib.rs", "pub mod kernels;\npub mod grid;\n", &["gpu"]),
        ],
        reported: 1,
        uses: Vec::new(),
        features: Default::default(),
    };
    driver::emit_sources(&sources, &LaunchPlan::default())
}

const KERNELS: &str = r#"
use cuda_std::thread;
use crate::grid::Lattice;

#[repr(transparent)]
#[derive(Copy, Clone)]
pub struct Flags(pub u32);
impl Flags {
    pub const NONE: Self = Flags(0);
    pub const BORDER: Self = Flags(4);
    pub fn has(self, other: Self) -> bool {
        (self.0 & other.0) != 0
    }
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct Tile {
    pub count: u32,
    pub flags: Flags,
}

impl Tile {
    pub fn rounds(&self, per_round: u32) -> u32 {
        self.count / per_round
    }
}

#[kernel]
pub unsafe fn mark_borders(lattice: Lattice, out: *mut u32) {
    let id = thread::index_1d() as usize;
    let tile = lattice.tile(id);
    if tile.flags.has(Flags::BORDER) {
        *out.add(id) = lattice.rounds_of(id);
    }
}
"#;

const GRID: &str = r#"
use crate::kernels::{Flags, Tile};

pub struct Counter {
    pub hits: *mut u32,
}
impl Counter {
    pub unsafe fn get(&self, i: usize) -> u32 {
        *self.hits.add(i)
    }
}

pub struct Other {
    pub misses: *mut u32,
}
impl Other {
    pub unsafe fn get(&self, i: usize) -> u32 {
        *self.misses.add(i + 1)
    }
}

pub struct Lattice {
    pub tiles: *mut Tile,
    pub counter: Counter,
}

impl Lattice {
    pub unsafe fn tile(&self, i: usize) -> &Tile {
        &*self.tiles.add(i)
    }
    pub unsafe fn rounds_of(&self, i: usize) -> u32 {
        let tile = &*self.tiles.add(i);
        if tile.flags.has(Flags::NONE) {
            return 0;
        }
        tile.rounds(32) + self.counter.get(i)
    }
}
"#;

#[test]
fn kernel_file_items_named_by_another_file_are_defined_before_it() {
    let emitted = emit(KERNELS, GRID);
    let program = &emitted.program;
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    // Each of the kernel file's structs once, before the grid that points to them.
    let flags = program.find("struct Flags {").expect("Flags defined");
    let tile = program.find("struct Tile {").expect("Tile defined");
    let lattice = program.find("struct Lattice {").expect("Lattice defined");
    assert!(flags < tile && tile < lattice, "{program}");
    assert_eq!(program.matches("struct Tile {").count(), 1, "{program}");
    assert_eq!(program.matches("struct Flags {").count(), 1, "{program}");
    // The method of the kernel file the grid calls has a copy before the grid's methods.
    let rounds = program.find("Tile_rounds(").expect("Tile::rounds defined");
    let rounds_of = program.find("Lattice_rounds_of(").expect("Lattice::rounds_of defined");
    assert!(rounds < rounds_of, "{program}");
    // Associated constants of the struct's type are their initializer.
    assert!(program.contains("(Flags{0})"), "{program}");
    assert!(program.contains("(Flags{4})"), "{program}");
    // `self.counter.get(i)` is `Counter`'s, not `Other`'s.
    assert!(program.contains("Counter_get("), "{program}");
    assert!(!program.contains("Other_get("), "{program}");
    check_with_gxx(program);
}

#[test]
fn items_of_crates_outside_the_workspace_name_their_crate() {
    let kernel = r#"
use cuda_std::thread;
use crate::grid::Collider;
use hashes::Hasher;

#[kernel]
pub unsafe fn project(colliders: *const Collider, out: *mut f32) {
    let id = thread::index_1d() as usize;
    let c = &*colliders.add(id);
    *out.add(id) = 1.0;
}

#[kernel]
pub unsafe fn digest(input: &[u8], out: *mut u8) {
    let h = Hasher::digest(input);
    *out = h;
}
"#;
    let grid = "use parry::shape::Cuboid;\npub struct Collider {\n    pub shape: Cuboid,\n}\n";
    let emitted = emit(kernel, grid);
    let reasons: Vec<&str> = emitted.manifest.not_lowered.iter().map(|n| n.reason.as_str()).collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("`Cuboid` comes from crate `parry`, whose source is not in the analyzed workspace")),
        "{reasons:?}"
    );
    assert!(
        reasons.iter().any(|r| r.contains(
            "call to `Hasher::digest` is not lowered: `Hasher::digest` comes from crate `hashes`, whose source is not in the analyzed workspace"
        )),
        "{reasons:?}"
    );
}

#[test]
fn unresolved_paths_of_the_workspace_are_not_blamed_on_a_crate() {
    let kernel = r#"
use cuda_std::thread;
use crate::grid::Wall;

#[kernel]
pub unsafe fn bounce(walls: *const Wall, out: *mut f32) {
    let id = thread::index_1d() as usize;
    *out.add(id) = 1.0;
}
"#;
    let grid = "use crate::shapes::Plane;\npub struct Wall {\n    pub plane: Plane,\n}\n";
    let emitted = emit(kernel, grid);
    let [refused] = emitted.manifest.not_lowered.as_slice() else {
        panic!("{:?}", emitted.manifest.not_lowered)
    };
    assert!(!refused.reason.contains("comes from crate"), "{}", refused.reason);
}
