//! What the server keeps between messages: the open buffers, the workspace read once (every
//! file parsed, its items indexed, each file's configuration), and the last analysis of each
//! file, from which diagnostics, code actions and hovers are answered.

use crate::cli::GlobalArgs;
use crate::config::{Config, Configs, Resolver};
use crate::discover;
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
}

/// One pass of analysis after an event: which files were analyzed, and how long it took.
pub struct Pass {
    /// The files analyzed, as printed.
    pub analyzed: Vec<String>,
    /// Milliseconds spent.
    pub millis: u128,
    /// Files of the kept workspace.
    pub kept: usize,
}

impl Pass {
    /// The line logged for the pass: the count is what an editor's user (and the tests) read.
    pub fn message(&self) -> String {
        let files = if self.analyzed.len() == 1 { "file" } else { "files" };
        format!(
            "analyzed {} {files} ({}) in {} ms; workspace of {} files kept",
            self.analyzed.len(),
            self.analyzed.join(", "),
            self.millis,
            self.kept
        )
    }
}

/// The server's documents and analyses.
#[derive(Default)]
pub struct State {
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

impl State {
    /// No workspace read yet, no buffer open.
    pub fn new(root: Option<PathBuf>) -> State {
        State {
            root,
            ..State::default()
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
        let global = GlobalArgs::default();
        let mut resolver = Resolver::new(&global).map_err(|e| e.to_string())?;
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
        let replaced = match (in_model, self.model.as_mut()) {
            (Some(index), Some(model)) => {
                let display = model.program.files()[index].path.clone();
                if let Some(text) = &text {
                    if &model.program.files()[index].text != text {
                        model
                            .program
                            .replace(index, SourceFile::new(display.clone(), text.clone()));
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
                    let analysis = model.analyze(i);
                    analyzed.push(analysis.source.path.clone());
                    self.analyses.insert(model.paths[i].clone(), analysis);
                }
            }
            _ => match text {
                Some(text) => {
                    let analysis = alone(SourceFile::new(path.display().to_string(), text));
                    analyzed.push(analysis.source.path.clone());
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

    /// Reports and lints one file of the kept program, the rewrites of its findings proven.
    fn analyze(&self, file: usize) -> Analysis {
        let files = self.program.files();
        let config = self.settings(file);
        let plans: Vec<&LaunchPlan> = (0..files.len()).map(|i| &self.settings(i).plan).collect();
        let workspace = Workspace::new(
            files
                .iter()
                .zip(&self.modules)
                .zip(&plans)
                .map(|((source, module), plan)| (source.clone(), module.clone(), *plan))
                .collect(),
            &self.uses,
            &self.features,
        );
        lint(&self.program, file, config, &workspace)
    }
}

/// A file outside the workspace: a crate of its own, under the default configuration.
fn alone(source: SourceFile) -> Analysis {
    let module = ModuleSource::standalone(source.clone());
    let program = Program::parse(vec![module.clone()]);
    let config = Config::default();
    let features = CrateFeatures::new();
    let workspace = Workspace::new(vec![(source, module.module, &config.plan)], &[], &features);
    lint(&program, 0, &config, &workspace)
}

/// The report of one file, its findings at its configuration's levels after suppressions and
/// thresholds, and the rewrites that prove out.
fn lint(program: &Program, file: usize, config: &Config, workspace: &Workspace<'_>) -> Analysis {
    let source = program.files()[file].clone();
    match program.report(file, &config.plan) {
        Ok(report) => {
            let mut diagnostics = check_file_with_fixes(&report, &config.levels, program.files());
            let mut findings = [Findings {
                path: &source.path,
                config,
                diagnostics: &mut diagnostics,
            }];
            triage::finish(&mut findings, triage::suppressions(program.files()));
            attach_fixes(workspace, &report, &mut diagnostics);
            Analysis {
                errors: report.errors.clone(),
                report: Some(report),
                diagnostics,
                source,
            }
        }
        Err(err) => Analysis {
            source,
            report: None,
            diagnostics: Vec::new(),
            errors: vec![err],
        },
    }
}
