//! A program kept between edits: one file's text replaced without reading or parsing the
//! others again, for an editor that reports one buffer at a time.

use super::Program;
use crate::model::launch::LaunchPlan;
use crate::model::launch_sites;
use crate::parse::parse_file;
use crate::source::SourceFile;

impl Program {
    /// The index of the file printed as `path`.
    pub fn position(&self, path: &str) -> Option<usize> {
        self.files.iter().position(|f| f.path == path)
    }

    /// Replaces the text of file `file` and parses it alone; the other files keep their
    /// syntax trees. Items are indexed again from the kept trees (a module may be spread over
    /// several files, so one file's items cannot be told apart from its module's), and the
    /// host launches and kernel names are read again, since they may name the file's items.
    /// Returns `false`, changing nothing, when there is no such file.
    pub fn replace(&mut self, file: usize, source: SourceFile) -> bool {
        if file >= self.files.len() {
            return false;
        }
        self.parsed[file] = parse_file(&source);
        self.files[file] = source;
        self.relink();
        true
    }

    /// The item index, host launches and kernel names from the kept syntax trees.
    fn relink(&mut self) {
        self.index.clear_items();
        for (i, parsed) in self.parsed.iter().enumerate() {
            if let (Ok(parsed), Some(module)) = (parsed, self.modules.get(i)) {
                self.index.add_file(module.clone(), i, &parsed.syntax);
            }
        }
        self.launches.clear();
        self.kernel_names.clear();
        for file in 0..self.files.len() {
            let (Some(source), Ok(syntax)) = (self.files.get(file), self.syntax(file)) else {
                continue;
            };
            for launch in launch_sites::scan(source, syntax, self.scope(file)) {
                self.launches.entry(launch.kernel.clone()).or_default().push(launch);
            }
            for kernel in self.kernels(file, &LaunchPlan::default()).0 {
                *self.kernel_names.entry(kernel.name).or_default() += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
            },
            ModuleSource {
                source: SourceFile::new("src/helpers.rs", helper),
                module: vec!["k".into(), "helpers".into()],
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
}
