//! Reuse of the reports of a file's unchanged kernels when its buffer changes: only the kernels
//! whose item changed, and those whose analysis may reach one of them, are analyzed again.
//! Everything a kept report depends on must be proven unchanged: the rest of the program (no
//! other file replaced since), the file's text outside its kernels' items, the kernel's own
//! item and module, the launches it is analyzed under, and the functions its analysis may
//! reach. Kept reports are moved to where their kernel now is.

use kernel_lint_analyzer::FunctionKey;
use kernel_lint_analyzer::Kernel;
use kernel_lint_analyzer::{FileReport, KernelReport, LaunchPlan, Program, SourceFile, Span};
use std::collections::BTreeSet;
use std::ops::Range;

/// A kernel's reports from the last analysis of its file, with what they depend on.
pub struct KeptKernel {
    name: String,
    /// The inline modules it is written in.
    module: Vec<String>,
    /// Its attributes as written: a `#[cfg]` decides whether the item index holds it.
    attrs: String,
    /// The bytes of its item, attributes included, in the text analyzed.
    item: Range<usize>,
    /// Its reports (one per launch it was analyzed under), by index into the file's report.
    reports: Range<usize>,
    /// The functions its analysis may reach; `None` when not known.
    reaches: Option<BTreeSet<FunctionKey>>,
}

/// The kernels of a file's last analysis.
pub struct KeptKernels {
    /// How many files the kept program had replaced when the analysis was made: a report is
    /// reused only while no other file has changed since.
    pub edits: u64,
    kernels: Vec<KeptKernel>,
}

impl KeptKernels {
    /// The kernels of a whole report of file `file`, in source order; `None` when the report
    /// cannot be told apart by kernel.
    pub fn of(
        program: &Program,
        file: usize,
        plan: &LaunchPlan,
        report: &FileReport,
        edits: u64,
    ) -> Option<KeptKernels> {
        let source = program.files().get(file)?;
        let kernels = program.kernels(file, plan).0;
        let items = item_ranges(source, &kernels)?;
        let mut at = 0;
        let mut kept = Vec::with_capacity(kernels.len());
        for (kernel, item) in kernels.iter().zip(items) {
            let start = at;
            while report.kernels.get(at).is_some_and(|r| r.item.start == item.start) {
                at += 1;
            }
            kept.push(KeptKernel::fresh(program, file, source, kernel, item, start..at));
        }
        if at != report.kernels.len() {
            return None;
        }
        Some(KeptKernels { edits, kernels: kept })
    }

    /// How many kernels the file had.
    pub fn len(&self) -> usize {
        self.kernels.len()
    }
}

impl KeptKernel {
    /// A kernel just analyzed, whose reports are `reports` of its file's report.
    fn fresh(
        program: &Program,
        file: usize,
        source: &SourceFile,
        kernel: &Kernel,
        item: Range<usize>,
        reports: Range<usize>,
    ) -> KeptKernel {
        KeptKernel {
            name: kernel.name.clone(),
            module: kernel.inline_module.clone(),
            attrs: attrs_text(source, kernel),
            item,
            reports,
            reaches: program.reachable_from(file, kernel),
        }
    }
}

/// A file's report made of kept and fresh kernel reports.
pub struct Reanalysis {
    /// The report, as a whole analysis of the file would make it.
    pub report: FileReport,
    /// Its kernels, for the next change.
    pub kept: KeptKernels,
    /// How many of the file's kernels were analyzed again.
    pub analyzed: usize,
}

/// The report of file `file` after its text changed from `old`, analyzing again only what the
/// change may have touched; `None` when that cannot be proven, and the whole file must be
/// analyzed. `module` is the file's module path; `old_report` and `kept` are the last
/// analysis of the file, made while the program held the same other files.
pub fn reanalyze(
    program: &Program,
    file: usize,
    plan: &LaunchPlan,
    module: &[String],
    old: &SourceFile,
    old_report: FileReport,
    kept: KeptKernels,
) -> Option<Reanalysis> {
    let source = program.files().get(file)?;
    program.syntax(file).ok()?;
    let kernels = program.kernels(file, plan).0;
    let items = item_ranges(source, &kernels)?;
    let old_items: Vec<Range<usize>> = kept.kernels.iter().map(|k| k.item.clone()).collect();
    if !in_order(&old_items) {
        return None;
    }
    let before = Outside::of(&old.text, &old_items);
    let after = Outside::of(&source.text, &items);
    // Blanks at the end of the file change nothing but the line count.
    if before.text.trim_end() != after.text.trim_end() {
        return None;
    }

    // Each kernel paired with the kept one it is unchanged from: the same item text in the
    // same module. Kernels keep their order, so the unchanged ones are those at both ends,
    // and those in between pair by position when no kernel was added or removed.
    let (n, m) = (kept.kernels.len(), kernels.len());
    let same = |i: usize, j: usize| {
        kernels[i].inline_module == kept.kernels[j].module
            && source.text[items[i].clone()] == old.text[old_items[j].clone()]
    };
    let mut prefix = 0;
    while prefix < n.min(m) && same(prefix, prefix) {
        prefix += 1;
    }
    let mut suffix = 0;
    while suffix < n.min(m) - prefix && same(m - 1 - suffix, n - 1 - suffix) {
        suffix += 1;
    }
    let mut pairs: Vec<Option<usize>> = (0..m)
        .map(|i| (i < prefix).then_some(i).or((i >= m - suffix).then(|| i + n - m)))
        .collect();
    // Names that enter or leave the item index (a kernel added, removed, renamed, moved to
    // another module or under another `#[cfg]`).
    let mut renamed: BTreeSet<&str> = BTreeSet::new();
    if m == n {
        for i in prefix..m - suffix {
            let old_kernel = &kept.kernels[i];
            if same(i, i) {
                pairs[i] = Some(i);
            } else if kernels[i].name != old_kernel.name
                || kernels[i].inline_module != old_kernel.module
                || attrs_text(source, &kernels[i]) != old_kernel.attrs
            {
                renamed.insert(&kernels[i].name);
                renamed.insert(&old_kernel.name);
            }
        }
    } else {
        renamed.extend(kernels[prefix..m - suffix].iter().map(|k| k.name.as_str()));
        renamed.extend(kept.kernels[prefix..n - suffix].iter().map(|k| k.name.as_str()));
    }
    let paired: BTreeSet<usize> = pairs.iter().flatten().copied().collect();
    let changed: Vec<Range<usize>> = (0..m)
        .filter(|&i| pairs[i].is_none())
        .map(|i| items[i].clone())
        .collect();
    // Such a name changes what code resolves only where code writes it: it must be written
    // nowhere but in the changed kernels (comments and strings count).
    for name in &renamed {
        let elsewhere = program
            .files()
            .iter()
            .enumerate()
            .any(|(i, f)| i != file && written(&f.text, name, &[]));
        if elsewhere || written(&source.text, name, &changed) {
            return None;
        }
    }

    let key = |inline: &[String], name: &str| -> FunctionKey {
        let mut path = module.to_vec();
        path.extend(inline.iter().cloned());
        (path, None, name.to_string())
    };
    let mut changed_keys: BTreeSet<FunctionKey> = (0..n)
        .filter(|j| !paired.contains(j))
        .map(|j| key(&kept.kernels[j].module, &kept.kernels[j].name))
        .collect();
    changed_keys.extend(
        (0..m)
            .filter(|&i| pairs[i].is_none())
            .map(|i| key(&kernels[i].inline_module, &kernels[i].name)),
    );
    let mut names: BTreeSet<String> = (0..m)
        .filter(|&i| pairs[i].is_none())
        .map(|i| kernels[i].name.clone())
        .collect();
    names.extend(
        (0..n)
            .filter(|j| !paired.contains(j))
            .map(|j| kept.kernels[j].name.clone()),
    );

    let map = Mover {
        before: &before,
        after: &after,
        kernels: (0..m)
            .filter_map(|i| pairs[i].map(|j| (old_items[j].clone(), items[i].start)))
            .collect(),
        source,
    };
    let mut old_reports: Vec<Option<KernelReport>> = old_report.kernels.into_iter().map(Some).collect();
    let mut moved: Vec<Option<Vec<KernelReport>>> = Vec::with_capacity(m);
    for (i, kernel) in kernels.iter().enumerate() {
        let reports = pairs[i]
            .map(|j| &kept.kernels[j])
            .filter(|k| k.reaches.as_ref().is_some_and(|r| r.is_disjoint(&changed_keys)))
            .and_then(|k| {
                old_reports
                    .get_mut(k.reports.clone())?
                    .iter_mut()
                    .map(Option::take)
                    .collect()
            })
            .and_then(|reports| map.reports(program, file, plan, kernel, reports));
        if reports.is_none() {
            names.insert(kernel.name.clone());
        }
        moved.push(reports);
    }

    let fresh = program.report_of_names(file, plan, &names).ok()?;
    let mut fresh_kernels = fresh.kernels.into_iter().peekable();
    let mut report_kernels = Vec::with_capacity(old_reports.len());
    let edits = kept.edits;
    let mut old_kernels: Vec<Option<KeptKernel>> = kept.kernels.into_iter().map(Some).collect();
    let mut kept_kernels = Vec::with_capacity(m);
    let mut analyzed = 0;
    for (i, kernel) in kernels.iter().enumerate() {
        let start = report_kernels.len();
        if names.contains(&kernel.name) {
            analyzed += 1;
            while let Some(r) = fresh_kernels.next_if(|r| r.item.start == items[i].start) {
                report_kernels.push(r);
            }
            let reports = start..report_kernels.len();
            kept_kernels.push(KeptKernel::fresh(
                program,
                file,
                source,
                kernel,
                items[i].clone(),
                reports,
            ));
        } else {
            report_kernels.extend(moved[i].take()?);
            let mut reused = old_kernels.get_mut(pairs[i]?)?.take()?;
            reused.item = items[i].clone();
            reused.reports = start..report_kernels.len();
            kept_kernels.push(reused);
        }
    }
    if fresh_kernels.next().is_some() {
        return None;
    }
    Some(Reanalysis {
        report: FileReport {
            path: fresh.path,
            kernels: report_kernels,
            unsupported: fresh.unsupported,
            unanalyzed: fresh.unanalyzed,
            errors: fresh.errors,
        },
        kept: KeptKernels {
            edits,
            kernels: kept_kernels,
        },
        analyzed,
    })
}

/// The bytes of each kernel's item, attributes included, as its reports give them; `None`
/// unless they follow one another without overlapping (a kernel nested in another).
fn item_ranges(source: &SourceFile, kernels: &[Kernel]) -> Option<Vec<Range<usize>>> {
    let items: Vec<Range<usize>> = kernels
        .iter()
        .map(|k| {
            let span = k.item_span(source);
            span.start..span.end
        })
        .collect();
    in_order(&items).then_some(items)
}

fn in_order(items: &[Range<usize>]) -> bool {
    items.windows(2).all(|w| w[0].end <= w[1].start) && items.iter().all(|r| r.start < r.end)
}

/// A kernel's attributes as written in `source`.
fn attrs_text(source: &SourceFile, kernel: &Kernel) -> String {
    kernel
        .item
        .attrs
        .iter()
        .map(|a| source.snippet(source.span_of_node(a)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether `word` is written in `text` as a whole word outside the `except` ranges.
fn written(text: &str, word: &str, except: &[Range<usize>]) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word) && !except.iter().any(|r| r.contains(&at))
    })
}

/// A text outside its kernels' items: each item cut out with the blanks that follow it (an
/// added or removed kernel takes its blank lines along). What the blanks decide (whether a
/// `kernel-lint:` comment stands directly above an item) is checked where it matters: a
/// kernel's launches are compared, and suppressions are applied anew.
struct Outside {
    text: String,
    /// The pieces kept: where each starts in the file, its length, where it starts in `text`.
    pieces: Vec<(usize, usize, usize)>,
}

impl Outside {
    fn of(text: &str, items: &[Range<usize>]) -> Outside {
        let mut out = Outside {
            text: String::with_capacity(text.len()),
            pieces: Vec::with_capacity(items.len() + 1),
        };
        let mut at = 0;
        for item in items {
            out.keep(text, at..item.start.max(at));
            let rest = &text[item.end..];
            at = item.end + rest.len() - rest.trim_start().len();
        }
        out.keep(text, at..text.len().max(at));
        out
    }

    fn keep(&mut self, text: &str, range: Range<usize>) {
        self.pieces.push((range.start, range.len(), self.text.len()));
        self.text.push_str(&text[range]);
    }
}

/// Moves the spans of kept reports from the old text to the new one.
struct Mover<'a> {
    before: &'a Outside,
    after: &'a Outside,
    /// Each kept kernel's old item and where it now starts.
    kernels: Vec<(Range<usize>, usize)>,
    source: &'a SourceFile,
}

impl Mover<'_> {
    /// A kept kernel's reports, moved, with the launch sites and notes read now; `None` when
    /// its launches differ from those it was analyzed under or a span cannot be placed.
    fn reports(
        &self,
        program: &Program,
        file: usize,
        plan: &LaunchPlan,
        kernel: &Kernel,
        reports: Vec<KernelReport>,
    ) -> Option<Vec<KernelReport>> {
        let launches = program.launches_of(file, kernel, plan);
        if launches.len() != reports.len() || launches.iter().zip(&reports).any(|(l, r)| l.launch != r.launch) {
            return None;
        }
        launches
            .into_iter()
            .zip(reports)
            .map(|(launch, report)| {
                let mut report = self.report(report)?;
                report.launch_site = launch.site;
                report.launch_notes = launch.notes;
                Some(report)
            })
            .collect()
    }

    /// The spans of one report in this file moved (those in other files stay).
    fn report(&self, mut report: KernelReport) -> Option<KernelReport> {
        let path = self.source.path.as_str();
        report.span = self.span(report.span)?;
        report.item = self.span(report.item)?;
        for access in &mut report.accesses {
            if access.file.is_none() {
                access.span = self.span(access.span)?;
                access.index_span = self.span(access.index_span)?;
            }
            for call in access.via.iter_mut().filter(|c| c.file == path) {
                call.span = self.span(call.span)?;
            }
        }
        for unsupported in report.unsupported.iter_mut().filter(|u| u.file.is_none()) {
            unsupported.span = self.span(unsupported.span)?;
        }
        Some(report)
    }

    /// Where an old span is now: in a kept kernel's item, moved with the item; outside the
    /// kernels, at the same place of the text outside them. Its line and column are read
    /// from the new text.
    fn span(&self, span: Span) -> Option<Span> {
        let start = match self
            .kernels
            .iter()
            .find(|(old, _)| old.start <= span.start && span.end <= old.end)
        {
            Some((old, now)) => now + (span.start - old.start),
            None => {
                let &(at, _, cut) = self
                    .before
                    .pieces
                    .iter()
                    .find(|&&(at, len, _)| at <= span.start && span.end <= at + len)?;
                let (from, to) = (cut + span.start - at, cut + span.end - at);
                let &(at, _, cut) = self
                    .after
                    .pieces
                    .iter()
                    .find(|&&(_, len, cut)| cut <= from && to <= cut + len)?;
                at + from - cut
            }
        };
        let (line, column) = self.source.line_column(start);
        Some(Span {
            start,
            end: start + (span.end - span.start),
            line,
            column,
        })
    }
}
