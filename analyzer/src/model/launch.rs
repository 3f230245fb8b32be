//! Launch configuration: the block (and grid) a kernel runs with, and where it came from.

use crate::source::Span;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Three extents, x fastest.
pub type Dim3 = [u32; 3];

/// The block size kernel-lint assumes when nothing says otherwise.
pub const DEFAULT_BLOCK: Dim3 = [256, 1, 1];

/// Where the block size of a kernel came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockSource {
    /// A `[[kernel]]` entry of the configuration.
    Config,
    /// A `// kernel-lint: block(..)` comment above the kernel.
    Hint,
    /// The host launch site.
    Launch,
    /// The kernel's own attribute: rust-gpu's `#[spirv(compute(threads(..)))]`.
    Attribute,
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
    /// Values of integer parameters, by name: these take part in index arithmetic.
    pub params: BTreeMap<String, i64>,
    /// Values of float parameters, by name: recorded (and passed on by the harness), never an
    /// index value.
    pub float_params: BTreeMap<String, f64>,
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResolvedLaunch {
    /// Block extents.
    pub block: Dim3,
    /// Grid extents, when known.
    pub grid: Option<Dim3>,
    /// Where `block` came from.
    pub block_source: BlockSource,
    /// Known integer parameter values.
    pub params: BTreeMap<String, i64>,
    /// Known float parameter values; they play no part in addressing.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub float_params: BTreeMap<String, f64>,
    /// The extents of `block` the launch sets at run time: `block` holds one value tried for
    /// each, and the analysis tries others.
    #[serde(default, skip_serializing_if = "is_all_false")]
    pub unknown_block: [bool; 3],
}

fn is_all_false(flags: &[bool; 3]) -> bool {
    !flags.iter().any(|&f| f)
}

/// `block.y`, `block.x and block.z`: the extents flagged.
pub fn extent_names(unknown: [bool; 3]) -> String {
    let names: Vec<&str> = ["block.x", "block.y", "block.z"]
        .into_iter()
        .zip(unknown)
        .filter_map(|(n, u)| u.then_some(n))
        .collect();
    names.join(" and ")
}

impl ResolvedLaunch {
    /// `block.y`: the extents of the block the launch sets at run time, `None` when none.
    pub fn runtime_extents(&self) -> Option<String> {
        self.unknown_block
            .iter()
            .any(|&u| u)
            .then(|| extent_names(self.unknown_block))
    }
}

/// Extents tried for a block extent the launch sets at run time, the first the one reported
/// when the figure does not depend on it.
pub const RUNTIME_EXTENTS: [u32; 3] = [256, 32, 16];

/// Where the host launches a kernel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchSite {
    /// The file of the launch, as given.
    pub file: String,
    /// The launch macro's or method's name.
    pub span: Span,
}

/// The most threads a block may hold.
pub const MAX_BLOCK_THREADS: u32 = 1024;

/// The keys a `kernel-lint:` comment may have: `block` (a launch hint) and `allow` (a
/// suppression, read by the lints).
const HINT_KEYS: [&str; 2] = ["block", SUPPRESSION_KEY];

/// The key of a suppression comment, `kernel-lint: allow(KL001)`: not a launch hint.
pub const SUPPRESSION_KEY: &str = "allow";

/// The key of what follows `kernel-lint:` (`block`, `allow`): its leading word.
pub fn directive_key(text: &str) -> &str {
    let text = text.trim_start();
    let end = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// Whether a comment body is a launch hint: a `kernel-lint:` comment that is no suppression.
pub fn is_launch_hint(body: &str) -> bool {
    hint_text(body).is_some_and(|text| directive_key(text) != SUPPRESSION_KEY)
}

/// Parses the block of a hint comment such as `// kernel-lint: block(16, 16)` or
/// `/* kernel-lint: block(16, 16) */`.
///
/// Returns `None` when the comment is no hint, `Some(Err)` when it is a malformed one.
pub fn parse_hint(comment: &str) -> Option<Result<Dim3, String>> {
    let comment = comment.trim();
    let body = if let Some(rest) = comment.strip_prefix("//") {
        rest
    } else {
        let rest = comment.strip_prefix("/*")?;
        rest.strip_suffix("*/").unwrap_or(rest)
    };
    hint_text(body).map(parse_hint_body)
}

/// The text after `kernel-lint:` when a comment's body (without its `//` or `/* */`) is a hint.
pub fn hint_text(body: &str) -> Option<&str> {
    // A doc comment (`///`, `/**`) may carry the hint too; its extra marker is skipped.
    let body = body.strip_prefix(['/', '*']).unwrap_or(body);
    body.trim_start_matches(|c: char| c.is_whitespace() || c == '*')
        .strip_prefix("kernel-lint:")
}

/// Parses what follows `kernel-lint:` in a hint: `block(x)`, `block(x, y)` or `block(x, y, z)`.
pub fn parse_hint_body(text: &str) -> Result<Dim3, String> {
    let text = text.trim();
    let key_len = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let (key, rest) = text.split_at(key_len);
    if key.is_empty() {
        return Err(if text.is_empty() {
            "the hint is empty: expected `block(x, y, z)`".to_string()
        } else {
            format!("expected `block(x, y, z)`, found `{text}`")
        });
    }
    if key != "block" {
        return Err(match suggestion(key) {
            Some(known) => format!("unknown hint key `{key}`: did you mean `{known}`?"),
            None => format!("unknown hint key `{key}`: expected `block(x, y, z)`"),
        });
    }
    let Some(rest) = rest.trim_start().strip_prefix('(') else {
        return Err("expected `(` after `block`".to_string());
    };
    let Some((inner, after)) = rest.split_once(')') else {
        return Err("missing `)` after the block extents".to_string());
    };
    let after = after.trim();
    if !after.is_empty() {
        return Err(format!("unexpected `{after}` after `block({inner})`"));
    }
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    if inner.trim().is_empty() || parts.len() > 3 {
        let found = if inner.trim().is_empty() { 0 } else { parts.len() };
        return Err(format!("a block has 1 to 3 extents, found {found}"));
    }
    if parts.iter().any(|p| p.is_empty()) {
        return Err(format!("missing block extent in `block({inner})`"));
    }
    let mut dims = [1u32; 3];
    for (slot, part) in dims.iter_mut().zip(&parts) {
        *slot = extent(part)?;
    }
    let threads: u64 = dims.iter().map(|&d| u64::from(d)).product();
    if threads > u64::from(MAX_BLOCK_THREADS) {
        return Err(format!(
            "a block holds at most {MAX_BLOCK_THREADS} threads, found {threads}"
        ));
    }
    Ok(dims)
}

/// One block extent of a hint, 1 to [`MAX_BLOCK_THREADS`].
fn extent(part: &str) -> Result<u32, String> {
    let digits = part.strip_prefix('-').unwrap_or(part);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{part}` is not a block extent (1 to {MAX_BLOCK_THREADS})"));
    }
    part.parse::<u32>()
        .ok()
        .filter(|&v| (1..=MAX_BLOCK_THREADS).contains(&v))
        .ok_or_else(|| format!("block extent {part} is out of range (1 to {MAX_BLOCK_THREADS})"))
}

/// The known key closest to a misspelt one, when it is close enough to be meant.
fn suggestion(key: &str) -> Option<&'static str> {
    let lower = key.to_ascii_lowercase();
    HINT_KEYS.into_iter().find(|known| edit_distance(&lower, known) <= 2)
}

/// Levenshtein distance of two short words.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suppressions_are_no_hints() {
        assert!(!is_launch_hint(" kernel-lint: allow(KL002)"));
        assert!(is_launch_hint(" kernel-lint: block(8)"));
        assert!(is_launch_hint(" kernel-lint: alow(KL002)"));
        assert_eq!(
            parse_hint_body("alow(KL002)"),
            Err("unknown hint key `alow`: did you mean `allow`?".to_string())
        );
    }

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
    fn hint_comment_forms() {
        assert_eq!(parse_hint("/* kernel-lint: block(16, 16) */"), Some(Ok([16, 16, 1])));
        assert_eq!(parse_hint("/// kernel-lint: block(8)"), Some(Ok([8, 1, 1])));
        assert_eq!(
            parse_hint("/*\n * kernel-lint: block(4, 4, 4)\n */"),
            Some(Ok([4, 4, 4]))
        );
        assert_eq!(parse_hint("/* a comment */"), None);
        assert_eq!(parse_hint("// see kernel-lint: block(8)"), None);
    }

    #[test]
    fn malformed_hints_say_what_is_wrong() {
        let err = |body: &str| parse_hint_body(body).err().unwrap_or_default();
        assert_eq!(err("block(0)"), "block extent 0 is out of range (1 to 1024)");
        assert_eq!(err("block(2048)"), "block extent 2048 is out of range (1 to 1024)");
        assert_eq!(err("block(-1)"), "block extent -1 is out of range (1 to 1024)");
        assert_eq!(err("block(64, 64)"), "a block holds at most 1024 threads, found 4096");
        assert_eq!(err("blok(32)"), "unknown hint key `blok`: did you mean `block`?");
        assert_eq!(err("Block(32)"), "unknown hint key `Block`: did you mean `block`?");
        assert_eq!(err("grid(4)"), "unknown hint key `grid`: expected `block(x, y, z)`");
        assert_eq!(err("block(32, )"), "missing block extent in `block(32, )`");
        assert_eq!(err("block(, 4)"), "missing block extent in `block(, 4)`");
        assert_eq!(err("block()"), "a block has 1 to 3 extents, found 0");
        assert_eq!(err("block(1, 2, 3, 4)"), "a block has 1 to 3 extents, found 4");
        assert_eq!(err("block(x)"), "`x` is not a block extent (1 to 1024)");
        assert_eq!(err("block(16.5)"), "`16.5` is not a block extent (1 to 1024)");
        assert_eq!(err("block(32"), "missing `)` after the block extents");
        assert_eq!(err("block 32"), "expected `(` after `block`");
        assert_eq!(err("block(32) grid(4)"), "unexpected `grid(4)` after `block(32)`");
        assert_eq!(err(""), "the hint is empty: expected `block(x, y, z)`");
        assert_eq!(err("(32)"), "expected `block(x, y, z)`, found `(32)`");
        assert_eq!(parse_hint_body(" block ( 32 , 2 ) "), Ok([32, 2, 1]));
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
