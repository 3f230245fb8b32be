//! Sound uniformity: a value is the same for every lane of a warp only when it derives from
//! uniform sources (parameters, block indices and extents, constants, uniform loop counters,
//! loads from uniform addresses). Names bound by patterns over lane-varying values, closure
//! results and calls the analysis cannot see may differ between lanes: an index built from
//! them is reported as unknown, with the reason, and never as a broadcast.

use kernel_lint_analyzer::{analyze_source, AccessClass, Case, LaunchPlan, LaunchSpec, Op, Prediction, SourceFile};
use kernel_lint_lints::{check_file, Level, LintLevels, LINTS};
use std::collections::BTreeMap;

/// The predictions for the global accesses of `kernel` to `array` with `op`, in order, under
/// the default launch or with the given parameter values.
fn predictions(src: &str, kernel: &str, array: &str, op: Op, params: &[(&str, i64)]) -> Vec<Prediction> {
    let plan = LaunchPlan {
        specs: vec![LaunchSpec {
            kernel: kernel.into(),
            params: params
                .iter()
                .map(|(n, v)| (n.to_string(), *v))
                .collect::<BTreeMap<_, _>>(),
            ..Default::default()
        }],
    };
    let report = analyze_source(&SourceFile::new("k.rs", src), &plan).expect("parses");
    let found = report
        .kernels
        .iter()
        .find(|k| k.name == kernel)
        .unwrap_or_else(|| panic!("kernel `{kernel}` not found"));
    found
        .accesses
        .iter()
        .filter(|a| a.array == array && a.op == op)
        .map(|a| a.prediction.clone().expect("a global access"))
        .collect()
}

/// The prediction for the `nth` (0-based) of those accesses.
fn predict_with(src: &str, kernel: &str, array: &str, op: Op, nth: usize, params: &[(&str, i64)]) -> Prediction {
    let all = predictions(src, kernel, array, op, params);
    all.get(nth)
        .cloned()
        .unwrap_or_else(|| panic!("access {nth} to `{array}` not found among {}", all.len()))
}

fn predict(src: &str, kernel: &str, array: &str, op: Op, nth: usize) -> Prediction {
    predict_with(src, kernel, array, op, nth, &[])
}

/// Asserts an unknown index with the reason given.
fn assert_unknown(p: &Prediction, reason: &str) {
    assert_eq!(p.class, AccessClass::Unknown, "{p:?}");
    assert_eq!(p.sectors_per_request, None, "{p:?}");
    assert_eq!(p.assumptions.last().map(String::as_str), Some(reason), "{p:?}");
}

/// Each case of a prediction: its condition, verdict and figure.
fn cases(p: &Prediction) -> Vec<(&str, AccessClass, f64)> {
    p.cases
        .iter()
        .map(|c| (c.condition.as_str(), c.class, c.sectors_per_request))
        .collect()
}

fn assert_broadcast(p: &Prediction) {
    assert_eq!(
        (p.class, p.sectors_per_request, p.efficiency),
        (AccessClass::Broadcast, Some(1.0), Some(1.0)),
        "{p:?}"
    );
}

/// The diagnostics messages of one file with every lint on.
fn messages(src: &str) -> Vec<String> {
    let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
    let mut levels = LintLevels::default();
    for lint in LINTS {
        levels.set(lint.code, Level::Warn).expect("known lint");
    }
    check_file(&report, &levels).into_iter().map(|d| d.message).collect()
}

#[test]
fn a_name_bound_by_while_let_over_a_stack_is_not_a_broadcast() {
    let src = "#[kernel] pub unsafe fn dfs(out: *mut f32) {
        let tid = thread::index_1d() as usize;
        let mut stack = [(tid, 0usize); 4];
        while let Some((node, _)) = stack.pop() {
            *out.add(node) = 1.0;
        }
    }";
    let p = predict(src, "dfs", "out", Op::Store, 0);
    assert_unknown(
        &p,
        "the index depends on `node`, which is bound by a pattern the analysis does not follow",
    );
    assert_eq!(
        messages(src),
        ["index of `out[node]` not analyzed: the index depends on `node`, which is bound by a pattern the analysis does not follow"]
    );
}

#[test]
fn match_arms_bind_from_a_lane_dependent_scrutinee() {
    let src = "#[kernel] pub unsafe fn k(out: *mut f32, mode: u32) {
        let tid = thread::index_1d() as usize;
        let kind = if tid % 2 == 0 { Kind::Leaf(tid) } else { Kind::Empty };
        match kind {
            Kind::Leaf(j) => *out.add(j) = 1.0,
            Kind::Empty => {}
        }
        let k = match tid % 4 { 0 => 3, _ => 5 };
        *out.add(k) = 2.0;
        let mut j = 0;
        match tid % 2 { 0 => j = 1, _ => {} }
        *out.add(j) = 3.0;
        let u = match mode { 0 => 3, _ => 5 };
        *out.add(u) = 4.0;
        let w = match tid { _ => 7 };
        *out.add(w) = 5.0;
    }";
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 0),
        "the index depends on `j`, which is bound by a pattern the analysis does not follow",
    );
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 1),
        "the index depends on `match tid % 4 { 0 => 3, _ => 5 }`, which the analysis cannot follow",
    );
    // Set in one arm of a lane-dependent match: differs between lanes afterwards.
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 2),
        "the index depends on `j (set on some paths)`, which the analysis cannot follow",
    );
    // A match on a parameter picks the same arm in every lane; arms that agree give their value.
    assert_broadcast(&predict(src, "k", "out", Op::Store, 3));
    assert_broadcast(&predict(src, "k", "out", Op::Store, 4));
}

#[test]
fn if_let_binds_the_inner_value_or_an_opaque_one() {
    let src = "#[kernel] pub unsafe fn k(out: *mut f32, opt: Option<u32>, n: u32) {
        let tid = thread::index_1d() as usize;
        if let Some(x) = find(tid) {
            *out.add(x) = 1.0;
        }
        if let Some(y) = opt {
            *out.add(y as usize) = 2.0;
        }
        if let Some(z) = tid.checked_add(1) {
            *out.add(z) = 3.0;
        }
        if let Some(v) = n.checked_mul(4) && let Some(e) = out.get_mut(tid + 1) {
            *e = 4.0;
        }
    }";
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 0),
        "the index depends on `find(tid)`, which the analysis cannot follow",
    );
    assert_broadcast(&predict(src, "k", "out", Op::Store, 1));
    let p = predict(src, "k", "out", Op::Store, 2);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Misaligned, Some(5.0)),
        "{p:?}"
    );
    let p = predict(src, "k", "out", Op::Store, 3);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Misaligned, Some(5.0)),
        "{p:?}"
    );
}

#[test]
fn the_disjoint_slice_store_idiom_is_analyzed() {
    let src = "#[kernel] pub fn vecadd(a: &[f32], b: &[f32], mut c: DisjointSlice<f32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(c_elem) = c.get_mut(idx) {
            *c_elem = a[i] + b[i];
        }
    }";
    for (array, op) in [("a", Op::Load), ("b", Op::Load), ("c", Op::Store)] {
        let p = predict(src, "vecadd", array, op, 0);
        assert_eq!(
            (p.class, p.sectors_per_request, p.efficiency),
            (AccessClass::Coalesced, Some(4.0), Some(1.0)),
            "{array}: {p:?}"
        );
    }
}

#[test]
fn closure_results_and_parameters_differ_between_lanes() {
    let src = "#[kernel] pub unsafe fn k(a: &[f32], out: *mut f32, n: usize, threads: usize) {
        let tid = thread::index_1d() as usize;
        let best = (0..n).map(|s| s * threads + tid).max().unwrap_or(0);
        *out.add(best) = 1.0;
        (0..n).for_each(|s| {
            let v = a[s];
        });
        let mut count = 0;
        (0..tid).for_each(|_| count += 1);
        *out.add(count) = 2.0;
        let f = |x: usize| x + 1;
        *out.add(f(3)) = 3.0;
    }";
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 0),
        "the index depends on `(0..n).map(|s| s * threads + tid).max().unwrap_or(0)`, which the analysis cannot follow",
    );
    // `for_each` over a range is a loop over it: `s` is the same counter in every lane.
    assert_broadcast(&predict(src, "k", "a", Op::Load, 0));
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 1),
        "the index depends on `count (set on some paths)`, which the analysis cannot follow",
    );
    // A closure bound to a name and only called runs at its call: `f(3)` is 4, one address.
    let p = predict(src, "k", "out", Op::Store, 2);
    assert_broadcast(&p);
    assert_eq!(p.warp_sample.map(|w| w.lane_addresses[0]), Some(Some(16)));
}

#[test]
fn calls_the_analysis_cannot_see_differ_between_lanes() {
    let src = "#[kernel] pub unsafe fn k(out: *mut f32, seed: u32, mut state: Xorshift) {
        let mut rng = Rng::new(seed);
        let j = rng.next() as usize;
        *out.add(j) = 1.0;
        let r = random();
        *out.add(r) = 2.0;
        let s = some_crate::f(seed);
        *out.add(s) = 3.0;
        let t = core::mem::size_of::<u64>();
        *out.add(t) = 4.0;
        let q = state.next_u32() as usize;
        *out.add(q) = 5.0;
        let m = seed.count_ones() as usize;
        *out.add(m) = 6.0;
    }";
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 0),
        "the index depends on `rng.next()`, which is not visible to the analysis",
    );
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 1),
        "the index depends on `random()`, which is not visible to the analysis",
    );
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 2),
        "the index depends on `some_crate::f(seed)`, which is not visible to the analysis",
    );
    // A standard function with a known value.
    assert_broadcast(&predict(src, "k", "out", Op::Store, 3));
    // A method of a parameter that is not a number: its state may be per thread.
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 4),
        "the index depends on `state.next_u32()`, which is not visible to the analysis",
    );
    // A method of the integer type itself is a function of the value.
    assert_broadcast(&predict(src, "k", "out", Op::Store, 5));
}

#[test]
fn helpers_and_geometry_keep_their_values() {
    let src = "fn row(w: usize) -> usize { thread::block_idx_x() as usize * w }
    fn pick(k: usize) -> usize {
        if thread::thread_idx_x() < 3 { return 1; }
        2
    }
    fn clamp(k: usize, n: usize) -> usize {
        if k > n { return n; }
        k
    }
    #[kernel] pub unsafe fn k(out: *mut f32, w: usize, n: usize) {
        let i = row(w) + thread::thread_idx_x() as usize;
        *out.add(i) = 1.0;
        *out.add(pick(n)) = 2.0;
        *out.add(clamp(w, n)) = 3.0;
    }";
    let p = predict(src, "k", "out", Op::Store, 0);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Coalesced, Some(4.0)),
        "{p:?}"
    );
    // The return taken depends on the thread index inside the helper.
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 1),
        "the index depends on `pick(n)`, which the analysis cannot follow",
    );
    // The return taken depends on parameters only.
    assert_broadcast(&predict(src, "k", "out", Op::Store, 2));
}

#[test]
fn unbound_names_may_differ_between_lanes_and_outside_constants_do_not() {
    let src = "#[kernel] pub unsafe fn k(out: *mut f32) {
        *out.add(x) = 1.0;
        *out.add(other::LEN) = 2.0;
        *out.add(Self::N as usize) = 3.0;
        *out.add(u32::MAX as usize) = 4.0;
        *out.add(LIMIT) = 5.0;
    }";
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 0),
        "the index depends on `x`, which is not defined in this kernel",
    );
    for nth in 1..4 {
        assert_broadcast(&predict(src, "k", "out", Op::Store, nth));
    }
}

#[test]
fn a_value_chosen_by_a_lane_dependent_condition_differs_between_lanes() {
    let src = "#[kernel] pub unsafe fn k(out: *mut f32, v: &[f32]) {
        let tid = thread::index_1d() as usize;
        let x = if tid < 16 { 0 } else { 1 };
        *out.add(x) = 1.0;
        let mut q = 0;
        if flag() { q = 1; }
        *out.add(q) = 2.0;
    }";
    // The choice is followed lane by lane: lanes 0..15 store to `out[0]`, 16..31 to `out[1]`,
    // two addresses of one sector, never a broadcast.
    let chosen = predict(src, "k", "out", Op::Store, 0);
    assert_eq!(chosen.class, AccessClass::Coalesced, "{chosen:?}");
    assert_eq!(chosen.sectors_per_request, Some(1.0));
    assert_eq!(chosen.stride_bytes, Some(0));
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 1),
        "the index depends on `flag()`, which is not visible to the analysis",
    );
}

#[test]
fn loop_variables_that_become_lane_dependent_in_later_iterations() {
    let src = "#[kernel] pub unsafe fn k(out: *mut f32, a: &[u32], n: usize) {
        let tid = thread::index_1d() as usize;
        let mut j = 0;
        for k in 0..n {
            *out.add(j) = 1.0;
            j = tid;
        }
        let mut c = 0;
        for k in 0..n {
            *out.add(c) = 2.0;
            if a[k] as usize > tid { continue; }
            c += 1;
        }
        let mut m = 0;
        for k in 0..n {
            *out.add(m) = 3.0;
            if a[k] as usize > tid { m += 1; }
        }
        let mut u = 0;
        for k in 0..n {
            *out.add(u) = 4.0;
            u += 1;
        }
    }";
    for (nth, name) in [(0, "j"), (1, "c"), (2, "m")] {
        assert_unknown(
            &predict(src, "k", "out", Op::Store, nth),
            &format!("the index depends on `{name} (changed by the loop)`, which the analysis cannot follow"),
        );
    }
    // A uniform counter: every lane writes the same element in each iteration.
    assert_broadcast(&predict(src, "k", "out", Op::Store, 3));
    // The loads in the loop are recorded once, not once per walk of the body.
    let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
    assert_eq!(report.kernels[0].accesses.len(), 6);
}

#[test]
fn a_counter_keeps_its_count_beside_an_accumulator_of_loaded_data() {
    // The matrix-vector shape of cuda-oxide's async_mlp example (NVlabs/cuda-oxide @ a105afd5):
    // `sum` takes loaded data and so differs between lanes after one iteration; `j` steps by
    // one in every lane and stays the same for all of them.
    let src = "#[kernel] pub fn k(n: u32, mat: &[f32], v: &[f32], mut out: DisjointSlice<f32>) {
        let row = thread::index_1d();
        let r = row.get();
        if let Some(o) = out.get_mut(row) {
            let mut sum = 0.0f32;
            let mut j = 0usize;
            while j < 16 {
                sum += mat[r * 16 + j] * v[j];
                j += 1;
            }
            *o = sum;
        }
    }";
    let p = predict(src, "k", "mat", Op::Load, 0);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Strided, Some(32.0)),
        "{p:?}"
    );
    assert_broadcast(&predict(src, "k", "v", Op::Load, 0));
}

#[test]
fn a_range_mapped_through_a_closure_gives_the_closure_of_each_index() {
    // The grid-stride shape of samyak-jain/image-transitions @ 43ff5a47: the items of
    // `(0..stride).map(|s| s * threads + tid)` step by the thread count from the lane's index.
    let src = "#[kernel] pub unsafe fn k(a: &[f32], threads: u64, stride: u64, out: *mut f32) {
        let tid = thread::index_1d();
        for idx in (0..stride).map(|s| s * threads + u64::from(tid)) {
            *out.add(idx as usize) = a[(idx * 2) as usize];
        }
        for j in (0..stride).map(|s: u64| a[s as usize]) {
            *out.add(j as usize) = 1.0;
        }
    }";
    let p = predict_with(src, "k", "out", Op::Store, 0, &[("threads", 1 << 20), ("stride", 4)]);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Coalesced, Some(4.0)),
        "{p:?}"
    );
    let p = predict_with(src, "k", "a", Op::Load, 0, &[("threads", 1 << 20), ("stride", 4)]);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Strided, Some(8.0)),
        "{p:?}"
    );
    // An item loaded at an address the same for every lane is the same for every lane: the
    // loads are broadcasts, and so is the store through it.
    assert_broadcast(&predict_with(
        src,
        "k",
        "a",
        Op::Load,
        1,
        &[("threads", 1 << 20), ("stride", 4)],
    ));
    assert_broadcast(&predict_with(
        src,
        "k",
        "out",
        Op::Store,
        1,
        &[("threads", 1 << 20), ("stride", 4)],
    ));
}

#[test]
fn lanes_leaving_a_loop_early_differ_only_after_it() {
    let src = "#[kernel] pub unsafe fn k(out: *mut f32, a: &[u32]) {
        let tid = thread::index_1d() as usize;
        let mut i = 0;
        while i < tid {
            *out.add(i) = 1.0;
            i += 1;
        }
        *out.add(i) = 2.0;
        let mut j = 0;
        loop {
            *out.add(j) = 3.0;
            if a[j] as usize > tid { break; }
            j += 1;
        }
        *out.add(j) = 4.0;
    }";
    // Inside, the lanes still running are all in the same iteration.
    assert_broadcast(&predict(src, "k", "out", Op::Store, 0));
    assert_broadcast(&predict(src, "k", "out", Op::Store, 2));
    // After, each lane has its own count.
    for (nth, name) in [(1, "i"), (3, "j")] {
        assert_unknown(
            &predict(src, "k", "out", Op::Store, nth),
            &format!("the index depends on `{name} (set on some paths)`, which the analysis cannot follow"),
        );
    }
}

#[test]
fn items_of_iterators_are_uniform_only_over_uniform_iterators() {
    let src = "#[kernel] pub unsafe fn k(out: *mut f32, weights: &[u32]) {
        let tid = thread::index_1d() as usize;
        for &w in weights.iter() {
            *out.add(w as usize) = 1.0;
        }
        for (i, w) in weights[tid..].iter().enumerate() {
            *out.add(*w as usize) = 2.0;
        }
    }";
    assert_broadcast(&predict(src, "k", "out", Op::Store, 0));
    // Each lane's `w` is read from its own element of `weights[tid..]`: a gather.
    let p = predict(src, "k", "out", Op::Store, 1);
    assert_eq!((p.class, p.sectors_per_request), (AccessClass::Gather, None), "{p:?}");
}

#[test]
fn a_load_from_a_per_block_header_is_a_uniform_unknown() {
    let src = "#[repr(C)] #[derive(Clone, Copy)] pub struct Span { start: u32, count: u32 }
    #[kernel] pub unsafe fn k(a: &[f32], out: *mut f32, header: &[u32], spans: &[Span]) {
        let tid = thread::thread_idx_x() as usize;
        let bid = thread::block_idx_x() as usize;
        let first = header[bid] as usize;
        let v = a[first + tid];
        *out.add(tid) = v;
        let Span { start, count } = spans[bid];
        let w = a[start as usize + tid];
        let g = header[tid] as usize;
        let x = a[g];
    }";
    let p = predict(src, "k", "a", Op::Load, 0);
    assert_eq!(
        (p.class, p.sectors_per_request, p.efficiency),
        (AccessClass::Misaligned, Some(5.0), Some(0.8)),
        "{p:?}"
    );
    assert_eq!(
        p.cases,
        [Case {
            condition: "first % 8 == 0".into(),
            class: AccessClass::Coalesced,
            sectors_per_request: 4.0
        }]
    );
    assert_eq!(
        p.assumptions,
        ["assumes first % 8 != 0 (the start is not sector-aligned)"]
    );
    assert!(messages(src).contains(
        &"misaligned access to `a[first + tid]`: 5 sectors per request where 4 would do (80% efficiency) unless first % 8 == 0 (4 then)"
            .to_string()
    ));
    // A field of a struct read from a uniform address is uniform too.
    let p = predict(src, "k", "a", Op::Load, 1);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Misaligned, Some(5.0)),
        "{p:?}"
    );
    assert_eq!(p.cases[0].condition, "spans[bid].start % 8 == 0");
    // A load from a lane-dependent address feeding an index is a gather.
    let p = predict(src, "k", "a", Op::Load, 2);
    assert_eq!((p.class, p.sectors_per_request), (AccessClass::Gather, None), "{p:?}");
}

#[test]
fn a_division_by_a_runtime_value_is_a_case_split_not_a_broadcast() {
    let src = "#[kernel] pub unsafe fn k(a: &[f32], out: *mut f32, n: usize) {
        let i = thread::index_1d() as usize;
        let v = a[i / n];
        *out.add(i) = v;
    }";
    let p = predict(src, "k", "a", Op::Load, 0);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Coalesced, None),
        "{p:?}"
    );
    assert_eq!(
        cases(&p),
        [
            ("n == 1", AccessClass::Coalesced, 4.0),
            ("n == 2", AccessClass::Coalesced, 2.0),
            ("4 <= n <= 16", AccessClass::Coalesced, 1.0),
            ("n >= 32", AccessClass::Broadcast, 1.0)
        ]
    );
    assert_eq!(
        p.assumptions,
        ["the figure depends on `n`: give its value in the configuration for one number"]
    );
    // With the value given: one address per warp only when n spans the warp.
    assert_broadcast(&predict_with(src, "k", "a", Op::Load, 0, &[("n", 32)]));
    let p = predict_with(src, "k", "a", Op::Load, 0, &[("n", 2)]);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Coalesced, Some(2.0)),
        "{p:?}"
    );
    // A constant divisor stays exact: lanes 0..31 of each warp share one element.
    let src = src.replace("i / n", "i / 32");
    assert_broadcast(&predict(&src, "k", "a", Op::Load, 0));
}

#[test]
fn one_address_in_the_cases_tried_is_not_a_proof() {
    // Every block index sampled gives one address, but block 8 would not.
    let src = "#[kernel] pub unsafe fn k(a: &[f32], n: usize) {
        let tid = thread::thread_idx_x() as usize;
        let bid = thread::block_idx_x() as usize;
        let v = a[tid * (n / 64)];
        let w = a[tid * (bid / 8)];
    }";
    // `n / 64` is the stride itself, fixed for the launch: a figure per value of it, none of
    // them one address.
    let p = predict(src, "k", "a", Op::Load, 0);
    assert_eq!(p.sectors_per_request, None, "{p:?}");
    let cases: Vec<(&str, AccessClass, f64)> = p
        .cases
        .iter()
        .map(|c| (c.condition.as_str(), c.class, c.sectors_per_request))
        .collect();
    assert_eq!(
        cases,
        [
            ("(n / 64) == 1", AccessClass::Coalesced, 4.0),
            ("(n / 64) == 2", AccessClass::Strided, 8.0),
            ("(n / 64) == 4", AccessClass::Strided, 16.0),
            ("(n / 64) >= 8", AccessClass::Strided, 32.0),
        ]
    );
    {
        let p = predict(src, "k", "a", Op::Load, 1);
        assert_eq!(
            (p.class, p.sectors_per_request),
            (AccessClass::Coalesced, Some(1.0)),
            "{p:?}"
        );
        assert_eq!(
            p.assumptions,
            ["the lanes read one address in every case tried, but not for every value of the unknowns"]
        );
    }
}

#[test]
fn struct_and_slice_patterns_take_the_parts_they_match() {
    let src = "pub struct Job { first: usize, lane: usize }
    #[kernel] pub unsafe fn k(out: *mut f32, n: usize, rows: &[u32]) {
        let tid = thread::index_1d() as usize;
        let job = Job { first: n * 2, lane: tid };
        let Job { first, lane } = job;
        *out.add(first) = 1.0;
        *out.add(lane) = 2.0;
        let [p, q] = pair(tid);
        *out.add(p) = 3.0;
        let Some(r) = tid.checked_sub(1) else { return; };
        *out.add(r) = 4.0;
    }";
    assert_broadcast(&predict(src, "k", "out", Op::Store, 0));
    let p = predict(src, "k", "out", Op::Store, 1);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Coalesced, Some(4.0)),
        "{p:?}"
    );
    assert_unknown(
        &predict(src, "k", "out", Op::Store, 2),
        "the index depends on `p`, which is bound by a pattern the analysis does not follow",
    );
    let p = predict(src, "k", "out", Op::Store, 3);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Misaligned, Some(5.0)),
        "{p:?}"
    );
}

#[test]
fn deeply_nested_loops_that_ask_for_second_walks_stay_bounded() {
    // Each level changes a variable under a lane-dependent condition: a second walk of every
    // level would double the work per level.
    let mut body = "*out.add(tid) = 1.0;".to_string();
    for d in (0..14).rev() {
        body = format!(
            "let mut w{d} = 0; for k{d} in 0..n {{ *out.add(w{d}) = 2.0; {body} if tid > {d} {{ w{d} = 1; }} }}"
        );
    }
    let src = format!(
        "#[kernel] pub unsafe fn k(out: *mut f32, n: usize) {{ let tid = thread::index_1d() as usize; {body} }}"
    );
    let stores = predictions(&src, "k", "out", Op::Store, &[]);
    assert_eq!(stores.len(), 15);
    for (nth, p) in stores[..14].iter().enumerate() {
        assert_unknown(
            p,
            &format!("the index depends on `w{nth} (changed by the loop)`, which the analysis cannot follow"),
        );
    }
    let p = &stores[14];
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Coalesced, Some(4.0)),
        "{p:?}"
    );
}

#[test]
fn parameters_taken_apart_by_patterns_stay_uniform() {
    let src = "#[kernel] pub unsafe fn k(out: *mut f32, (w, h): (usize, usize), pair: (usize, usize)) {
        let tid = thread::index_1d() as usize;
        *out.add(w * h) = 1.0;
        let (a, b) = pair;
        *out.add(b) = 2.0;
        *out.add(pair.0 + tid) = 3.0;
    }";
    assert_broadcast(&predict(src, "k", "out", Op::Store, 0));
    assert_broadcast(&predict(src, "k", "out", Op::Store, 1));
    let p = predict(src, "k", "out", Op::Store, 2);
    assert_eq!(
        (p.class, p.sectors_per_request),
        (AccessClass::Misaligned, Some(5.0)),
        "{p:?}"
    );
    assert_eq!(p.cases[0].condition, "pair.0 % 8 == 0");
}

#[test]
fn a_block_nothing_gives_is_a_case_per_block_where_it_changes_the_verdict() {
    // No launch, configuration or hint gives the block of this two-dimensional kernel.
    let src = "#[kernel] pub unsafe fn flip(a: &[f32], out: *mut f32, w: usize, h: usize) {
        let x = (thread::thread_idx_x() + thread::block_idx_x() * thread::block_dim_x()) as usize;
        let y = (thread::thread_idx_y() + thread::block_idx_y() * thread::block_dim_y()) as usize;
        let v = a[x * h + y];
        *out.add(y * w + x) = v;
    }";
    // x walks a column: every lane its own sector under a block 32 wide, two lanes of one
    // row share one under a block 16 wide.
    let read = predict(src, "flip", "a", Op::Load, 0);
    assert_eq!(
        (read.class, read.sectors_per_request),
        (AccessClass::Transposed, None),
        "{read:?}"
    );
    assert_eq!(
        cases(&read),
        [
            ("block == (256, 1, 1)", AccessClass::Transposed, 32.0),
            ("block == (32, 8, 1)", AccessClass::Transposed, 32.0),
            ("block == (16, 16, 1)", AccessClass::Transposed, 16.0),
            ("block == (16, 16, 1) && h is odd", AccessClass::Transposed, 18.0)
        ]
    );
    assert!(read
        .assumptions
        .iter()
        .any(|a| a.starts_with("the figure depends on the block")));
    // The row write is coalesced under every block tried: one figure, no case.
    let write = predict(src, "flip", "out", Op::Store, 0);
    assert_eq!(
        (write.class, write.sectors_per_request),
        (AccessClass::Coalesced, Some(4.0)),
        "{write:?}"
    );
    assert!(
        !write.assumptions.iter().any(|a| a.contains("depends on the block")),
        "{write:?}"
    );
    // An odd row length costs another figure under a block 16 wide: that case is added.
    assert!(write.cases.contains(&Case {
        condition: "block == (16, 16, 1) && w is odd".into(),
        class: AccessClass::Misaligned,
        sectors_per_request: 5.75
    }));
}

#[test]
fn a_division_by_a_multiple_of_the_warp_width_is_one_address_for_the_warp() {
    let src = "#[kernel] pub unsafe fn k(a: &[f32], out: *mut f32) {
        let i = thread::index_1d() as usize;
        let whole = a[i / 64];
        let shifted = a[(i + 1) / 64];
        let straddling = a[i / 48];
        *out.add(i) = whole + shifted + straddling;
    }";
    // A warp's 32 threads start at a multiple of 32: they never cross a multiple of 64.
    assert_broadcast(&predict(src, "k", "a", Op::Load, 0));
    // One thread further on, the last lane of every other warp crosses it.
    assert_ne!(predict(src, "k", "a", Op::Load, 1).class, AccessClass::Broadcast);
    // 48 is no multiple of 32: some warps straddle a multiple of 48.
    assert_ne!(predict(src, "k", "a", Op::Load, 2).class, AccessClass::Broadcast);
}

/// A loop its guard bounds is counted iteration by iteration even when no grid is known: each
/// lane's 4 values at `i * 4 + k` stay within the warp's 16 sectors in every iteration, so the
/// figure is 16, not an average over start offsets the loop never reaches.
#[test]
fn a_bounded_loop_is_counted_by_its_iterations_without_a_grid() {
    let src = "#[kernel] pub unsafe fn k(src: &[f32], dst: *mut f32) {
        let i = thread::index_1d() as usize;
        for k in 0..4 {
            *dst.add(i * 4 + k) = src[i * 4 + k];
        }
    }";
    for (array, op) in [("src", Op::Load), ("dst", Op::Store)] {
        let p = predict(src, "k", array, op, 0);
        assert_eq!(
            (p.class, p.sectors_per_request),
            (AccessClass::Strided, Some(16.0)),
            "{array}: {p:?}"
        );
    }
}

/// A copy whose source holds a global buffer the analysis cannot place (a struct of pointers
/// copied as if it were a slice) writes its destination and says the source is not analyzed.
#[test]
fn a_copy_from_a_source_that_cannot_be_placed_says_so() {
    let src = "#[repr(C)] #[derive(Clone, Copy)] pub struct Pair { pub a: *const f32, pub b: *const f32 }
    #[kernel] pub unsafe fn k(p: Pair, dst: *mut f32) {
        let i = thread::index_1d() as usize;
        let out = core::slice::from_raw_parts_mut(dst.add(i * 2), 2);
        out.copy_from_slice(&p);
    }";
    let report = analyze_source(&SourceFile::new("k.rs", src), &LaunchPlan::default()).expect("parses");
    let kernel = &report.kernels[0];
    let stores: Vec<_> = kernel.accesses.iter().map(|a| (a.array.as_str(), a.op)).collect();
    assert_eq!(stores, [("dst", Op::Store)]);
    let notes: Vec<&str> = kernel.unsupported.iter().map(|u| u.message.as_str()).collect();
    assert_eq!(
        notes,
        ["`out.copy_from_slice(&p)` takes the global buffer `p.a` and is not visible to the analysis: accesses through it are not analyzed"]
    );
}
