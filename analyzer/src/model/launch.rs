//! Launch configuration: the block (and grid) a kernel runs with, and where it came from.

use serde::Serialize;
use std::collections::BTreeMap;

/// Three extents, x fastest.
pub type Dim3 = [u32; 3];

/// The block size kernel-lint assumes when nothing says otherwise.
pub const DEFAULT_BLOCK: Dim3 = [256, 1, 1];

/// Where the block size of a kernel came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockSource {
    /// A `[[kernel]]` entry of the configuration.
    Config,
    /// A `// kernel-lint: block(..)` comment above the kernel.
    Hint,
    /// The host launch site.
    Launch,
    /// [`DEFAULT_BLOCK`].
    Default,
}

/// What the user said about one kernel's launch.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LaunchSpec {
    /// Kernel function name.
    pub kernel: String,
    /// Restricts the entry to files whose path ends with this.
    pub file: Option<String>,
    /// Block extents.
    pub block: Option<Dim3>,
    /// Grid extents.
    pub grid: Option<Dim3>,
    /// Values of scalar parameters, by name.
    pub params: BTreeMap<String, i64>,
}

/// The launch configurations known before analysis (from configuration), by kernel.
#[derive(Debug, Clone, Default)]
pub struct LaunchPlan {
    /// Entries in the order they were given.
    pub specs: Vec<LaunchSpec>,
}

impl LaunchPlan {
    /// The entry for a kernel in a file, if any: a file-specific entry wins over a general one.
    pub fn find(&self, file: &str, kernel: &str) -> Option<&LaunchSpec> {
        let normalized = file.replace('\\', "/");
        let matching = |s: &&LaunchSpec| s.kernel == kernel;
        self.specs
            .iter()
            .filter(matching)
            .find(|s| s.file.as_deref().is_some_and(|f| normalized.ends_with(f)))
            .or_else(|| self.specs.iter().filter(matching).find(|s| s.file.is_none()))
    }
}

impl LaunchPlan {
    /// Every entry for a kernel in a file, in order: the file-specific ones if there are any,
    /// else the general ones. Each is one launch for the harness.
    pub fn find_all(&self, file: &str, kernel: &str) -> Vec<&LaunchSpec> {
        let normalized = file.replace('\\', "/");
        let named = || self.specs.iter().filter(move |s| s.kernel == kernel);
        let specific: Vec<&LaunchSpec> = named()
            .filter(|s| s.file.as_deref().is_some_and(|f| normalized.ends_with(f)))
            .collect();
        if specific.is_empty() {
            named().filter(|s| s.file.is_none()).collect()
        } else {
            specific
        }
    }
}

/// The launch a kernel is analyzed under.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResolvedLaunch {
    /// Block extents.
    pub block: Dim3,
    /// Grid extents, when known.
    pub grid: Option<Dim3>,
    /// Where `block` came from.
    pub block_source: BlockSource,
    /// Known scalar parameter values.
    pub params: BTreeMap<String, i64>,
}

/// Parses the block of a hint comment such as `// kernel-lint: block(16, 16)`.
///
/// Returns `None` when the line is no hint, `Some(Err)` when it is a malformed one.
pub fn parse_hint(line: &str) -> Option<Result<Dim3, String>> {
    let rest = line.trim_start().strip_prefix("//")?.trim_start();
    let rest = rest.strip_prefix("kernel-lint:")?.trim();
    let inner = rest
        .strip_prefix("block")
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('('))
        .and_then(|r| r.trim_end().strip_suffix(')'));
    let Some(inner) = inner else {
        return Some(Err(format!(
            "expected `kernel-lint: block(x, y, z)`, found `kernel-lint: {rest}`"
        )));
    };
    let mut dims = [1u32; 3];
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Some(Err(format!("a block has 1 to 3 extents, found {}", parts.len())));
    }
    for (slot, part) in dims.iter_mut().zip(&parts) {
        match part.parse::<u32>() {
            Ok(v) if v > 0 && v <= 1024 => *slot = v,
            _ => return Some(Err(format!("`{part}` is not a block extent (1 to 1024)"))),
        }
    }
    if dims.iter().map(|&d| d as u64).product::<u64>() > 1024 {
        return Some(Err("a block holds at most 1024 threads".to_string()));
    }
    Some(Ok(dims))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_forms() {
        assert_eq!(parse_hint("// kernel-lint: block(16, 16)"), Some(Ok([16, 16, 1])));
        assert_eq!(parse_hint("  //kernel-lint: block(32,8,2)"), Some(Ok([32, 8, 2])));
        assert_eq!(parse_hint("// just a comment"), None);
        assert!(matches!(parse_hint("// kernel-lint: block(0)"), Some(Err(_))));
        assert!(matches!(parse_hint("// kernel-lint: block(64, 64)"), Some(Err(_))));
        assert!(matches!(parse_hint("// kernel-lint: grid(4)"), Some(Err(_))));
    }

    #[test]
    fn file_specific_entry_wins() {
        let general = LaunchSpec {
            kernel: "k".into(),
            block: Some([64, 1, 1]),
            ..Default::default()
        };
        let specific = LaunchSpec {
            kernel: "k".into(),
            file: Some("src/a.rs".into()),
            block: Some([32, 8, 1]),
            ..Default::default()
        };
        let plan = LaunchPlan {
            specs: vec![general.clone(), specific.clone()],
        };
        assert_eq!(plan.find("crate/src/a.rs", "k"), Some(&specific));
        assert_eq!(plan.find("crate/src/b.rs", "k"), Some(&general));
        assert_eq!(plan.find("crate/src/b.rs", "other"), None);
    }
}
