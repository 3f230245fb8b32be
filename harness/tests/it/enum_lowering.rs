//! Enums with data are lowered as a tag and a union of the variants' payloads (laid out per
//! their `repr`), built by variant constructors and read by `match`, `if let`, `let .. else`
//! and `matches!`; a buffer of structs holding one is allocated whole for the twin's layout.

use kernel_lint_analyzer::{LaunchPlan, SourceFile};
use kernel_lint_harness::driver;

use crate::support;
use support::check_with_gxx;

const KERNELS: &str = include_str!("../data/enum_kernels.rs");

fn program() -> String {
    let emitted = driver::emit(&[SourceFile::new("k.rs", KERNELS)], &LaunchPlan::default());
    check_with_gxx(&emitted.program);
    assert!(
        emitted.manifest.not_lowered.is_empty(),
        "{:?}",
        emitted.manifest.not_lowered
    );
    emitted.program
}

#[test]
fn layouts_follow_the_repr() {
    let program = program();
    // Default representation: tag, then the union (rustc's choice; no figure depends on it).
    assert!(
        program.contains(
            "struct Status {\n  unsigned char tag;\n  union {\n    struct { unsigned long long _0; } v_Near;"
        ),
        "{program}"
    );
    // `repr(C)`: a C `int` tag, then the union.
    assert!(
        program.contains("struct Tagged {\n  int tag;\n  union {\n    struct { float _0; } v_Real;"),
        "{program}"
    );
    // `repr(u8)`: a union of structs that each begin with the tag; discriminants count on.
    assert!(program.contains("union Packed {\n  unsigned char tag;\n  struct { unsigned char tag; unsigned char _0; unsigned int _1; } v_Small;"), "{program}");
    // Each variant's members are initialized where declared (a constant of the enum is then a
    // C++17 constant expression); a fieldless variant initializes the first payload.
    assert!(program.contains("  __host__ __device__ constexpr Packed(std::integral_constant<int, 1>, unsigned int a0) : v_Big{4, a0} {}\n  static __host__ __device__ constexpr Packed make_Big(unsigned int a0) { return Packed(std::integral_constant<int, 1>{}, a0); }"), "{program}");
    assert!(
        program
            .contains("  __host__ __device__ constexpr Status(std::integral_constant<int, 0>) : tag(0), v_Near{} {}\n"),
        "{program}"
    );
    assert!(program.contains("  __host__ __device__ constexpr Status(std::integral_constant<int, 2>, unsigned long long a0) : tag(2), v_Far{a0} {}\n"), "{program}");
    assert!(program.contains("  Packed() = default;\n};"), "{program}");
    // A fieldless enum stays an aggregate (constant tables of it are written `{3}`).
    assert!(
        program.contains("  static __host__ __device__ constexpr Code make_Low() { Code e{}; e.tag = 2; return e; }\n"),
        "{program}"
    );
    assert!(!program.contains("Code() = default;"), "{program}");
    assert!(
        program.contains("(25165824ull > 6291456ull * sizeof(Cell) ? 25165824ull : 6291456ull * sizeof(Cell))"),
        "{program}"
    );
}

#[test]
fn variants_are_built_and_matched() {
    let program = program();
    assert!(
        program.contains("if ((cell->status == Status::make_Unknown())) {"),
        "{program}"
    );
    assert!(
        program.contains("(Status::make_Near(i)) : (Status::make_Far(i))"),
        "{program}"
    );
    // Alternatives bind from the one that matched; the guard sees the binding.
    assert!(program.contains("if (((kl_match_1).tag == 1 || (kl_match_1).tag == 2) && [&]() -> bool { auto id = ((kl_match_1).tag == 1) ? ((kl_match_1).v_Near._0) : ((kl_match_1).v_Far._0); return (id > 2); }()) {"), "{program}");
    assert!(
        program.contains("auto near = [&](const auto& kl_m) -> bool { return (kl_m).tag == 1; }(cell->status);"),
        "{program}"
    );
    // Through `&mut`, the binding refers to the payload.
    assert!(program.contains("auto v = &((kl_let_1).v_Real._0);"), "{program}");
    assert!(program.contains("auto w = (kl_match_2).v_Small._1;"), "{program}");
    assert!(program.contains("struct Code {\n  unsigned int tag;\n"), "{program}");
    assert!(
        program.contains("explicit operator I() const { return static_cast<I>(tag); }"),
        "{program}"
    );
    assert!(program.contains("if (!((kl_let_3).tag == 0)) {\n"), "{program}");
    assert!(program.contains("auto r = (kl_let_3).v_Real._0;"), "{program}");
}
