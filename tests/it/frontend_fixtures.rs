//! The fixtures of `fixtures/frontend`, access by access: the class each access gets once
//! calls, layouts and loop values are resolved as Rust resolves them.

use kernel_lint_analyzer::{analyze_source, AccessClass, LaunchPlan, SourceFile};

/// (kernel, line, array, class, sectors) of every global access of a fixture file.
fn accesses(path: &str) -> Vec<(String, usize, String, AccessClass, Option<f64>)> {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&full).expect("fixture");
    let report = analyze_source(&SourceFile::new(path, text), &LaunchPlan::default()).expect("parses");
    report
        .kernels
        .iter()
        .flat_map(|k| {
            k.accesses.iter().filter_map(|a| {
                let p = a.prediction.as_ref()?;
                Some((
                    k.name.clone(),
                    a.span.line,
                    a.array.clone(),
                    p.class,
                    p.sectors_per_request,
                ))
            })
        })
        .collect()
}

fn row(
    kernel: &str,
    line: usize,
    array: &str,
    class: AccessClass,
    sectors: Option<f64>,
) -> (String, usize, String, AccessClass, Option<f64>) {
    (kernel.into(), line, array.into(), class, sectors)
}

#[test]
fn methods_of_self_built_values_and_generic_parameters_resolve() {
    use AccessClass::*;
    assert_eq!(
        accesses("fixtures/frontend/semantic_calls.rs"),
        [
            row("scale_row", 61, "input", Coalesced, Some(4.0)),
            row("scale_row", 61, "knobs", Broadcast, Some(1.0)),
            row("scale_row", 46, "out", Coalesced, Some(4.0)),
            row("scale_column", 68, "input", Coalesced, Some(4.0)),
            row("scale_column", 68, "knobs", Broadcast, Some(1.0)),
            row("scale_column", 31, "out", Strided, Some(32.0)),
        ]
    );
}

#[test]
fn a_pointer_read_from_a_struct_is_followed_to_its_target() {
    use AccessClass::*;
    assert_eq!(
        accesses("fixtures/frontend/pointer_fields.rs"),
        [
            row("step", 29, "state", Broadcast, Some(1.0)),
            row("step", 17, "state", Broadcast, Some(1.0)),
            row("step", 17, "self.heat", Coalesced, Some(4.0)),
            row("step", 17, "self.heat", Coalesced, Some(4.0)),
            row("step", 22, "state", Broadcast, Some(1.0)),
            row("step", 22, "self.flags", Strided, Some(2.0)),
            row("finish", 41, "queue", Broadcast, Some(1.0)),
            row("finish", 61, "queue", Broadcast, Some(1.0)),
            row("finish", 63, "self.0", Broadcast, Some(1.0)),
            row("finish", 41, "self.0", Broadcast, Some(1.0)),
            row("finish", 63, "self.0", Broadcast, Some(1.0)),
        ]
    );
}

#[test]
fn loop_values_read_from_memory_make_gathers() {
    use AccessClass::*;
    assert_eq!(
        accesses("fixtures/frontend/loaded_loops.rs"),
        [
            row("row_sums", 9, "starts", Coalesced, Some(4.0)),
            row("row_sums", 10, "starts", Misaligned, Some(5.0)),
            row("row_sums", 13, "weights", Gather, None),
            row("row_sums", 16, "sums", Coalesced, Some(4.0)),
            row("chase", 24, "next", Gather, None),
            row("chase", 26, "out", Coalesced, Some(4.0)),
            row("bin_lookup", 32, "xs", Coalesced, Some(4.0)),
            row("bin_lookup", 37, "first", Gather, None),
            row("bin_lookup", 37, "out", Coalesced, Some(4.0)),
        ]
    );
}

#[test]
fn inline_ptx_loads_and_stores_are_accesses_as_wide_as_their_instruction() {
    use AccessClass::*;
    assert_eq!(
        accesses("fixtures/frontend/inline_ptx.rs"),
        [
            row("sum_quads", 10, "words", Coalesced, Some(16.0)),
            row("sum_quads", 23, "sums", Coalesced, Some(4.0)),
        ]
    );
}

#[test]
fn arithmetic_with_a_reference_to_a_number_reads_it() {
    use AccessClass::*;
    assert_eq!(
        accesses("fixtures/frontend/reference_operands.rs"),
        [
            row("clear_tile", 9, "cols", Broadcast, Some(1.0)),
            row("clear_tile", 10, "out", Coalesced, Some(4.0)),
        ]
    );
}

#[test]
fn a_macro_rules_body_is_analyzed_at_each_call() {
    use AccessClass::*;
    let found = accesses("fixtures/frontend/macro_bodies.rs");
    assert_eq!(
        found,
        [
            // Where the macro's body writes them, not at the call.
            row("fill_pairs", 8, "out", Strided, Some(8.0)),
            row("fill_pairs", 9, "out", Strided, Some(8.0)),
            // Through `$crate::bump`, then the rule the first one calls.
            row("first_finder", 21, "counter", Broadcast, Some(1.0)),
            row("first_finder", 22, "counter", Broadcast, Some(1.0)),
            row("first_finder", 37, "slot", Broadcast, Some(1.0)),
        ]
    );
    // Each names the call it was expanded at.
    let path = "fixtures/frontend/macro_bodies.rs";
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("fixture");
    let report = analyze_source(&SourceFile::new(path, text), &LaunchPlan::default()).expect("parses");
    let calls: Vec<(usize, String, usize)> = report.kernels[0]
        .accesses
        .iter()
        .flat_map(|a| a.via.iter().map(|c| (a.span.line, c.callee.clone(), c.span.line)))
        .collect();
    assert_eq!(
        calls,
        [(8, "put_pair!".to_string(), 16), (9, "put_pair!".to_string(), 16)]
    );
}

#[test]
fn loops_over_slices_reach_each_element_through_their_adaptors() {
    use AccessClass::*;
    assert_eq!(
        accesses("fixtures/frontend/iterators.rs"),
        [
            row("run_sums", 14, "values", Strided, Some(32.0)),
            row("run_sums", 16, "sums", Coalesced, Some(4.0)),
            row("weighted_columns", 25, "weights", Broadcast, Some(1.0)),
            row("weighted_columns", 26, "matrix", Coalesced, Some(4.0)),
            row("weighted_columns", 28, "out", Coalesced, Some(4.0)),
            row("dot_runs", 38, "a", Strided, Some(32.0)),
            row("dot_runs", 38, "b", Strided, Some(32.0)),
            row("dot_runs", 40, "out", Coalesced, Some(4.0)),
            row("chunk_heads", 49, "values", Strided, Some(32.0)),
            row("chunk_heads", 51, "out", Coalesced, Some(4.0)),
            row("every_other", 59, "table", Broadcast, Some(1.0)),
            row("every_other", 62, "out", Coalesced, Some(4.0)),
            row("shifted_columns", 76, "src", Misaligned, Some(5.0)),
            row("shifted_columns", 77, "dst", Coalesced, Some(4.0)),
            row("numbered_stride", 88, "src", Coalesced, Some(4.0)),
            row("numbered_stride", 88, "dst", Coalesced, Some(4.0)),
        ]
    );
}

#[test]
fn a_closure_that_is_only_called_is_an_access_at_each_call() {
    use AccessClass::*;
    assert_eq!(
        accesses("fixtures/frontend/closures.rs"),
        [
            row("quad_sum", 10, "values", Strided, Some(16.0)),
            row("quad_sum", 10, "values", Strided, Some(16.0)),
            row("quad_sum", 10, "values", Strided, Some(16.0)),
            row("quad_sum", 10, "values", Strided, Some(16.0)),
            row("quad_sum", 11, "out", Coalesced, Some(4.0)),
            // Row 0 is aligned; row 1 starts `width` values in, aligned only when `width` is.
            row("two_rows", 18, "out", Coalesced, Some(4.0)),
            row("two_rows", 18, "out", Misaligned, Some(5.0)),
        ]
    );
}

#[test]
fn a_buffer_chosen_by_a_condition_is_read_through_either() {
    use AccessClass::*;
    assert_eq!(
        accesses("fixtures/frontend/chosen_buffers.rs"),
        [
            row("pick_input", 11, "(back or front)", Coalesced, Some(4.0)),
            row("pick_input", 11, "out", Coalesced, Some(4.0)),
            row("pick_later", 23, "(even or odd)", Strided, Some(8.0)),
            row("pick_later", 23, "out", Coalesced, Some(4.0)),
        ]
    );
}

#[test]
fn copies_read_and_write_every_element() {
    use AccessClass::*;
    assert_eq!(
        accesses("fixtures/frontend/copies.rs"),
        [
            row("copy_runs", 13, "src", Strided, Some(32.0)),
            row("copy_runs", 13, "dst", Strided, Some(32.0)),
            row("copy_one", 20, "src", Coalesced, Some(4.0)),
            row("copy_one", 20, "dst", Coalesced, Some(4.0)),
            row("copy_one", 21, "src", Coalesced, Some(4.0)),
            row("copy_one", 21, "dst", Coalesced, Some(4.0)),
            row("clear_header", 29, "header", Broadcast, Some(1.0)),
        ]
    );
}

#[test]
fn slice_wrappers_in_an_argument_struct_are_followed_to_their_elements() {
    use AccessClass::*;
    let found = accesses("fixtures/frontend/slice_wrappers.rs");
    // The host stub (`cfg(not(target_arch = "nvptx64"))`) is no kernel: one `blend`, the
    // device one.
    assert!(found.iter().all(|r| r.0 == "blend"), "{found:?}");
    assert_eq!(
        found,
        [
            row("blend", 45, "args", Broadcast, Some(1.0)),
            row("blend", 46, "args", Broadcast, Some(1.0)),
            row("blend", 46, "args.weights", Coalesced, Some(4.0)),
            row("blend", 47, "args", Broadcast, Some(1.0)),
            row("blend", 47, "args.totals", Coalesced, Some(4.0)),
            // `UnsafeCell::get` and the address cast to an integer read nothing: only the
            // wrapper's pointer is read.
            row("blend", 48, "args", Broadcast, Some(1.0)),
            row("blend", 50, "args", Broadcast, Some(1.0)),
            row("blend", 50, "args.points", Aos, Some(12.0)),
        ]
    );
}
