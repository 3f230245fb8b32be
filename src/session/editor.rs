//! What the server keeps between messages: the open buffers, the workspace read once (every
//! file parsed, its items indexed, each file's configuration), and the last analysis of each
//! file, from which diagnostics, code actions and hovers are answered.

use super::reuse::{self, KeptKernels};
use crate::config::{Config, Configs, Resolver};
use crate::discover;
use crate::settings::Settings;
use crate::triage::{self, Findings};
use kernel_lint_analyzer::workspace::CrateFeatures;
use kernel_lint_analyzer::{
    CrateUse, FileError, FileReport, LaunchPlan, ModulePath, ModuleSource, Program, SourceFile,
};
use kernel_lint_lints::{check_file_with_fixes, Diagnostic};
use kernel_lint_rewrite::{attach_fixes, Workspace};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The workspace as read at initialize: every file of its crates parsed once and kept.
pub struct Model {
    program: Program,
    /// The file each of the program's files was read from, in the program's order.
    paths: Vec<PathBuf>,
    modules: Vec<ModulePath>,
    /// Each file's configuration, by index into `configs`; `None` when it could not be read.
    config: Vec<Option<usize>>,
    configs: Configs,
    uses: Vec<CrateUse>,
    features: CrateFeatures,
    /// How many times a file's text was replaced: a kernel's report is kept for reuse only
    /// while no other file has changed.
    edits: u64,
}

/// What one analysis of a file found.
pub struct Analysis {
    /// The text analyzed, under the path findings print.
    pub source: SourceFile,
    /// The analyzer's report, when the file could be analyzed.
    pub report: Option<FileReport>,
    /// The findings, with their fixes.
    pub diagnostics: Vec<Diagnostic>,
    /// What could not be analyzed: the file, or items of it (syntax errors).
    pub errors: Vec<FileError>,
    /// Which diagnostics have had their rewrites proven: a proof re-analyzes the kernel, so it
    /// is made when an editor asks for the quick fixes of a finding, not on every keystroke.
    proven: Vec<bool>,
    /// Whether the file was analyzed alone, outside the kept workspace.
    alone: bool,
    /// The file's kernels with their reports, for the next change of the file.
    kept: Option<KeptKernels>,
    /// How many kernels the file has, and how many of them this analysis analyzed (the others'
    /// reports were kept from the last one).
    pub kernels: (usize, usize),
}

/// One pass of analysis after an event: which files were analyzed, and how long it took.
pub struct Pass {
    /// The files analyzed, as printed, each with its kernels analyzed and its kernels in all.
    pub analyzed: Vec<(String, usize, usize)>,
    /// Milliseconds spent.
    pub millis: u128,
    /// Files of the kept workspace.
    pub kept: usize,
}

impl Pass {
    /// The line logged for the pass: the counts are what an editor's user (and the tests) read.
    pub fn message(&self) -> String {
        let files = if self.analyzed.len() == 1 { "file" } else { "files" };
        let list: Vec<String> = self
            .analyzed
            .iter()
            .map(|(path, analyzed, all)| match all {
                0 => path.clone(),
                1 => format!("{path}: {analyzed} of 1 kernel"),
                _ => format!("{path}: {analyzed} of {all} kernels"),
            })
            .collect();
        format!(
            "analyzed {} {files} ({}) in {} ms; workspace of {} files kept",
            self.analyzed.len(),
            list.join(", "),
            self.millis,
            self.kept
        )
    }
}

/// An editor's workspace: its open buffers, the files read once, and each file's last analysis.
#[derive(Default)]
pub struct Editor {
    /// What the session runs with (the configuration files are read at each load).
    settings: Settings,
    /// The workspace folder.
    pub root: Option<PathBuf>,
    /// The open buffers' text, by file.
    pub documents: BTreeMap<PathBuf, String>,
    /// The kept workspace, once read.
    pub model: Option<Model>,
    /// The last analysis of each file analyzed, by file.
    pub analyses: BTreeMap<PathBuf, Analysis>,
    /// Where each printed path is, for findings that point into other files.
    displays: BTreeMap<String, PathBuf>,
}

/// A path as the map keys have it: resolved when it exists, so that a link and its target
/// are one file.
pub fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

impl Editor {
    /// No workspace read yet, no buffer open.
    pub fn new(root: Option<PathBuf>, settings: Settings) -> Editor {
        Editor {
            root,
            settings,
            ..Editor::default()
        }
    }

    /// Reads the workspace under the root: its files (the open buffers' text instead of the
    /// disk's), crate graph and configurations. Forgets every analysis made before; returns
    /// why no workspace was read, if none was.
    pub fn load(&mut self) -> Result<usize, String> {
        self.model = None;
        self.analyses.clear();
        self.displays.clear();
        let root = self.root.clone().ok_or("no workspace folder")?;
        let inputs = discover::from_workspace(Some(&root)).map_err(|e| e.to_string())?;
        let mut resolver = Resolver::new(&self.settings).map_err(|e| e.to_string())?;
        let mut sources = Vec::new();
        let mut paths = Vec::new();
        let mut config = Vec::new();
        for input in inputs.files {
            let path = key(&input.path);
            let text = match self.documents.get(&path) {
                Some(text) => text.clone(),
                None => match std::fs::read(&input.path) {
                    Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                    Err(_) => continue,
                },
            };
            // A file whose configuration is wrong is still analyzed, under the defaults.
            config.push(resolver.config_for(&input.path).ok());
            self.displays.insert(input.display.clone(), path.clone());
            paths.push(path);
            sources.push(ModuleSource {
                source: SourceFile::new(input.display, text),
                module: input.module,
                also_in: input.also_in,
            });
        }
        let modules = sources.iter().map(|s| s.module.clone()).collect();
        let program = Program::parse_configured(sources, &inputs.uses, &inputs.features);
        let kept = paths.len();
        self.model = Some(Model {
            program,
            paths,
            modules,
            config,
            configs: resolver.finish(),
            uses: inputs.uses,
            features: inputs.features,
            edits: 0,
        });
        Ok(kept)
    }

    /// The printed path of a file: the workspace's, else the path itself.
    pub fn display(&self, path: &Path) -> String {
        self.model
            .as_ref()
            .and_then(|m| {
                m.paths
                    .iter()
                    .position(|p| p == path)
                    .map(|i| m.program.files()[i].path.clone())
            })
            .unwrap_or_else(|| path.display().to_string())
    }

    /// The file of a printed path.
    pub fn path_of(&self, display: &str) -> PathBuf {
        self.displays
            .get(display)
            .cloned()
            .unwrap_or_else(|| PathBuf::from(display))
    }

    /// The text of a file as last analyzed, else as open, else on disk.
    pub fn text(&self, path: &Path) -> Option<String> {
        if let Some(analysis) = self.analyses.get(path) {
            return Some(analysis.source.text.clone());
        }
        if let Some(text) = self.documents.get(path) {
            return Some(text.clone());
        }
        if let Some(model) = &self.model {
            if let Some(i) = model.paths.iter().position(|p| p == path) {
                return Some(model.program.files()[i].text.clone());
            }
        }
        std::fs::read(path)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// Takes `text` as the buffer of `path` (`None`: its buffer is closed, the disk has its
    /// text) and analyzes the file again.
    pub fn recheck(&mut self, path: &Path, text: Option<String>) -> Pass {
        match text {
            Some(text) => self.documents.insert(path.to_path_buf(), text),
            None => self.documents.remove(path),
        };
        self.analyze(path)
    }

    /// Analyzes a file again with its current text (the buffer's, else the disk's): in the
    /// kept workspace only that file is parsed, and it is analyzed with the files whose
    /// kernels reached into it; a file outside the workspace is analyzed alone.
    pub fn analyze(&mut self, path: &Path) -> Pass {
        let started = Instant::now();
        let text = match self.documents.get(path) {
            Some(text) => Some(text.clone()),
            None => std::fs::read(path)
                .ok()
                .map(|b| String::from_utf8_lossy(&b).into_owned()),
        };
        let in_model = self.model.as_ref().and_then(|m| m.paths.iter().position(|p| p == path));
        let mut analyzed = Vec::new();
        // The last analysis of the file, when no other file has changed since: the reports of
        // its kernels may be kept.
        let mut previous = match (&self.model, self.analyses.get(path)) {
            (Some(model), Some(a)) if a.kept.as_ref().is_some_and(|k| k.edits == model.edits) => {
                self.analyses.remove(path)
            }
            _ => None,
        };
        let replaced = match (in_model, self.model.as_mut()) {
            (Some(index), Some(model)) => {
                let display = model.program.files()[index].path.clone();
                if let Some(text) = &text {
                    if &model.program.files()[index].text != text {
                        model
                            .program
                            .replace(index, SourceFile::new(display.clone(), text.clone()));
                        model.edits += 1;
                    }
                }
                Some((index, display))
            }
            _ => None,
        };
        match (replaced, &self.model) {
            (Some((index, display)), Some(model)) => {
                let mut files = vec![index];
                files.extend(self.dependents(&display).into_iter().filter(|&i| i != index));
                for i in files {
                    let analysis = match previous.take_if(|_| i == index) {
                        Some(previous) => model.reanalyze(i, previous),
                        None => model.analyze(i),
                    };
                    analyzed.push((analysis.source.path.clone(), analysis.kernels.1, analysis.kernels.0));
                    self.analyses.insert(model.paths[i].clone(), analysis);
                }
            }
            _ => match text {
                Some(text) => {
                    let analysis = alone(SourceFile::new(path.display().to_string(), text));
                    analyzed.push((analysis.source.path.clone(), analysis.kernels.1, analysis.kernels.0));
                    self.analyses.insert(path.to_path_buf(), analysis);
                }
                None => {
                    self.analyses.remove(path);
                }
            },
        }
        Pass {
            analyzed,
            millis: started.elapsed().as_millis(),
            kept: self.model.as_ref().map_or(0, |m| m.paths.len()),
        }
    }

    /// The workspace files, by index, whose last analysis followed a kernel into `display`.
    fn dependents(&self, display: &str) -> BTreeSet<usize> {
        let Some(model) = &self.model else {
            return BTreeSet::new();
        };
        self.analyses
            .iter()
            .filter(|(_, a)| {
                a.report
                    .iter()
                    .flat_map(|r| &r.kernels)
                    .flat_map(|k| &k.accesses)
                    .any(|access| {
                        access.file.as_deref() == Some(display) || access.via.iter().any(|call| call.file == display)
                    })
            })
            .filter_map(|(path, _)| model.paths.iter().position(|p| p == path))
            .collect()
    }

    /// Proves the rewrites of the findings in file `path` that overlap bytes `start..=end` and
    /// were not proven yet, wherever their analysis was made (a helper's finding belongs to the
    /// analysis of its kernel's file). Returns whether any finding was proven: its fixes, or
    /// the notes that say why no rewrite is offered, have changed.
    pub fn prove(&mut self, path: &Path, start: usize, end: usize) -> bool {
        let display = self.display(path);
        let mut proven_any = false;
        for analysis in self.analyses.values_mut() {
            let Some(report) = &analysis.report else {
                continue;
            };
            let wanted: Vec<usize> = (0..analysis.diagnostics.len())
                .filter(|&i| {
                    let d = &analysis.diagnostics[i];
                    let span = d.primary.span;
                    !analysis.proven[i] && d.file == display && span.start <= end && span.end >= start
                })
                .collect();
            if wanted.is_empty() {
                continue;
            }
            let mut findings: Vec<Diagnostic> = wanted.iter().map(|&i| analysis.diagnostics[i].clone()).collect();
            match (&self.model, analysis.alone) {
                (Some(model), false) => {
                    let plans = model.plans();
                    attach_fixes(&model.workspace(&plans), report, &mut findings);
                }
                _ => {
                    let (module, config, features) = standalone(&analysis.source);
                    let workspace = Workspace::new(
                        vec![(analysis.source.clone(), module.module, &config.plan)],
                        &[],
                        &features,
                    );
                    attach_fixes(&workspace, report, &mut findings);
                }
            }
            for (i, finding) in wanted.into_iter().zip(findings) {
                analysis.diagnostics[i] = finding;
                analysis.proven[i] = true;
            }
            proven_any = true;
        }
        proven_any
    }

    /// Every file some analysis reports on, with its findings and errors.
    pub fn findings(&self) -> BTreeMap<PathBuf, (Vec<&Diagnostic>, Vec<&FileError>)> {
        let mut out: BTreeMap<PathBuf, (Vec<&Diagnostic>, Vec<&FileError>)> = BTreeMap::new();
        for (path, analysis) in &self.analyses {
            out.entry(path.clone()).or_default();
            for d in &analysis.diagnostics {
                out.entry(self.path_of(&d.file)).or_default().0.push(d);
            }
            for e in &analysis.errors {
                out.entry(self.path_of(&e.path)).or_default().1.push(e);
            }
        }
        out
    }
}

impl Model {
    fn settings(&self, file: usize) -> &Config {
        static DEFAULT: std::sync::OnceLock<Config> = std::sync::OnceLock::new();
        self.config
            .get(file)
            .copied()
            .flatten()
            .and_then(|c| self.configs.get(c))
            .unwrap_or_else(|| DEFAULT.get_or_init(Config::default))
    }

    /// Each file's launch plan, in the program's order.
    fn plans(&self) -> Vec<&LaunchPlan> {
        (0..self.program.files().len())
            .map(|i| &self.settings(i).plan)
            .collect()
    }

    /// The kept program as the rewrites read it.
    fn workspace<'m>(&'m self, plans: &[&'m LaunchPlan]) -> Workspace<'m> {
        Workspace::new(
            self.program
                .files()
                .iter()
                .zip(&self.modules)
                .zip(plans)
                .map(|((source, module), plan)| (source.clone(), module.clone(), *plan))
                .collect(),
            &self.uses,
            &self.features,
        )
    }

    /// Reports and lints one file of the kept program; its rewrites are proven on demand.
    fn analyze(&self, file: usize) -> Analysis {
        let config = self.settings(file);
        let report = self.program.report(file, &config.plan);
        let kept = report
            .as_ref()
            .ok()
            .and_then(|r| KeptKernels::of(&self.program, file, &config.plan, r, self.edits));
        let count = match &kept {
            Some(kept) => kept.len(),
            None => self.program.kernels(file, &config.plan).0.len(),
        };
        lint(&self.program, file, config, report, kept, (count, count), false)
    }

    /// Analyzes file `file` again after its text changed from the one `previous` analyzed, no
    /// other file having changed since, keeping the reports of the kernels the change cannot
    /// have touched.
    fn reanalyze(&self, file: usize, previous: Analysis) -> Analysis {
        if previous.source.text == self.program.files()[file].text {
            return Analysis {
                kernels: (previous.kernels.0, 0),
                ..previous
            };
        }
        let config = self.settings(file);
        let Analysis {
            source, report, kept, ..
        } = previous;
        let again = match (report, kept) {
            (Some(report), Some(kept)) => reuse::reanalyze(
                &self.program,
                file,
                &config.plan,
                &self.modules[file],
                &source,
                report,
                kept,
            ),
            _ => None,
        };
        match again {
            Some(mut again) => {
                again.kept.edits = self.edits;
                let count = (again.kept.len(), again.analyzed);
                lint(
                    &self.program,
                    file,
                    config,
                    Ok(again.report),
                    Some(again.kept),
                    count,
                    false,
                )
            }
            None => self.analyze(file),
        }
    }
}

/// What a file outside the workspace is analyzed with: a crate of its own, under the default
/// configuration.
fn standalone(source: &SourceFile) -> (ModuleSource, Config, CrateFeatures) {
    (
        ModuleSource::standalone(source.clone()),
        Config::default(),
        CrateFeatures::new(),
    )
}

/// A file outside the workspace: a crate of its own, under the default configuration.
fn alone(source: SourceFile) -> Analysis {
    let (module, config, _) = standalone(&source);
    let program = Program::parse(vec![module]);
    let count = program.kernels(0, &config.plan).0.len();
    let report = program.report(0, &config.plan);
    lint(&program, 0, &config, report, None, (count, count), true)
}

/// The findings of a report of one file at its configuration's levels after suppressions and
/// thresholds; their rewrites are not proven yet. `kernels` counts the file's kernels and
/// those the report analyzed.
fn lint(
    program: &Program,
    file: usize,
    config: &Config,
    report: Result<FileReport, FileError>,
    kept: Option<KeptKernels>,
    kernels: (usize, usize),
    alone: bool,
) -> Analysis {
    let source = program.files()[file].clone();
    match report {
        Ok(report) => {
            let mut diagnostics = check_file_with_fixes(&report, &config.levels, program.files());
            let mut findings = [Findings {
                path: &source.path,
                config,
                diagnostics: &mut diagnostics,
            }];
            triage::finish(&mut findings, triage::suppressions(program.files()));

            Analysis {
                errors: report.errors.clone(),
                report: Some(report),
                proven: vec![false; diagnostics.len()],
                diagnostics,
                source,
                alone,
                kept,
                kernels,
            }
        }
        Err(err) => Analysis {
            source,
            report: None,
            diagnostics: Vec::new(),
            errors: vec![err],
            proven: Vec::new(),
            alone,
            kept: None,
            kernels,
        },
    }
}
