//! cuda-oxide's cooperative groups, grid barrier and dynamic shared memory are lowered: group
//! handles as the `kl::cg_*` values, the reductions over them, `grid::sync()` under a
//! cooperative launch, `DynamicSharedArray` with dynamic shared memory given by the launch.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/oxide_groups.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

#[test]
fn every_kernel_lowers_and_the_program_compiles() {
    let emitted = emitted();
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    check_with_gxx(&emitted.program);
}

#[test]
fn warp_tiles_and_their_collectives_are_group_values() {
    let program = emitted().program;
    let votes = kernel(&program, "tile_votes");
    assert!(votes.contains("auto tile = kl::cg_tile<16>{};"), "{votes}");
    assert!(
        votes.contains("auto votes = kl::cg(tile).ballot((((kl::lane() & 1)) != 0));"),
        "{votes}"
    );
    assert!(votes.contains("auto first = kl::cg(tile).shfl(votes, 0);"), "{votes}");
    // A helper takes the tile by reference: the group of the parameter.
    assert!(
        program.contains("__device__ inline float tile_total(const kl::cg_tile<32>* tile, float v)"),
        "{program}"
    );
    assert!(
        program.contains("return kl::cg_warp_reduce<float, kl::cg_sum>(kl::cg(tile), v);"),
        "{program}"
    );
    let sums = kernel(&program, "warp_sums");
    assert!(
        sums.contains("kl::cg_warp_scan<float, kl::cg_max>(kl::cg((&warp)), data[i])"),
        "{sums}"
    );
    let block = kernel(&program, "block_sums");
    assert!(
        block.contains("kl::cg_block_reduce<unsigned int, kl::cg_sum>(kl::cg((&block)), data[i], (&SCRATCH))"),
        "{block}"
    );
    assert!(block.contains("kl::cg(block).sync();"), "{block}");
    let buckets = kernel(&program, "buckets");
    assert!(
        buckets.contains("auto peers = kl::cg_match_any(4294967295u, (unsigned int)((kl::lane() / 4)));"),
        "{buckets}"
    );
    assert!(
        buckets.contains("auto same = kl::cg_match_all(4294967295u, (unsigned int)(7u));"),
        "{buckets}"
    );
    assert!(
        buckets.contains("auto group = kl::cg_coalesced_threads();"),
        "{buckets}"
    );
    assert!(buckets.contains("kl::cg(group).size()"), "{buckets}");
}

#[test]
fn grid_barrier_kernels_are_launched_cooperatively_on_a_resident_grid() {
    let emitted = emitted();
    let marks = kernel(&emitted.program, "grid_marks");
    assert!(marks.contains("kl::cg_grid_sync();"), "{marks}");
    assert!(
        marks.contains("auto rank = kl::cg(kl::cg_grid{}).thread_rank();"),
        "{marks}"
    );
    assert!(
        emitted.program.contains(
            "KL_CHECK(kl::launch_ex(grid_marks, dim3(132u, 1u, 1u), dim3(256u, 1u, 1u), 0u, true, dim3(1u, 1u, 1u), marks, "
        ),
        "{}",
        emitted.program
    );
    let record = emitted
        .manifest
        .launches
        .iter()
        .find(|l| l.kernel == "grid_marks")
        .expect("grid_marks is launched");
    assert_eq!(record.grid, [132, 1, 1]);
    assert!(
        record.notes.iter().any(|n| n.contains("cooperative launch")),
        "{:?}",
        record.notes
    );
    // The other kernels keep the plain launch.
    assert!(emitted.program.contains("tile_votes<<<"), "{}", emitted.program);
}

#[test]
fn dynamic_shared_arrays_point_into_the_launch_s_dynamic_shared_memory() {
    let emitted = emitted();
    let staged = kernel(&emitted.program, "staged_neighbours");
    assert!(
        staged.contains("float* stage = kl::dyn_shared<float, 128>(0ull);"),
        "{staged}"
    );
    assert!(
        staged.contains("float* second = kl::dyn_shared<float, 16>((unsigned long long)(1024));"),
        "{staged}"
    );
    assert!(
        emitted
            .program
            .contains("KL_CHECK(kl::launch_ex(staged_neighbours, dim3(4096u, 1u, 1u), dim3(256u, 1u, 1u), 49152u, false, dim3(1u, 1u, 1u), "),
        "{}",
        emitted.program
    );
    let record = emitted
        .manifest
        .launches
        .iter()
        .find(|l| l.kernel == "staged_neighbours")
        .expect("launched");
    assert!(
        record
            .notes
            .iter()
            .any(|n| n.contains("49152 bytes of dynamic shared memory")),
        "{:?}",
        record.notes
    );
}
