//! The review as Markdown, for a pull-request comment.

use super::diff::{before_after, sectors_text, Row, State};
use super::Report;
use kernel_lint_lints::Fix;

/// The longest comment written, in characters: GitHub refuses a comment over 65,536.
const MAX_COMMENT: usize = 60_000;

/// The whole comment: the kernels with a change, each with the findings that changed (the
/// unchanged ones counted, not listed), within [`MAX_COMMENT`] characters.
pub fn render(report: &Report) -> String {
    let mut out = format!(
        "## kernel-lint review against `{}` ({})\n\n{}\n",
        code(&report.rev),
        short(&report.commit),
        report.summary
    );
    let mut quiet_kernels = 0;
    let mut quiet_findings = 0;
    let mut left_out = 0;
    for kernel in &report.kernels {
        let changed: Vec<&Row> = kernel.rows.iter().filter(|r| r.state != State::Unchanged).collect();
        let unchanged = kernel.rows.len() - changed.len();
        let renamed = kernel.renamed_from.is_some() || kernel.file_renamed_from.is_some();
        if changed.is_empty() && !renamed {
            quiet_kernels += 1;
            quiet_findings += unchanged;
            continue;
        }
        let section = section(kernel, &changed, unchanged);
        // Room is kept for the closing lines.
        if left_out > 0 || out.len() + section.len() > MAX_COMMENT - 1_000 {
            left_out += 1;
            continue;
        }
        out.push_str(&section);
    }
    if quiet_findings > 0 {
        out.push_str(&format!(
            "\n{} in {} with no change {} not listed.\n",
            count(quiet_findings, "unchanged finding", "unchanged findings"),
            count(quiet_kernels, "kernel", "kernels"),
            if quiet_findings == 1 { "is" } else { "are" }
        ));
    }
    if left_out > 0 {
        out.push_str(&format!(
            "\n{} with changes {} not listed: the comment is kept under {MAX_COMMENT} characters \
             (`review --format html` shows every kernel).\n",
            count(left_out, "more kernel", "more kernels"),
            if left_out == 1 { "is" } else { "are" }
        ));
    }
    out
}

/// One kernel: its heading, the table of its changed findings and the rewrites suggested.
fn section(kernel: &super::diff::KernelReview, changed: &[&Row], unchanged: usize) -> String {
    let mut out = format!("\n### `{}` in `{}`", code(&kernel.name), code(&kernel.file));
    if let Some(old) = &kernel.renamed_from {
        out.push_str(&format!(" (renamed from `{}`)", code(old)));
    }
    if let Some(old) = &kernel.file_renamed_from {
        out.push_str(&format!(" (file renamed from `{}`)", code(old)));
    }
    out.push('\n');
    if !changed.is_empty() {
        out.push_str("\n| Access | Line | Lint | Change | Verdict | Sectors per request | Efficiency |\n");
        out.push_str("|---|---|---|---|---|---|---|\n");
    }
    for row in changed {
        out.push_str(&format!(
            "| `{}` | {} | {} {} | {} | {} | {} | {} |\n",
            cell(&row.finding.shown),
            row.finding.line,
            row.finding.code,
            row.finding.name,
            row.state.as_str(),
            verdict(row),
            sectors_text(row),
            before_after(row)
        ));
    }
    if unchanged > 0 {
        out.push_str(&format!(
            "\n{} not listed.\n",
            count(unchanged, "unchanged finding", "unchanged findings")
        ));
    }
    for (fix, old, rows) in rewrites(&kernel.rows) {
        out.push_str(&format!(
            "\n<details><summary>Suggested rewrite ({}): {}{}</summary>\n\n```diff\n",
            lines_of(&rows),
            super::markup::escape(&fix.title),
            super::markup::escape(&gain(fix))
        ));
        out.push_str(&diff_lines(fix, old));
        out.push_str("```\n\n</details>\n");
    }
    out
}

/// `1 kernel`, `3 kernels`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The rewrites suggested for the introduced and changed findings of a kernel, each once with
/// the rows it addresses: the same rewrite fixes every access to one struct.
pub fn rewrites(rows: &[Row]) -> Vec<(&Fix, &[String], Vec<&Row>)> {
    let mut out: Vec<(&Fix, &[String], Vec<&Row>)> = Vec::new();
    for row in rows
        .iter()
        .filter(|r| matches!(r.state, State::Introduced | State::Changed))
    {
        for (fix, old) in &row.finding.fixes {
            match out
                .iter_mut()
                .find(|(f, _, _)| f.title == fix.title && f.edits == fix.edits)
            {
                Some((_, _, rows)) => rows.push(row),
                None => out.push((fix, old, vec![row])),
            }
        }
    }
    out
}

/// A rewrite's edits as `-` and `+` lines, each file named when there are several.
pub fn diff_lines(fix: &Fix, old: &[String]) -> String {
    let mut out = String::new();
    let several = fix.edits.iter().any(|e| e.file != fix.edits[0].file);
    let mut file: Option<&str> = None;
    for (edit, old) in fix.edits.iter().zip(old) {
        if several && file != Some(edit.file.as_str()) {
            out.push_str(&format!("@@ {} @@\n", edit.file));
            file = Some(&edit.file);
        }
        for line in old.lines() {
            out.push_str(&format!("- {}\n", line.trim_end()));
        }
        for line in edit.replacement.lines() {
            out.push_str(&format!("+ {}\n", line.trim_end()));
        }
    }
    out
}

/// "line 4" or "lines 4, 9".
pub fn lines_of(rows: &[&Row]) -> String {
    let lines: Vec<String> = rows.iter().map(|r| r.finding.line.to_string()).collect();
    let noun = if lines.len() == 1 { "line" } else { "lines" };
    format!("{noun} {}", lines.join(", "))
}

/// The verdict class of the row's side.
pub fn verdict(row: &Row) -> &'static str {
    let prediction = match row.state {
        State::Fixed => row.before.as_ref(),
        _ => row.after.as_ref(),
    };
    match (&row.banks, prediction) {
        (Some(b), _) => b.class.as_str(),
        (None, p) => p.map_or("unknown", |p| p.class.as_str()),
    }
}

/// " (8 -> 2 sectors per request, 25 % -> 100 %)" for a fix proven by re-analysis.
pub fn gain(fix: &kernel_lint_lints::Fix) -> String {
    use super::diff::{figure, percent};
    fix.gain.as_ref().map_or_else(String::new, |g| {
        format!(
            " ({} -> {} {} per request, {} -> {})",
            figure(g.sectors_before),
            figure(g.sectors_after),
            g.unit.as_str(),
            percent(g.efficiency_before),
            percent(g.efficiency_after)
        )
    })
}

/// The first 12 digits of a commit.
pub fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// Text inside an inline code span of a table cell: pipes would end the cell.
fn cell(text: &str) -> String {
    code(text).replace('|', "\\|")
}

/// Text inside an inline code span: a backtick would end it.
fn code(text: &str) -> String {
    text.replace('`', "'")
}
