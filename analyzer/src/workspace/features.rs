//! The cargo features each crate is compiled with: its default features and those its
//! dependents ask for, closed under its `[features]` table, unified over the workspace as one
//! `cargo build` of every member unifies them.

use super::manifest::Manifest;
use super::Workspace;
use std::collections::{BTreeMap, BTreeSet};
use toml::{Table, Value};

/// The features enabled in each crate, by crate name (every target of a package shares them).
pub type CrateFeatures = BTreeMap<String, BTreeSet<String>>;

/// A dependency entry's wishes: its key, package name, `features` and `default-features`.
struct Wish {
    package: String,
    features: Vec<String>,
    default_features: bool,
    /// An optional dependency is also a feature of the crate naming it.
    optional: bool,
}

/// The enabled features of every crate the workspace found.
pub fn enabled_features(ws: &Workspace) -> CrateFeatures {
    let manifests: Vec<Option<Manifest>> = ws
        .crates
        .iter()
        .map(|c| Manifest::read(&c.manifest_path).ok())
        .collect();
    let mut enabled: Vec<BTreeSet<String>> = vec![BTreeSet::new(); ws.crates.len()];
    // (crate, feature) requests still to apply; every member builds with its defaults.
    let mut pending: Vec<(usize, String)> = (0..ws.crates.len()).map(|i| (i, "default".to_string())).collect();
    let dependency = |from: usize, key_or_package: &str| -> Option<usize> {
        let wishes = manifests[from].as_ref().map(|m| wishes(&m.table)).unwrap_or_default();
        let package = wishes
            .iter()
            .find(|(key, _)| key == key_or_package)
            .map_or(key_or_package.to_string(), |(_, w)| w.package.clone());
        let used = ws.crates[from]
            .path_dependencies
            .iter()
            .find(|d| d.package == package)?;
        ws.crates.iter().position(|c| c.manifest_dir == used.manifest_dir)
    };
    // Dependencies named with their features in `[dependencies]` tables.
    for (from, manifest) in manifests.iter().enumerate() {
        let Some(manifest) = manifest else { continue };
        for (key, wish) in wishes(&manifest.table) {
            let Some(to) = dependency(from, &key) else { continue };
            if wish.default_features {
                pending.push((to, "default".to_string()));
            }
            pending.extend(wish.features.iter().map(|f| (to, f.clone())));
        }
    }
    while let Some((at, feature)) = pending.pop() {
        if !enabled[at].insert(feature.clone()) {
            continue;
        }
        let Some(manifest) = &manifests[at] else { continue };
        let listed = manifest
            .table
            .get("features")
            .and_then(|f| f.get(&feature))
            .and_then(Value::as_array);
        for entry in listed.into_iter().flatten().filter_map(Value::as_str) {
            if entry.starts_with("dep:") {
                continue;
            }
            match entry.split_once('/') {
                Some((dep, dep_feature)) => {
                    let weak = dep.ends_with('?');
                    let dep = dep.trim_end_matches('?');
                    let optional = wishes(&manifest.table).iter().any(|(key, w)| key == dep && w.optional);
                    if !weak && optional {
                        pending.push((at, dep.to_string()));
                    }
                    if let Some(to) = dependency(at, dep) {
                        pending.push((to, dep_feature.to_string()));
                    }
                }
                None => pending.push((at, entry.to_string())),
            }
        }
    }
    let mut out = CrateFeatures::new();
    for ((krate, features), manifest) in ws.crates.iter().zip(enabled).zip(&manifests) {
        // A crate whose manifest could not be read keeps every `cfg(feature)` open.
        if manifest.is_none() {
            continue;
        }
        for target in &krate.targets {
            out.entry(target.crate_name.clone())
                .or_default()
                .extend(features.iter().cloned());
        }
    }
    out
}

/// The normal dependencies of a manifest, every platform's, by key.
fn wishes(table: &Table) -> Vec<(String, Wish)> {
    let mut sections = vec![table];
    if let Some(platforms) = table.get("target").and_then(Value::as_table) {
        sections.extend(platforms.values().filter_map(Value::as_table));
    }
    let mut out = Vec::new();
    for section in sections {
        let Some(deps) = section.get("dependencies").and_then(Value::as_table) else {
            continue;
        };
        for (key, entry) in deps {
            let entry = entry.as_table();
            let get = |k: &str| entry.and_then(|e| e.get(k));
            let features = get("features")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default();
            let default_features = get("default-features")
                .or_else(|| get("default_features"))
                .and_then(Value::as_bool)
                .unwrap_or(true);
            let optional = get("optional").and_then(Value::as_bool).unwrap_or(false);
            let package = get("package").and_then(Value::as_str).unwrap_or(key).to_string();
            out.push((
                key.clone(),
                Wish {
                    package,
                    features,
                    default_features,
                    optional,
                },
            ));
        }
    }
    out
}
