//! The prediction of a global access, shown when the pointer rests on it: on its index
//! expression or anywhere in the access (`(*p.add(i)).x`, the span a finding underlines).

use crate::session::Editor;
use kernel_lint_analyzer::{AccessReport, BlockSource, KernelReport, MemorySpace, SourceFile};
use std::fmt::Write as _;
use std::path::Path;

/// The markdown of the global access whose index expression, or else whose whole expression,
/// holds byte `offset` of file `path`: the innermost one, under every launch its kernels are
/// analyzed with.
pub fn markdown(state: &Editor, path: &Path, offset: usize) -> Option<String> {
    let display = state.display(path);
    let holds = |span: kernel_lint_analyzer::Span| span.start <= offset && offset <= span.end;
    // The access may be in this file's kernel, or in a helper of this file that a kernel of
    // another file calls. Each is found by the narrower of its spans that holds the offset.
    let mut found: Vec<(&KernelReport, &AccessReport, &SourceFile, usize)> = Vec::new();
    for analysis in state.analyses.values() {
        for kernel in analysis.report.iter().flat_map(|r| &r.kernels) {
            for access in &kernel.accesses {
                let here = access.file.as_deref().unwrap_or(&analysis.source.path) == display;
                if !here || access.space != MemorySpace::Global || access.prediction.is_none() {
                    continue;
                }
                let held = [access.index_span, access.span].into_iter().find(|&s| holds(s));
                if let Some(span) = held {
                    found.push((kernel, access, &analysis.source, span.end - span.start));
                }
            }
        }
    }
    let narrowest = found.iter().map(|(.., width)| *width).min()?;
    found.retain(|(.., width)| *width == narrowest);
    let mut text = String::new();
    let mut shown = Vec::new();
    for (kernel, access, source, _) in found {
        let section = section(kernel, access, source);
        if !shown.contains(&section) {
            if !shown.is_empty() {
                text.push_str("\n---\n\n");
            }
            text.push_str(&section);
            shown.push(section);
        }
    }
    Some(text)
}

/// One kernel's launch of the access.
fn section(kernel: &KernelReport, access: &AccessReport, source: &SourceFile) -> String {
    let mut text = String::new();
    let Some(p) = &access.prediction else {
        return text;
    };
    let _ = writeln!(
        text,
        "**{}** {} of `{}[{}]` ({} bytes) in kernel `{}`\n",
        p.class.as_str(),
        access.op.as_str(),
        access.array,
        access.index,
        access.elem_bytes,
        kernel.name
    );
    match (p.sectors_per_request, p.ideal_sectors_per_request, p.efficiency) {
        (Some(sectors), ideal, efficiency) => {
            let _ = write!(
                text,
                "each request of a warp touches {} of 32 bytes",
                sectors_text(sectors)
            );
            if let Some(ideal) = ideal {
                let _ = write!(text, " (ideal {})", number(ideal));
            }
            if let Some(efficiency) = efficiency {
                let _ = write!(text, ", efficiency {} %", number(efficiency * 100.0));
            }
            if p.upper_bound {
                text.push_str(" (at most: some lanes are masked off)");
            }
            text.push_str("\n\n");
        }
        (None, ..) if !p.cases.is_empty() => {
            text.push_str("the sectors a request of a warp touches depend on a value not known statically:\n\n");
            for case in &p.cases {
                let _ = writeln!(
                    text,
                    "- `{}`: {}, {} of 32 bytes",
                    case.condition,
                    case.class.as_str(),
                    sectors_text(case.sectors_per_request)
                );
            }
            text.push('\n');
        }
        (None, ..) => text.push_str("the sectors a request of a warp touches are not known statically\n\n"),
    }
    let [x, y, z] = kernel.launch.block;
    let _ = writeln!(
        text,
        "launch assumed: block ({x}, {y}, {z}), {}",
        origin(kernel, source)
    );
    for note in kernel
        .launch_notes
        .iter()
        .chain(&kernel.instantiated)
        .chain(&p.assumptions)
    {
        let _ = write!(text, "\n- {note}");
    }
    text
}

/// Where the block size came from, with the host launch's location.
fn origin(kernel: &KernelReport, source: &SourceFile) -> String {
    match kernel.launch.block_source {
        BlockSource::Config => "from the configuration (kernel-lint.toml or Cargo.toml metadata)".into(),
        BlockSource::Hint => "from a `// kernel-lint: block(..)` comment".into(),
        BlockSource::Launch => match &kernel.launch_site {
            Some(site) => {
                // The site's line is counted in its own file's text, which the span carries.
                let line = site.span.line;
                let file = if site.file.is_empty() { &source.path } else { &site.file };
                format!("from the host launch at {file}:{line}")
            }
            None => "from a host launch".into(),
        },
        BlockSource::Attribute => "from the `#[spirv(compute(threads(..)))]` attribute".into(),
        BlockSource::Default => "the default (nothing says otherwise)".into(),
    }
}

/// A figure with at most one decimal, none when whole.
/// `1 sector`, `2.5 sectors`.
fn sectors_text(value: f64) -> String {
    let shown = number(value);
    let noun = if shown == "1" { "sector" } else { "sectors" };
    format!("{shown} {noun}")
}

fn number(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    if rounded.fract() == 0.0 {
        format!("{rounded:.0}")
    } else {
        format!("{rounded:.1}")
    }
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn figures_are_short() {
        assert_eq!(number(4.0), "4");
        assert_eq!(number(25.0), "25");
        assert_eq!(number(2.0 / 3.0 * 100.0), "66.7");
    }
}
