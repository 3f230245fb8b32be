//! The limits a run puts on each file: its size (`--max-file-size`) and the time its
//! analysis may take (`--file-time-budget`), so that one huge or pathological file cannot
//! stall a run over untrusted code.

use kernel_lint_analyzer::budget;
use std::time::Duration;

/// The largest file analyzed; `None` for no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaxFileSize(pub Option<u64>);

impl Default for MaxFileSize {
    fn default() -> Self {
        MaxFileSize(Some(budget::DEFAULT_MAX_FILE_SIZE))
    }
}

/// The time the analysis of one file may take; `None` for no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileTimeBudget(pub Option<Duration>);

impl Default for FileTimeBudget {
    fn default() -> Self {
        FileTimeBudget(Some(budget::DEFAULT_FILE_TIME_BUDGET))
    }
}

/// Reads `10MB`, `512kB`, `1.5 MB`, `2000000` (bytes) or `none`.
pub fn parse_size(text: &str) -> Result<MaxFileSize, String> {
    if text.trim().eq_ignore_ascii_case("none") {
        return Ok(MaxFileSize(None));
    }
    let (number, unit) = split_unit(text);
    if number.is_empty() {
        return Err(format!("`{text}` is not a size (`10MB`, `512kB`, `none`)"));
    }
    let scale: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "kb" | "k" => 1e3,
        "mb" | "m" => 1e6,
        "gb" | "g" => 1e9,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        _ => {
            return Err(format!(
                "unknown unit `{unit}` (use B, kB, MB, GB, KiB, MiB, GiB or `none`)"
            ))
        }
    };
    let value = number_of(number)? * scale;
    if value > 1e15 {
        return Err("too large (use `none` for no limit)".to_string());
    }
    Ok(MaxFileSize(Some(value.round() as u64)))
}

/// Reads `10s`, `500ms`, `1.5s`, `2m`, `30` (seconds) or `none`.
pub fn parse_duration(text: &str) -> Result<FileTimeBudget, String> {
    if text.trim().eq_ignore_ascii_case("none") {
        return Ok(FileTimeBudget(None));
    }
    let (number, unit) = split_unit(text);
    if number.is_empty() {
        return Err(format!("`{text}` is not a time (`10s`, `500ms`, `none`)"));
    }
    let scale = match unit {
        "" | "s" => 1.0,
        "ms" => 1e-3,
        "m" | "min" => 60.0,
        _ => return Err(format!("unknown unit `{unit}` (use ms, s, min or `none`)")),
    };
    let seconds = number_of(number)? * scale;
    if seconds > 1e9 {
        return Err("too long (use `none` for no limit)".to_string());
    }
    Ok(FileTimeBudget(Some(Duration::from_secs_f64(seconds))))
}

fn split_unit(text: &str) -> (&str, &str) {
    let text = text.trim();
    let at = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    (text[..at].trim(), text[at..].trim())
}

fn number_of(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(format!("`{text}` is not a non-negative number")),
    }
}

/// Applies the limits to the analyses that follow in this process.
pub fn apply(size: MaxFileSize, time: FileTimeBudget) {
    budget::set_max_file_size(size.0);
    budget::set_file_time_budget(time.0);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_durations_read_as_written() {
        assert_eq!(parse_size("10MB"), Ok(MaxFileSize(Some(10_000_000))));
        assert_eq!(parse_size("1.5 MB"), Ok(MaxFileSize(Some(1_500_000))));
        assert_eq!(parse_size("512kB"), Ok(MaxFileSize(Some(512_000))));
        assert_eq!(parse_size("1MiB"), Ok(MaxFileSize(Some(1_048_576))));
        assert_eq!(parse_size("2000"), Ok(MaxFileSize(Some(2000))));
        assert_eq!(parse_size("none"), Ok(MaxFileSize(None)));
        assert_eq!(
            parse_size("10 parsecs"),
            Err("unknown unit `parsecs` (use B, kB, MB, GB, KiB, MiB, GiB or `none`)".to_string())
        );
        assert_eq!(
            parse_size("-1MB"),
            Err("`-1MB` is not a size (`10MB`, `512kB`, `none`)".to_string())
        );
        assert_eq!(parse_duration("10s"), Ok(FileTimeBudget(Some(Duration::from_secs(10)))));
        assert_eq!(
            parse_duration("250ms"),
            Ok(FileTimeBudget(Some(Duration::from_millis(250))))
        );
        assert_eq!(parse_duration("0"), Ok(FileTimeBudget(Some(Duration::ZERO))));
        assert_eq!(parse_duration("none"), Ok(FileTimeBudget(None)));
        assert!(parse_duration("soon").is_err());
    }
}
