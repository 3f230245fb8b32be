//! Small workspaces written to disk, discovered, and checked file by file.

use super::*;
use std::fs;
use tempfile::TempDir;

/// Writes `files` (path, text) under a fresh folder.
fn tree(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().expect("temporary folder");
    for (path, text) in files {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
        fs::write(path, text).expect("a file");
    }
    dir
}

fn options(dir: &TempDir) -> Options {
    Options::with_base(dir.path())
}

fn discover(dir: &TempDir) -> Workspace {
    Workspace::discover_with(dir.path(), &options(dir)).expect("the workspace is discovered")
}

fn for_paths(dir: &TempDir, paths: &[&str]) -> Workspace {
    let paths: Vec<PathBuf> = paths.iter().map(|p| dir.path().join(p)).collect();
    Workspace::for_paths_with(&paths, &options(dir))
}

/// Each file's display path and the crate and module path it is analyzed as.
fn primaries(ws: &Workspace) -> Vec<(String, String)> {
    ws.files
        .iter()
        .map(|f| {
            let m = f.primary().expect("a membership");
            (f.display.clone(), format!("{}:{}", m.crate_name, m.module_path))
        })
        .collect()
}

/// Every membership of one file as `crate:module`.
fn memberships(ws: &Workspace, display: &str) -> Vec<String> {
    ws.file(Path::new(display))
        .unwrap_or_else(|| panic!("{display} is listed"))
        .memberships
        .iter()
        .map(|m| format!("{}:{}", m.crate_name, m.module_path))
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

fn warning_lines(ws: &Workspace) -> Vec<String> {
    ws.warnings.iter().map(|w| w.to_string()).collect()
}

const PACKAGE: &str = "[package]\nname = \"kern\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

#[test]
fn nested_modules_in_mod_rs_and_non_mod_rs_styles() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "pub mod kernels;\nmod util;\n"),
        ("src/kernels/mod.rs", "pub mod blur;\nmod sharpen;\n"),
        ("src/kernels/blur.rs", "mod gauss;\n"),
        ("src/kernels/blur/gauss.rs", "pub fn g() {}\n"),
        ("src/kernels/sharpen/mod.rs", "mod edge;\n"),
        ("src/kernels/sharpen/edge.rs", ""),
        ("src/util.rs", "mod fmt;\n"),
        ("src/util/fmt.rs", ""),
        ("src/unused.rs", "fn f() {}\n"),
    ]);
    let ws = discover(&dir);
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("src/lib.rs", "kern:crate"),
            ("src/kernels/mod.rs", "kern:crate::kernels"),
            ("src/kernels/blur.rs", "kern:crate::kernels::blur"),
            ("src/kernels/blur/gauss.rs", "kern:crate::kernels::blur::gauss"),
            ("src/kernels/sharpen/mod.rs", "kern:crate::kernels::sharpen"),
            ("src/kernels/sharpen/edge.rs", "kern:crate::kernels::sharpen::edge"),
            ("src/util.rs", "kern:crate::util"),
            ("src/util/fmt.rs", "kern:crate::util::fmt"),
        ])
    );
    assert!(ws.warnings.is_empty(), "{:?}", ws.warnings);
    let blur = ws.file(Path::new("src/kernels/blur.rs")).expect("blur");
    let declared = blur.primary().and_then(|m| m.declared_at.as_ref()).expect("declared");
    assert_eq!(
        (declared.display.as_str(), declared.span.line),
        ("src/kernels/mod.rs", 1)
    );
    assert_eq!(ws.crates.len(), 1);
    assert_eq!(ws.crates[0].name, "kern");
}

#[test]
fn a_kernel_file_shared_through_path_is_listed_once_with_a_normalized_path() {
    let dir = tree(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"crates/a\", \"crates/b\"]\n"),
        ("crates/a/Cargo.toml", "[package]\nname = \"a\"\nversion = \"0.1.0\"\n"),
        (
            "crates/a/src/lib.rs",
            "#[path = \"../../../src_kernels/lib.rs\"]\nmod shared;\n",
        ),
        (
            "crates/b/Cargo.toml",
            "[package]\nname = \"b-host\"\nversion = \"0.1.0\"\n",
        ),
        (
            "crates/b/src/lib.rs",
            "#[path = \"./../../../src_kernels/lib.rs\"]\npub mod kernels;\n",
        ),
        ("src_kernels/lib.rs", "mod inner;\n"),
        ("src_kernels/inner.rs", ""),
    ]);
    let ws = discover(&dir);
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("crates/a/src/lib.rs", "a:crate"),
            ("src_kernels/lib.rs", "a:crate::shared"),
            ("src_kernels/inner.rs", "a:crate::shared::inner"),
            ("crates/b/src/lib.rs", "b_host:crate"),
        ])
    );
    assert_eq!(
        memberships(&ws, "src_kernels/lib.rs"),
        ["a:crate::shared", "b_host:crate::kernels"]
    );
    assert_eq!(
        memberships(&ws, "src_kernels/inner.rs"),
        ["a:crate::shared::inner", "b_host:crate::kernels::inner"]
    );
    let shared = ws.file(Path::new("src_kernels/lib.rs")).expect("shared");
    let crates: Vec<&str> = shared
        .memberships
        .iter()
        .filter_map(|m| m.crate_index)
        .map(|i| ws.crates[i].name.as_str())
        .collect();
    assert_eq!(crates, ["a", "b-host"]);

    // Asking for the shared file, twice and through its folder, still gives it once.
    let asked = for_paths(
        &dir,
        &[
            "src_kernels/lib.rs",
            "crates/a/../../src_kernels/./lib.rs",
            "src_kernels",
        ],
    );
    assert_eq!(
        primaries(&asked),
        pairs(&[
            ("src_kernels/lib.rs", "a:crate::shared"),
            ("src_kernels/inner.rs", "a:crate::shared::inner")
        ])
    );
    assert!(asked.files.iter().all(|f| !f.standalone));
}

#[test]
fn an_orphan_file_with_a_syntax_error_is_not_included() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "// mod orphan;\nmod ok;\n"),
        ("src/ok.rs", "pub fn ok() {}\n"),
        ("src/orphan.rs", "mod inner {}\nfn broken( {\n"),
    ]);
    let expected = pairs(&[("src/lib.rs", "kern:crate"), ("src/ok.rs", "kern:crate::ok")]);
    assert_eq!(primaries(&discover(&dir)), expected);
    assert_eq!(primaries(&for_paths(&dir, &["."])), expected);
    assert_eq!(primaries(&for_paths(&dir, &["src"])), expected);
    assert_eq!(primaries(&for_paths(&dir, &["Cargo.toml"])), expected);

    // Named on its own, it is analyzed as a root of its own and its syntax error is kept.
    let asked = for_paths(&dir, &["src/orphan.rs"]);
    assert_eq!(primaries(&asked), pairs(&[("src/orphan.rs", "orphan:crate")]));
    let orphan = &asked.files[0];
    assert!(orphan.standalone);
    let problem = orphan.problem.as_ref().expect("a syntax error");
    assert_eq!(problem.span.map(|s| s.line), Some(2));
}

#[test]
fn a_syntax_error_in_a_tree_file_is_located_and_the_file_kept() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "mod bad;\nmod good;\nmod host;\n"),
        ("src/bad.rs", "mod ok {}\n\nfn broken( {\n"),
        ("src/good.rs", ""),
        ("src/host.rs", "fn broken( {\n"),
    ]);
    let ws = discover(&dir);
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("src/lib.rs", "kern:crate"),
            ("src/bad.rs", "kern:crate::bad"),
            ("src/good.rs", "kern:crate::good"),
            ("src/host.rs", "kern:crate::host"),
        ])
    );
    let bad = ws.file(Path::new("src/bad.rs")).expect("bad");
    assert_eq!(bad.problem.as_ref().and_then(|p| p.span).map(|s| s.line), Some(3));
    assert!(ws.file(Path::new("src/good.rs")).expect("good").problem.is_none());
    // A file that cannot declare a module is not parsed by the walk; the analysis reports it.
    assert!(ws.file(Path::new("src/host.rs")).expect("host").problem.is_none());
}

#[test]
fn cfg_gated_modules_and_cfg_attr_paths_are_included() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        (
            "src/lib.rs",
            concat!(
                "#[cfg(target_os = \"cuda\")]\n",
                "mod device;\n",
                "#[cfg_attr(target_arch = \"nvptx64\", path = \"imp_gpu.rs\")]\n",
                "mod imp;\n",
                "#[cfg_attr(feature = \"sim\", path = \"sim_only.rs\")]\n",
                "mod sim;\n",
                "cfg_if::cfg_if! {\n",
                "    if #[cfg(target_arch = \"nvptx64\")] { mod gpu; } else { mod cpu; }\n",
                "}\n",
            ),
        ),
        ("src/device.rs", ""),
        ("src/imp.rs", ""),
        ("src/imp_gpu.rs", ""),
        ("src/sim_only.rs", ""),
        ("src/gpu.rs", ""),
        ("src/cpu.rs", ""),
    ]);
    let ws = discover(&dir);
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("src/lib.rs", "kern:crate"),
            ("src/device.rs", "kern:crate::device"),
            ("src/imp.rs", "kern:crate::imp"),
            ("src/imp_gpu.rs", "kern:crate::imp"),
            ("src/sim_only.rs", "kern:crate::sim"),
            ("src/gpu.rs", "kern:crate::gpu"),
            ("src/cpu.rs", "kern:crate::cpu"),
        ])
    );
    assert!(ws.warnings.is_empty(), "{:?}", ws.warnings);
    let cfg = |display: &str| {
        ws.file(Path::new(display))
            .and_then(|f| f.primary())
            .map(|m| m.cfg.clone())
    };
    assert_eq!(cfg("src/device.rs"), Some(vec!["target_os = \"cuda\"".to_string()]));
    assert_eq!(cfg("src/imp.rs"), Some(vec![]));
    assert_eq!(
        cfg("src/imp_gpu.rs"),
        Some(vec!["target_arch = \"nvptx64\"".to_string()])
    );
    assert_eq!(cfg("src/gpu.rs"), Some(vec!["target_arch = \"nvptx64\"".to_string()]));
    assert_eq!(
        cfg("src/cpu.rs"),
        Some(vec!["not(any(target_arch = \"nvptx64\"))".to_string()])
    );
}

#[test]
fn path_attributes_follow_the_reference_rules_inline_modules_included() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        (
            "src/lib.rs",
            concat!(
                "mod a;\n",
                "mod m;\n",
                "mod outer { #[path = \"x.rs\"] mod y; mod z; }\n",
                "#[path = \"folder\"]\n",
                "mod renamed { mod w; }\n",
            ),
        ),
        // Non-mod-rs file: plain children under src/a/, `#[path]` next to it.
        (
            "src/a.rs",
            concat!(
                "mod b;\n",
                "#[path = \"sib.rs\"]\n",
                "mod s;\n",
                "mod inline { #[path = \"other.rs\"] mod inner; mod plain; }\n",
            ),
        ),
        ("src/a/b.rs", ""),
        ("src/sib.rs", "mod t;\n"),
        // A `#[path]` file acts as a mod.rs: its children are its siblings.
        ("src/t.rs", ""),
        ("src/a/inline/other.rs", ""),
        ("src/a/inline/plain.rs", ""),
        // Mod-rs file: inline module folders start at its own folder.
        ("src/m/mod.rs", "mod inline { #[path = \"other.rs\"] mod inner; }\n"),
        ("src/m/inline/other.rs", ""),
        ("src/outer/x.rs", ""),
        ("src/outer/z.rs", ""),
        ("src/folder/w.rs", ""),
    ]);
    let ws = discover(&dir);
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("src/lib.rs", "kern:crate"),
            ("src/a.rs", "kern:crate::a"),
            ("src/a/b.rs", "kern:crate::a::b"),
            ("src/sib.rs", "kern:crate::a::s"),
            ("src/t.rs", "kern:crate::a::s::t"),
            ("src/a/inline/other.rs", "kern:crate::a::inline::inner"),
            ("src/a/inline/plain.rs", "kern:crate::a::inline::plain"),
            ("src/m/mod.rs", "kern:crate::m"),
            ("src/m/inline/other.rs", "kern:crate::m::inline::inner"),
            ("src/outer/x.rs", "kern:crate::outer::y"),
            ("src/outer/z.rs", "kern:crate::outer::z"),
            ("src/folder/w.rs", "kern:crate::renamed::w"),
        ])
    );
    assert!(ws.warnings.is_empty(), "{:?}", ws.warnings);
}

#[test]
fn a_path_in_an_inline_module_of_a_nested_non_mod_rs_file() {
    // The reference's example: in src/a/b.rs, `mod inline { #[path = "other.rs"] mod inner; }`
    // is src/a/b/inline/other.rs.
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "mod a;\n"),
        ("src/a/mod.rs", "mod b;\n"),
        ("src/a/b.rs", "mod inline { #[path = \"other.rs\"] mod inner; }\n"),
        ("src/a/b/inline/other.rs", ""),
    ]);
    assert_eq!(
        primaries(&discover(&dir)),
        pairs(&[
            ("src/lib.rs", "kern:crate"),
            ("src/a/mod.rs", "kern:crate::a"),
            ("src/a/b.rs", "kern:crate::a::b"),
            ("src/a/b/inline/other.rs", "kern:crate::a::b::inline::inner"),
        ])
    );
}

#[test]
fn glob_members_and_excludes() {
    let package = |name: &str| format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\n");
    let dir = tree(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"crates/*\", \"tools/gen\", \"missing/*\"]\nexclude = [\"crates/legacy\"]\n",
        ),
        ("crates/beta/Cargo.toml", &package("beta")),
        ("crates/beta/src/lib.rs", ""),
        ("crates/alpha/Cargo.toml", &package("alpha")),
        ("crates/alpha/src/main.rs", "fn main() {}\n"),
        ("crates/legacy/Cargo.toml", &package("legacy")),
        ("crates/legacy/src/lib.rs", ""),
        ("crates/notes/README.md", "not a crate"),
        ("crates/README.md", "a file, not a member"),
        ("tools/gen/Cargo.toml", &package("gen")),
        ("tools/gen/src/lib.rs", ""),
    ]);
    let ws = discover(&dir);
    let names: Vec<&str> = ws.crates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["alpha", "beta", "gen"]);
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("crates/alpha/src/main.rs", "alpha:crate"),
            ("crates/beta/src/lib.rs", "beta:crate"),
            ("tools/gen/src/lib.rs", "gen:crate"),
        ])
    );
    assert_eq!(
        warning_lines(&ws),
        [
            "Cargo.toml: workspace member `crates/notes` has no Cargo.toml",
            "Cargo.toml: workspace member pattern `missing/*` matches no folder",
        ]
    );
    // The excluded package is its own workspace when asked about directly.
    let location = Discovery::new(&options(&dir))
        .locate(
            &dir.path()
                .canonicalize()
                .expect("canonical")
                .join("crates/legacy/src/lib.rs"),
        )
        .expect("located");
    assert!(location.workspace_manifest.ends_with("crates/legacy/Cargo.toml"));
    let member = Discovery::new(&options(&dir))
        .locate(&dir.path().canonicalize().expect("canonical").join("crates/beta/src"))
        .expect("located");
    assert!(member
        .package_manifest
        .expect("a package")
        .ends_with("crates/beta/Cargo.toml"));
    assert_eq!(
        member.workspace_manifest,
        dir.path().canonicalize().expect("canonical").join("Cargo.toml")
    );
}

#[test]
fn path_dependencies_with_renames_and_workspace_inheritance() {
    let dir = tree(&[
        (
            "Cargo.toml",
            concat!(
                "[workspace]\n",
                "members = [\"app\"]\n",
                "[workspace.dependencies]\n",
                "common = { path = \"common\" }\n",
                "kernels-alias = { path = \"kernels\", package = \"my-kernels\" }\n",
                "serde = \"1\"\n",
            ),
        ),
        (
            "app/Cargo.toml",
            concat!(
                "[package]\nname = \"app\"\nversion = \"0.1.0\"\n",
                "[dependencies]\n",
                "k = { path = \"../kernels\", package = \"my-kernels\" }\n",
                "common = { workspace = true }\n",
                "kernels-alias.workspace = true\n",
                "serde = { workspace = true }\n",
                "rand = \"0.8\"\n",
                "[build-dependencies]\n",
                "builder = { path = \"../builder\" }\n",
                "[target.'cfg(target_os = \"cuda\")'.dependencies]\n",
                "device = { path = \"../device-lib\" }\n",
            ),
        ),
        ("app/src/main.rs", "fn main() {}\n"),
        (
            "kernels/Cargo.toml",
            "[package]\nname = \"my-kernels\"\nversion = \"0.1.0\"\n",
        ),
        ("kernels/src/lib.rs", ""),
        (
            "common/Cargo.toml",
            "[package]\nname = \"common\"\nversion = \"0.1.0\"\n",
        ),
        ("common/src/lib.rs", ""),
        (
            "builder/Cargo.toml",
            "[package]\nname = \"builder\"\nversion = \"0.1.0\"\n",
        ),
        ("builder/src/lib.rs", ""),
        (
            "device-lib/Cargo.toml",
            "[package]\nname = \"device-lib\"\nversion = \"0.1.0\"\n[lib]\nname = \"dev\"\n",
        ),
        ("device-lib/src/lib.rs", ""),
    ]);
    let ws = discover(&dir);
    // Path dependencies inside the workspace folder are members, right after their dependent.
    let names: Vec<&str> = ws.crates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["app", "common", "my-kernels", "builder", "device-lib"]);
    let app = &ws.crates[0];
    let deps: Vec<(&str, &str, DependencyKind, Option<&str>)> = app
        .path_dependencies
        .iter()
        .map(|d| (d.name.as_str(), d.package.as_str(), d.kind, d.platform.as_deref()))
        .collect();
    assert_eq!(
        deps,
        [
            ("common", "common", DependencyKind::Normal, None),
            ("k", "my-kernels", DependencyKind::Normal, None),
            ("kernels_alias", "my-kernels", DependencyKind::Normal, None),
            ("builder", "builder", DependencyKind::Build, None),
            (
                "dev",
                "device-lib",
                DependencyKind::Normal,
                Some("cfg(target_os = \"cuda\")")
            ),
        ]
    );
    let root = dir.path().canonicalize().expect("canonical");
    assert_eq!(app.path_dependencies[1].manifest_dir, root.join("kernels"));
    assert_eq!(app.workspace_root, root);
    assert_eq!(ws.roots, [root.join("Cargo.toml")]);
}

#[test]
fn a_missing_module_file_is_a_located_warning() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "mod here;\n\n    pub mod gone;\n"),
        ("src/here.rs", "#[path = \"nowhere.rs\"]\nmod away;\n"),
    ]);
    let ws = discover(&dir);
    assert_eq!(
        primaries(&ws),
        pairs(&[("src/lib.rs", "kern:crate"), ("src/here.rs", "kern:crate::here")])
    );
    assert_eq!(
        warning_lines(&ws),
        [
            "src/here.rs:2:1: no file for module `away`: looked for src/nowhere.rs",
            "src/lib.rs:3:9: no file for module `gone`: looked for src/gone.rs and src/gone/mod.rs",
        ]
    );
    assert!(ws.warnings.iter().all(|w| w.kind == WarningKind::MissingModuleFile));
    let span = ws.warnings[1].span.expect("a span");
    assert_eq!(
        &fs::read_to_string(dir.path().join("src/lib.rs")).expect("text")[span.start..span.end],
        "mod gone"
    );
}

#[test]
fn both_module_file_layouts_present_is_a_warning_and_the_flat_file_wins() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "mod twice;\n"),
        ("src/twice.rs", ""),
        ("src/twice/mod.rs", ""),
    ]);
    let ws = discover(&dir);
    assert_eq!(
        primaries(&ws),
        pairs(&[("src/lib.rs", "kern:crate"), ("src/twice.rs", "kern:crate::twice")])
    );
    assert_eq!(ws.warnings.len(), 1);
    assert_eq!(ws.warnings[0].kind, WarningKind::AmbiguousModuleFile);
}

#[test]
fn a_file_given_outside_every_module_tree_is_its_own_root() {
    let dir = tree(&[
        ("scratch/k.rs", "mod helper;\nfn main() {}\n"),
        ("scratch/helper.rs", ""),
        ("scratch/other-kernel.rs", ""),
    ]);
    let ws = for_paths(&dir, &["scratch/k.rs"]);
    assert_eq!(
        primaries(&ws),
        pairs(&[("scratch/k.rs", "k:crate"), ("scratch/helper.rs", "k:crate::helper")])
    );
    assert!(ws.files.iter().all(|f| f.standalone));
    assert!(ws.errors.is_empty());

    // A folder of loose files: each is a root, unless another one reaches it first.
    let ws = for_paths(&dir, &["scratch"]);
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("scratch/helper.rs", "helper:crate"),
            ("scratch/k.rs", "k:crate"),
            ("scratch/other-kernel.rs", "other_kernel:crate"),
        ])
    );
}

#[test]
fn a_folder_of_loose_files_inside_a_package_is_taken_file_by_file() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", ""),
        ("fixtures/a.rs", ""),
        ("fixtures/b.rs", ""),
        ("fixtures/.hidden/c.rs", ""),
        (
            "fixtures/nested/kernel/Cargo.toml",
            "[package]\nname = \"nested\"\nversion = \"0.1.0\"\n",
        ),
        ("fixtures/nested/kernel/src/lib.rs", "mod k;\n"),
        ("fixtures/nested/kernel/src/k.rs", ""),
        ("fixtures/nested/kernel/src/orphan.rs", "fn broken( {\n"),
    ]);
    let ws = for_paths(&dir, &["fixtures"]);
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("fixtures/a.rs", "a:crate"),
            ("fixtures/b.rs", "b:crate"),
            ("fixtures/nested/kernel/src/lib.rs", "nested:crate"),
            ("fixtures/nested/kernel/src/k.rs", "nested:crate::k"),
        ])
    );
    let standalone: Vec<bool> = ws.files.iter().map(|f| f.standalone).collect();
    assert_eq!(standalone, [true, true, false, false]);
}

#[test]
fn a_kernel_crate_nested_in_the_host_package_is_found_from_the_host_folder() {
    // The host builds `gpu_code` from its build script; the kernel crate is no member.
    let dir = tree(&[
        ("host/Cargo.toml", "[package]\nname = \"host\"\nversion = \"0.1.0\"\n"),
        ("host/src/main.rs", "fn main() {}\n"),
        (
            "host/gpu_code/Cargo.toml",
            "[package]\nname = \"gpu_code\"\nversion = \"0.1.0\"\n",
        ),
        ("host/gpu_code/src/lib.rs", "pub fn k() {}\n"),
        ("host/target/debug/build/x.rs", "fn stale() {}\n"),
    ]);
    let ws = for_paths(&dir, &["host"]);
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("host/src/main.rs", "host:crate"),
            ("host/gpu_code/src/lib.rs", "gpu_code:crate"),
        ])
    );
}

#[test]
fn a_path_cycle_terminates_with_a_warning() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "mod a;\n#[path = \"lib.rs\"]\nmod again;\n"),
        ("src/a.rs", "#[path = \"b.rs\"]\nmod b;\n"),
        ("src/b.rs", "#[path = \"a.rs\"]\nmod a;\n"),
    ]);
    let ws = discover(&dir);
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("src/lib.rs", "kern:crate"),
            ("src/a.rs", "kern:crate::a"),
            ("src/b.rs", "kern:crate::a::b"),
        ])
    );
    let kinds: Vec<(WarningKind, String)> = ws.warnings.iter().map(|w| (w.kind, w.display.clone())).collect();
    assert_eq!(
        kinds,
        [
            (WarningKind::ModuleCycle, "src/b.rs".to_string()),
            (WarningKind::ModuleCycle, "src/lib.rs".to_string()),
        ]
    );
}

#[test]
fn nesting_past_the_depth_limit_stops_with_a_warning() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "mod a { mod b { mod c { mod d; } } }\nmod e;\n"),
        ("src/a/b/c/d.rs", ""),
        ("src/e.rs", ""),
    ]);
    let limited = Options {
        max_depth: 3,
        ..options(&dir)
    };
    let ws = Workspace::discover_with(dir.path(), &limited).expect("discovered");
    assert_eq!(
        primaries(&ws),
        pairs(&[("src/lib.rs", "kern:crate"), ("src/e.rs", "kern:crate::e")])
    );
    assert_eq!(ws.warnings.len(), 1);
    assert_eq!(ws.warnings[0].kind, WarningKind::DepthLimit);
    assert_eq!(ws.warnings[0].span.map(|s| s.line), Some(1));
}

#[test]
fn targets_follow_cargo_defaults_and_auto_discovery() {
    let dir = tree(&[
        (
            "Cargo.toml",
            concat!(
                "[package]\nname = \"gpu-app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
                "[[bin]]\nname = \"tool\"\npath = \"src/bin/t.rs\"\n",
                "[[example]]\nname = \"explicit\"\n",
            ),
        ),
        ("build.rs", "fn main() {}\n"),
        ("src/lib.rs", ""),
        ("src/main.rs", "fn main() {}\n"),
        ("src/bin/t.rs", "fn main() {}\n"),
        ("src/bin/multi/main.rs", "fn main() {}\n"),
        ("src/bin/multi/part.rs", ""),
        ("examples/explicit/main.rs", "fn main() {}\n"),
        ("examples/quick.rs", "fn main() {}\n"),
        ("tests/it.rs", ""),
        ("benches/speed.rs", ""),
    ]);
    let manifest = Manifest::read(&dir.path().join("Cargo.toml")).expect("manifest");
    let targets: Vec<(TargetKind, String, String)> = manifest
        .targets(None)
        .into_iter()
        .map(|t| {
            let root = t.root.strip_prefix(dir.path()).expect("inside").display().to_string();
            (t.kind, t.crate_name, root)
        })
        .collect();
    let expected = [
        (TargetKind::Lib, "gpu_app", "src/lib.rs"),
        (TargetKind::Bin, "tool", "src/bin/t.rs"),
        (TargetKind::Bin, "gpu_app", "src/main.rs"),
        (TargetKind::Bin, "multi", "src/bin/multi/main.rs"),
        (TargetKind::Example, "explicit", "examples/explicit/main.rs"),
        (TargetKind::Example, "quick", "examples/quick.rs"),
        (TargetKind::Test, "it", "tests/it.rs"),
        (TargetKind::Bench, "speed", "benches/speed.rs"),
        (TargetKind::BuildScript, "build_script_build", "build.rs"),
    ];
    let expected: Vec<(TargetKind, String, String)> = expected
        .iter()
        .map(|(k, n, p)| (*k, n.to_string(), p.to_string()))
        .collect();
    assert_eq!(targets, expected);
}

#[test]
fn auto_discovery_switches() {
    let dir = tree(&[
        (
            "off/Cargo.toml",
            "[package]\nname = \"off\"\nversion = \"0.1.0\"\nedition = \"2021\"\nautobins = false\nautoexamples = false\n",
        ),
        ("off/src/lib.rs", ""),
        ("off/src/main.rs", ""),
        ("off/src/bin/x.rs", ""),
        ("off/examples/e.rs", ""),
        // Edition 2015 (the default): one listed bin turns bin inference off.
        (
            "old/Cargo.toml",
            "[package]\nname = \"old\"\nversion = \"0.1.0\"\n[[bin]]\nname = \"z\"\npath = \"src/z.rs\"\n[lib]\npath = \"src/kernels.rs\"\n",
        ),
        ("old/src/main.rs", ""),
        ("old/src/z.rs", ""),
        ("old/src/bin/w.rs", ""),
        ("old/src/kernels.rs", ""),
        // Inherited edition 2021 keeps inference on.
        (
            "new/Cargo.toml",
            "[package]\nname = \"new\"\nversion = \"0.1.0\"\nedition.workspace = true\n[[bin]]\nname = \"z\"\npath = \"src/z.rs\"\n",
        ),
        ("new/src/z.rs", ""),
        ("new/src/bin/w.rs", ""),
        (
            "macros/Cargo.toml",
            "[package]\nname = \"macros\"\nversion = \"0.1.0\"\nbuild = \"build/main.rs\"\n[lib]\nproc-macro = true\n",
        ),
        ("macros/src/lib.rs", ""),
    ]);
    let names = |folder: &str, edition: Option<&str>| -> Vec<String> {
        Manifest::read(&dir.path().join(folder).join("Cargo.toml"))
            .expect("manifest")
            .targets(edition)
            .into_iter()
            .map(|t| format!("{}:{}", t.kind.as_str(), t.name))
            .collect()
    };
    assert_eq!(names("off", None), ["lib:off"]);
    assert_eq!(names("old", None), ["lib:old", "bin:z"]);
    assert_eq!(names("new", Some("2021")), ["bin:z", "bin:w"]);
    assert_eq!(names("new", None), ["bin:z"]);
    // Cargo names a build script after its file; a proc-macro library says so.
    let macros = Manifest::read(&dir.path().join("macros/Cargo.toml"))
        .expect("manifest")
        .targets(None);
    let described: Vec<String> = macros
        .iter()
        .map(|t| format!("{}:{}:{}", t.kind.as_str(), t.name, t.crate_types.join(",")))
        .collect();
    assert_eq!(
        described,
        ["lib:macros:proc-macro", "build script:build-script-main:bin"]
    );
}

#[test]
fn bad_manifests_are_typed_errors_or_warnings() {
    let dir = tree(&[
        ("bad/Cargo.toml", "[package\nname = \"x\"\n"),
        ("nameless/Cargo.toml", "[package]\nversion = \"0.1.0\"\n"),
        ("ws/Cargo.toml", "[workspace]\nmembers = [\"good\", \"broken\"]\n"),
        (
            "ws/good/Cargo.toml",
            "[package]\nname = \"good\"\nversion = \"0.1.0\"\n",
        ),
        ("ws/good/src/lib.rs", ""),
        ("ws/broken/Cargo.toml", "[package]\nname = 3\n"),
    ]);
    let err = Workspace::discover_with(&dir.path().join("bad"), &options(&dir)).expect_err("invalid TOML");
    assert!(matches!(&err, WorkspaceError::Manifest { path, .. } if path.ends_with("bad/Cargo.toml")));
    assert!(err.message().starts_with("invalid TOML"), "{err}");
    let err = Workspace::discover_with(&dir.path().join("nameless"), &options(&dir)).expect_err("no name");
    assert_eq!(err.message(), "`[package]` has no `name`");
    let err = Workspace::discover_with(&dir.path().join("none"), &options(&dir)).expect_err("missing");
    assert!(matches!(err, WorkspaceError::Io { .. }));

    let ws = Workspace::discover_with(&dir.path().join("ws"), &options(&dir)).expect("discovered");
    assert_eq!(primaries(&ws), pairs(&[("ws/good/src/lib.rs", "good:crate")]));
    assert_eq!(warning_lines(&ws), ["ws/broken/Cargo.toml: `[package]` has no `name`"]);

    let asked = for_paths(&dir, &["ws/good", "no/such/file.rs"]);
    assert_eq!(primaries(&asked), pairs(&[("ws/good/src/lib.rs", "good:crate")]));
    assert!(matches!(&asked.errors[..], [WorkspaceError::NotFound { path, .. }] if path.ends_with("no/such/file.rs")));
}

#[test]
fn a_shape_like_rust_cuda() {
    let package = |name: &str, deps: &str| {
        format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n{deps}")
    };
    let dir = tree(&[
        (
            "Cargo.toml",
            concat!(
                "[workspace]\nresolver = \"2\"\nmembers = [\n  \"crates/*\",\n",
                "  \"crates/optix/examples/ex*\",\n  \"crates/optix/examples/ex*/device\",\n",
                "  \"examples/cuda/vecadd\",\n  \"examples/cuda/vecadd/kernels\",\n]\n\n",
                "exclude = [\n    \"crates/optix/examples/common\",\n]\n\n",
                "[workspace.dependencies]\ncuda_std = { path = \"crates/cuda_std\" }\n",
            ),
        ),
        ("crates/cuda_std/Cargo.toml", &package("cuda_std", "")),
        ("crates/cuda_std/src/lib.rs", "pub mod thread;\npub mod rt;\n"),
        ("crates/cuda_std/src/thread.rs", ""),
        ("crates/cuda_std/src/rt/mod.rs", "mod sys;\n"),
        ("crates/cuda_std/src/rt/sys.rs", ""),
        ("crates/optix/Cargo.toml", &package("optix", "")),
        ("crates/optix/src/lib.rs", ""),
        ("crates/optix/examples/common/gdt/x.rs", "not rust at all {"),
        (
            "crates/optix/examples/ex02_pipeline/Cargo.toml",
            &package(
                "ex02_pipeline",
                "optix = { path = \"../../\" }\ndevice = { path = \"./device\" }\n",
            ),
        ),
        (
            "crates/optix/examples/ex02_pipeline/src/main.rs",
            "mod renderer;\nfn main() {}\n",
        ),
        ("crates/optix/examples/ex02_pipeline/src/renderer.rs", ""),
        (
            "crates/optix/examples/ex02_pipeline/device/Cargo.toml",
            &format!(
                "{}[lib]\ncrate-type = [\"cdylib\", \"rlib\"]\n",
                package(
                    "device",
                    "cuda_std = { version = \"0.2\", path = \"../../../../cuda_std\" }\n"
                )
            ),
        ),
        ("crates/optix/examples/ex02_pipeline/device/src/lib.rs", ""),
        (
            "examples/cuda/vecadd/Cargo.toml",
            &format!(
                "{}\n[build-dependencies]\ncuda_builder = {{ path = \"../../../crates/cuda_builder\" }}\n",
                package("vecadd", "nanorand = \"0.7\"\n")
            ),
        ),
        ("examples/cuda/vecadd/build.rs", "fn main() {}\n"),
        ("examples/cuda/vecadd/src/main.rs", "fn main() {}\n"),
        (
            "examples/cuda/vecadd/kernels/Cargo.toml",
            &format!(
                "{}[lib]\ncrate-type = [\"cdylib\", \"rlib\"]\n",
                package("vecadd-kernels", "cuda_std = { workspace = true }\n")
            ),
        ),
        (
            "examples/cuda/vecadd/kernels/src/lib.rs",
            "#[cfg(target_os = \"cuda\")]\nmod gpu;\n",
        ),
        ("examples/cuda/vecadd/kernels/src/gpu.rs", ""),
    ]);
    let ws = discover(&dir);
    let names: Vec<&str> = ws.crates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "cuda_std",
            "optix",
            "ex02_pipeline",
            "device",
            "vecadd",
            "vecadd-kernels"
        ]
    );
    let ex02 = &ws.crates[2];
    let deps: Vec<&str> = ex02.path_dependencies.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(deps, ["device", "optix"]);
    let kernels = &ws.crates[5];
    assert_eq!(kernels.lib().map(|t| t.crate_name.as_str()), Some("vecadd_kernels"));
    assert_eq!(
        kernels.lib().map(|t| t.crate_types.clone()),
        Some(vec!["cdylib".into(), "rlib".into()])
    );
    assert_eq!(kernels.path_dependencies[0].package, "cuda_std");
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("crates/cuda_std/src/lib.rs", "cuda_std:crate"),
            ("crates/cuda_std/src/thread.rs", "cuda_std:crate::thread"),
            ("crates/cuda_std/src/rt/mod.rs", "cuda_std:crate::rt"),
            ("crates/cuda_std/src/rt/sys.rs", "cuda_std:crate::rt::sys"),
            ("crates/optix/src/lib.rs", "optix:crate"),
            ("crates/optix/examples/ex02_pipeline/src/main.rs", "ex02_pipeline:crate"),
            (
                "crates/optix/examples/ex02_pipeline/src/renderer.rs",
                "ex02_pipeline:crate::renderer"
            ),
            ("crates/optix/examples/ex02_pipeline/device/src/lib.rs", "device:crate"),
            ("examples/cuda/vecadd/src/main.rs", "vecadd:crate"),
            ("examples/cuda/vecadd/build.rs", "build_script_build:crate"),
            ("examples/cuda/vecadd/kernels/src/lib.rs", "vecadd_kernels:crate"),
            ("examples/cuda/vecadd/kernels/src/gpu.rs", "vecadd_kernels:crate::gpu"),
        ])
    );
    // A partial checkout: the build dependency's folder is not there.
    assert_eq!(
        warning_lines(&ws),
        ["examples/cuda/vecadd/Cargo.toml: path dependency `cuda_builder` has no Cargo.toml at crates/cuda_builder"]
    );

    // A kernels folder given on the command line: found through its crate, not walked.
    let asked = for_paths(&dir, &["examples/cuda/vecadd/kernels"]);
    assert_eq!(
        primaries(&asked),
        pairs(&[
            ("examples/cuda/vecadd/kernels/src/lib.rs", "vecadd_kernels:crate"),
            ("examples/cuda/vecadd/kernels/src/gpu.rs", "vecadd_kernels:crate::gpu"),
        ])
    );
}

#[test]
fn member_globs_match_like_cargo() {
    let dir = tree(&[
        ("a/x1/keep", ""),
        ("a/x2/keep", ""),
        ("a/y1/keep", ""),
        ("a/x3", "a file"),
        ("deep/one/two/keep", ""),
    ]);
    let root = dir.path();
    let rel = |pattern: &str| -> Vec<String> {
        paths::expand_member(root, pattern)
            .iter()
            .map(|p| paths::display(p, root))
            .collect()
    };
    assert_eq!(rel("a/*"), ["a/x1", "a/x2", "a/y1"]);
    assert_eq!(rel("a/x*"), ["a/x1", "a/x2"]);
    assert_eq!(rel("a/[!x]?"), ["a/y1"]);
    assert_eq!(rel("a/x[0-1]"), ["a/x1"]);
    assert_eq!(rel("deep/**"), ["deep", "deep/one", "deep/one/two"]);
    assert_eq!(rel("./a/x1"), ["a/x1"]);
    assert_eq!(rel("nothing/*"), Vec::<String>::new());
}

#[test]
fn normalization_removes_dot_segments() {
    assert_eq!(
        normalize(Path::new("/w/crates/x/../../src_kernels/./lib.rs")),
        Path::new("/w/src_kernels/lib.rs")
    );
    assert_eq!(normalize(Path::new("../a/./b/..")), Path::new("../a"));
    assert_eq!(normalize(Path::new("/..")), Path::new("/"));
    assert_eq!(normalize(Path::new("./")), Path::new("."));
}

#[test]
fn features_are_the_defaults_and_what_dependents_ask_for_closed_under_the_features_table() {
    // The shape of sparkl: a kernel crate asks its core crate for `cuda`, which enables an
    // optional dependency's feature; the core crate's defaults choose dimension and scalar.
    let dir = tree(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"core3d\", \"kernels3d\"]\n"),
        (
            "core3d/Cargo.toml",
            "[package]\nname = \"core3d\"\nversion = \"0.1.0\"\n[features]\ndefault = [\"dim3\", \"f32\"]\ndim3 = []\nf32 = []\nf64 = []\ncuda = [\"cust_core\", \"nalgebra/cuda\", \"dep:bytemuck\", \"cust/std\"]\n[target.'cfg(not(target_os = \"cuda\"))'.dependencies]\ncust = { version = \"0.3\", optional = true }\n[lib]\npath = \"../src_core/lib.rs\"\n",
        ),
        (
            "kernels3d/Cargo.toml",
            "[package]\nname = \"kernels3d\"\nversion = \"0.1.0\"\n[features]\ndefault = [\"dim3\"]\ndim3 = []\nfast = [\"core3d/f64\"]\n[dependencies]\ncore3d = { path = \"../core3d\", features = [\"cuda\"] }\n[lib]\npath = \"../src_kernels/lib.rs\"\n",
        ),
        ("src_core/lib.rs", ""),
        ("src_kernels/lib.rs", ""),
    ]);
    let features = enabled_features(&discover(&dir));
    let names = |krate: &str| features[krate].iter().cloned().collect::<Vec<_>>().join(" ");
    assert_eq!(names("core3d"), "cuda cust cust_core default dim3 f32");
    assert_eq!(names("kernels3d"), "default dim3");
}

/// cuda-oxide's gemm_sol_final (NVlabs/cuda-oxide @ a105afd5) keeps its kernels in a file
/// that `main.rs` pulls in with `include!`: those items belong to the crate root.
#[test]
fn an_included_file_joins_the_including_module() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        (
            "src/main.rs",
            "mod util;\ninclude!(\"kernels.rs\");\ninclude!(concat!(env!(\"OUT_DIR\"), \"/gen.rs\"));\nfn main() {}\n",
        ),
        ("src/kernels.rs", "mod kernels { use super::*; }\n"),
        (
            "src/util.rs",
            "include!(\"inner/more.rs\");\ninclude!(\"absent.rs\");\n",
        ),
        ("src/inner/more.rs", "pub fn more() {}\n"),
    ]);
    let ws = discover(&dir);
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("src/main.rs", "kern:crate"),
            ("src/util.rs", "kern:crate::util"),
            ("src/inner/more.rs", "kern:crate::util"),
            ("src/kernels.rs", "kern:crate"),
        ])
    );
    assert_eq!(
        warning_lines(&ws),
        ["src/util.rs:2:1: no file for `include!(\"absent.rs\")`: looked for src/absent.rs"]
    );
}

#[test]
fn an_include_cycle_stops_with_a_warning() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "include!(\"a.rs\");\n"),
        ("src/a.rs", "include!(\"lib.rs\");\n"),
    ]);
    let ws = discover(&dir);
    assert_eq!(
        primaries(&ws),
        pairs(&[("src/lib.rs", "kern:crate"), ("src/a.rs", "kern:crate")])
    );
    assert_eq!(
        warning_lines(&ws),
        ["src/a.rs:1:1: `include!(\"lib.rs\")` leads back to src/lib.rs, which is already being read; not followed again"]
    );
}

/// A file pulled in with `include!` looks for its own `mod` items from its folder, as rustc
/// does (tracel-ai/burn's test crates include `checkpointing/mod.rs`-style files whose modules
/// sit beside them), whichever file includes it: a `mod.rs`-like root or a flat module file.
#[test]
fn modules_of_an_included_file_are_found_beside_it() {
    let dir = tree(&[
        ("Cargo.toml", PACKAGE),
        ("src/lib.rs", "mod util;\ninclude!(\"shared/checkpointing.rs\");\n"),
        (
            "src/shared/checkpointing.rs",
            "mod abs;\nmod nested {\n    mod deep;\n}\n",
        ),
        ("src/shared/abs.rs", "pub fn abs() {}\n"),
        ("src/shared/nested/deep.rs", "pub fn deep() {}\n"),
        ("src/util.rs", "include!(\"inner/more.rs\");\n"),
        ("src/inner/more.rs", "mod helper;\n"),
        ("src/inner/helper.rs", "pub fn helper() {}\n"),
    ]);
    let ws = discover(&dir);
    assert_eq!(warning_lines(&ws), Vec::<String>::new());
    assert_eq!(
        primaries(&ws),
        pairs(&[
            ("src/lib.rs", "kern:crate"),
            ("src/util.rs", "kern:crate::util"),
            ("src/inner/more.rs", "kern:crate::util"),
            ("src/inner/helper.rs", "kern:crate::util::helper"),
            ("src/shared/checkpointing.rs", "kern:crate"),
            ("src/shared/abs.rs", "kern:crate::abs"),
            ("src/shared/nested/deep.rs", "kern:crate::nested::deep"),
        ])
    );
}
