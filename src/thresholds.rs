//! The `[thresholds]` table of the configuration and the `--min-efficiency` and
//! `--min-wasted-sectors` flags: findings cheaper than these are not reported.

use clap::Args;
use kernel_lint_lints::Thresholds;
use serde::Deserialize;
use toml::Spanned;

/// `[thresholds]` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RawThresholds {
    min_efficiency: Option<Spanned<f64>>,
    min_wasted_sectors: Option<Spanned<f64>>,
}

impl RawThresholds {
    /// The thresholds, or the first value out of range with its byte range.
    pub fn validate(&self) -> Result<Thresholds, (std::ops::Range<usize>, String)> {
        let check = |value: &Option<Spanned<f64>>, key: &str, ok: fn(f64) -> bool, range: &str| {
            value
                .as_ref()
                .map(|v| {
                    let n = *v.get_ref();
                    if ok(n) {
                        Ok(n)
                    } else {
                        Err((v.span(), format!("`{key}` is {n}, out of range ({range})")))
                    }
                })
                .transpose()
        };
        Ok(Thresholds {
            min_efficiency: check(&self.min_efficiency, "min-efficiency", efficiency_ok, "0 to 1")?,
            min_wasted_sectors: check(&self.min_wasted_sectors, "min-wasted-sectors", sectors_ok, "0 or more")?,
        })
    }
}

fn efficiency_ok(v: f64) -> bool {
    (0.0..=1.0).contains(&v)
}

fn sectors_ok(v: f64) -> bool {
    v.is_finite() && v >= 0.0
}

/// The thresholds of later tables win, key by key.
pub fn overlay(base: &mut Thresholds, over: &Thresholds) {
    base.min_efficiency = over.min_efficiency.or(base.min_efficiency);
    base.min_wasted_sectors = over.min_wasted_sectors.or(base.min_wasted_sectors);
}

/// Threshold flags of `check` and `accesses`; they override the configuration.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct ThresholdArgs {
    /// Hide findings whose access runs at this efficiency or better (0 to 1); overrides
    /// `min-efficiency` of `[thresholds]`.
    #[arg(long, value_name = "RATIO", value_parser = parse_efficiency)]
    pub min_efficiency: Option<f64>,
    /// Hide findings that waste fewer sectors per request than this (0 or more); overrides
    /// `min-wasted-sectors` of `[thresholds]`.
    #[arg(long, value_name = "SECTORS", value_parser = parse_sectors)]
    pub min_wasted_sectors: Option<f64>,
}

impl ThresholdArgs {
    /// The flags as thresholds.
    pub fn thresholds(&self) -> Thresholds {
        Thresholds {
            min_efficiency: self.min_efficiency,
            min_wasted_sectors: self.min_wasted_sectors,
        }
    }
}

fn parse_efficiency(text: &str) -> Result<f64, String> {
    let v: f64 = text.parse().map_err(|_| format!("`{text}` is not a number"))?;
    efficiency_ok(v)
        .then_some(v)
        .ok_or_else(|| format!("{v} is out of range (0 to 1)"))
}

fn parse_sectors(text: &str) -> Result<f64, String> {
    let v: f64 = text.parse().map_err(|_| format!("`{text}` is not a number"))?;
    sectors_ok(v)
        .then_some(v)
        .ok_or_else(|| format!("{v} is out of range (0 or more)"))
}
