//! `accesses` output for people: per kernel a header line and an aligned table.

use crate::session::Outcome;
use kernel_lint_analyzer::MemorySpace;
use kernel_lint_analyzer::{AccessReport, BankPrediction, BlockSource, KernelReport, SourceFile};
use kernel_lint_lints::text::{case, element, figure, percent};

const HEADINGS: [&str; 10] = [
    "line:col", "op", "space", "access", "bytes", "class", "sectors", "ideal", "eff", "notes",
];
/// Columns holding numbers, aligned right.
const NUMERIC: [bool; 10] = [false, false, false, false, true, false, true, true, true, false];

/// Renders every kernel of every analyzed file.
pub fn accesses(outcome: &Outcome) -> String {
    let mut out = String::new();
    for file in outcome.analyzed() {
        for kernel in &file.report.kernels {
            if !out.is_empty() {
                out.push('\n');
            }
            kernel_table(&mut out, kernel, &file.source);
        }
        if !file.report.unanalyzed.is_empty() {
            if !out.is_empty() {
                out.push('\n');
            }
            let kernels: Vec<String> = file
                .report
                .unanalyzed
                .iter()
                .map(|k| format!("{}:{} ({})", k.name, k.span.line, k.dialect.name()))
                .collect();
            out.push_str(&format!("not analyzed  {}: {}\n", file.source.path, kernels.join(", ")));
        }
    }
    out
}

fn kernel_table(out: &mut String, kernel: &KernelReport, source: &SourceFile) {
    let [x, y, z] = kernel.launch.block;
    let origin = match kernel.launch.block_source {
        BlockSource::Config => "config",
        BlockSource::Hint => "hint",
        BlockSource::Launch => "launch",
        BlockSource::Attribute => "attribute",
        BlockSource::Default => "default",
    };
    let site = kernel
        .launch_site
        .as_ref()
        .map_or_else(String::new, |site| format!(" {}:{}", site.file, site.span.line));
    // Extents the launch sets at run time are values tried, not the launch's.
    let runtime = kernel
        .launch
        .runtime_extents()
        .map_or_else(String::new, |names| format!(" ({names} set at run time)"));
    out.push_str(&format!(
        "kernel {}  {}:{}  block ({x}, {y}, {z}) {origin}{site}{runtime}\n",
        kernel.name, source.path, kernel.span.line
    ));
    if kernel.accesses.is_empty() {
        out.push_str("  (no memory accesses)\n");
    } else {
        let rows: Vec<[String; 10]> = kernel.accesses.iter().map(row).collect();
        out.push_str(&aligned(&rows));
    }
    for item in &kernel.unsupported {
        out.push_str(&format!(
            "  note: {}:{}: {}\n",
            item.span.line, item.span.column, item.message
        ));
    }
    for why in &kernel.instantiated {
        out.push_str(&format!("  note: {why}\n"));
    }
}

fn row(access: &AccessReport) -> [String; 10] {
    let p = access.prediction.as_ref();
    let space = match access.space {
        MemorySpace::Global => "global",
        MemorySpace::Shared => "shared",
        MemorySpace::Constant => "constant",
    };
    let number = |v: Option<f64>| v.map_or_else(|| "-".to_string(), figure);
    let mut notes: Vec<String> = Vec::new();
    if let Some(p) = p {
        notes.extend(p.cases.iter().map(|c| case(p, c)));
        notes.extend(p.assumptions.iter().cloned());
    }
    let banks = access.banks.as_ref();
    if let Some(b) = banks {
        notes.extend(bank_notes(b));
    }
    [
        // An access in a helper of another file is located in that file.
        match &access.file {
            Some(file) => format!("{file}:{}:{}", access.span.line, access.span.column),
            None => format!("{}:{}", access.span.line, access.span.column),
        },
        access.op.as_str().to_string(),
        space.to_string(),
        element(access),
        access.elem_bytes.to_string(),
        p.map(|p| p.class.as_str())
            .or(banks.map(|b| b.class.as_str()))
            .unwrap_or("-")
            .to_string(),
        number(p.and_then(|p| p.sectors_per_request)),
        number(p.and_then(|p| p.ideal_sectors_per_request)),
        p.and_then(|p| p.efficiency)
            .or(banks.and_then(|b| b.efficiency()))
            .map_or_else(|| "-".to_string(), |e| format!("{}%", percent(e))),
        notes.join("; "),
    ]
}

/// A shared access's figures, which have no column of their own: wavefronts per request and
/// the ideal, the degree, the lanes that collide, the cases and assumptions.
fn bank_notes(b: &BankPrediction) -> Vec<String> {
    let mut notes = Vec::new();
    if let (Some(w), Some(ideal)) = (b.wavefronts_per_request, b.ideal_wavefronts_per_request) {
        let degree = b
            .degree
            .filter(|&d| d > 1)
            .map_or_else(String::new, |d| format!(", {d}-way"));
        notes.push(format!(
            "{} wavefronts per request (ideal {}){degree}",
            figure(w),
            figure(ideal)
        ));
    }
    notes.extend(
        b.cases
            .iter()
            .map(|c| format!("{} wavefronts when {}", figure(c.wavefronts_per_request), c.condition)),
    );
    if let Some(c) = b.collision {
        notes.push(format!(
            "lanes {} and {} both in bank {} at words {} and {}",
            c.lanes[0], c.lanes[1], c.bank, c.words[0], c.words[1]
        ));
    }
    notes.extend(b.assumptions.iter().cloned());
    notes
}

/// The heading and rows, indented, columns padded to their widest cell.
fn aligned(rows: &[[String; 10]]) -> String {
    let mut widths = HEADINGS.map(|h| h.chars().count());
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 10]| {
        let mut text = String::from(" ");
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(cell.chars().count());
            text.push(' ');
            if NUMERIC[i] {
                text.push_str(&" ".repeat(pad));
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.push_str(&" ".repeat(pad));
            }
            text.push(' ');
        }
        let mut text = text.trim_end().to_string();
        text.push('\n');
        text
    };
    let mut out = line(HEADINGS);
    for row in rows {
        out.push_str(&line(row.each_ref().map(String::as_str)));
    }
    out
}
