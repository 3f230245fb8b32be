//! The review as one self-contained HTML page: inline CSS, no scripts, no fonts or images from
//! elsewhere; each flagged access with a picture of one warp's request, before and after.

use super::diff::{before_after, sectors_text, Row, State};
use super::markdown::{diff_lines, gain, lines_of, rewrites, short, verdict};
use super::markup::escape;
use super::{svg, Report};
use kernel_lint_analyzer::{Prediction, WarpSample};

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:24px;color:#111827;max-width:1400px}\
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d1d5db;padding:4px 8px;text-align:left}\
th{background:#f3f4f6}code{font-family:monospace}.introduced{color:#b91c1c}.fixed{color:#15803d}\
figure{display:inline-block;margin:8px 16px 8px 0;vertical-align:top}figcaption{font-size:13px;color:#374151}\
pre{background:#f9fafb;border:1px solid #e5e7eb;padding:8px}";

/// The whole page.
pub fn render(report: &Report) -> String {
    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str(&format!(
        "<title>kernel-lint review against {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(&report.rev)
    ));
    out.push_str(&format!(
        "<h1>kernel-lint review against <code>{}</code> ({})</h1>\n<p class=\"summary\">{}</p>\n",
        escape(&report.rev),
        escape(short(&report.commit)),
        escape(&report.summary)
    ));
    let mut pictures = 0;
    for kernel in &report.kernels {
        out.push_str(&format!(
            "<h2><code>{}</code> in <code>{}</code>",
            escape(&kernel.name),
            escape(&kernel.file)
        ));
        if let Some(old) = &kernel.renamed_from {
            out.push_str(&format!(" (renamed from <code>{}</code>)", escape(old)));
        }
        if let Some(old) = &kernel.file_renamed_from {
            out.push_str(&format!(" (file renamed from <code>{}</code>)", escape(old)));
        }
        out.push_str("</h2>\n<table>\n<tr><th>Access</th><th>Line</th><th>Lint</th><th>Change</th><th>Verdict</th><th>Sectors per request</th><th>Efficiency</th></tr>\n");
        for row in &kernel.rows {
            out.push_str(&format!(
                "<tr><td><code>{}</code></td><td>{}</td><td>{} {}</td><td class=\"{state}\">{state}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                escape(&row.finding.shown),
                row.finding.line,
                row.finding.code,
                row.finding.name,
                verdict(row),
                escape(&sectors_text(row)),
                escape(&before_after(row)),
                state = row.state.as_str()
            ));
        }
        out.push_str("</table>\n");
        for row in &kernel.rows {
            out.push_str(&format!(
                "<h3><code>{}</code> (line {}, {})</h3>\n<p>{}</p>\n",
                escape(&row.finding.shown),
                row.finding.line,
                row.state.as_str(),
                escape(&row.finding.message)
            ));
            for (title, sample) in pictures_of(row) {
                pictures += 1;
                out.push_str(&format!(
                    "<figure>{}<figcaption>{} (warp {} of the first block, first iteration)</figcaption></figure>\n",
                    svg::warp(&sample, &format!("warp{pictures}")),
                    escape(&title),
                    sample.warp
                ));
            }
        }
        for (fix, old, rows) in rewrites(&kernel.rows) {
            out.push_str(&format!(
                "<details><summary>Suggested rewrite ({}): {}{}</summary>\n<pre>{}</pre>\n</details>\n",
                lines_of(&rows),
                escape(&fix.title),
                escape(&gain(fix)),
                escape(&diff_lines(fix, old))
            ));
        }
    }
    out.push_str("</body>\n</html>\n");
    out
}

fn sample(prediction: Option<&Prediction>) -> Option<WarpSample> {
    prediction?.warp_sample.clone()
}

/// The pictures of a row, each with its title: the request before the change and after it
/// for a fixed finding; the request now and after the first proven rewrite otherwise.
fn pictures_of(row: &Row) -> Vec<(String, WarpSample)> {
    let mut out = Vec::new();
    if row.state == State::Fixed {
        out.extend(sample(row.before.as_ref()).map(|s| ("Before (base)".to_string(), s)));
        out.extend(sample(row.after.as_ref()).map(|s| ("After (working tree)".to_string(), s)));
        return out;
    }
    out.extend(sample(row.after.as_ref()).map(|s| ("Now".to_string(), s)));
    let rewritten = row
        .finding
        .fixes
        .iter()
        .find_map(|(fix, _)| Some((fix.title.clone(), fix.gain.as_ref()?.warp_after.clone()?)));
    if let Some((title, s)) = rewritten {
        out.push((format!("After the suggested rewrite ({title})"), s));
    }
    out
}
