//! The configuration checked against the kernels the analysis found: entries that name no
//! analyzed kernel or file, parameters a kernel does not have, values its parameters cannot
//! hold.

use crate::config::{Configs, Entry, ParamSite, ParamValue};
use crate::error::Problem;
use kernel_lint_analyzer::{FileReport, KernelParam, KernelReport, ParamKind};

/// An analyzed file as the checks see it.
#[derive(Debug, Clone, Copy)]
pub struct Checked<'a> {
    /// The path as printed (what an entry's `file` is matched against).
    pub path: &'a str,
    /// Its configuration, by index into [`Configs::configs`].
    pub config: usize,
    /// What the analysis found in it.
    pub report: &'a FileReport,
}

/// What the checks found: warnings leave the exit code alone, errors stop the command.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Findings {
    /// Settings that configure nothing, or nothing that counts.
    pub warnings: Vec<Problem>,
    /// Settings that cannot be right.
    pub errors: Vec<Problem>,
}

/// Checks every entry of every table against the files that use the table.
pub fn check(configs: &Configs, files: &[Checked<'_>]) -> Findings {
    let mut findings = Findings::default();
    for (index, table) in configs.tables.iter().enumerate() {
        let users: Vec<&Checked<'_>> = files
            .iter()
            .filter(|f| configs.get(f.config).is_some_and(|c| c.tables.contains(&index)))
            .collect();
        if users.is_empty() {
            continue;
        }
        for entry in &table.entries {
            check_entry(entry, &users, &mut findings);
        }
    }
    findings.warnings.sort();
    findings.warnings.dedup();
    findings.errors.sort();
    findings.errors.dedup();
    findings
}

fn check_entry(entry: &Entry, users: &[&Checked<'_>], findings: &mut Findings) {
    let name = &entry.spec.kernel;
    let scope: Vec<&Checked<'_>> = match &entry.spec.file {
        Some(file) => users.iter().copied().filter(|f| matches_file(f.path, file)).collect(),
        None => users.to_vec(),
    };
    if let (Some(file), Some(at)) = (&entry.spec.file, &entry.file_at) {
        if scope.is_empty() {
            let message = format!("no analyzed file matches `{file}`");
            findings.warnings.push(Problem::new(at.clone(), message));
            return;
        }
    }
    let kernels: Vec<&KernelReport> = scope
        .iter()
        .flat_map(|f| &f.report.kernels)
        .filter(|k| &k.name == name)
        .collect();
    let Some(first) = kernels.first() else {
        let elsewhere = users.iter().flat_map(|f| &f.report.kernels).any(|k| &k.name == name);
        let message = match &entry.spec.file {
            Some(file) if elsewhere => format!("no kernel named `{name}` in the analyzed files matching `{file}`"),
            _ => format!("no kernel named `{name}` in the analyzed files"),
        };
        findings.warnings.push(Problem::new(entry.name_at.clone(), message));
        return;
    };
    for param in &entry.params {
        // `p.n` sets field `n` of the struct parameter `p`.
        let (root, field) = match param.name.split_once('.') {
            Some((root, _)) => (root, true),
            None => (param.name.as_str(), false),
        };
        let matching: Vec<(&KernelReport, &KernelParam)> = kernels
            .iter()
            .flat_map(|k| k.params.iter().filter(|p| p.name == root).map(move |p| (*k, p)))
            .collect();
        if matching.is_empty() {
            let message = unknown_parameter(first, &param.name);
            findings.warnings.push(Problem::new(param.name_at.clone(), message));
        } else if !field {
            check_value(param, &matching, findings);
        }
    }
}

/// A value the parameter's type cannot hold is an error; a float for an integer is a warning.
fn check_value(param: &ParamSite, matching: &[(&KernelReport, &KernelParam)], findings: &mut Findings) {
    match param.value {
        ParamValue::Int(v) if v < 0 => {
            if let Some((kernel, p)) = matching.iter().find(|(_, p)| p.kind == ParamKind::Unsigned) {
                let message = format!(
                    "parameter `{}` of `{}` is unsigned (`{}`), so it cannot be {v}",
                    p.name, kernel.name, p.ty
                );
                findings.errors.push(Problem::new(param.value_at.clone(), message));
            }
        }
        ParamValue::Float(v) => {
            let integer = |kind: ParamKind| matches!(kind, ParamKind::Unsigned | ParamKind::Signed);
            if let Some((kernel, p)) = matching.iter().find(|(_, p)| integer(p.kind)) {
                let mut message = format!(
                    "parameter `{}` of `{}` is an integer (`{}`), so the float {v:?} plays no part in the analysis",
                    p.name, kernel.name, p.ty
                );
                // An integer written as `1e6` or `64.0` is meant as one.
                if v.fract() == 0.0 && v.abs() < 9.0e15 {
                    message.push_str(&format!(": write `{}` to use it", v as i64));
                }
                findings.warnings.push(Problem::new(param.value_at.clone(), message));
            }
        }
        ParamValue::Int(_) => {}
    }
}

fn unknown_parameter(kernel: &KernelReport, name: &str) -> String {
    if kernel.params.is_empty() {
        return format!("kernel `{}` has no parameter `{name}`; it takes none", kernel.name);
    }
    let names: Vec<String> = kernel.params.iter().map(|p| format!("`{}`", p.name)).collect();
    format!(
        "kernel `{}` has no parameter `{name}`; its parameters are {}",
        kernel.name,
        names.join(", ")
    )
}

/// Whether an entry's `file` selects a file, as the launch plan matches it.
fn matches_file(path: &str, file: &str) -> bool {
    path.replace('\\', "/").ends_with(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Resolver;
    use crate::settings::Settings;
    use kernel_lint_analyzer::{analyze_source, LaunchPlan, SourceFile};

    const KERNELS: &str = "#[kernel]\npub unsafe fn add(a: &[f32], c: *mut f32, n: usize, off: i32, p: P) {}\n\
                           #[kernel]\npub unsafe fn none() {}\n";

    /// The findings for a configuration text over one file `src/k.rs` holding [`KERNELS`], each
    /// as `line:column: message`.
    fn findings(config: &str) -> (Vec<String>, Vec<String>) {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("k.toml");
        std::fs::write(&path, config).unwrap_or_else(|e| panic!("{e}"));
        let settings = Settings {
            config: Some(path.clone()),
            ..Settings::default()
        };
        let mut resolver = Resolver::new(&settings).unwrap_or_else(|e| panic!("{e}"));
        let index = resolver
            .config_for(&dir.path().join("src/k.rs"))
            .unwrap_or_else(|e| panic!("{e}"));
        let configs = resolver.finish();
        let report = analyze_source(&SourceFile::new("src/k.rs", KERNELS), &LaunchPlan::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let files = [Checked {
            path: "src/k.rs",
            config: index,
            report: &report,
        }];
        let found = check(&configs, &files);
        let short = |problems: &[Problem]| -> Vec<String> {
            problems
                .iter()
                .map(|p| format!("{}:{}: {}", p.at.line, p.at.column, p.message))
                .collect()
        };
        (short(&found.warnings), short(&found.errors))
    }

    #[test]
    fn entries_for_missing_kernels_and_files_are_warnings() {
        let (warnings, errors) = findings(
            "[[kernel]]\nname = \"ad\"\n\n[[kernel]]\nname = \"add\"\nfile = \"src/other.rs\"\n\n\
             [[kernel]]\nname = \"none\"\nfile = \"k.rs\"\n",
        );
        assert_eq!(
            warnings,
            [
                "2:8: no kernel named `ad` in the analyzed files",
                "6:8: no analyzed file matches `src/other.rs`",
            ]
        );
        assert!(errors.is_empty());
        let (warnings, _) = findings("[[kernel]]\nname = \"absent\"\nfile = \"src/k.rs\"\n");
        assert_eq!(warnings, ["2:8: no kernel named `absent` in the analyzed files"]);
    }

    #[test]
    fn unknown_parameters_are_warnings_naming_the_real_ones() {
        let (warnings, errors) = findings(
            "[[kernel]]\nname = \"add\"\n[kernel.params]\nm = 4\np.stride = 2\nn = 8\n\"q.x\" = 1\n\n\
             [[kernel]]\nname = \"none\"\n[kernel.params]\nn = 1\n",
        );
        assert_eq!(
            warnings,
            [
                "4:1: kernel `add` has no parameter `m`; its parameters are `a`, `c`, `n`, `off`, `p`",
                "7:1: kernel `add` has no parameter `q.x`; its parameters are `a`, `c`, `n`, `off`, `p`",
                "12:1: kernel `none` has no parameter `n`; it takes none",
            ]
        );
        assert!(errors.is_empty());
    }

    #[test]
    fn negative_unsigned_values_are_errors_and_floats_for_integers_warnings() {
        let (warnings, errors) = findings(
            "[[kernel]]\nname = \"add\"\n[kernel.params]\nn = -1\noff = -3\n\n\
             [[kernel]]\nname = \"add\"\nfile = \"src/k.rs\"\n[kernel.params]\nn = 1e6\noff = 0.5\n",
        );
        assert_eq!(
            errors,
            ["4:5: parameter `n` of `add` is unsigned (`usize`), so it cannot be -1"]
        );
        assert_eq!(
            warnings,
            [
                "11:5: parameter `n` of `add` is an integer (`usize`), so the float 1000000.0 plays no part in the analysis: write `1000000` to use it",
                "12:7: parameter `off` of `add` is an integer (`i32`), so the float 0.5 plays no part in the analysis",
            ]
        );
    }
}
