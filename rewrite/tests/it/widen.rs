//! A lane's run of consecutive elements loaded as one wide element, proven by re-analysis.

use kernel_lint_lints::{Diagnostic, Fix};

use crate::support;

/// The strided findings of `source`, with their rewrites.
fn rewritten(source: &str) -> Vec<Diagnostic> {
    let mut diagnostics = support::rewritten(source);
    diagnostics.retain(|d| d.code == "KL001");
    diagnostics
}

fn replacements(fix: &Fix) -> Vec<&str> {
    fix.edits.iter().map(|e| e.replacement.as_str()).collect()
}

fn figures(fix: &Fix) -> (f64, f64, Option<(u32, u32)>) {
    let gain = fix.gain.as_ref().expect("re-analyzed");
    (gain.sectors_before, gain.sectors_after, gain.requests)
}

/// The note that says why a finding has no rewrite.
fn declined(d: &Diagnostic) -> Vec<&str> {
    assert!(d.fixes.is_empty(), "{:#?}", d.fixes);
    d.notes
        .iter()
        .filter_map(|n| n.strip_prefix("no rewrite is offered: "))
        .collect()
}

const RGB: &str = "use cuda_std::prelude::*;

// kernel-lint: block(32, 8)
#[kernel]
pub unsafe fn gray(image: &[u8], gray: *mut u8, width: u32, height: u32) {
    let x = thread::thread_idx_x() + thread::block_idx_x() * thread::block_dim_x();
    let y = thread::thread_idx_y() + thread::block_idx_y() * thread::block_dim_y();
    if x < width && y < height {
        let idx = ((y * width + x) * 3) as usize;
        let r = image[idx + 0] as u32;
        let g = image[idx + 1] as u32;
        let b = image[idx + 2] as u32;
        *gray.add((y * width + x) as usize) = ((r + g + b) / 3) as u8;
    }
}
";

#[test]
fn interleaved_rgb_is_split_into_planes_or_padded_to_four() {
    let found = rewritten(RGB);
    assert_eq!(found.len(), 3, "{found:#?}");
    let [planar, padded] = found[0].fixes.as_slice() else {
        panic!("two rewrites: {:#?}", found[0].fixes);
    };
    assert_eq!(
        planar.title,
        "pass `image` as one slice per channel (`image_r`, `image_g`, `image_b`)"
    );
    assert_eq!(
        replacements(planar),
        vec![
            "image_r: &[u8], image_g: &[u8], image_b: &[u8]",
            "image_r[idx / 3]",
            "image_g[idx / 3]",
            "image_b[idx / 3]",
        ]
    );
    assert_eq!(figures(planar), (3.0, 1.0, None));
    assert_eq!(
        planar.follow_up,
        vec!["the host must split `image` into `image_r`, `image_g`, `image_b` (`image_r[p] = image[3 * p]`, `image_g[p] = image[3 * p + 1]`, `image_b[p] = image[3 * p + 2]`) and pass them in place of `image`"]
    );
    assert_eq!(
        padded.title,
        "pad each pixel of `image` to 4 `u8` (`Rgba`) and load it as one 4-byte element"
    );
    assert_eq!(
        replacements(padded),
        vec![
            "/// A pixel of three `u8` padded to four, loaded as one aligned 4-byte element.\n#[repr(C, align(4))]\n#[derive(Clone, Copy)]\npub struct Rgba {\n    pub r: u8,\n    pub g: u8,\n    pub b: u8,\n    pub a: u8,\n}\n\n",
            "image: &[Rgba]",
            "let rgb = image[idx / 3];\n        ",
            "rgb.r",
            "rgb.g",
            "rgb.b",
        ]
    );
    // One request of 4 sectors in place of three of 3.
    assert_eq!(figures(padded), (3.0, 4.0, Some((3, 1))));
    assert_eq!(
        padded.follow_up,
        vec!["the host must repack `image` as 4-byte pixels, `Rgba { r: image[3 * p], g: image[3 * p + 1], b: image[3 * p + 2], a: 0 }` for pixel `p`, in a 4-byte aligned buffer and pass it as a `&[Rgba]`"]
    );
    // The three findings share the two rewrites.
    for d in &found {
        let titles: Vec<&str> = d.fixes.iter().map(|f| f.title.as_str()).collect();
        assert_eq!(titles, vec![planar.title.as_str(), padded.title.as_str()]);
    }
}

#[test]
fn a_pointer_run_of_four_floats_is_one_aligned_load_and_keeps_the_signature() {
    let found = rewritten(
        "use cuda_std::prelude::*;
#[kernel]
pub unsafe fn sum4(src: *const f32, out: *mut f32, n: u32) {
    let idx = thread::index_1d() as usize * 4;
    if idx + 3 < n as usize {
        let a = *src.add(idx + 0);
        let b = *src.add(idx + 1);
        let c = *src.add(idx + 2);
        let d = *src.add(idx + 3);
        *out.add(idx / 4) = a + b + c + d;
    }
}
",
    );
    assert_eq!(found.len(), 4, "{found:#?}");
    let fix = &found[0].fixes[0];
    assert_eq!(fix.title, "load each run of 4 `f32` of `src` as one 16-byte `Abcd`");
    assert_eq!(
        replacements(fix),
        vec![
            "/// Four `f32` a lane accesses together, as one aligned 16-byte element.\n#[repr(C, align(16))]\n#[derive(Clone, Copy)]\npub struct Abcd {\n    pub a: f32,\n    pub b: f32,\n    pub c: f32,\n    pub d: f32,\n}\n\n",
            "let abcd = *(src as *const Abcd).add(idx / 4);\n        ",
            "abcd.a",
            "abcd.b",
            "abcd.c",
            "abcd.d",
        ]
    );
    // Four requests of 16 sectors become one of 16.
    assert_eq!(figures(fix), (16.0, 16.0, Some((4, 1))));
    assert_eq!(
        fix.follow_up,
        vec!["the buffer `src` points to must be 16-byte aligned (a device allocation is; an offset into one must be a multiple of 4 elements)"]
    );
    assert!(found
        .iter()
        .all(|d| d.fixes.len() == 1 && d.fixes[0].title == fix.title));
}

#[test]
fn a_slice_of_pairs_is_retyped_with_the_bindings_as_fields() {
    let found = rewritten(
        "use cuda_std::prelude::*;
#[kernel]
pub unsafe fn magnitude(src: &[f32], out: *mut f32) {
    let i = thread::index_1d() as usize;
    let re = src[2 * i];
    let im = src[2 * i + 1];
    *out.add(i) = re * re + im * im;
}
",
    );
    let fix = &found[0].fixes[0];
    assert_eq!(
        fix.title,
        "pass `src` as `&[ReIm]` and load each run of 2 `f32` as one 8-byte element"
    );
    assert_eq!(
        replacements(fix),
        vec![
            "/// Two `f32` a lane accesses together, as one aligned 8-byte element.\n#[repr(C, align(8))]\n#[derive(Clone, Copy)]\npub struct ReIm {\n    pub re: f32,\n    pub im: f32,\n}\n\n",
            "src: &[ReIm]",
            "let re_im = src[i];\n    ",
            "re_im.re",
            "re_im.im",
        ]
    );
    assert_eq!(figures(fix), (8.0, 8.0, Some((2, 1))));
    assert_eq!(
        fix.follow_up,
        vec!["the host must pass `src`'s buffer as a `&[ReIm]` of 1/2 its length: the buffer must be 8-byte aligned and hold a multiple of 2 `f32`"]
    );
}

#[test]
fn the_file_s_own_vector_type_is_reused_for_loads_without_bindings() {
    let found = rewritten(
        "use cuda_std::prelude::*;
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct Float4 { pub x: f32, pub y: f32, pub z: f32, pub w: f32 }
#[kernel]
pub unsafe fn scale(input: &[f32], out: &mut [f32]) {
    let idx = thread::index_1d() as usize * 4;
    out[idx + 0] = input[idx + 0] * 2.0;
    out[idx + 1] = input[idx + 1] * 2.0;
    out[idx + 2] = input[idx + 2] * 2.0;
    out[idx + 3] = input[idx + 3] * 2.0;
}
",
    );
    let on_input: Vec<&Diagnostic> = found.iter().filter(|d| d.message.contains("`input[")).collect();
    assert_eq!(on_input.len(), 4);
    let fix = &on_input[0].fixes[0];
    assert_eq!(
        replacements(fix),
        vec![
            "input: &[Float4]",
            "let input4 = input[idx / 4];\n    ",
            "input4.x",
            "input4.y",
            "input4.z",
            "input4.w",
        ]
    );
    assert_eq!(figures(fix), (16.0, 16.0, Some((4, 1))));
    // The run of stores is one store of the same type, its values in place.
    let on_out = found
        .iter()
        .find(|d| d.message.contains("`out[idx + 1]`"))
        .expect("a store finding");
    let fix = &on_out.fixes[0];
    assert_eq!(
        fix.title,
        "pass `out` as `&mut [Float4]` and store each run of 4 `f32` as one 16-byte element"
    );
    assert_eq!(
        replacements(fix),
        vec![
            "out: &mut [Float4]",
            "out[idx / 4] = Float4 {\n        x: input[idx + 0] * 2.0,\n        y: input[idx + 1] * 2.0,\n        z: input[idx + 2] * 2.0,\n        w: input[idx + 3] * 2.0,\n    };",
        ]
    );
    assert_eq!(figures(fix), (16.0, 16.0, Some((4, 1))));
}

#[test]
fn a_pointer_run_of_stores_is_one_store_of_the_values() {
    let found = rewritten(
        "use cuda_std::prelude::*;
#[kernel]
pub unsafe fn polar(mag: *const f32, out: *mut f32) {
    let i = thread::index_1d() as usize;
    let m = *mag.add(i);
    let re = m * 0.5;
    let im = m * 0.25;
    *out.add(2 * i) = re;
    *out.add(2 * i + 1) = im;
}
",
    );
    assert_eq!(found.len(), 2, "{found:#?}");
    let fix = &found[0].fixes[0];
    assert_eq!(fix.title, "store each run of 2 `f32` of `out` as one 8-byte `Float2`");
    assert_eq!(
        replacements(fix),
        vec![
            "/// Two `f32` a lane accesses together, as one aligned 8-byte element.\n#[repr(C, align(8))]\n#[derive(Clone, Copy)]\npub struct Float2 {\n    pub x: f32,\n    pub y: f32,\n}\n\n",
            "*(out as *mut Float2).add(i) = Float2 { x: re, y: im };",
        ]
    );
    assert_eq!(figures(fix), (8.0, 8.0, Some((2, 1))));
    assert_eq!(
        fix.follow_up,
        vec!["the buffer `out` points to must be 8-byte aligned (a device allocation is; an offset into one must be a multiple of 2 elements)"]
    );
}

/// The reason given for the first finding of a kernel.
fn reason(kernel: &str) -> String {
    let found = rewritten(&format!("use cuda_std::prelude::*;\n#[kernel]\n{kernel}\n"));
    let first = found.first().expect("a finding");
    declined(first).join(" / ")
}

#[test]
fn a_run_the_rewrite_cannot_prove_is_declined_with_the_reason() {
    assert_eq!(
        reason(
            "pub unsafe fn k(src: &[f32], out: *mut f32, base: usize) {
    let i = thread::index_1d() as usize;
    let idx = base + 4 * i;
    *out.add(i) = src[idx] + src[idx + 1] + src[idx + 2] + src[idx + 3];
}"
        ),
        "the run of `src` starts at `idx` (`let idx = base + 4 * i`), which the index expression does not show to be a multiple of 4: an aligned wide load needs one"
    );
    assert_eq!(
        reason(
            "pub unsafe fn k(src: *const f32, dst: *mut f32) {
    let i = thread::index_1d() as usize;
    *dst.add(i) = *src.add(2 * i);
}"
        ),
        "",
        "one element per lane is not a run: no rewrite is drafted and no reason is given"
    );
    assert_eq!(
        reason(
            "pub unsafe fn k(src: &[f32], out: *mut f32) {
    let i = thread::index_1d() as usize;
    *out.add(i) = src[4 * i] + src[4 * i + 2];
}"
        ),
        "the loads of `src` from `4 * i` are at offsets 0, 2: a run starts at offset 0 and has no gap"
    );
    assert_eq!(
        reason(
            "pub unsafe fn k(src: &[u8], out: *mut u8) {
    let i = thread::index_1d() as usize;
    *out.add(i) = src[2 * i] ^ src[2 * i + 1];
}"
        ),
        "a run of 2 `u8` is 2 bytes: an aligned wide load is 8 or 16 bytes"
    );
    assert_eq!(
        reason(
            "pub unsafe fn k(src: &[f64], out: *mut f64) {
    let i = thread::index_1d() as usize;
    *out.add(i) = src[4 * i] + src[4 * i + 1] + src[4 * i + 2] + src[4 * i + 3];
}"
        ),
        "a run of 4 `f64` is 32 bytes: an aligned wide load is 8 or 16 bytes"
    );
    assert_eq!(
        reason(
            "pub unsafe fn k(src: &[f32], out: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    let a = src[2 * i];
    let b = if 2 * i + 1 < n { src[2 * i + 1] } else { 0.0 };
    *out.add(i) = a + b;
}"
        ),
        "the loads of `src` from `2 * i` are in different blocks: one access in place of them would change the guards they are under"
    );
    assert_eq!(
        reason(
            "pub unsafe fn k(src: &[f32], out: *mut u32, n: usize) {
    let i = thread::index_1d() as usize;
    let positive = i < n && src[2 * i] + src[2 * i + 1] > 0.0;
    *out.add(i) = positive as u32;
}"
        ),
        "`src[2 * i]` is read under a condition of its own: one load in place of the run would read it unconditionally"
    );
    assert_eq!(
        reason(
            "pub unsafe fn k(input: *const f32, out: *mut f32) {
    let idx = thread::index_1d() as usize * 2;
    *out.add(idx) = *input.add(idx) * 2.0;
    *out.add(idx + 1) = *input.add(idx + 1) * 2.0;
}"
        ),
        "`*out.add(idx) = *input.add(idx) * 2.0` writes memory between the loads of the run: through raw pointers, which may overlap, one load before it could read a value it changes"
    );
    assert_eq!(
        reason(
            "pub unsafe fn k(input: *const f32, out: *mut f32) {
    let i = thread::index_1d() as usize;
    *out.add(2 * i) = *input.add(i);
    *out.add(2 * i + 1) = 0.0;
}"
        ),
        "`*out.add(2 * i) = *input.add(i);` reads memory while the run writes through a raw pointer, which may overlap: one store after the values could change what it reads"
    );
    assert_eq!(
        reason(
            "pub unsafe fn k(dst: *mut f32) {
    let x = thread::index_1d() as usize;
    let dst = dst.add(3 * x);
    *dst = 1.0;
    *dst.add(1) = 2.0;
    *dst.add(2) = 3.0;
}"
        ),
        "`dst` is bound again in the kernel (a pointer derived from the parameter takes its name): the rewrite follows accesses written on the parameter only"
    );
    assert_eq!(
        reason(
            "pub unsafe fn k(src: &[f32], out: *mut f32) {
    let i = thread::index_1d() as usize;
    if 2 * i + 1 < src.len() {
        *out.add(i) = src[2 * i] - src[2 * i + 1];
    }
}"
        ),
        "`src` is also used in `if 2 * i + 1 < src.len() {`, which the rewrite does not follow: its layout changes"
    );
}
