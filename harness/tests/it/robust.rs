//! One kernel never sinks the others: launches whose buffers would not fit are scaled down,
//! kernels whose twin does not compile are left out of the build, and calls to functions the
//! harness never defines keep a kernel from being lowered.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver::{self, MAX_BUFFER_BYTES, MAX_LAUNCH_BYTES};

use crate::support;

const HUGE: &str = r#"
use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn square(a: *mut f32, n: u32) {
    let row = thread::index_1d() as usize;
    for col in 0..n as usize {
        *a.add(row * n as usize + col) = 1.0;
    }
}
"#;

const TWO: &str = r#"
use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn first(a: *mut f32, n: u32) {
    let i = thread::index_1d() as usize;
    if i < n as usize {
        *a.add(i) = 1.0;
    }
}

#[kernel]
pub unsafe fn second(b: *mut f32, n: u32) {
    let i = thread::index_1d() as usize;
    if i < n as usize {
        *b.add(i) = 2.0;
    }
}
"#;

fn emit(text: &str) -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", text)], &LaunchPlan::default())
}

#[test]
fn a_launch_whose_buffers_would_not_fit_is_scaled_down_with_a_note() {
    let emitted = emit(HUGE);
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let launch = &emitted.manifest.launches[0];
    assert_eq!(launch.defaulted, ["n"]);
    let total: u64 = launch.buffers.iter().map(|b| b.bytes).sum();
    assert!(total <= MAX_LAUNCH_BYTES, "{total}");
    assert!(
        launch.buffers.iter().all(|b| b.bytes <= MAX_BUFFER_BYTES),
        "{:?}",
        launch.buffers
    );
    assert!(launch.grid[0] < driver::DEFAULT_THREADS / 256, "{:?}", launch.grid);
    assert_eq!(launch.block, [256, 1, 1]);
    assert_eq!(launch.notes.len(), 1, "{:?}", launch.notes);
    let note = &launch.notes[0];
    assert!(note.starts_with("scaled down to fit the device"), "{note}");
    assert!(note.contains("grid [4096, 1, 1] to ["), "{note}");
    assert!(note.contains("defaulted `n` 1048576 to "), "{note}");
    // The program allocates what the manifest records.
    let bytes = launch.buffers[0].bytes;
    assert!(emitted.program.contains(&format!("cudaMalloc((void**)&a, {bytes}ull)")));
}

#[test]
fn a_narrow_parameter_left_to_its_default_is_held_to_its_type() {
    // The default is the thread count, 1048576: as a `u16` it would wrap to 0 and the kernel
    // would return before any access.
    let text = r#"
use cuda_std::prelude::*;
use cuda_std::thread;

#[kernel]
pub unsafe fn fade(a: *mut u8, iterations: u16, n: u32) {
    let i = thread::index_1d() as usize;
    if i < iterations as usize && i < n as usize {
        *a.add(i) = 1;
    }
}
"#;
    let emitted = emit(text);
    let launch = &emitted.manifest.launches[0];
    assert_eq!(launch.kernel, "fade");
    let call = emitted
        .program
        .lines()
        .find(|l| l.contains("fade<<<"))
        .expect("the launch is written");
    assert!(
        call.ends_with("(a, (unsigned short)65535ll, (unsigned int)1048576ll);"),
        "{call}"
    );
}

#[test]
fn a_kernel_that_prints_runs_a_few_blocks_with_a_note() {
    // In the shape of Neutron3529/cuda_min @ 6694f8bb (mul_pipeline): every thread prints.
    let text = r#"
use core::arch::nvptx::*;

#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn shout(output: *mut i32) {
    unsafe {
        let index = _block_idx_x() * _block_dim_x() + _thread_idx_x();
        *output.wrapping_add(index as usize) = 1;
        vprintf("hi\0".as_ptr(), core::ptr::null());
    }
}
"#;
    let emitted = emit(text);
    let launch = &emitted.manifest.launches[0];
    assert_eq!(launch.kernel, "shout");
    assert_eq!(launch.grid, [driver::PRINTING_BLOCKS, 1, 1]);
    assert!(launch.notes.contains(
        &"prints from its threads: launched with 2 blocks, as every printed line passes through each replay of the profiler"
            .to_string()
    ));
    assert!(emitted
        .program
        .contains("shout<<<dim3(2u, 1u, 1u), dim3(256u, 1u, 1u)>>>"));
}

#[test]
fn a_launch_that_fits_is_left_as_asked() {
    let emitted = emit(TWO);
    assert!(emitted.manifest.launches.iter().all(|l| l.notes.is_empty()));
}

#[test]
fn a_kernel_whose_twin_fails_to_compile_is_left_out_and_the_rest_built() {
    let emitted = emit(TWO);
    assert_eq!(emitted.manifest.launches.len(), 2);
    let mut calls = Vec::new();
    // A compiler that rejects any program holding `second`.
    let built = driver::build_surviving(&emitted, |batch| {
        batch
            .iter()
            .map(|launches| {
                let program = emitted.parts.program(launches);
                calls.push(program.clone());
                if program.contains("void second(") {
                    Err("k.rs(22): error: something `second` needs\n1 error detected".to_string())
                } else {
                    Ok(())
                }
            })
            .collect()
    });
    assert_eq!(built.error, None);
    assert_eq!(built.failures.len(), 1);
    assert_eq!(built.failures[0].kernel, "second");
    assert_eq!(built.failures[0].file, "k.rs");
    assert_eq!(
        built.failures[0].message,
        "k.rs(22): error: something `second` needs\n1 error detected"
    );
    // The whole program, each kernel's own, then the rest, which is the program returned.
    assert_eq!(calls.len(), 4);
    assert_eq!(calls[0], emitted.program);
    assert!(calls[1].contains("void first(") && !calls[1].contains("void second("));
    assert_eq!(calls.last(), Some(&built.program));
    assert!(built.program.contains("void first(") && !built.program.contains("kl_launch_1"));
    assert_eq!(built.manifest.launches.len(), 1);
    assert_eq!(built.manifest.launches[0].kernel, "first");
    assert_eq!(built.manifest.launches[0].index, 0);
    let dropped = &built.manifest.not_lowered;
    assert_eq!(dropped.len(), 1);
    assert_eq!(dropped[0].kernel, "second");
    assert!(dropped[0]
        .reason
        .starts_with("the compiler rejects its twin: k.rs(22): error"));
}

#[test]
fn only_the_kernels_of_the_files_the_compiler_names_are_built_alone() {
    let third = TWO.replace("first", "third").replace("second", "fourth");
    let files = [SourceFile::new("a.rs", TWO), SourceFile::new("b.rs", &third)];
    let emitted = driver::emit(&files, &LaunchPlan::default());
    assert_eq!(emitted.manifest.launches.len(), 4);
    let mut calls = Vec::new();
    let built = driver::build_surviving(&emitted, |batch| {
        batch
            .iter()
            .map(|launches| {
                let program = emitted.parts.program(launches);
                calls.push(program.clone());
                if program.contains("void fourth(") {
                    Err("b.rs(31): error: something `fourth` needs".to_string())
                } else {
                    Ok(())
                }
            })
            .collect()
    });
    assert_eq!(built.error, None);
    let failed: Vec<&str> = built.failures.iter().map(|f| f.kernel.as_str()).collect();
    assert_eq!(failed, ["fourth"]);
    // The whole program; without b.rs's kernels (it builds); b.rs's two alone; the rest.
    assert_eq!(calls.len(), 5);
    assert!(!calls[1].contains("void third(") && calls[1].contains("void second("));
    assert!(calls[2].contains("void third(") && !calls[2].contains("void first("));
    let kept: Vec<&str> = built.manifest.launches.iter().map(|l| l.kernel.as_str()).collect();
    assert_eq!(kept, ["first", "second", "third"]);
}

#[test]
fn a_split_program_holds_each_file_once_and_its_main_calls_every_launch() {
    let third = TWO.replace("first", "third").replace("second", "fourth");
    let files = [SourceFile::new("a.rs", TWO), SourceFile::new("b.rs", &third)];
    let emitted = driver::emit(&files, &LaunchPlan::default());
    let all: Vec<usize> = (0..4).collect();
    let split = emitted.parts.split(&all, 8);
    // One unit a file at most, each with its kernels and their launchers only.
    assert_eq!(split.units.len(), 2);
    for (unit, (mine, theirs)) in split
        .units
        .iter()
        .zip([(["first", "second"], "third"), (["third", "fourth"], "first")])
    {
        for name in mine {
            assert_eq!(unit.matches(&format!("__global__ void {name}(")).count(), 1);
        }
        assert!(!unit.contains(&format!("void {theirs}(")));
        assert!(!unit.contains("int main()"));
    }
    assert!(split.units[0].contains("void kl_launch_0()") && split.units[0].contains("void kl_launch_1()"));
    assert!(split.units[1].contains("void kl_launch_2()") && split.units[1].contains("void kl_launch_3()"));
    assert!(split.main.contains("namespace kl_file1 { void kl_launch_3(); }"));
    assert!(split
        .main
        .contains("  if (!kl_skipped(3)) { kl_file1::kl_launch_3(); ran++; }"));
    assert!(!split.main.contains("__global__"));
    // The units and `main` link: nothing is defined twice.
    let mut units: Vec<&str> = split.units.iter().map(String::as_str).collect();
    units.push(&split.main);
    support::link_with_gxx(&units);
    // Asked for one piece, the one unit holds both files; a subset keeps only its files.
    assert_eq!(emitted.parts.split(&all, 1).units.len(), 1);
    let second_file = emitted.parts.split(&[2], 8);
    assert_eq!(second_file.units.len(), 1);
    assert!(second_file.units[0].contains("__global__ void third(") && !second_file.units[0].contains("void fourth("));
    assert!(!second_file.main.contains("kl_launch_0"));
}

#[test]
fn a_program_that_builds_is_built_once() {
    let emitted = emit(TWO);
    let mut calls = 0;
    let built = driver::build_surviving(&emitted, |batch| {
        calls += batch.len();
        batch.iter().map(|_| Ok(())).collect()
    });
    assert_eq!(calls, 1);
    assert_eq!(built.program, emitted.program);
    assert_eq!(built.manifest, emitted.manifest);
    assert!(built.failures.is_empty() && built.error.is_none());
}

#[test]
fn a_failure_no_kernel_explains_is_reported() {
    let emitted = emit(TWO);
    let built = driver::build_surviving(&emitted, |batch| {
        batch
            .iter()
            .map(|launches| {
                let program = emitted.parts.program(launches);
                if program.contains("void first(") && program.contains("void second(") {
                    Err("error: both".to_string())
                } else {
                    Ok(())
                }
            })
            .collect()
    });
    assert!(built.failures.is_empty());
    assert_eq!(built.error.as_deref(), Some("error: both"));
}

#[test]
fn a_call_to_an_undefined_function_keeps_the_kernel_from_being_lowered() {
    let text = r#"
use cuda_std::prelude::*;
use cuda_std::thread;

fn helper(x: u32) -> u32 {
    x * 2
}

fn broken(x: u32) -> u32 {
    primitive_index() + x
}

fn calls_broken(x: u32) -> u32 {
    broken(x) + 1
}

#[kernel]
pub unsafe fn good(a: *mut u32) {
    let i = thread::index_1d() as usize;
    *a.add(i) = helper(i as u32);
}

#[kernel]
pub unsafe fn bad(a: *mut u32) {
    let i = thread::index_1d() as usize;
    *a.add(i) = primitive_index();
}

#[kernel]
pub unsafe fn indirect(a: *mut u32) {
    let i = thread::index_1d() as usize;
    *a.add(i) = calls_broken(i as u32);
}
"#;
    let emitted = emit(text);
    let launched: Vec<&str> = emitted.manifest.launches.iter().map(|l| l.kernel.as_str()).collect();
    assert_eq!(launched, ["good"]);
    let reasons: Vec<(&str, &str)> = emitted
        .manifest
        .not_lowered
        .iter()
        .map(|n| (n.kernel.as_str(), n.reason.as_str()))
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert_eq!(
        reasons[0],
        (
            "bad",
            "call to `primitive_index` is not lowered: no helper or builtin of that name"
        )
    );
    assert_eq!(reasons[1].0, "indirect");
    assert!(
        reasons[1].1.starts_with("helper `calls_broken` is not lowered"),
        "{}",
        reasons[1].1
    );
    assert!(!emitted.program.contains("primitive_index"));
}

#[test]
fn a_launch_that_cannot_fit_even_scaled_down_is_listed_not_emitted() {
    let text = r#"
use cuda_std::thread;

#[kernel]
pub unsafe fn far(a: *mut f32) {
    *a.add(1usize << 40) = 1.0;
}

#[kernel]
pub unsafe fn near(b: *mut f32) {
    *b.add(thread::index_1d() as usize) = 1.0;
}
"#;
    let emitted = emit(text);
    let launched: Vec<&str> = emitted.manifest.launches.iter().map(|l| l.kernel.as_str()).collect();
    assert_eq!(launched, ["near"]);
    let dropped = &emitted.manifest.not_lowered;
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert_eq!(dropped[0].kernel, "far");
    assert!(
        dropped[0].reason.starts_with("its buffers need "),
        "{}",
        dropped[0].reason
    );
    assert!(dropped[0].reason.contains("even scaled down"), "{}", dropped[0].reason);
    assert!(!emitted.program.contains("void far("));
}
