//! The findings model: what a lint reports, independent of how it is rendered.

use kernel_lint_analyzer::Span;
use serde::{Deserialize, Serialize};

/// How seriously a lint's findings are taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported as information; does not fail a run.
    Note,
    /// Reported; fails `check` (exit 1).
    Warn,
    /// Reported as an error; fails `check` (exit 1).
    Deny,
}

impl Level {
    /// Parses `allow`, `note`, `warn` or `deny`.
    pub fn parse(text: &str) -> Option<Level> {
        match text {
            "allow" => Some(Level::Allow),
            "note" => Some(Level::Note),
            "warn" => Some(Level::Warn),
            "deny" => Some(Level::Deny),
            _ => None,
        }
    }

    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Note => "note",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }
}

/// Whether a fix may be applied without review.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applicability {
    /// Preserves behaviour; may be applied automatically.
    Safe,
    /// Changes behaviour or layout; needs review.
    Unsafe,
    /// Shown to the user, never applied.
    DisplayOnly,
}

/// One text replacement.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Edit {
    /// The file, as printed (a rewrite may touch a struct defined in another module).
    pub file: String,
    /// What is replaced.
    pub span: Span,
    /// The new text.
    pub replacement: String,
}

/// A suggested change to the source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fix {
    /// What the fix does, one line.
    pub title: String,
    /// Whether it may be applied without review.
    pub applicability: Applicability,
    /// The replacements, non-overlapping within each file.
    pub edits: Vec<Edit>,
    /// What the analysis predicts once the fix is applied, when it was re-analyzed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gain: Option<Gain>,
    /// What the user must change by hand (the host's buffers, say), one sentence each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub follow_up: Vec<String>,
}

impl Fix {
    /// The title on one line, as an editor's list of quick fixes shows it: a title that spans
    /// lines (a quoted snippet) has them joined with spaces.
    pub fn one_line_title(&self) -> String {
        self.title.split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// What a gain counts per request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum GainUnit {
    /// 32-byte sectors of global memory.
    #[default]
    Sectors,
    /// Passes of the shared-memory pipeline.
    Wavefronts,
}

impl GainUnit {
    /// `sectors` or `wavefronts`.
    pub fn as_str(self) -> &'static str {
        match self {
            GainUnit::Sectors => "sectors",
            GainUnit::Wavefronts => "wavefronts",
        }
    }

    fn is_sectors(&self) -> bool {
        *self == GainUnit::Sectors
    }
}

/// The figures of the rewritten access, before and after, from re-analyzing the fixed source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gain {
    /// What `sectors_before` and `sectors_after` count: sectors, or for a shared-memory access
    /// wavefronts (absent from JSON for sectors).
    #[serde(default, skip_serializing_if = "GainUnit::is_sectors")]
    pub unit: GainUnit,
    /// Sectors per request of the access now.
    pub sectors_before: f64,
    /// Sectors per request of the rewritten access.
    pub sectors_after: f64,
    /// Efficiency now, 0 to 1.
    pub efficiency_before: f64,
    /// Efficiency after, 0 to 1.
    pub efficiency_after: f64,
    /// Estimated DRAM bytes a block moves for the access now (its distinct sectors), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_bytes_before: Option<u64>,
    /// The same after the rewrite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dram_bytes_after: Option<u64>,
    /// When the rewrite folds several requests into fewer (a lane's run of loads into one wide
    /// load): the requests of the rewritten code before, and after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<(u32, u32)>,
    /// One warp's request of the access now, for a picture; not in the JSON report.
    #[serde(skip)]
    pub warp_before: Option<kernel_lint_analyzer::WarpSample>,
    /// The same request of the rewritten access.
    #[serde(skip)]
    pub warp_after: Option<kernel_lint_analyzer::WarpSample>,
}

/// A span with a message under it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What to say there.
    pub message: String,
}

/// One finding of one lint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    /// Lint code, `KL001`.
    pub code: &'static str,
    /// Lint name, `strided-access`.
    pub name: &'static str,
    /// The level it is reported at.
    pub level: Level,
    /// The file, as given.
    pub file: String,
    /// The kernel it was found in.
    pub kernel: String,
    /// One lowercase sentence with the numbers, no trailing period.
    pub message: String,
    /// The main span and its label.
    pub primary: Label,
    /// Further spans worth showing.
    pub secondary: Vec<Label>,
    /// What to do instead, one line.
    pub help: Option<String>,
    /// Assumptions and context.
    pub notes: Vec<String>,
    /// Suggested code changes.
    pub fixes: Vec<Fix>,
    /// What the access costs, for access findings: thresholds and the order of findings use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impact: Option<crate::impact::Impact>,
}

/// A diagnostic as read back (from the result cache): its code and name become the
/// registry's own text, so that no other lint can be named.
#[derive(Deserialize)]
struct Stored {
    code: String,
    name: String,
    level: Level,
    file: String,
    kernel: String,
    message: String,
    primary: Label,
    secondary: Vec<Label>,
    help: Option<String>,
    notes: Vec<String>,
    fixes: Vec<Fix>,
    #[serde(default)]
    impact: Option<crate::impact::Impact>,
}

impl<'de> Deserialize<'de> for Diagnostic {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Diagnostic, D::Error> {
        Diagnostic::try_from(Stored::deserialize(deserializer)?).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<Stored> for Diagnostic {
    type Error = String;

    fn try_from(stored: Stored) -> Result<Diagnostic, String> {
        let lint = crate::find(&stored.code)
            .filter(|lint| lint.code == stored.code && lint.name == stored.name)
            .ok_or_else(|| format!("no lint `{}` named `{}`", stored.code, stored.name))?;
        Ok(Diagnostic {
            code: lint.code,
            name: lint.name,
            level: stored.level,
            file: stored.file,
            kernel: stored.kernel,
            message: stored.message,
            primary: stored.primary,
            secondary: stored.secondary,
            help: stored.help,
            notes: stored.notes,
            fixes: stored.fixes,
            impact: stored.impact,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_over_lines_is_shown_on_one() {
        let fix = Fix {
            title: "replace `a[i *\n    n]` with\n\t`a[i]`".to_string(),
            applicability: Applicability::Safe,
            edits: Vec::new(),
            gain: None,
            follow_up: Vec::new(),
        };
        assert_eq!(fix.one_line_title(), "replace `a[i * n]` with `a[i]`");
    }
}
