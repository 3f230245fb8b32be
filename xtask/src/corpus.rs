//! Synthetic kernel workspaces in the shapes real kernel crates have: kernels in nested modules
//! using structs of a types module and helpers of another module, loops, branches, launch hints,
//! host code launching some of them, and (in the mixed variant) host-only files around them.
//!
//! The output depends only on the spec: the same spec writes the same bytes.

use std::fmt::Write as _;
use std::path::Path;

/// Kernels per kernel file by default: about 30 lines each.
const KERNELS_PER_FILE: usize = 10;
/// Kernel files per folder module.
const FILES_PER_GROUP: usize = 20;
/// Host-only files per kernel file in the mixed variant (90 % of the files).
const HOST_FILES_PER_KERNEL_FILE: usize = 9;
/// Structs the types module defines, used by the kernels of every file.
const STRUCTS: usize = 8;

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusSpec {
    /// Number of kernels.
    pub kernels: usize,
    /// Nine host-only files beside each kernel file.
    pub mixed: bool,
    /// Varies names and constants.
    pub seed: u64,
    /// Kernels written to each kernel file (at least one).
    pub kernels_per_file: usize,
}

impl Default for CorpusSpec {
    fn default() -> Self {
        CorpusSpec {
            kernels: 1000,
            mixed: false,
            seed: 1,
            kernels_per_file: KERNELS_PER_FILE,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CorpusStats {
    /// Source files.
    pub files: usize,
    /// Source files holding a kernel.
    pub kernel_files: usize,
    /// Kernels.
    pub kernels: usize,
    /// Lines of Rust.
    pub lines: usize,
}

/// One generated file: its path under the crate's `src/` and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Relative to the crate root (`src/lib.rs`, `src/group_0/k_3.rs`).
    pub path: String,
    /// Rust source.
    pub text: String,
}

/// Writes the crate `gen-kernels` (a `Cargo.toml` and its `src/` tree) under `out`.
pub fn write_corpus(spec: &CorpusSpec, out: &Path) -> std::io::Result<CorpusStats> {
    let files = generate(spec);
    let mut stats = CorpusStats::default();
    std::fs::create_dir_all(out)?;
    std::fs::write(
        out.join("Cargo.toml"),
        "[package]\nname = \"gen-kernels\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )?;
    for file in &files {
        let path = out.join(&file.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, &file.text)?;
        stats.files += 1;
        stats.lines += file.text.lines().count();
        let kernels = file.text.matches("#[kernel]").count() + file.text.matches("kernel)]").count();
        stats.kernels += kernels;
        stats.kernel_files += usize::from(kernels > 0);
    }
    Ok(stats)
}

/// The files of the corpus, in a fixed order.
pub fn generate(spec: &CorpusSpec) -> Vec<GeneratedFile> {
    let mut rng = Rng(spec.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let per_file = spec.kernels_per_file.max(1);
    let kernel_files = spec.kernels.div_ceil(per_file);
    let groups = kernel_files.div_ceil(FILES_PER_GROUP);
    let mut files = Vec::new();
    let mut lib =
        String::from("//! Generated kernels for benchmarks.\n\npub mod helpers;\npub mod host;\npub mod types;\n");
    for g in 0..groups {
        let _ = writeln!(lib, "pub mod group_{g};");
    }
    let mut launched = Vec::new();
    let mut kernel = 0;
    for g in 0..groups {
        let mut group = format!("//! Kernel group {g}.\n\n");
        let first = g * FILES_PER_GROUP;
        for f in first..kernel_files.min(first + FILES_PER_GROUP) {
            let _ = writeln!(group, "pub mod k_{f};");
            let mut text = String::from(
                "use cuda_std::prelude::*;\nuse cuda_std::thread;\n\nuse crate::helpers;\nuse crate::types::*;\n",
            );
            let count = per_file.min(spec.kernels - kernel);
            for _ in 0..count {
                let name = kernel_name(&mut rng, kernel);
                text.push('\n');
                text.push_str(&kernel_text(&mut rng, kernel, &name));
                if kernel % 10 == 3 {
                    launched.push((format!("group_{g}::k_{f}"), name, kernel));
                }
                kernel += 1;
            }
            files.push(GeneratedFile {
                path: format!("src/group_{g}/k_{f}.rs"),
                text,
            });
            if spec.mixed {
                for h in 0..HOST_FILES_PER_KERNEL_FILE {
                    let module = format!("host_{}", f * HOST_FILES_PER_KERNEL_FILE + h);
                    let _ = writeln!(group, "pub mod {module};");
                    files.push(GeneratedFile {
                        path: format!("src/group_{g}/{module}.rs"),
                        text: host_only_text(&mut rng, f * HOST_FILES_PER_KERNEL_FILE + h),
                    });
                }
            }
        }
        files.push(GeneratedFile {
            path: format!("src/group_{g}/mod.rs"),
            text: group,
        });
    }
    files.push(GeneratedFile {
        path: "src/lib.rs".into(),
        text: lib,
    });
    files.push(GeneratedFile {
        path: "src/types.rs".into(),
        text: types_text(),
    });
    files.push(GeneratedFile {
        path: "src/helpers.rs".into(),
        text: helpers_text(),
    });
    files.push(GeneratedFile {
        path: "src/host.rs".into(),
        text: launches_text(&launched),
    });
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// A small xorshift generator: the corpus must not change with a library's version.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

const VERBS: &[&str] = &[
    "scale", "blend", "gather", "reduce", "shift", "update", "mix", "copy", "filter", "advect", "smooth", "apply",
];
const NOUNS: &[&str] = &[
    "pixels",
    "particles",
    "rows",
    "grid",
    "cells",
    "weights",
    "samples",
    "field",
    "bins",
    "tiles",
    "rays",
];

fn kernel_name(rng: &mut Rng, i: usize) -> String {
    format!("{}_{}_{i}", rng.pick(VERBS), rng.pick(NOUNS))
}

/// One kernel of about 30 lines (comment, hint, attributes and a host-side wrapper included),
/// in one of the shapes of the fixtures.
fn kernel_text(rng: &mut Rng, i: usize, name: &str) -> String {
    let s = i % STRUCTS;
    let stride = [2, 3, 4, 8, 16, 32][rng.below(6)];
    let c = rng.below(100);
    let attr = if i.is_multiple_of(7) {
        "#[cfg_attr(target_os = \"cuda\", kernel)]"
    } else {
        "#[kernel]"
    };
    let hint = match i % 5 {
        0 => "// kernel-lint: block(128)\n".to_string(),
        1 => "// kernel-lint: block(16, 16)\n".to_string(),
        _ => String::new(),
    };
    let allow = "#[allow(improper_ctypes_definitions, clippy::missing_safety_doc)]";
    let body = match i % 8 {
        0 => format!(
            "pub unsafe fn {name}(a: f32, x: &[f32], y: *mut f32, n: u32) {{
    let i = thread::index_1d() as usize;
    if i < n as usize {{
        let v = x[i] * a + {c}.0;
        *y.add(i) = v;
    }}
}}"
        ),
        1 => format!(
            "pub unsafe fn {name}(src: &[f32], dst: *mut f32, n: u32) {{
    let i = thread::index_1d() as usize;
    if i < n as usize / {stride} {{
        let v = src[i * {stride}];
        let w = src[i * {stride} + 1];
        *dst.add(i) = v + w * {c}.0;
    }}
}}"
        ),
        2 => format!(
            "pub unsafe fn {name}(items: *mut Body{s}, n: u32, dt: f32) {{
    let idx = (thread::thread_idx_x() + thread::block_idx_x() * thread::block_dim_x()) as usize;
    if idx >= n as usize {{
        return;
    }}
    let vx = (*items.add(idx)).vx;
    let x = (*items.add(idx)).x;
    (*items.add(idx)).x = x + vx * dt;
}}"
        ),
        3 => format!(
            "pub unsafe fn {name}(src: &[f32], dst: *mut f32, width: u32, height: u32) {{
    let col = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let row = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    if row < height && col < width {{
        let v = src[helpers::at(row, col, width)];
        *dst.add(helpers::at(col, row, height)) = v;
    }}
}}"
        ),
        4 => format!(
            "pub unsafe fn {name}(a: &[f32], b: &[f32], c: *mut f32, n: u32) {{
    let row = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    let col = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    if row < n as usize && col < n as usize {{
        let mut acc = 0.0f32;
        for k in 0..{len} {{
            acc += a[row * {len} + k] * b[k * n as usize + col];
        }}
        *c.add(row * n as usize + col) = acc;
    }}
}}",
            len = 16 * (1 + rng.below(8))
        ),
        5 => format!(
            "pub unsafe fn {name}(values: &[f32], idx: &[u32], out: *mut f32, n: u32) {{
    let i = thread::index_1d();
    if i < n {{
        let j = idx[i as usize];
        let v = values[j as usize];
        *out.add(i as usize) = helpers::clamp01(v);
    }}
}}"
        ),
        6 => format!(
            "pub unsafe fn {name}(x: &[f32], out: *mut f32, n: u32) {{
    let i = thread::index_1d() as usize;
    let stride = (thread::grid_dim_x() * thread::block_dim_x()) as usize;
    let mut j = i;
    let mut s = 0.0f32;
    while j < n as usize {{
        if j % 2 == 0 {{
            s += x[j];
        }} else {{
            s -= x[j] * {c}.0;
        }}
        j += stride;
    }}
    *out.add(i) = s;
}}"
        ),
        _ => format!(
            "pub unsafe fn {name}(cells: &[Cell{s}], out: *mut f32, n: u32) {{
    let i = thread::index_1d() as usize;
    if i < n as usize {{
        let cell = cells[i];
        let mut total = cell.weight;
        for k in 0..4 {{
            if total > {c}.0 {{
                total = total * 0.5 + cells[(i + k) % n as usize].weight;
            }}
        }}
        *out.add(i) = total;
    }}
}}"
        ),
    };
    format!(
        "/// Threads per block the host launches `{name}` with.
pub const {upper}_THREADS: u32 = {threads};

/// {name}: generated kernel {i}.
///
/// One thread per element: reads its inputs, writes one result; the launch covers `n`
/// threads or more, the guard keeps the extra ones out.
{hint}{attr}
{allow}
{body}

/// Host-side size of the buffers `{name}` reads.
pub fn {name}_bytes(n: usize) -> usize {{
    n * core::mem::size_of::<f32>() * {k}
}}
",
        k = 1 + i % 3,
        upper = name.to_ascii_uppercase(),
        threads = [128, 256, 512][i % 3]
    )
}

fn types_text() -> String {
    let mut text = String::from("//! Types the kernels read and write.\n");
    for s in 0..STRUCTS {
        let _ = write!(
            text,
            "
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Body{s} {{
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub vx: f32,
    pub vy: f32,
    pub vz: f32,
    pub mass: [f32; {pad}],
}}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Cell{s} {{
    pub weight: f32,
    pub flags: u32,
    pub extra: [u32; {pad}],
}}
",
            pad = 1 + s
        );
    }
    text
}

fn helpers_text() -> String {
    "//! Device helpers shared by the kernels.

/// Row-major index of `(row, col)` in a matrix `width` wide.
#[inline]
pub fn at(row: u32, col: u32, width: u32) -> usize {
    (row * width + col) as usize
}

/// `v` clamped to `[0, 1]`.
#[inline]
pub fn clamp01(v: f32) -> f32 {
    if v < 0.0 {
        0.0
    } else if v > 1.0 {
        1.0
    } else {
        v
    }
}
"
    .to_string()
}

/// Host code launching some kernels with cust's `launch!`.
fn launches_text(launched: &[(String, String, usize)]) -> String {
    let mut text = String::from(
        "//! Host code launching some of the kernels.

use cust::prelude::*;

pub fn run_all(module: &Module, stream: &Stream, n: u32) -> Result<(), Box<dyn std::error::Error>> {
    let x = DeviceBuffer::from_slice(&vec![0.0f32; n as usize])?;
    let idx = DeviceBuffer::from_slice(&vec![0u32; n as usize])?;
    let out = DeviceBuffer::from_slice(&vec![0.0f32; n as usize])?;
    unsafe {
",
    );
    for (_, name, _) in launched {
        let _ = writeln!(
            text,
            "        launch!(module.{name}<<<(n + 255) / 256, 256, 0, stream>>>(x.as_device_ptr(), x.len(), idx.as_device_ptr(), idx.len(), out.as_device_ptr(), n))?;"
        );
    }
    text.push_str("    }\n    stream.synchronize()?;\n    Ok(())\n}\n");
    text
}

/// A host-only file of about 300 lines: configuration structs, parsing, statistics, no kernel
/// and no launch.
fn host_only_text(rng: &mut Rng, i: usize) -> String {
    let mut text =
        format!("//! Host module {i}: settings, parsing and statistics.\n\nuse std::collections::BTreeMap;\n");
    for j in 0..10 {
        let name = format!("{}{}{i}x{j}", capitalize(rng.pick(VERBS)), capitalize(rng.pick(NOUNS)));
        let limit = rng.below(1000);
        let _ = write!(
            text,
            "
/// Settings read from the command line.
#[derive(Debug, Clone, Default)]
pub struct {name} {{
    pub names: Vec<String>,
    pub limits: BTreeMap<String, u64>,
    pub verbose: bool,
}}

impl {name} {{
    /// Reads `key=value` pairs, keeping the last value of each key.
    pub fn parse(args: &[&str]) -> Result<Self, String> {{
        let mut out = Self::default();
        for arg in args {{
            match arg.split_once('=') {{
                Some((key, value)) => {{
                    let v: u64 = value.parse().map_err(|_| format!(\"bad value for {{key}}\"))?;
                    out.limits.insert(key.to_string(), v.min({limit}));
                }}
                None if *arg == \"-v\" => out.verbose = true,
                None => out.names.push(arg.to_string()),
            }}
        }}
        Ok(out)
    }}

    /// The mean of the limits, if any.
    pub fn mean(&self) -> Option<f64> {{
        let n = self.limits.len();
        (n > 0).then(|| self.limits.values().map(|&v| v as f64).sum::<f64>() / n as f64)
    }}
}}
"
        );
    }
    text
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}
