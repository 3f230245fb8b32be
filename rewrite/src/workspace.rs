//! The files an analysis read, kept so that a rewrite can be analyzed the same way.

use kernel_lint_analyzer::workspace::CrateFeatures;
use kernel_lint_analyzer::{
    analyze_only, CrateUse, FileError, FileReport, LaunchPlan, ModulePath, ModuleSource, SourceFile,
};
use std::collections::HashMap;

/// Every file of a run, with the module it is and the launch plan it was analyzed under.
pub struct Workspace<'a> {
    /// The files, in the order the analysis read them.
    pub files: Vec<(SourceFile, ModulePath, &'a LaunchPlan)>,
    /// Which crates each crate uses.
    pub uses: &'a [CrateUse],
    /// The features each crate is compiled with.
    pub features: &'a CrateFeatures,
}

impl Workspace<'_> {
    /// The text of a file, by its printed path.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(f, ..)| f.path == path)
            .map(|(f, ..)| f.text.as_str())
    }

    /// The analysis of the workspace with some files' text replaced: the reports of those
    /// files, by path (a file that no longer parses gives its error).
    pub fn reanalyze(&self, changed: &HashMap<String, String>) -> HashMap<String, Result<FileReport, FileError>> {
        let inputs: Vec<ModuleSource> = self
            .files
            .iter()
            .map(|(source, module, _)| ModuleSource {
                source: match changed.get(&source.path) {
                    Some(text) => SourceFile::new(source.path.clone(), text.clone()),
                    None => source.clone(),
                },
                module: module.clone(),
            })
            .collect();
        let plans: Vec<&LaunchPlan> = self.files.iter().map(|(.., plan)| *plan).collect();
        // Only the changed files are analyzed; the others are parsed for their names.
        let (wanted, paths): (Vec<usize>, Vec<String>) = self
            .files
            .iter()
            .enumerate()
            .filter(|(_, (f, ..))| changed.contains_key(&f.path))
            .map(|(i, (f, ..))| (i, f.path.clone()))
            .unzip();
        analyze_only(inputs, self.uses, self.features, &plans, &wanted)
            .into_iter()
            .zip(paths)
            .map(|(report, path)| (path, report))
            .collect()
    }
}
