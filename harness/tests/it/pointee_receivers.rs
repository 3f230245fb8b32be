//! A method defined for several types, called on a dereferenced pointer (`(&mut *count)
//! .global_atomic_dec()`) of a kernel parameter, is the one of the pointee's type; its
//! `self as *mut _` is the address of the receiver.
//!
//! Kernels in the shape of dimforge/sparkl (29cebe6e29bae35d9cc980e04db53ebee3230ade),
//! `src_kernels/cuda/sort.rs` with `src_kernels/cuda/atomic.rs`.

use kernel_lint_analyzer::{LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_harness::driver::{self, Sources};

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx};

fn emit(kernel: &str, counters: &str) -> driver::Emitted {
    let file = |path: &str, text: &str, module: &[&str]| ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|m| m.to_string()).collect(),
        also_in: Vec::new(),
    };
    let sources = Sources {
        inputs: vec![
            file("src/kernels.rs", kernel, &["gpu", "kernels"]),
            file("src/counters.rs", counters, &["gpu", "counters"]),
            file("src/lib.rs", "pub mod kernels;\npub mod counters;\n", &["gpu"]),
        ],
        reported: 1,
        uses: Vec::new(),
        features: Default::default(),
    };
    driver::emit_sources(&sources, &LaunchPlan::default())
}

const COUNTERS: &str = r#"
pub trait Countdown {
    unsafe fn take_one(&mut self) -> Self;
}

impl Countdown for u32 {
    unsafe fn take_one(&mut self) -> Self {
        let before = *self;
        let slot = self as *mut _;
        *slot = before - 1;
        before
    }
}

impl Countdown for u64 {
    unsafe fn take_one(&mut self) -> Self {
        let before = *self;
        *self = before - 2;
        before
    }
}
"#;

const KERNELS: &str = r#"
use cuda_std::thread;
use crate::counters::Countdown;

#[kernel]
pub unsafe fn claim_slots(remaining: *mut u32, slots: *mut u32) {
    let id = thread::index_1d();
    let slot = (&mut *remaining).take_one() - 1;
    *slots.add(slot as usize) = id;
}
"#;

#[test]
fn a_dereferenced_pointer_picks_the_method_of_its_pointee() {
    let emitted = emit(KERNELS, COUNTERS);
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    assert!(program.contains("auto slot = kl::mut_ptr((&self));"), "{program}");
    assert!(program.contains("before - 1"), "{program}");
    assert!(!program.contains("before - 2"), "{program}");
    check_with_gxx(program);
}
