//! A kernel inside an inline module (`#[cuda_module] pub mod kernels { use super::*; .. }`) names
//! types through that module's own `use`s, here a struct of another module.
//!
//! Kernels in the shape of NVlabs/cuda-oxide (a105afd522b73a6712a802e30bd900cd04cc8019), whose
//! examples write their kernels in `mod kernels` and import from there.

use kernel_lint_analyzer::{LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_harness::driver::{self, Sources};

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx};

const KERNELS: &str = r#"
use cuda_device::{cuda_module, kernel, thread, DisjointSlice};

#[cuda_module]
pub mod kernels {
    use super::*;
    use crate::body::Body;

    #[kernel]
    pub fn masses(bodies: &[Body], mut out: DisjointSlice<f32>) {
        let i = thread::index_1d();
        if let Some(slot) = out.get_mut(i) {
            *slot = bodies[i.get()].mass;
        }
    }
}
"#;

const BODY: &str = r#"
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Body {
    pub position: [f32; 3],
    pub mass: f32,
}
"#;

#[test]
fn an_inline_module_names_types_through_its_own_uses() {
    let file = |path: &str, text: &str, module: &[&str]| ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|m| m.to_string()).collect(),
        also_in: Vec::new(),
    };
    let sources = Sources {
        inputs: vec![
            file("src/kernels.rs", KERNELS, &["app", "kernels_file"]),
            file("src/body.rs", BODY, &["app", "body"]),
            file("src/lib.rs", "pub mod kernels_file;\npub mod body;\n", &["app"]),
        ],
        reported: 1,
        uses: Vec::new(),
        features: Default::default(),
    };
    let emitted = driver::emit_sources(&sources, &LaunchPlan::default());
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert_every_kernel_lowered(&emitted);
    let launched: Vec<_> = emitted.manifest.launches.iter().map(|l| l.kernel.as_str()).collect();
    assert_eq!(launched, ["masses"]);
    let program = &emitted.program;
    assert!(program.contains("struct Body {"), "{program}");
    assert!(program.contains("const Body* bodies"), "{program}");
    assert!(program.contains("(*slot) = bodies[i].mass;"), "{program}");
    check_with_gxx(program);
}
