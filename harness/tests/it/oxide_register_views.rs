//! cuda-oxide register values and proof-carrying views: `CuSimd` lanes, arrays read through
//! `as_slice`, slices rebuilt from raw parts with a row width, and per-thread elements and
//! whole tiles checked once, each access at the library's own offset.

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one, kernel};

const KERNELS: &str = include_str!("../data/oxide_register_views.rs");

#[test]
fn register_values_and_checked_views_are_lowered() {
    let emitted = emit_one(KERNELS);
    assert_every_kernel_lowered(&emitted);
    let lanes = kernel(&emitted.program, "pick_lanes");
    assert!(lanes.contains(
        "auto quad = kl::cusimd<float, 4>{decltype(kl::cusimd<float, 4>::data)(kl::make_array(0.5f, 1.5f, 2.5f, 3.5f))};"
    ), "{lanes}");
    assert!(lanes.contains("auto kl_tuple_1 = pair.xy();"), "{lanes}");
    assert!(lanes.contains(
        "auto v = ((((((quad[(t % 4)] + quad.at((unsigned long long)((t % 2)))) + quad.x()) + quad.w()) + quad.template get<2>()) + lanes[1]) + (a * b));"
    ), "{lanes}");
    let words = kernel(&emitted.program, "pick_words");
    assert!(words.contains("auto w = words[(idx % 4)];"), "{words}");
    let raw = kernel(&emitted.program, "double_raw_grid");
    assert!(
        raw.contains("unsigned int grid_row_width = (unsigned int)(width);"),
        "{raw}"
    );
    assert!(raw.contains("double_cell(grid, grid_len, grid_row_width);"), "{raw}");
    assert!(emitted
        .program
        .contains("void double_cell(float* grid, unsigned long long grid_len, unsigned int grid_row_width)"));
    let element = kernel(&emitted.program, "bump_element");
    assert!(
        element.contains("if ((unsigned long long)(i) < vals_len) {\nauto e = kl::make_ref(vals + (i));"),
        "{element}"
    );
    assert!(element.contains("(*e = (v * 5));"), "{element}");
    let quad = kernel(&emitted.program, "bump_quad");
    assert!(
        quad.contains("auto quad = kl::oxide_whole_tile<4>(vals, vals_len, (unsigned int)(i));"),
        "{quad}"
    );
    assert!(quad.contains("auto first = (*kl::make_ref(quad.ptr + (0)));"), "{quad}");
    assert!(
        quad.contains("(*kl::make_ref(quad.ptr + (3)) = (first + 7));"),
        "{quad}"
    );
    let pairs = kernel(&emitted.program, "shift_pairs");
    assert!(pairs.contains("auto at = kl::oxide_coord_2d_u32();"), "{pairs}");
    assert!(
        pairs.contains("auto pair = kl::oxide_row_major_tile<1, 2, 64>(vals, vals_len, at);"),
        "{pairs}"
    );
    assert!(
        pairs.contains("(*kl::make_ref(pair.ptr + (0) * (64) + (1)) = (left - 1.0f));"),
        "{pairs}"
    );
    let slice = kernel(&emitted.program, "pick_from_slice");
    assert!(slice.contains("(*slot) = lanes[(i % 3)];"), "{slice}");
    check_with_gxx(&emitted.program);
}
