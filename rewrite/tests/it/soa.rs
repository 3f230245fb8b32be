//! The structure-of-arrays rewrite, proven by re-analysis, on the seed kernels' shapes.

use kernel_lint_analyzer::workspace::CrateFeatures;
use kernel_lint_analyzer::{analyze_configured, analyze_source, LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_lints::{check_file, Diagnostic, LintLevels};
use kernel_lint_rewrite::{attach_fixes, Workspace};

use crate::support;
use support::rewritten;

const PARTICLES: &str = "use cuda_std::prelude::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Particle {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub vx: f32,
    pub vy: f32,
    pub vz: f32,
}

#[kernel]
pub unsafe fn update(p: *mut Particle, n: u32) {
    let idx = thread::index_1d() as usize;
    if idx >= n as usize {
        return;
    }
    let vx = (*p.add(idx)).vx;
    let x = (*p.add(idx)).x;
    (*p.add(idx)).x = x + vx;
}
";

#[test]
fn pointer_to_structs_becomes_a_struct_of_pointers() {
    let found = rewritten(PARTICLES);
    assert_eq!(found.len(), 3, "{found:#?}");
    let fix = &found[0].fixes[0];
    assert_eq!(
        fix.title,
        "store `Particle` as a structure of arrays (`ParticleSoa`, one pointer per field)"
    );
    let gain = fix.gain.as_ref().expect("re-analyzed");
    assert_eq!((gain.sectors_before, gain.sectors_after), (24.0, 4.0));
    let edits: Vec<&str> = fix.edits.iter().map(|e| e.replacement.as_str()).collect();
    assert_eq!(
        edits,
        vec![
            "/// `Particle` stored as a structure of arrays: one array per field.\n#[repr(C)]\n#[derive(Clone, Copy)]\npub struct ParticleSoa {\n    pub x: *mut f32,\n    pub y: *mut f32,\n    pub z: *mut f32,\n    pub vx: *mut f32,\n    pub vy: *mut f32,\n    pub vz: *mut f32,\n}\n\n",
            "p: ParticleSoa",
            "*p.vx.add(idx)",
            "*p.x.add(idx)",
            "*p.x.add(idx)",
        ]
    );
    assert_eq!(
        fix.follow_up,
        vec!["the host must allocate one buffer per field of `Particle` (`x`, `y`, `z`, `vx`, `vy`, `vz`) and pass a `ParticleSoa` of their pointers in place of the `Particle` buffer"]
    );
    // Every finding on the struct's fields carries the same rewrite.
    assert!(found
        .iter()
        .all(|d| d.fixes.first().map(|f| &f.title) == Some(&fix.title)));
}

/// The findings of a crate of several modules, with their rewrites: (printed path, module
/// path below the crate root) for each file of `rewrite/tests/fixtures/<dir>`.
fn rewritten_crate(dir: &str, files: &[(&str, &[&str])]) -> Vec<Diagnostic> {
    let plan = LaunchPlan::default();
    let features = CrateFeatures::new();
    let sources: Vec<ModuleSource> = files
        .iter()
        .map(|(name, module)| {
            let path = format!("{}/tests/fixtures/{dir}/{name}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).expect("fixture");
            let mut module_path = vec![dir.to_string()];
            module_path.extend(module.iter().map(|s| s.to_string()));
            ModuleSource {
                source: SourceFile::new(*name, text),
                module: module_path,
                also_in: Vec::new(),
            }
        })
        .collect();
    let plans: Vec<&LaunchPlan> = sources.iter().map(|_| &plan).collect();
    let ws = Workspace::new(
        sources
            .iter()
            .map(|m| (m.source.clone(), m.module.clone(), &plan))
            .collect(),
        &[],
        &features,
    );
    let reports = analyze_configured(sources.clone(), &[], &features, &plans);
    let mut all = Vec::new();
    for report in reports.into_iter().flatten() {
        let mut diagnostics = check_file(&report, &LintLevels::default());
        attach_fixes(&ws, &report, &mut diagnostics);
        all.extend(diagnostics.into_iter().filter(|d| d.code == "KL002"));
    }
    all
}

/// The replacements of a fix, by file, in the order they are listed.
fn replacements(fix: &kernel_lint_lints::Fix) -> Vec<(String, String)> {
    fix.edits
        .iter()
        .map(|e| (e.file.clone(), e.replacement.clone()))
        .collect()
}

#[test]
fn accesses_in_a_function_of_another_module_are_rewritten_with_every_kernel_that_calls_it() {
    let found = rewritten_crate(
        "particles_crate",
        &[("lib.rs", &[]), ("types.rs", &["types"]), ("physics.rs", &["physics"])],
    );
    // `advance` reads `vx` and updates `x` (one finding), once for each kernel.
    let seen: Vec<(&str, &str, usize)> = found
        .iter()
        .map(|d| (d.kernel.as_str(), d.file.as_str(), d.primary.span.line))
        .collect();
    assert_eq!(
        seen,
        vec![
            ("step", "physics.rs", 5),
            ("step", "physics.rs", 6),
            ("drift", "physics.rs", 5),
            ("drift", "physics.rs", 6),
        ]
    );
    for d in &found {
        // The structure of arrays, then the hot/cold split: no kernel uses `y`, `vy`, `mass`, `id`.
        assert_eq!(d.fixes.len(), 2, "{d:#?}");
        assert_eq!(
            d.fixes[1].title,
            "split `Particle` into the fields the kernels use (`ParticleHot`, one pointer per field) and the others (`ParticleCold`, an array of structs), and in `advance`"
        );
        let fix = &d.fixes[0];
        assert_eq!(
            fix.title,
            "store `Particle` as a structure of arrays (`ParticleSoa`, one pointer per field), and in `advance`"
        );
        let gain = fix.gain.as_ref().expect("re-analyzed");
        assert_eq!((gain.sectors_before, gain.sectors_after), (24.0, 4.0));
        assert_eq!(
            fix.follow_up,
            vec!["the host must allocate one buffer per field of `Particle` (`x`, `y`, `vx`, `vy`, `mass`, `id`) and pass a `ParticleSoa` of their pointers in place of the `Particle` buffer (launches of `step`, `drift`)"]
        );
    }
    let mut edits = replacements(&found[0].fixes[0]);
    edits.sort();
    assert_eq!(
        edits,
        vec![
            ("lib.rs".to_string(), "p: ParticleSoa".to_string()),
            ("lib.rs".to_string(), "particles: ParticleSoa".to_string()),
            ("lib.rs".to_string(), "{Particle, ParticleSoa}".to_string()),
            ("physics.rs".to_string(), "*p.vx.add(i)".to_string()),
            ("physics.rs".to_string(), "*p.x.add(i)".to_string()),
            ("physics.rs".to_string(), "p: ParticleSoa".to_string()),
            ("physics.rs".to_string(), "{Particle, ParticleSoa}".to_string()),
            ("types.rs".to_string(), "\n\n/// `Particle` stored as a structure of arrays: one array per field.\n#[repr(C)]\n#[derive(Clone, Copy)]\npub struct ParticleSoa {\n    pub x: *mut f32,\n    pub y: *mut f32,\n    pub vx: *mut f32,\n    pub vy: *mut f32,\n    pub mass: *mut f32,\n    pub id: *mut u32,\n}".to_string()),
        ]
    );
}

#[test]
fn a_helper_the_host_also_calls_and_a_struct_of_device_pointers_are_declined_with_the_reason() {
    let found = rewritten_crate("grid_crate", &[("lib.rs", &[]), ("types.rs", &["types"])]);
    let notes: Vec<(&str, Vec<&str>)> = found
        .iter()
        .map(|d| {
            assert!(d.fixes.is_empty(), "{d:#?}");
            (
                d.kernel.as_str(),
                d.notes
                    .iter()
                    .filter(|n| n.starts_with("no rewrite"))
                    .map(String::as_str)
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        notes,
        vec![
            ("grid_mass", vec!["no rewrite is offered: `grid.nodes` is a field of `grid`, not an array parameter: the rewrite changes arrays passed as parameters only"]),
            ("node_masses", vec!["no rewrite is offered: `node_mass` is also called from `total_mass`, which keeps `Node`"]),
        ]
    );
}

#[test]
fn fields_no_kernel_uses_are_split_off_as_an_alternative() {
    let found = rewritten(PARTICLES);
    for d in &found {
        assert_eq!(d.fixes.len(), 2, "{d:#?}");
        let split = &d.fixes[1];
        assert_eq!(
            split.title,
            "split `Particle` into the fields the kernels use (`ParticleHot`, one pointer per field) and the others (`ParticleCold`, an array of structs)"
        );
        let gain = split.gain.as_ref().expect("re-analyzed");
        assert_eq!((gain.sectors_before, gain.sectors_after), (24.0, 4.0));
        assert_eq!(
            split.follow_up,
            vec!["the host must allocate one buffer per field the kernels use (`x`, `vx`) and pass a `ParticleHot` of their pointers in place of the `Particle` buffer, and keep the fields no kernel uses (`y`, `z`, `vy`, `vz`) in an array of `ParticleCold`"]
        );
    }
    let edits: Vec<&str> = found[0].fixes[1].edits.iter().map(|e| e.replacement.as_str()).collect();
    assert_eq!(
        edits,
        vec![
            "/// The fields of `Particle` the kernels use, one array per field; the others are in `ParticleCold`.\n#[repr(C)]\n#[derive(Clone, Copy)]\npub struct ParticleHot {\n    pub x: *mut f32,\n    pub vx: *mut f32,\n}\n\n/// The fields of `Particle` no kernel uses, kept by the host as an array of structs.\n#[repr(C)]\n#[derive(Clone, Copy)]\npub struct ParticleCold {\n    pub y: f32,\n    pub z: f32,\n    pub vy: f32,\n    pub vz: f32,\n}\n\n",
            "p: ParticleHot",
            "*p.vx.add(idx)",
            "*p.x.add(idx)",
            "*p.x.add(idx)",
        ]
    );
}

const PAIRS: &str = "use cuda_std::prelude::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Pair {
    pub a: f32,
    pub b: f32,
}

#[kernel]
pub unsafe fn sum(pairs: *const Pair, out: *mut f32, n: u32) {
    let i = thread::index_1d() as usize;
    if i < n as usize {
        let a = (*pairs.add(i)).a;
        let b = (*pairs.add(i)).b;
        *out.add(i) = a + b;
    }
}

#[kernel]
pub unsafe fn scale(pairs: *mut Pair, n: u32) {
    let i = thread::index_1d() as usize;
    if i < n as usize {
        (*pairs.add(i)).a *= 2.0;
        (*pairs.add(i)).b *= 2.0;
    }
}
";

#[test]
fn an_element_whose_fields_are_all_read_is_copied_whole_once_aligned() {
    let found = rewritten(PAIRS);
    let sum: Vec<&Diagnostic> = found.iter().filter(|d| d.kernel == "sum").collect();
    assert_eq!(sum.len(), 2, "{found:#?}");
    for d in &sum {
        let aligned = d.fixes.last().expect("fixes");
        assert_eq!(
            aligned.title,
            "give `Pair` `#[repr(C, align(8))]` and copy each element whole (one request per element instead of 2)"
        );
        let gain = aligned.gain.as_ref().expect("re-analyzed");
        assert_eq!(
            (
                gain.sectors_before,
                gain.sectors_after,
                gain.efficiency_before,
                gain.efficiency_after
            ),
            (8.0, 8.0, 0.5, 1.0)
        );
        let edits: Vec<&str> = aligned.edits.iter().map(|e| e.replacement.as_str()).collect();
        assert_eq!(
            edits,
            vec![
                "#[repr(C, align(8))]",
                "        let pairs_elem = *pairs.add(i);\n",
                "pairs_elem.a",
                "pairs_elem.b",
            ]
        );
    }
    // Fields updated in place are not copied: the copy would not be written back.
    let scale: Vec<&Diagnostic> = found.iter().filter(|d| d.kernel == "scale").collect();
    assert!(!scale.is_empty());
    for d in &scale {
        assert!(d.fixes.iter().all(|f| !f.title.starts_with("give `Pair`")), "{d:#?}");
    }
}

const SLICES_THROUGH_A_FUNCTION: &str = "use cuda_std::prelude::*;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Sample {
    pub value: f32,
    pub weight: f32,
    pub label: u32,
    pub pad: u32,
}

fn weighted(samples: &[Sample], i: usize) -> f32 {
    samples[i].value * samples[i].weight
}

#[kernel]
pub unsafe fn weigh(samples: &[Sample], out: *mut f32) {
    let i = thread::index_1d() as usize;
    if i < samples.len() {
        *out.add(i) = weighted(samples, i);
    }
}
";

#[test]
fn slices_passed_to_a_function_become_one_slice_per_field_there_too() {
    let found = rewritten(SLICES_THROUGH_A_FUNCTION);
    assert_eq!(found.len(), 2, "{found:#?}");
    for d in &found {
        let fix = &d.fixes[0];
        assert_eq!(
            fix.title,
            "pass `samples` as one slice per field of `Sample`, and in `weighted`"
        );
        let gain = fix.gain.as_ref().expect("re-analyzed");
        assert_eq!((gain.sectors_before, gain.sectors_after), (16.0, 4.0));
        let edits: Vec<&str> = fix.edits.iter().map(|e| e.replacement.as_str()).collect();
        assert_eq!(
            edits,
            vec![
                "samples_value: &[f32], samples_weight: &[f32]",
                "samples_value[i]",
                "samples_weight[i]",
                "samples_value: &[f32], samples_weight: &[f32]",
                "samples_value",
                "samples_value, samples_weight",
            ]
        );
        assert_eq!(
            fix.follow_up,
            vec!["the host must pass one slice per field (`samples_value`, `samples_weight`) in place of the slice of `Sample`"]
        );
    }
}

#[test]
fn an_aligned_copy_is_declined_for_a_struct_that_is_not_copy() {
    let source = PAIRS.replace("#[derive(Clone, Copy)]", "#[derive(Clone)]");
    let file = SourceFile::new("kernels.rs", source);
    let plan = LaunchPlan::default();
    let report = analyze_source(&file, &plan).expect("analyzed");
    let features = CrateFeatures::new();
    let module = ModuleSource::standalone(file.clone()).module;
    let ws = Workspace::new(vec![(file, module, &plan)], &[], &features);
    let kernel = report.kernels.iter().find(|k| k.name == "sum").expect("sum");
    let access = kernel
        .accesses
        .iter()
        .find(|a| a.field_of.is_some())
        .expect("a field access");
    let declined = kernel_lint_rewrite::aligned::draft(&ws, "kernels.rs", kernel, access)
        .expect("the shape is the aligned copy's")
        .expect_err("declined");
    assert_eq!(declined.0, "`Pair` is not `Copy`: an element cannot be copied whole");
}
