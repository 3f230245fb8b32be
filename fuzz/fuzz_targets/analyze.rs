//! libFuzzer target: any bytes, analyzed as `check` analyzes a crate (see `kernel_lint_fuzz::run`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Err(defect) = kernel_lint_fuzz::run(data) {
        panic!("{defect}");
    }
});
