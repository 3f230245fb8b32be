//! Kernel parameters that are aggregates: a struct with array fields, set by the host element
//! by element; a generic struct of another file (`Uniform<u32>`), one C struct per
//! instantiation.

use kernel_lint_analyzer::{LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_harness::driver::{self, Sources};

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/oxide_aggregate_params.rs");

#[test]
fn array_fields_as_parameters() {
    let emitted = emit_one(KERNELS);
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    assert!(program.contains("  extent.sizes[2] = (unsigned int)"), "{program}");
    assert!(program.contains("  extent.wrap[1] = (bool)"), "{program}");
    let sizes = kernel(program, "extent_sizes");
    assert!(sizes.contains("(i % kl::len(extent.sizes))"), "{sizes}");
    check_with_gxx(program);
}

// The generic wrapper in the shape of cuda-oxide's `crates/cuda-device/src/uniform.rs`.
const WRAPPER: &str = r#"
#[repr(transparent)]
#[derive(Clone, Copy)]
pub struct Same<T> {
    value: T,
}
"#;

const WRAPPED: &str = r#"
use cuda_device::{DisjointSlice, kernel, thread};
use crate::same::Same;

#[kernel]
pub fn wrapped_width(width: Same<u32>, mut out: DisjointSlice<u32>) {
    let index = thread::index_1d();
    if let Some(slot) = out.get_mut(index) {
        *slot = index.get() as u32;
    }
}
"#;

#[test]
fn generic_struct_of_another_file_as_a_parameter() {
    let file = |path: &str, text: &str, module: &[&str]| ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|m| m.to_string()).collect(),
        also_in: Vec::new(),
    };
    let sources = Sources {
        inputs: vec![
            file("src/kernels.rs", WRAPPED, &["gpu", "kernels"]),
            file("src/same.rs", WRAPPER, &["gpu", "same"]),
            file("src/lib.rs", "pub mod kernels;\npub mod same;\n", &["gpu"]),
        ],
        reported: 1,
        uses: Vec::new(),
        features: Default::default(),
    };
    let emitted = driver::emit_sources(&sources, &LaunchPlan::default());
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    assert!(
        program.contains("struct Same_u32 {\n  unsigned int value;\n};"),
        "{program}"
    );
    assert!(program.contains("  width.value = (unsigned int)"), "{program}");
    check_with_gxx(program);
}
