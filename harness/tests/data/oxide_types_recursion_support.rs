// Helpers of another module, in the shape of NVlabs/cuda-oxide
// (a105afd522b73a6712a802e30bd900cd04cc8019) `cross_crate_recursion/reprolib` and
// `extern_crate_closure/helper-lib`.

pub fn total(a: &[u64]) -> u64 {
    if a.is_empty() {
        return 0;
    }
    a[0].wrapping_add(total(&a[1..]))
}

fn apply<F: FnOnce() -> i32>(f: F) -> i32 {
    f()
}

pub fn pick(values: &[i32], index: usize) -> i32 {
    if index < values.len() {
        apply(|| values[index])
    } else {
        -1
    }
}

pub fn doubled_even(value: i32) -> i32 {
    (value % 2 == 0).then(move || apply(move || value * 2)).unwrap_or(value)
}
