//! The structure-of-arrays rewrite, proven by re-analysis, on the seed kernels' shapes.

use kernel_lint_analyzer::workspace::CrateFeatures;
use kernel_lint_analyzer::{analyze_source, LaunchPlan, ModuleSource, SourceFile};
use kernel_lint_lints::{check_file, Diagnostic, LintLevels};
use kernel_lint_rewrite::{attach_fixes, Workspace};

fn rewritten(source: &str) -> Vec<Diagnostic> {
    let file = SourceFile::new("kernels.rs", source);
    let plan = LaunchPlan::default();
    let report = analyze_source(&file, &plan).expect("analyzed");
    assert!(!report.kernels.is_empty(), "no kernel found");
    let mut diagnostics = check_file(&report, &LintLevels::default());
    let features = CrateFeatures::new();
    let module = ModuleSource::standalone(file.clone()).module;
    let ws = Workspace {
        files: vec![(file, module, &plan)],
        uses: &[],
        features: &features,
    };
    attach_fixes(&ws, &report, &mut diagnostics);
    diagnostics
}

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
