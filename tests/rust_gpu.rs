//! rust-gpu compute shaders are analyzed like CUDA kernels: the block from
//! `#[spirv(compute(threads(..)))]`, the thread geometry from the builtin parameters, storage
//! buffers as global memory, uniforms and push constants as values of the dispatch, workgroup
//! arrays as shared memory.

use kernel_lint_analyzer::{
    analyze_source, AccessClass, BlockSource, FileReport, KernelReport, LaunchPlan, LaunchSpec, MemorySpace, Op,
    SourceFile,
};
use std::path::Path;
use std::process::Command;

use AccessClass::{Aos, Broadcast, Coalesced, Strided, Transposed};
use MemorySpace::{Global, Shared};
use Op::{Load, Store};

fn analyze(src: &str, plan: &LaunchPlan) -> FileReport {
    analyze_source(&SourceFile::new("k.rs", src), plan).expect("parses")
}

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/dialects").join(name);
    std::fs::read_to_string(path).expect("fixture")
}

/// The kernel named `name`, found and analyzed with nothing left out.
fn kernel<'a>(report: &'a FileReport, name: &str) -> &'a KernelReport {
    let found = report
        .kernels
        .iter()
        .find(|k| k.name == name)
        .unwrap_or_else(|| panic!("kernel `{name}` not found"));
    assert!(found.unsupported.is_empty(), "{name}: {:?}", found.unsupported);
    assert!(!found.accesses.is_empty(), "{name}: no accesses");
    found
}

type Row = (String, Op, MemorySpace, Option<AccessClass>, Option<f64>);

/// (array, op, space, class, sectors per request) of every access of a kernel, in order.
fn rows(kernel: &KernelReport) -> Vec<Row> {
    kernel
        .accesses
        .iter()
        .map(|a| {
            let p = a.prediction.as_ref();
            (
                a.array.clone(),
                a.op,
                a.space,
                p.map(|p| p.class),
                p.and_then(|p| p.sectors_per_request),
            )
        })
        .collect()
}

fn global(array: &str, op: Op, class: AccessClass, sectors: f64) -> Row {
    (array.to_string(), op, Global, Some(class), Some(sectors))
}

fn shared(array: &str, op: Op) -> Row {
    (array.to_string(), op, Shared, None, None)
}

fn block(kernel: &KernelReport) -> ([u32; 3], BlockSource) {
    (kernel.launch.block, kernel.launch.block_source)
}

#[test]
fn the_fixture_shaders_with_the_block_of_their_attribute() {
    let report = analyze(&fixture("rust_gpu.rs"), &LaunchPlan::default());
    assert!(report.unsupported.is_empty(), "{:?}", report.unsupported);
    assert!(report.unanalyzed.is_empty());
    let names: Vec<&str> = report.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(
        names,
        ["double_all", "first_of_four", "total_mass", "transpose", "workgroup_sum"]
    );

    let k = kernel(&report, "double_all");
    assert_eq!(block(k), ([64, 1, 1], BlockSource::Attribute));
    assert_eq!(
        rows(k),
        [global("values", Load, Coalesced, 4.0), global("values", Store, Coalesced, 4.0)]
    );

    let k = kernel(&report, "first_of_four");
    assert_eq!(
        rows(k),
        [global("input", Load, Strided, 16.0), global("output", Store, Coalesced, 4.0)]
    );

    let k = kernel(&report, "total_mass");
    assert_eq!(block(k), ([128, 1, 1], BlockSource::Attribute));
    assert_eq!(rows(k), [global("bodies", Load, Aos, 16.0), global("masses", Store, Coalesced, 4.0)]);

    let k = kernel(&report, "transpose");
    assert_eq!(block(k), ([32, 8, 1], BlockSource::Attribute));
    assert_eq!(
        rows(k),
        [global("input", Load, Coalesced, 4.0), global("output", Store, Transposed, 32.0)]
    );

    let k = kernel(&report, "workgroup_sum");
    assert_eq!(block(k), ([256, 1, 1], BlockSource::Attribute));
    assert_eq!(
        rows(k),
        [
            global("input", Load, Coalesced, 4.0),
            shared("partial", Store),
            shared("partial", Load),
            shared("partial", Load),
            shared("partial", Store),
            shared("partial", Load),
            global("sums", Store, Broadcast, 1.0),
        ]
    );
}

#[test]
fn the_matrix_products_naive_and_tiled() {
    let report = analyze(&fixture("rust_gpu_matmul.rs"), &LaunchPlan::default());
    let naive = kernel(&report, "matmul_naive");
    assert_eq!(block(naive), ([16, 16, 1], BlockSource::Attribute));
    assert_eq!(
        rows(naive),
        [
            global("a", Load, Transposed, 16.0),
            global("b", Load, Coalesced, 1.0),
            global("result", Store, Transposed, 16.0),
        ]
    );
    let tiled = kernel(&report, "matmul_tiled");
    assert_eq!(block(tiled), ([16, 16, 1], BlockSource::Attribute));
    assert_eq!(
        rows(tiled),
        [
            global("a", Load, Coalesced, 4.0),
            shared("tile_a", Store),
            global("b", Load, Coalesced, 4.0),
            shared("tile_b", Store),
            shared("tile_a", Load),
            shared("tile_b", Load),
            global("result", Store, Coalesced, 4.0),
        ]
    );
    // The workgroup tiles are indexed by the thread index like a `__shared__` array.
    let indices: Vec<(&str, &str, u64)> = tiled
        .accesses
        .iter()
        .filter(|a| a.space == Shared)
        .map(|a| (a.array.as_str(), a.index.as_str(), a.elem_bytes))
        .collect();
    assert_eq!(
        indices,
        [
            ("tile_a", "ty][tx", 4),
            ("tile_b", "ty][tx", 4),
            ("tile_a", "ty][i", 4),
            ("tile_b", "i][tx", 4),
        ]
    );
}
