//! Methods of an impl generic over its struct's type parameters (`impl<T> Stack<T>`), of
//! another file than the kernel's, lower as function templates over a class template of the
//! struct: `Stack::new(ptr, ..)` leaves `T` to C++'s deduction from the pointer's type, as
//! rustc infers it, and each method takes the instance as its receiver.
//!
//! Kernels in the shape of patrickcsullivan/nn_cuda (3ad7b794b902e9eb1c8f2dc10a31c6366217b2d9),
//! `rtree_gpu/src/kernels.rs` with `rtree_gpu/src/shared_stack.rs`.

use kernel_lint_analyzer::{LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_harness::driver::{self, Sources};

use crate::support;
use support::check_with_gxx;

/// Emits crate `gpu` holding `kernels` (the reported file) and a sibling module `stack`.
fn emit(kernel: &str, stack: &str) -> driver::Emitted {
    let file = |path: &str, text: &str, module: &[&str]| ModuleSource {
        source: SourceFile::new(path, text),
        module: module.iter().map(|m| m.to_string()).collect(),
        also_in: Vec::new(),
    };
    let sources = Sources {
        inputs: vec![
            file("src/kernels.rs", kernel, &["gpu", "kernels"]),
            file("src/stack.rs", stack, &["gpu", "stack"]),
            file("src/lib.rs", "pub mod kernels;\npub mod stack;\n", &["gpu"]),
        ],
        reported: 1,
        uses: Vec::new(),
        features: Default::default(),
    };
    driver::emit_sources(&sources, &LaunchPlan::default())
}

const KERNELS: &str = r#"
use cuda_std::{prelude::*, shared_array, thread};
use crate::stack::WorkStack;

#[kernel]
pub unsafe fn drain_frontier(starts: &[u32], out: *mut u32) {
    let t = thread::thread_idx_x() as usize;
    let slots = shared_array![u32; 16];
    let count = shared_array![usize; 1];
    let mut stack = WorkStack::new(slots, count, 16);
    thread::sync_threads();
    stack.push(starts[t]);
    thread::sync_threads();
    if let Some(top) = stack.peek() {
        *out.add(t) = top;
    }
    stack.drop_top();
}
"#;

const STACK: &str = r#"
use cuda_std::thread::thread_idx_x;

pub struct WorkStack<T> {
    items: *mut T,
    len: *mut usize,
    capacity: usize,
}

impl<T> WorkStack<T>
where
    T: Copy,
{
    pub fn new(items_ptr: *mut T, len_ptr: *mut usize, capacity: usize) -> Self {
        if thread_idx_x() == 0 {
            unsafe { *len_ptr = 0; }
        }
        Self { items: items_ptr, len: len_ptr, capacity }
    }

    pub fn push(&mut self, item: T) {
        if thread_idx_x() == 0 {
            unsafe {
                let len = *self.len;
                if len < self.capacity {
                    *self.items.add(len) = item;
                    *self.len = len + 1;
                }
            }
        }
    }

    pub fn drop_top(&mut self) {
        if thread_idx_x() == 0 {
            unsafe {
                let len = *self.len;
                if len > 0 {
                    *self.len = len - 1;
                }
            }
        }
    }

    pub fn peek(&self) -> Option<T> {
        unsafe {
            let len = *self.len;
            if len > 0 {
                Some(*self.items.add(len - 1))
            } else {
                None
            }
        }
    }
}
"#;

#[test]
fn generic_impl_methods_are_templates_over_a_class_template() {
    let emitted = emit(KERNELS, STACK);
    let program = &emitted.program;
    assert!(emitted.errors.is_empty(), "{:?}", emitted.errors);
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    assert!(program.contains("template <typename T> struct WorkStack {\n  T* items;\n  unsigned long long* len;\n  unsigned long long capacity;\n};"), "{program}");
    check_with_gxx(program);
}
