//! A struct literal whose fields are slices gives each one as its pointer and length, the two
//! members the C struct holds for it.

use crate::support;
use support::{assert_every_kernel_lowered, check_with_gxx, emit_one};

#[test]
fn slice_fields_take_pointer_and_length() {
    let emitted = emit_one(include_str!("../data/slice_field_struct.rs"));
    assert_every_kernel_lowered(&emitted);
    let program = &emitted.program;
    assert!(
        program.contains("return Heap{height, mins, mins_len, maxs, maxs_len};"),
        "{program}"
    );
    assert!(
        program.contains(
            "auto tail = Heap{2, (mins + 1), (unsigned long long)((mins_len) - (1)), (maxs + 1), (unsigned long long)((maxs_len) - (1))};"
        ),
        "{program}"
    );
    check_with_gxx(program);
}
