//! A workspace into rust-analyzer's database, in memory: the files the tool already read, the
//! crate graph it already knows, the bundled `core`. Nothing is read from disk here and no
//! process is started (no `cargo metadata`, no `rustc`, no proc-macro server), so partial
//! checkouts, pinned toolchains and machines without network load alike.

use crate::core::CORE;
use ra_ap_base_db::target::{Arch, TargetData};
use ra_ap_base_db::{
    CrateDisplayName, CrateGraphBuilder, CrateName, CrateOrigin, CrateWorkspaceData, DependencyBuilder, Env,
    FileChange, FileSet, LangCrateOrigin, SourceRoot, VfsPath,
};
use ra_ap_cfg::CfgOptions;
use ra_ap_ide_db::{ChangeWithProcMacros, RootDatabase};
use ra_ap_intern::Symbol;
use ra_ap_paths::AbsPathBuf;
use ra_ap_span::{Edition, FileId};
use triomphe::Arc;

/// The data layout of `nvptx64-nvidia-cuda`: kernels are laid out as the device compiles them.
const DEVICE_LAYOUT: &str = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";

/// A source file, as the tool prints its path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceText {
    pub path: String,
    pub text: String,
}

/// A `#[cfg]` atom that holds for a crate: `test`, or `feature = "simd"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CfgAtom {
    Flag(String),
    KeyValue(String, String),
}

/// A crate: its name, its root file (an index into [`Workspace::files`]), the crates it
/// depends on under the names its code uses (indices into [`Workspace::crates`]), the `cfg`
/// atoms that hold for it and its edition (2015, 2018, 2021 or 2024).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrateRoot {
    pub name: String,
    pub root: usize,
    pub dependencies: Vec<(String, usize)>,
    pub cfg: Vec<CfgAtom>,
    pub edition: u16,
}

/// What is loaded: every file of every crate, and the crates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Workspace {
    pub files: Vec<SourceText>,
    pub crates: Vec<CrateRoot>,
}

/// The database and where each file of the workspace is in it.
pub(crate) struct Loaded {
    pub db: RootDatabase,
    /// The database's id of each workspace file, by index.
    pub files: Vec<FileId>,
}

/// The path a file has in the database: its printed path, rooted, with `\` as `/`, so that
/// `mod name;` finds `name.rs` beside it as rustc would.
pub(crate) fn virtual_path(path: &str) -> String {
    let slashed = path.replace('\\', "/");
    let trimmed = slashed.trim_start_matches("./");
    if trimmed.starts_with('/') {
        trimmed.to_string()
    } else {
        format!("/{trimmed}")
    }
}

fn edition(year: u16) -> Edition {
    match year {
        2015 => Edition::Edition2015,
        2018 => Edition::Edition2018,
        2024 => Edition::Edition2024,
        _ => Edition::Edition2021,
    }
}

pub(crate) fn load(workspace: &Workspace) -> Loaded {
    let mut db = RootDatabase::new(None);
    let mut change = FileChange::default();
    let mut local = FileSet::default();
    let files: Vec<FileId> = (0..workspace.files.len())
        .map(|i| FileId::from_raw(u32::try_from(i).unwrap_or(u32::MAX - 1)))
        .collect();
    for (file, id) in workspace.files.iter().zip(&files) {
        change.change_file(*id, Some(file.text.clone()));
        local.insert(*id, VfsPath::new_virtual_path(virtual_path(&file.path)));
    }
    let core_file = FileId::from_raw(u32::try_from(files.len()).unwrap_or(u32::MAX));
    change.change_file(core_file, Some(CORE.to_string()));
    let mut library = FileSet::default();
    library.insert(core_file, VfsPath::new_virtual_path("/sysroot/core/lib.rs".to_string()));
    change.set_roots(vec![SourceRoot::new_local(local), SourceRoot::new_library(library)]);

    let data = Arc::new(CrateWorkspaceData {
        target: Ok(TargetData {
            data_layout: DEVICE_LAYOUT.into(),
            arch: Arch::Other,
        }),
        toolchain: None,
    });
    // Proc macros are not expanded: the folder they would run in is never used.
    let no_cwd = Arc::new(AbsPathBuf::assert_utf8(std::path::PathBuf::from("/")));
    let mut graph = CrateGraphBuilder::default();
    let core = graph.add_crate_root(
        core_file,
        Edition::CURRENT,
        Some(CrateDisplayName::from_canonical_name("core")),
        None,
        CfgOptions::default(),
        None,
        Env::default(),
        CrateOrigin::Lang(LangCrateOrigin::Core),
        Vec::new(),
        false,
        no_cwd.clone(),
        data.clone(),
    );
    let ids: Vec<_> = workspace
        .crates
        .iter()
        .map(|krate| {
            let mut cfg = CfgOptions::default();
            for atom in &krate.cfg {
                match atom {
                    CfgAtom::Flag(name) => cfg.insert_atom(Symbol::intern(name)),
                    CfgAtom::KeyValue(key, value) => cfg.insert_key_value(Symbol::intern(key), Symbol::intern(value)),
                }
            }
            let root = files.get(krate.root).copied().unwrap_or(core_file);
            graph.add_crate_root(
                root,
                edition(krate.edition),
                Some(CrateDisplayName::from_canonical_name(&krate.name)),
                None,
                cfg,
                None,
                Env::default(),
                CrateOrigin::Local { repo: None, name: None },
                Vec::new(),
                false,
                no_cwd.clone(),
                data.clone(),
            )
        })
        .collect();
    for (krate, id) in workspace.crates.iter().zip(&ids) {
        let core_dep = DependencyBuilder::with_prelude(CrateName::new("core").expect("a crate name"), core, true, true);
        // A cycle or a repeated name is the manifest's error, not the analysis': left out.
        let _ = graph.add_dep(*id, core_dep);
        for (name, to) in &krate.dependencies {
            let (Some(to), Ok(name)) = (ids.get(*to), CrateName::new(&name.replace('-', "_"))) else {
                continue;
            };
            let _ = graph.add_dep(*id, DependencyBuilder::new(name, *to));
        }
    }
    change.set_crate_graph(graph);
    db.apply_change(ChangeWithProcMacros {
        source_change: change,
        proc_macros: None,
    });
    Loaded { db, files }
}
