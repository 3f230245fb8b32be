//! nalgebra's fixed-size types are C++ templates of the same layout; items and statements are
//! lowered as the crate's features compile them; `DevicePointer` fields are device pointers.

use kernel_lint_analyzer::{CrateUse, LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_harness::driver::{self, Sources};
use std::collections::{BTreeMap, BTreeSet};

use crate::support;
use support::{check_with_gxx, kernel};

fn without_line_directives(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("#line"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn matrices_vectors_and_points_keep_nalgebra_layout_and_element_accesses() {
    let text = include_str!("../data/nalgebra_kernels.rs");
    let emitted = driver::emit(&[SourceFile::new("k.rs", text)], &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let program = &emitted.program;
    check_with_gxx(program);
    // Column-major storage of the scalar, points as their coordinates.
    assert!(program.contains("template <typename T, int R, int C> struct Matrix { enum { rows = R }; T m[R * C];"));
    assert!(program.contains(
        "struct Cell {\n  float mass;\n  kl::na::Matrix<float, 3, 1> momentum;\n  kl::na::Point<float, 3> at;\n};"
    ));
    let products = without_line_directives(kernel(program, "products"));
    assert!(
        products.starts_with(
            "__global__ void products(const kl::na::Matrix<unsigned char, 3, 3>* a, const kl::na::Matrix<unsigned char, 3, 3>* b, kl::na::Matrix<unsigned char, 3, 3>* c)"
        ),
        "{products}"
    );
    // A (row, column) index through a reference reads the matrix it points to; the row and
    // the column are read element by element, as nalgebra's product does.
    assert!(
        products.contains(
            "(*c_1)[kl::make_tuple(((unsigned long long)(i)), ((unsigned long long)(j)))] = kl::na::sum(((kl::na::row((*a_1), ((unsigned long long)(i))) * kl::na::column((*b_1), ((unsigned long long)(j))))));"
        ),
        "{products}"
    );
    let momenta = without_line_directives(kernel(program, "momenta"));
    assert!(
        momenta.contains("auto shift = kl::na::vector(1.0f, 2.0f, 3.0f);"),
        "{momenta}"
    );
    assert!(momenta.contains("kl::na::component_mul(v, shift)"), "{momenta}");
    assert!(
        momenta.contains("kl::na::transpose(kl::na::transpose(moved))"),
        "{momenta}"
    );
    let constructors = without_line_directives(kernel(program, "constructors"));
    assert!(
        constructors.contains(
            "auto base = (kl::na::identity<kl::na::Matrix<float, 3, 3>>() + (kl::na::zeros<kl::na::Matrix<float, 3, 3>>() * 2.0f));"
        ),
        "{constructors}"
    );
    assert!(
        constructors.contains("kl::na::from_element<kl::na::Matrix<float, 3, 3>>(0.5f)"),
        "{constructors}"
    );
    assert!(
        constructors.contains("(kl::na::point(1.0f, 2.0f, 3.0f) + kl::na::vector(0.5f, 0.5f, 0.5f))"),
        "{constructors}"
    );
    // nalgebra panics on an index out of the matrix: the lane stops before any access.
    assert!(program.contains("if (i >= (unsigned long long)rows || j >= (unsigned long long)cols) __trap();"));
}

/// A workspace in sparkl's shape: core crate `core3d` (and a `core2d` that is not built),
/// kernel crate `kernels` naming it `mpm_core`.
fn mpm_sources(features: &[(&str, &[&str])]) -> Sources {
    let file = |path: &str, module: &[&str]| ModuleSource {
        source: SourceFile::new(
            path,
            std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/data/mpm")
                    .join(path),
            )
            .expect("fixture"),
        ),
        module: module.iter().map(|m| m.to_string()).collect(),
        also_in: Vec::new(),
    };
    let features: BTreeMap<String, BTreeSet<String>> = features
        .iter()
        .map(|(krate, enabled)| (krate.to_string(), enabled.iter().map(|f| f.to_string()).collect()))
        .collect();
    Sources {
        inputs: vec![
            file("reset.rs", &["kernels", "reset"]),
            file("grid.rs", &["kernels", "grid"]),
            file("kernels_lib.rs", &["kernels"]),
            file("core_lib.rs", &["core3d"]),
        ],
        reported: 1,
        uses: vec![CrateUse {
            from: "kernels".into(),
            name: "core3d".into(),
            root: "core3d".into(),
        }],
        features,
    }
}

#[test]
fn features_choose_the_scalar_the_constants_and_the_statements() {
    let sources = mpm_sources(&[("kernels", &["dim3", "f32"]), ("core3d", &["dim3", "f32", "cuda"])]);
    let emitted = driver::emit_sources(&sources, &LaunchPlan::default());
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    let program = &emitted.program;
    check_with_gxx(program);
    // `Real` is the `f32` of the enabled feature, though the `f64` alias is written last.
    assert!(
        program.contains("struct Node {\n  float mass;\n  kl::na::Matrix<float, 3, 1> velocity;\n};"),
        "{program}"
    );
    // `DevicePointer<Node>` is a device address of nodes.
    assert!(
        program.contains("struct Grid {\n  float cell_width;\n  Node* nodes;\n  unsigned long long capacity;\n};"),
        "{program}"
    );
    assert!(
        program.contains("constexpr unsigned long long CELLS_PER_BLOCK = 64ll;"),
        "{program}"
    );
    let reset = without_line_directives(kernel(program, "reset"));
    assert!(
        reset.starts_with("__global__ void reset(Grid grid, float scale)"),
        "{reset}"
    );
    // Only the `dim3` statement is lowered.
    assert_eq!(reset.matches("auto id = ").count(), 1, "{reset}");
    assert!(
        reset.contains(
            "auto id = ((((unsigned long long)(blockIdx.x)) * CELLS_PER_BLOCK) + ((unsigned long long)(threadIdx.x)));"
        ),
        "{reset}"
    );
    assert!(!reset.contains("* 2)"), "{reset}");
    // The pointer field is a buffer of its own for the driver.
    assert!(program.contains("Node* grid_nodes = nullptr;"), "{program}");
}

#[test]
fn without_known_features_every_definition_is_kept_as_before() {
    let emitted = driver::emit_sources(&mpm_sources(&[]), &LaunchPlan::default());
    let program = &emitted.program;
    // The last definitions win: `f64` and the `dim3` constant.
    assert!(program.contains("struct Node {\n  double mass;"), "{program}");
}

#[test]
fn a_constructor_without_its_scalar_type_is_refused_with_its_name() {
    let text = "use nalgebra::Vector3;\n#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn clear(out: *mut Vector3<f32>) {\n    *out = Vector3::zeros();\n}\n";
    let emitted = driver::emit(&[SourceFile::new("k.rs", text)], &LaunchPlan::default());
    let reasons: Vec<&str> = emitted.manifest.not_lowered.iter().map(|n| n.reason.as_str()).collect();
    assert_eq!(
        reasons,
        ["`Vector3::zeros` without its scalar type is not lowered: the element size is not known"]
    );
}

#[test]
fn the_sum_of_an_iterator_is_not_taken_for_a_matrix_sum() {
    let text = "#[no_mangle]\npub unsafe extern \"ptx-kernel\" fn total(out: *mut u32, n: u32) {\n    *out = (0..n).map(|i| i * 2).sum();\n}\n";
    let emitted = driver::emit(&[SourceFile::new("k.rs", text)], &LaunchPlan::default());
    assert!(!emitted.program.contains("kl::na::sum("), "{}", emitted.program);
    assert_eq!(emitted.manifest.not_lowered.len(), 1);
}
