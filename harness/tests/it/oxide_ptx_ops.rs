//! cuda-oxide's generated PTX intrinsics are lowered to the one instruction each stands for,
//! spelled from its name; TMA copies and the Blackwell matrix forms are refused with why.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::{check_with_gxx, kernel};

const KERNELS: &str = include_str!("../data/cuda_oxide_ptx_ops.rs");

fn emitted() -> driver::Emitted {
    driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default())
}

fn reason(emitted: &driver::Emitted, name: &str) -> Option<String> {
    emitted
        .manifest
        .not_lowered
        .iter()
        .find(|n| n.kernel == name)
        .map(|n| n.reason.clone())
}

#[test]
fn scalar_float_intrinsics_are_their_ptx_instruction() {
    let emitted = emitted();
    let rounded = kernel(&emitted.program, "rounded");
    assert!(
        rounded.contains(
            "kl::array<double, 2> products = {KL_PTX_VALUE(double, \"mul.rn.f64 %0, %1, %2;\", \"=d\", \"d\"((double)(a)), \"d\"((double)(b))), KL_PTX_VALUE(double, \"fma.rz.f64 %0, %1, %2, %3;\""
        ),
        "{rounded}"
    );
    assert!(
        rounded.contains("auto s = KL_PTX_VALUE(float, \"sin.approx.f32 %0, %1;\", \"=f\", \"f\"((float)(x)));"),
        "{rounded}"
    );
    assert!(
        rounded.contains("auto m = KL_PTX_VALUE(float, \"min.ftz.NaN.xorsign.abs.f32 %0, %1, %2;\""),
        "{rounded}"
    );
    assert!(
        rounded.contains("auto k = KL_PTX_VALUE(unsigned short, \"min.f16 %0, %1, %2;\", \"=h\""),
        "{rounded}"
    );
}

#[test]
fn permutes_matrix_loads_and_wgmma_control_are_lowered() {
    let emitted = emitted();
    let permuted = kernel(&emitted.program, "permuted");
    assert!(
        permuted.contains(
            "kl::array<unsigned int, 2> values = {kl::prmt_mode<kl::PRMT_F4E>(a, b, c), kl::prmt_mode<kl::PRMT_RC8>(a, 0u, c)};"
        ),
        "{permuted}"
    );
    assert!(permuted.contains("auto t = kl::movmatrix_trans_b16(a);"), "{permuted}");
    let tiles = kernel(&emitted.program, "tiles");
    assert!(tiles.contains("auto pair = kl::ldmatrix<2, false>(row);"), "{tiles}");
    assert!(tiles.contains("auto quad = kl::ldmatrix<4, false>(row);"), "{tiles}");
    assert!(
        tiles.contains("KL_PTX_FENCE(\"wgmma.fence.sync.aligned;\");"),
        "{tiles}"
    );
    assert!(
        tiles.contains("KL_PTX_FENCE(\"wgmma.commit_group.sync.aligned;\");"),
        "{tiles}"
    );
    assert!(tiles.contains("kl::wgmma_wait_group<1>();"), "{tiles}");
    assert!(emitted
        .program
        .contains("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"));
}

#[test]
fn distributed_shared_memory_and_cluster_barriers_are_lowered() {
    let emitted = emitted();
    let neighbours = kernel(&emitted.program, "neighbours");
    assert!(
        neighbours.contains("auto next = kl::dsmem_read_u32(((const unsigned int*)((&CELL))), (((rank + 1)) % 4));"),
        "{neighbours}"
    );
    assert!(neighbours.contains("kl::mbarrier_init((&BAR), 1);"), "{neighbours}");
    assert!(
        neighbours.contains("kl::fence_mbarrier_init_release_cluster();"),
        "{neighbours}"
    );
    assert!(
        neighbours.contains("auto remote = kl::map_shared_rank((&BAR), 0);"),
        "{neighbours}"
    );
    assert!(
        neighbours.contains("kl::mbarrier_arrive_cluster(((unsigned long long)(remote)));"),
        "{neighbours}"
    );
    assert!(emitted
        .program
        .contains("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];"));
}

#[test]
fn tensor_map_copies_and_blackwell_matrix_forms_are_refused_with_why() {
    let emitted = emitted();
    let tma = reason(&emitted, "tensor_copy").unwrap_or_default();
    assert!(
        tma.contains("`cp_async_bulk_tensor_2d_g2s` (TMA) reads global memory through a `CUtensorMap`"),
        "{tma}"
    );
    let mma = reason(&emitted, "narrow_mma").unwrap_or_default();
    assert!(mma.contains("`mma_m16n8k32_f32_e2m1_e2m1`"), "{mma}");
    assert!(mma.contains("need sm_120a"), "{mma}");
}

#[test]
fn ptx_asm_is_cuda_asm_with_its_constraints() {
    let emitted = emitted();
    let inline = kernel(&emitted.program, "inline_asm");
    assert!(
        inline.contains("asm volatile(\"add.u32 %0, %1, %1;\" : \"=r\"(doubled) : \"r\"(x) : );"),
        "{inline}"
    );
    assert!(
        inline.contains(
            "asm volatile(\"add.u32 %0, %0, %1;\\n                 membar.gl;\" : \"+r\"(total) : \"r\"(doubled) : \"memory\");"
        ),
        "{inline}"
    );
}

#[test]
fn the_program_compiles() {
    check_with_gxx(&emitted().program);
}
