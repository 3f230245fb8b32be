//! A field of a struct the kernel's module never names (a grid method of another module
//! returns `Option<&mut Node>`) picks the method of the field's declared type; a type another
//! crate defines through `bitflags!` is refused naming that macro.
//!
//! Kernels in the shape of dimforge/sparkl (29cebe6e29bae35d9cc980e04db53ebee3230ade),
//! `src_kernels/cuda/sort.rs` (`merge_halo_blocks`) with `src_kernels/gpu_grid.rs`, and
//! `src_kernels/cuda/timestep.rs` with `src_core/dynamics/models/constitutive_model.rs`.

use kernel_lint_analyzer::{CrateUse, LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_harness::driver::{self, Sources};

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx};

fn file(path: &str, text: &str, module: &[&str]) -> ModuleSource {
    ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|m| m.to_string()).collect(),
        also_in: Vec::new(),
    }
}

const GRID: &str = r#"
use crate::accumulate::Accumulate;

#[repr(C)]
pub struct Node {
    pub mass: f32,
    pub count: u32,
}

#[repr(C)]
pub struct Grid {
    pub nodes: *mut Node,
    pub capacity: u32,
}

impl Grid {
    pub fn node_mut(&mut self, id: u32) -> Option<&mut Node> {
        if id >= self.capacity {
            None
        } else {
            unsafe { Some(&mut *self.nodes.add(id as usize)) }
        }
    }
}
"#;

const ACCUMULATE: &str = r#"
pub trait Accumulate {
    unsafe fn accumulate(&mut self, rhs: Self);
}

impl Accumulate for u32 {
    unsafe fn accumulate(&mut self, rhs: Self) {
        *self = *self + rhs * 3;
    }
}

impl Accumulate for f32 {
    unsafe fn accumulate(&mut self, rhs: Self) {
        *self = *self + rhs * 2.0;
    }
}
"#;

const MERGE: &str = r#"
use cuda_std::thread;
use crate::accumulate::Accumulate;
use crate::grid::Grid;

#[kernel]
pub unsafe fn merge_nodes(mut grid: Grid, masses: *const f32) {
    let tid = thread::index_1d() as u32;
    let target = &mut *grid.node_mut(tid).unwrap();
    target.mass.accumulate(*masses.add(tid as usize));
}
"#;

#[test]
fn a_field_of_an_unimported_struct_picks_its_types_method() {
    let sources = Sources {
        inputs: vec![
            file("src/kernels.rs", MERGE, &["gpu", "kernels"]),
            file("src/grid.rs", GRID, &["gpu", "grid"]),
            file("src/accumulate.rs", ACCUMULATE, &["gpu", "accumulate"]),
            file(
                "src/lib.rs",
                "pub mod kernels;\npub mod grid;\npub mod accumulate;\n",
                &["gpu"],
            ),
        ],
        reported: 1,
        uses: Vec::new(),
        features: Default::default(),
    };
    let emitted = driver::emit_sources(&sources, &LaunchPlan::default());
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    assert!(program.contains("f32_accumulate(target->mass, "), "{program}");
    assert!(program.contains("rhs * 2.0"), "{program}");
    check_with_gxx(program);
}

const FLAGS: &str = r#"
bitflags::bitflags! {
    pub struct Bounds: u8 {
        const NONE = 0;
        const VELOCITY = 1 << 1;
    }
}

pub fn bounds() -> Bounds {
    Bounds::VELOCITY
}
"#;

const TIMESTEP: &str = r#"
use cuda_std::thread;
use core_model::Bounds;

#[kernel]
pub unsafe fn estimate_step(out: *mut f32) {
    let tid = thread::index_1d();
    let mut dt = 1.0f32;
    let bounds = core_model::bounds();
    if bounds.contains(Bounds::VELOCITY) {
        dt = 0.5;
    }
    *out.add(tid as usize) = dt;
}
"#;

#[test]
fn a_type_made_by_another_crates_macro_is_refused_naming_the_macro() {
    let sources = Sources {
        inputs: vec![
            file("src/kernels.rs", TIMESTEP, &["gpu", "kernels"]),
            file("src/lib.rs", "pub mod kernels;\n", &["gpu"]),
            file("core/lib.rs", FLAGS, &["core_model"]),
        ],
        reported: 1,
        uses: vec![CrateUse {
            from: "gpu".to_string(),
            name: "core_model".to_string(),
            root: "core_model".to_string(),
        }],
        features: Default::default(),
    };
    let emitted = driver::emit_sources(&sources, &LaunchPlan::default());
    let refused: Vec<&str> = emitted.manifest.not_lowered.iter().map(|n| n.reason.as_str()).collect();
    assert_eq!(
        refused,
        ["function `bounds` is not lowered: type `Bounds` is defined by macro `bitflags!`, which is not expanded"]
    );
}
