//! A local `macro_rules!` whose repetition binds a name in some rounds only (a nested optional
//! part) is left unexpanded, and the file's other macros and kernels still lower.

use crate::support;
use support::{assert_every_kernel_lowered, emit_one};

const KERNELS: &str = r#"
use cuda_std::prelude::*;

macro_rules! weights {
    ($($name:ident $(* $scale:literal)? = $value:literal),*) => { $(const $name: f32 = $value $(* $scale)?;)* };
}
weights!(A * 0.5 = 1.0, B = 2.0);

macro_rules! constant {
    ($name:ident = $value:expr) => { const $name: f32 = $value; };
}
constant!(C = 1.5);

#[kernel]
pub unsafe fn fill(out: *mut f32) {
    let i = thread::index_1d() as usize;
    *out.add(i) = C;
}
"#;

#[test]
fn a_name_bound_in_some_rounds_only_leaves_the_invocation() {
    let emitted = emit_one(KERNELS);
    assert_every_kernel_lowered(&emitted);
    let launched: Vec<_> = emitted.manifest.launches.iter().map(|l| l.kernel.as_str()).collect();
    assert_eq!(launched, ["fill"]);
    let program = &emitted.program;
    assert!(program.contains("constexpr float C = 1.5f;"), "{program}");
    assert!(!program.contains("float A ="), "{program}");
    assert!(program.contains("(*(out + i)) = C;"), "{program}");
}
