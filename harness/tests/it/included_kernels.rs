//! Kernels in a file that the crate root pulls in with `include!("kernels.rs")`: the file has no
//! imports of its own (`use super::*` reaches the root's), so the dialect is known from the
//! `#[cuda_module]` attribute and names resolve through the root module.
//!
//! In the shape of NVlabs/cuda-oxide (a105afd522b73a6712a802e30bd900cd04cc8019), whose
//! gemm_sol_final example keeps its kernels in an included `kernels.rs`.

use kernel_lint_analyzer::{LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_harness::driver::{self, Sources};

use crate::support;
use support::check_with_gxx;

const MAIN: &str = r#"
use cuda_device::tcgen05::tcgen05_alloc;
use cuda_device::{cuda_module, kernel, thread, DisjointSlice};

include!("kernels.rs");

fn main() {}
"#;

const KERNELS: &str = r#"
#[cuda_module]
mod kernels {
    use super::*;

    #[kernel]
    pub fn scale(input: &[f32], mut out: DisjointSlice<f32>) {
        let i = thread::index_1d();
        if let Some(slot) = out.get_mut(i) {
            *slot = input[i.get()] * 2.0;
        }
    }

    #[kernel]
    pub fn tensor_memory(mut out: DisjointSlice<u32>) {
        static mut ADDR: u32 = 0;
        unsafe { tcgen05_alloc(&raw mut ADDR, 32) };
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = 1;
        }
    }
}
"#;

#[test]
fn kernels_of_an_included_file_lower_through_the_root_imports() {
    let file = |path: &str, text: &str| ModuleSource {
        source: SourceFile::new(path, text),
        module: vec!["app".to_string()],
        also_in: Vec::new(),
    };
    let sources = Sources {
        inputs: vec![file("src/kernels.rs", KERNELS), file("src/main.rs", MAIN)],
        reported: 1,
        uses: Vec::new(),
        features: Default::default(),
    };
    let emitted = driver::emit_sources(&sources, &LaunchPlan::default());
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    let launched: Vec<_> = emitted.manifest.launches.iter().map(|l| l.kernel.as_str()).collect();
    assert_eq!(launched, ["scale"]);
    let refused: Vec<_> = emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (n.kernel.as_str(), n.reason.as_str()))
        .collect();
    assert_eq!(
        refused,
        [(
            "tensor_memory",
            "`tcgen05_alloc` needs sm_100 (Blackwell), which the H100/H200 harness machine cannot run"
        )]
    );
    let program = &emitted.program;
    assert!(program.contains("(*slot) = (input[i] * 2.0f);"), "{program}");
    check_with_gxx(program);
}

/// `cuda_device` includes its generated intrinsics (`include!("generated/debug_control.rs")`):
/// a wrapper whose body only calls a `__` stub still stands for the instruction.
const LIBRARY_DEBUG: &str = r#"
pub fn prof_trigger<const N: u32>() {
    __prof_trigger(N);
}

#[doc(hidden)]
#[inline(never)]
pub(crate) fn __prof_trigger(_event_id: u32) {
    unreachable!("prof_trigger called outside CUDA kernel context")
}
"#;

const PROFILED: &str = r#"
use cuda_device::debug::prof_trigger;
use cuda_device::{kernel, thread, DisjointSlice};

#[kernel]
pub fn profiled(mut out: DisjointSlice<u32>) {
    prof_trigger::<3>();
    if let Some(slot) = out.get_mut(thread::index_1d()) {
        *slot = 7;
    }
}
"#;

#[test]
fn a_generated_wrapper_of_a_stub_is_the_instruction() {
    let file = |path: &str, text: &str, module: &[&str]| ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|m| m.to_string()).collect(),
        also_in: Vec::new(),
    };
    let sources = Sources {
        inputs: vec![
            file("src/main.rs", PROFILED, &["app"]),
            file(
                "device/src/generated/debug_control.rs",
                LIBRARY_DEBUG,
                &["cuda_device", "debug"],
            ),
            file("device/src/lib.rs", "pub mod debug;\n", &["cuda_device"]),
        ],
        reported: 1,
        uses: vec![kernel_lint_analyzer::CrateUse {
            from: "app".into(),
            name: "cuda_device".into(),
            root: "cuda_device".into(),
        }],
        features: Default::default(),
    };
    let emitted = driver::emit_sources(&sources, &LaunchPlan::default());
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let program = &emitted.program;
    assert!(program.contains("\n__prof_trigger(3);\n"), "{program}");
    // No helper of that name is defined: the call is the instruction.
    assert_eq!(program.matches("prof_trigger").count(), 1, "{program}");
    check_with_gxx(program);
}
