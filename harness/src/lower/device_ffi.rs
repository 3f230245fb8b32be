//! Calls to device functions that the Rust declares in `extern "C" { .. }` and that the crate
//! defines in CUDA C++ next to it (`extern-libs/*.cu`, linked as LTO IR): the twin compiles
//! the defining file's text in its own translation unit, so the call is the same call.

use super::{Context, Lowered};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use syn::{ForeignItem, Item};

/// The folder, beside the crate's `Cargo.toml`, whose `.cu` files define the foreign functions.
const LIBRARY_FOLDER: &str = "extern-libs";

/// Headers of NVIDIA MathDx: they ship apart from the CUDA toolkit.
const MATHDX_HEADERS: &[(&str, &str)] = &[
    ("cufftdx", "cuFFTDx"),
    ("cublasdx", "cuBLASDx"),
    ("cusolverdx", "cuSolverDx"),
    ("curanddx", "cuRANDDx"),
    ("libmathdx", "libmathdx"),
];

/// The foreign device functions a file declares and the CUDA sources that may define them.
#[derive(Clone, Default)]
pub(super) struct DeviceFfi {
    /// Declared names, with whether their block is compiled only with the `libmathdx` feature.
    declared: BTreeMap<String, bool>,
    /// `extern-libs/NAME.cu` by name, with its text.
    sources: Vec<(String, String)>,
    /// The sources the lowered calls need, by index into `sources`.
    used: Rc<RefCell<BTreeSet<usize>>>,
}

impl DeviceFfi {
    pub(super) fn new(syntax: &syn::File, path: &str) -> Self {
        let mut declared = BTreeMap::new();
        collect_declared(&syntax.items, &mut declared);
        let sources = if declared.is_empty() {
            Vec::new()
        } else {
            crate_sources(Path::new(path))
        };
        DeviceFfi {
            declared,
            sources,
            used: Rc::default(),
        }
    }

    /// The text of the sources the file's lowered calls need, each compiled once in a program.
    pub(super) fn included_sources(&self) -> String {
        let mut out = String::new();
        for &i in self.used.borrow().iter() {
            let (name, text) = &self.sources[i];
            let guard: String = format!("KL_FFI_{name}")
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() {
                        c.to_ascii_uppercase()
                    } else {
                        '_'
                    }
                })
                .collect();
            out.push_str(&format!(
                "#ifndef {guard}\n#define {guard}\n// {LIBRARY_FOLDER}/{name}, compiled with the kernels\n{}\n#endif\n",
                toolkit_includes(text)
            ));
        }
        out
    }
}

/// `#include <cccl/cub/..>` names the CCCL headers by their CUDA 13 folder; CUDA 12 puts them
/// on the include path as `<cub/..>`, and CUDA 13 keeps that spelling working.
fn toolkit_includes(text: &str) -> String {
    text.lines()
        .map(|line| {
            if line.trim_start().starts_with("#include") {
                line.replacen("<cccl/", "<", 1)
            } else {
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn collect_declared(items: &[Item], out: &mut BTreeMap<String, bool>) {
    for item in items {
        match item {
            Item::ForeignMod(m) if m.abi.name.as_ref().is_none_or(|n| n.value() == "C") => {
                let mathdx = m
                    .attrs
                    .iter()
                    .any(|a| quote::ToTokens::to_token_stream(a).to_string().contains("libmathdx"));
                for f in &m.items {
                    if let ForeignItem::Fn(f) = f {
                        out.insert(f.sig.ident.to_string(), mathdx);
                    }
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    collect_declared(items, out);
                }
            }
            _ => {}
        }
    }
}

/// The `.cu` files of `extern-libs/` in the crate holding `file`, in name order.
fn crate_sources(file: &Path) -> Vec<(String, String)> {
    let Some(root) = file.ancestors().skip(1).find(|d| d.join("Cargo.toml").is_file()) else {
        return Vec::new();
    };
    let folder: PathBuf = root.join(LIBRARY_FOLDER);
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "cu"))
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().to_string();
            Some((name, std::fs::read_to_string(&p).ok()?))
        })
        .collect();
    out.sort();
    out
}

/// Whether `text` defines `extern "C" __device__ .. name(..) { .. }`.
fn defines(text: &str, name: &str) -> bool {
    let mut from = 0;
    while let Some(at) = text[from..].find(name).map(|i| i + from) {
        from = at + name.len();
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rest = text[from..].trim_start();
        if !rest.starts_with('(') {
            continue;
        }
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line = &text[line_start..at];
        if !(line.contains("extern \"C\"") && line.contains("__device__")) {
            continue;
        }
        // A definition, not a declaration: its parameter list is followed by a body.
        let mut depth = 0usize;
        for (i, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        if rest[i + 1..].trim_start().starts_with('{') {
                            return true;
                        }
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    false
}

/// The MathDx library whose header `text` includes.
fn mathdx_header(text: &str) -> Option<(&'static str, String)> {
    text.lines()
        .filter(|l| l.trim_start().starts_with("#include"))
        .find_map(|l| {
            MATHDX_HEADERS
                .iter()
                .find(|(stem, _)| l.contains(stem))
                .map(|(_, library)| (*library, l.trim().trim_start_matches("#include").trim().to_string()))
        })
}

impl Context<'_> {
    /// `magnitude_squared(x, y)` of an `extern "C"` block: the same call of the function the
    /// crate's CUDA source defines.
    pub(super) fn foreign_call(&self, c: &syn::ExprCall, name: &str, args: &[String]) -> Lowered<Option<String>> {
        let ffi = &self.ffi;
        let Some(&mathdx_feature) = ffi.declared.get(name) else {
            return Ok(None);
        };
        if self.helpers.contains(name) {
            return Ok(None);
        }
        let Some(found) = ffi.sources.iter().position(|(_, text)| defines(text, name)) else {
            if mathdx_feature || name.starts_with("libmathdx_") {
                return self.fail(
                    c,
                    format!(
                        "extern \"C\" `{name}` is generated by libmathdx (NVIDIA MathDx) at build \
                         time; MathDx does not ship with the CUDA toolkit"
                    ),
                );
            }
            return self.fail(
                c,
                format!("extern \"C\" `{name}` is defined in no .cu file of the crate's {LIBRARY_FOLDER}/"),
            );
        };
        let (file, text) = &ffi.sources[found];
        if let Some((library, header)) = mathdx_header(text) {
            return self.fail(
                c,
                format!(
                    "extern \"C\" `{name}` is defined in {LIBRARY_FOLDER}/{file} with {library} \
                     ({header}), a NVIDIA MathDx header that does not ship with the CUDA toolkit"
                ),
            );
        }
        ffi.used.borrow_mut().insert(found);
        Ok(Some(format!("::{name}({})", args.join(", "))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_told_from_declarations() {
        let text = "extern \"C\" __device__ void f(float* d, int n);\n\
                    extern \"C\" __device__ float g(\n  float a) { return a; }\n";
        assert!(!defines(text, "f"));
        assert!(defines(text, "g"));
        assert!(!defines(text, "h"));
    }
}
