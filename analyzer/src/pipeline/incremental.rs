//! A program kept between edits: one file's text replaced without reading or parsing the
//! others again, for an editor that reports one buffer at a time and for the analyses of
//! rewrites, each of which changes a file or two of the same workspace.

use super::Program;
use crate::model::kernel::kernel_names;
use crate::parse::scan::{glob_imports, scan_recent};
use crate::parse::{parse_file, ParsedFile};
use crate::source::{FileError, SourceFile};
use std::collections::{BTreeSet, HashSet};

/// A file of a program: its text and its parse.
pub type FileState = (SourceFile, Result<ParsedFile, FileError>);

impl Program {
    /// The index of the file printed as `path`.
    pub fn position(&self, path: &str) -> Option<usize> {
        self.files.iter().position(|f| f.path == path)
    }

    /// Replaces the text of file `file` and parses it alone; the other files keep their
    /// syntax trees ([`Program::swap_file`]). Returns `false`, changing nothing, when there is
    /// no such file.
    pub fn replace(&mut self, file: usize, source: SourceFile) -> bool {
        let parsed = parse_file(&source);
        self.swap_file(file, (source, parsed)).is_some()
    }

    /// Puts a file's new text and parse in place of file `file` and returns what was there
    /// (`None`, changing nothing, when there is no such file). Only that file's items are
    /// indexed again, unless another file is the same module (its items cannot be told apart
    /// from the file's: then every file's are); only its host launches are read again, and
    /// those of the files whose launches read a constant that changed.
    pub fn swap_file(&mut self, file: usize, (source, parsed): FileState) -> Option<FileState> {
        if file >= self.files.len() {
            return None;
        }
        let old = (
            std::mem::replace(&mut self.files[file], source),
            std::mem::replace(&mut self.parsed[file], parsed),
        );
        self.deferred[file] = false;
        if let Some(semantics) = self.semantics.get_mut() {
            semantics.set_text(file, &self.files[file].text);
        }
        self.reindex(file);
        for name in std::mem::take(&mut self.file_kernels[file]) {
            if let Some(count) = self.kernel_names.get_mut(&name) {
                *count -= 1;
                if *count == 0 {
                    self.kernel_names.remove(&name);
                }
            }
        }
        let names = self.syntax(file).map(|s| kernel_names(&s.items)).unwrap_or_default();
        for name in &names {
            *self.kernel_names.entry(name.clone()).or_default() += 1;
        }
        self.file_kernels[file] = names;
        let touched = changed_names(&old.0.text, &self.files[file].text);
        self.read_launches(touched.as_ref(), Some(file));
        Some(old)
    }

    /// Indexes file `file`'s items again, alone when no other file is the same module.
    fn reindex(&mut self, file: usize) {
        let module = &self.modules[file];
        let shared = self.modules.iter().enumerate().any(|(i, m)| i != file && m == module);
        if shared {
            self.index.clear_items();
            for (i, parsed) in self.parsed.iter().enumerate() {
                if let (Ok(parsed), Some(module)) = (parsed, self.modules.get(i)) {
                    self.index.add_file(module.clone(), i, &parsed.syntax);
                }
            }
            return;
        }
        let others: HashSet<_> = (self.modules.iter().enumerate())
            .filter(|&(i, _)| i != file)
            .map(|(_, m)| m.clone())
            .collect();
        let syntax = self.parsed[file].as_ref().ok().map(|p| &*p.syntax);
        self.index.replace_file(module, file, syntax, &others);
    }
}

/// The names a file defined or defines now, when a change from `old` to `new` can reach
/// other files only through them: `None` when it changes a glob import or a macro
/// definition, which bring in names they do not write.
fn changed_names(old: &str, new: &str) -> Option<BTreeSet<String>> {
    if glob_imports(old) != glob_imports(new)
        || (old != new && (old.contains("macro_rules") || new.contains("macro_rules")))
    {
        return None;
    }
    let mut names: BTreeSet<String> = scan_recent(old).defines.iter().cloned().collect();
    names.extend(scan_recent(new).defines.iter().cloned());
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::launch::LaunchPlan;
    use crate::pipeline::ModuleSource;

    const KERNEL: &str = "use crate::helpers::load;\n\
        #[kernel]\n\
        pub unsafe fn k(a: &[f32], out: *mut f32) {\n\
            let i = thread::index_1d() as usize;\n\
            *out.add(i) = load(a, i);\n\
        }\n";

    fn program(helper: &str) -> Program {
        Program::parse(vec![
            ModuleSource {
                source: SourceFile::new("src/lib.rs", KERNEL),
                module: vec!["k".into()],
                also_in: Vec::new(),
            },
            ModuleSource {
                source: SourceFile::new("src/helpers.rs", helper),
                module: vec!["k".into(), "helpers".into()],
                also_in: Vec::new(),
            },
        ])
    }

    fn indexes(program: &Program) -> Vec<String> {
        let report = program.report(0, &LaunchPlan::default()).expect("analyzed");
        report.kernels[0].accesses.iter().map(|a| a.index.clone()).collect()
    }

    #[test]
    fn a_replaced_helper_is_followed_as_a_fresh_parse_would() {
        let coalesced = "pub fn load(a: &[f32], i: usize) -> f32 { a[i] }\n";
        let strided = "pub fn load(a: &[f32], i: usize) -> f32 { a[i * 4] }\n";
        let mut kept = program(coalesced);
        assert_eq!(kept.position("src/helpers.rs"), Some(1));
        assert!(kept.replace(1, SourceFile::new("src/helpers.rs", strided)));
        assert_eq!(kept.files()[1].text, strided);
        assert_eq!(indexes(&kept), indexes(&program(strided)));
        assert_ne!(indexes(&kept), indexes(&program(coalesced)));
    }

    #[test]
    fn a_syntax_error_is_the_replaced_file_s_own() {
        let mut kept = program("pub fn load(a: &[f32], i: usize) -> f32 { a[i] }\n");
        assert!(kept.replace(1, SourceFile::new("src/helpers.rs", "pub fn load(")));
        let err = kept.report(1, &LaunchPlan::default()).expect_err("does not tokenize");
        assert_eq!(err.message, "cannot tokenize: unclosed `(`");
        assert_eq!(err.span.map(|s| (s.line, s.column)), Some((1, 12)));
        assert!(kept.report(0, &LaunchPlan::default()).is_ok());
        assert!(!kept.replace(2, SourceFile::new("src/other.rs", "")));
    }

    const HOST: &str = "use crate::sizes::THREADS;\n\
        fn run() {\n\
            unsafe { launch!(module.k<<<64, THREADS, 0, stream>>>(a, out)).unwrap() };\n\
        }\n";

    fn launched(sizes: &str) -> Program {
        Program::parse(vec![
            ModuleSource {
                source: SourceFile::new("src/lib.rs", KERNEL),
                module: vec!["k".into()],
                also_in: Vec::new(),
            },
            ModuleSource {
                source: SourceFile::new("src/helpers.rs", "pub fn load(a: &[f32], i: usize) -> f32 { a[i] }\n"),
                module: vec!["k".into(), "helpers".into()],
                also_in: Vec::new(),
            },
            ModuleSource {
                source: SourceFile::new("src/sizes.rs", sizes),
                module: vec!["k".into(), "sizes".into()],
                also_in: Vec::new(),
            },
            ModuleSource {
                source: SourceFile::new("src/host.rs", HOST),
                module: vec!["k".into(), "host".into()],
                also_in: Vec::new(),
            },
        ])
    }

    fn block(program: &Program) -> u32 {
        let report = program.report(0, &LaunchPlan::default()).expect("analyzed");
        report.kernels[0].launch.block[0]
    }

    #[test]
    fn a_launch_sized_by_a_function_of_another_file_follows_its_changes() {
        // cuda-oxide's `config: cfg_1d(n)` with `cfg_1d` in a sibling module of the host.
        const OXIDE_HOST: &str = "use crate::sizes::cfg_1d;\n\
            fn run(n: usize) {\n\
                cuda_launch! { kernel: k, stream: s, module: m, config: cfg_1d(n), args: [a, out] };\n\
            }\n";
        let sized = |threads: u32| {
            let sizes = format!(
                "const THREADS: u32 = {threads};\n\
                 pub fn cfg_1d(n: usize) -> LaunchConfig {{\n\
                     LaunchConfig {{ grid_dim: ((n as u32).div_ceil(THREADS), 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 }}\n\
                 }}\n"
            );
            SourceFile::new("src/sizes.rs", &sizes)
        };
        let first = sized(128);
        let mut kept = Program::parse(vec![
            ModuleSource {
                source: SourceFile::new("src/lib.rs", KERNEL),
                module: vec!["k".into()],
                also_in: Vec::new(),
            },
            ModuleSource {
                source: first,
                module: vec!["k".into(), "sizes".into()],
                also_in: Vec::new(),
            },
            ModuleSource {
                source: SourceFile::new("src/host.rs", OXIDE_HOST),
                module: vec!["k".into(), "host".into()],
                also_in: Vec::new(),
            },
        ]);
        assert_eq!(block(&kept), 128);
        let wider = sized(384);
        let old = kept.swap_file(1, (wider.clone(), parse_file(&wider))).expect("a file");
        assert!(old.1.is_ok());
        assert_eq!(block(&kept), 384);
    }

    #[test]
    fn a_launch_that_reads_a_constant_of_the_replaced_file_is_read_again() {
        let mut kept = launched("pub const THREADS: u32 = 128;\n");
        assert_eq!(block(&kept), 128);
        let wider = SourceFile::new("src/sizes.rs", "pub const THREADS: u32 = 512;\n");
        let old = kept.swap_file(2, (wider.clone(), parse_file(&wider))).expect("a file");
        assert_eq!(old.0.text, "pub const THREADS: u32 = 128;\n");
        assert_eq!(block(&kept), 512);
        assert_eq!(block(&launched("pub const THREADS: u32 = 512;\n")), 512);
        // Swapped back, the kept parse gives the first launch again.
        let wider = kept.swap_file(2, old).expect("a file");
        assert!(wider.1.is_ok());
        assert_eq!(block(&kept), 128);
    }

    #[test]
    fn a_launch_whose_constant_reads_a_constant_of_the_replaced_file_is_read_again() {
        // `THREADS` is in `sizes`; its value reads `BASE` of `base`, which the swap changes.
        let with_base = |base: &str| {
            Program::parse(vec![
                ModuleSource {
                    source: SourceFile::new("src/lib.rs", KERNEL),
                    module: vec!["k".into()],
                    also_in: Vec::new(),
                },
                ModuleSource {
                    source: SourceFile::new("src/helpers.rs", "pub fn load(a: &[f32], i: usize) -> f32 { a[i] }\n"),
                    module: vec!["k".into(), "helpers".into()],
                    also_in: Vec::new(),
                },
                ModuleSource {
                    source: SourceFile::new(
                        "src/sizes.rs",
                        "use crate::base::BASE;\npub const THREADS: u32 = BASE * 2;\n",
                    ),
                    module: vec!["k".into(), "sizes".into()],
                    also_in: Vec::new(),
                },
                ModuleSource {
                    source: SourceFile::new("src/host.rs", HOST),
                    module: vec!["k".into(), "host".into()],
                    also_in: Vec::new(),
                },
                ModuleSource {
                    source: SourceFile::new("src/base.rs", base),
                    module: vec!["k".into(), "base".into()],
                    also_in: Vec::new(),
                },
            ])
        };
        let mut kept = with_base("pub const BASE: u32 = 64;\n");
        assert_eq!(block(&kept), 128);
        let wider = SourceFile::new("src/base.rs", "pub const BASE: u32 = 256;\n");
        let old = kept.swap_file(4, (wider.clone(), parse_file(&wider))).expect("a file");
        assert!(old.1.is_ok());
        assert_eq!(block(&kept), 512);
        assert_eq!(block(&with_base("pub const BASE: u32 = 256;\n")), 512);
        // A change that defines none of the names the launch read leaves it as it was.
        let unrelated = SourceFile::new(
            "src/helpers.rs",
            "pub fn load(a: &[f32], i: usize) -> f32 { a[i * 2] }\n",
        );
        let old = (kept.swap_file(1, (unrelated.clone(), parse_file(&unrelated)))).expect("a file");
        assert!(old.1.is_ok());
        assert_eq!(block(&kept), 512);
    }

    #[test]
    fn changed_names_are_those_defined_before_or_after_unless_a_glob_or_macro_changes() {
        let names = changed_names(
            "pub const A: u32 = 1;\nfn f() {}\n",
            "pub const B: u32 = 1;\nfn f() {}\n",
        )
        .expect("names");
        assert!(["A", "B", "f"].iter().all(|n| names.contains(*n)), "{names:?}");
        assert!(changed_names("use a::*;\n", "use b::*;\n").is_none());
        assert!(changed_names("use a::*;\nfn f() {}\n", "use a::*;\nfn g() {}\n").is_some());
        assert!(changed_names("macro_rules! m { () => {} }\n", "macro_rules! m { () => { 1 } }\n").is_none());
    }

    #[test]
    fn the_inline_modules_of_a_replaced_file_are_indexed_again_and_other_files_kept() {
        let kernel = |stride: &str| {
            format!(
                "mod inner {{ pub fn at(i: usize) -> usize {{ i * {stride} }} }}\n\
                 use crate::helpers::load;\n\
                 #[kernel]\n\
                 pub unsafe fn k(a: &[f32], out: *mut f32) {{\n\
                     let i = thread::index_1d() as usize;\n\
                     *out.add(i) = load(a, inner::at(i));\n\
                 }}\n"
            )
        };
        let program = |text: &str| {
            Program::parse(vec![
                ModuleSource {
                    source: SourceFile::new("src/lib.rs", text),
                    module: vec!["k".into()],
                    also_in: Vec::new(),
                },
                ModuleSource {
                    source: SourceFile::new("src/helpers.rs", "pub fn load(a: &[f32], i: usize) -> f32 { a[i] }\n"),
                    module: vec!["k".into(), "helpers".into()],
                    also_in: Vec::new(),
                },
            ])
        };
        let analyzed = |program: &Program| {
            let report = program.report(0, &LaunchPlan::default()).expect("analyzed");
            format!("{:?}", report.kernels)
        };
        let mut kept = program(&kernel("1"));
        let before = analyzed(&kept);
        assert!(kept.replace(0, SourceFile::new("src/lib.rs", kernel("4"))));
        assert_eq!(analyzed(&kept), analyzed(&program(&kernel("4"))));
        assert_ne!(analyzed(&kept), before);
        // The helper of the other file is still followed, with the new stride.
        let report = kept.report(0, &LaunchPlan::default()).expect("analyzed");
        let load = &report.kernels[0].accesses[0];
        assert_eq!(load.via[0].callee, "load");
        assert_eq!(load.prediction.as_ref().and_then(|p| p.sectors_per_request), Some(16.0));
    }
}
