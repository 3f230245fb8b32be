//! Proving a rewrite before it is offered: apply it to a copy of the workspace, check that the
//! changed files parse, analyze again, and compare the kernel's accesses before and after.

use crate::draft::{Declined, Draft};
use crate::edits::{self, Splice};
use crate::workspace::Workspace;
use kernel_lint_analyzer::{AccessReport, FileReport, KernelReport, Op, SourceFile};
use kernel_lint_lints::{Diagnostic, Fix, Gain, GainUnit};
use std::collections::HashMap;

/// The rewrite chosen for a finding, or why none is offered.
pub type Proposal = Result<Fix, Declined>;

/// What was attached: per diagnostic index, the rewrite offered or the reason none was.
#[derive(Debug, Default)]
pub struct Attached {
    /// Diagnostics that got a proven fix.
    pub offered: usize,
    /// Diagnostics whose rewrite was declined, with the reason (also added as a note).
    pub declined: Vec<(usize, String)>,
}

/// Drafts, proves and attaches a rewrite to every finding of `report` that has a remedy.
/// A declined rewrite becomes a note on its finding, so the user learns why there is no code.
pub fn attach_fixes(ws: &Workspace<'_>, report: &FileReport, diagnostics: &mut [Diagnostic]) -> Attached {
    crate::parses::drafting_in(ws.id);
    let mut attached = Attached::default();
    // One proof per (kernel, array, rewrite): the findings on a struct's fields share it.
    let mut proven: HashMap<(String, String, &'static str), Proposal> = HashMap::new();
    for (index, diagnostic) in diagnostics.iter_mut().enumerate() {
        let Some((kernel, access)) = finding_access(report, diagnostic) else {
            continue;
        };
        let mut fixes = Vec::new();
        let mut reasons = Vec::new();
        for (kind, draft) in drafts_for(ws, &report.path, kernel, access, diagnostic) {
            // A bank rewrite's gain is its own access's: each finding is proven on its own.
            let array = match diagnostic.code {
                "KL009" => format!("{}@{}", access.array, access.span.start),
                _ => access.array.clone(),
            };
            let key = (kernel.name.clone(), array, kind);
            // A draft declined says why for its own finding; a proof is shared.
            let proposal = match draft {
                Err(declined) => Err(declined),
                Ok(d) => proven
                    .entry(key)
                    .or_insert_with(|| {
                        let at = (kernel, launch_index(report, kernel));
                        // A bank rewrite leaves the access where it was and is measured in
                        // wavefronts.
                        if diagnostic.code == "KL009" {
                            crate::banks::prove(ws, &report.path, at, access, &d)
                        } else {
                            prove(ws, report, at, access, &d)
                        }
                    })
                    .clone(),
            };
            match proposal {
                Ok(mut fix) => {
                    // The gain is the finding's own access, which the shared proof measured for
                    // the first finding only: its figure before is this finding's.
                    if let Some(gain) = &mut fix.gain {
                        if let Some(p) = access.prediction.as_ref() {
                            if let (Some(s), Some(e)) = (p.sectors_per_request, p.efficiency) {
                                gain.sectors_before = s;
                                gain.efficiency_before = e;
                                gain.dram_bytes_before = p.block_dram_bytes();
                            }
                        }
                    }
                    fixes.push(fix);
                }
                Err(Declined(reason)) => reasons.push(reason),
            }
        }
        if !fixes.is_empty() {
            // The rewrites come before the lint's own fixes, in the order the catalog prefers.
            diagnostic.fixes.splice(0..0, fixes);
            attached.offered += 1;
        } else {
            // A reason is said once: alternatives declined for the same cause do not repeat it.
            reasons.dedup();
            for reason in reasons {
                diagnostic.notes.push(format!("no rewrite is offered: {reason}"));
                attached.declined.push((index, reason));
            }
        }
    }
    attached
}

/// The access a finding is about: the kernel of its name whose access has its span, or else
/// whose index has it (a strided finding points at the index).
fn finding_access<'r>(report: &'r FileReport, d: &Diagnostic) -> Option<(&'r KernelReport, &'r AccessReport)> {
    let find = |at: fn(&AccessReport) -> kernel_lint_analyzer::Span| {
        report.kernels.iter().filter(|k| k.name == d.kernel).find_map(|k| {
            k.accesses
                .iter()
                .find(|a| at(a) == d.primary.span && a.file.as_deref().unwrap_or(&report.path) == d.file)
                .map(|a| (k, a))
        })
    };
    find(|a| a.span).or_else(|| find(|a| a.index_span))
}

/// The rewrites that answer a finding, by its lint, best first: empty when the lint has none.
/// Each is tried and proven on its own; a finding keeps every rewrite that is proven.
fn drafts_for(
    ws: &Workspace<'_>,
    path: &str,
    kernel: &KernelReport,
    access: &AccessReport,
    d: &Diagnostic,
) -> Vec<(&'static str, Result<Draft, Declined>)> {
    let mut drafts = Vec::new();
    match d.code {
        // A whole-element copy is answered by alignment (the lint's own fix), not by arrays.
        "KL002" if d.fixes.is_empty() => {
            drafts.push(("soa", crate::soa::draft(ws, path, kernel, access)));
            drafts.extend(crate::hot_cold::draft(ws, path, kernel, access).map(|d| ("hot-cold", d)));
            drafts.extend(crate::aligned::draft(ws, path, kernel, access).map(|d| ("aligned", d)));
        }
        // Outside loops the tile (or the swap) answers; inside loops, the loop rewrites.
        "KL004" => {
            drafts.extend(crate::tile::drafts(ws, path, kernel, access));
            drafts.extend(crate::interchange::drafts(ws, path, kernel, access));
        }
        // A lane's run of elements is widened; a loop over a lane's row is the loop rewrites'.
        // When the run cannot be widened inside such a loop, the loop's reason is the one said.
        "KL001" => {
            let wide = crate::widen::drafts(ws, path, kernel, access);
            let looped = crate::interchange::drafts(ws, path, kernel, access);
            if looped.is_empty() || wide.iter().any(|(_, d)| d.is_ok()) {
                drafts.extend(wide);
            }
            drafts.extend(looped);
        }
        "KL003" => drafts.extend(crate::align::drafts(ws, path, kernel, access)),
        "KL009" => drafts.extend(crate::banks::drafts(ws, path, kernel, access)),
        _ => {}
    }
    drafts
}

/// Applies a draft to a copy of the workspace and analyzes it again: a fix with the gain of
/// the rewritten access, or why the rewrite is not offered.
pub fn prove(
    ws: &Workspace<'_>,
    report: &FileReport,
    (kernel, nth): (&KernelReport, usize),
    access: &AccessReport,
    draft: &Draft,
) -> Result<Fix, Declined> {
    let path = report.path.as_str();
    let mut by_file: HashMap<String, Vec<Splice>> = HashMap::new();
    for (file, splice) in &draft.splices {
        by_file.entry(file.clone()).or_default().push(splice.clone());
    }
    let mut changed = HashMap::new();
    for (file, splices) in &mut by_file {
        splices.sort_by_key(|s| (s.range.start, s.range.end));
        let text = ws
            .text(file)
            .ok_or_else(|| Declined::new(format!("the text of `{file}` was not read")))?;
        let new = edits::apply(text, splices).ok_or_else(|| Declined::new("the rewrite's edits overlap"))?;
        changed.insert(file.clone(), new);
    }
    let changed = ws.proof_copy(changed, &by_file, report, &kernel.name);
    let (target_file, target_splice) = &draft.splices[draft.target];
    let new_kernel = ws.reanalyzed_kernel(&changed, path, &kernel.name, nth)?;
    let splices = &by_file[target_file];
    let index = splices
        .iter()
        .position(|s| s == target_splice)
        .expect("the target is one of the splices");
    let region = edits::new_range(index, splices);
    let rewritten = new_kernel
        .accesses
        .iter()
        .find(|a| {
            a.op == access.op
                && a.space == access.space
                && a.file.as_deref().unwrap_or(path) == target_file
                && region.contains(&a.span.start)
        })
        .ok_or_else(|| Declined::new("the analysis finds no access where the rewritten one should be"))?;
    let before = figures(access).ok_or_else(|| {
        // A figure per value of something the launch leaves open: one number is needed to
        // prove a gain.
        let depends = access
            .prediction
            .as_ref()
            .and_then(|p| p.assumptions.iter().find(|a| a.starts_with("the figure depends on")));
        match depends {
            Some(why) => Declined::new(format!("the access has a figure per case, not one to improve: {why}")),
            None => Declined::new("the access has no figure to improve"),
        }
    })?;
    let after = figures(rewritten).ok_or_else(|| {
        Declined::new(format!(
            "the rewritten access `{}` gets no figure from the analysis",
            rewritten_text(&changed, target_file, rewritten)
        ))
    })?;
    let (old_region, new_region) = no_access_worse(kernel, &new_kernel, &by_file, path)?;
    // Fewer sectors per request; or, for a run of accesses folded into one wide access (which
    // may touch as many sectors per request, or more), fewer sectors in all its requests; or as
    // many per request in a region that touches fewer in all (one whole copy per element).
    let requests = folded_requests(kernel, &new_kernel, &by_file, path, access.op);
    let fewer_together = requests.is_some_and(|(old, new)| after.0 * f64::from(new) < before.0 * f64::from(old));
    let fewer_in_region = after.0 == before.0 && new_region < old_region;
    if after.0 >= before.0 && !fewer_together && !fewer_in_region {
        return Err(Declined::new(match requests {
            Some((old, new)) => format!(
                "after the rewrite {new} request(s) of {} sectors replace {old} of {}: no fewer sectors in all",
                after.0, before.0
            ),
            None => format!(
                "after the rewrite the access still touches {} sectors per request",
                after.0
            ),
        }));
    }
    let texts: HashMap<&str, SourceFile> = by_file
        .keys()
        .filter_map(|f| Some((f.as_str(), SourceFile::new(f.clone(), ws.text(f)?.to_string()))))
        .collect();
    let edits = draft
        .splices
        .iter()
        .filter_map(|(file, splice)| Some(edits::edit(texts.get(file.as_str())?, splice)))
        .collect();
    Ok(Fix {
        title: draft.title.clone(),
        applicability: draft.applicability,
        edits,
        gain: Some(Gain {
            unit: GainUnit::Sectors,
            sectors_before: before.0,
            sectors_after: after.0,
            efficiency_before: before.1,
            efficiency_after: after.1,
            dram_bytes_before: dram_bytes(access),
            dram_bytes_after: dram_bytes(rewritten),
            requests,
            warp_before: warp_sample(access),
            warp_after: warp_sample(rewritten),
        }),
        follow_up: draft.follow_up.clone(),
    })
}

/// Which report of its name a kernel report is, counted in its file: launches of one kernel
/// are reported in order, and the rewritten file reports them in the same order.
fn launch_index(report: &FileReport, kernel: &KernelReport) -> usize {
    report
        .kernels
        .iter()
        .filter(|k| k.name == kernel.name)
        .position(|k| std::ptr::eq(k, kernel))
        .unwrap_or(0)
}

fn warp_sample(access: &AccessReport) -> Option<kernel_lint_analyzer::WarpSample> {
    access.prediction.as_ref()?.warp_sample.clone()
}

fn figures(access: &AccessReport) -> Option<(f64, f64)> {
    let p = access.prediction.as_ref()?;
    Some((p.sectors_per_request?, p.efficiency?))
}

/// The most sectors per request of an access whose figure depends on a value.
fn worst_case(access: &AccessReport) -> Option<f64> {
    let p = access.prediction.as_ref()?;
    p.cases.iter().map(|c| c.sectors_per_request).reduce(f64::max)
}

/// What one block moves from DRAM for the access, estimated from its footprint.
fn dram_bytes(access: &AccessReport) -> Option<u64> {
    access.prediction.as_ref()?.block_dram_bytes()
}

fn rewritten_text(changed: &HashMap<String, String>, file: &str, access: &AccessReport) -> String {
    changed
        .get(file)
        .and_then(|t| t.get(access.span.start..access.span.end))
        .unwrap_or("")
        .to_string()
}

/// The requests of the finding's kind (loads or stores) the rewritten code makes before and
/// after, when the rewrite makes fewer of them.
fn folded_requests(
    old: &KernelReport,
    new: &KernelReport,
    by_file: &HashMap<String, Vec<Splice>>,
    path: &str,
    op: Op,
) -> Option<(u32, u32)> {
    let empty = Vec::new();
    let splices_of = |a: &AccessReport| by_file.get(a.file.as_deref().unwrap_or(path)).unwrap_or(&empty);
    let before = old
        .accesses
        .iter()
        .filter(|a| a.op == op && edits::map_offset(a.span.start, splices_of(a)).is_err())
        .count();
    let after = new
        .accesses
        .iter()
        .filter(|b| {
            let splices = splices_of(b);
            b.op == op && (0..splices.len()).any(|i| edits::new_range(i, splices).contains(&b.span.start))
        })
        .count();
    (after < before).then_some((before as u32, after as u32))
}

/// Every access of the kernel outside the rewritten code keeps its figure or improves; the
/// rewritten regions together touch no more sectors than before. The sectors per request of
/// the regions' accesses, summed, before and after.
fn no_access_worse(
    old: &KernelReport,
    new: &KernelReport,
    by_file: &HashMap<String, Vec<Splice>>,
    path: &str,
) -> Result<(f64, f64), Declined> {
    let empty = Vec::new();
    let mut old_region = 0.0;
    let mut new_region = 0.0;
    for a in &old.accesses {
        let file = a.file.as_deref().unwrap_or(path);
        let splices = by_file.get(file).unwrap_or(&empty);
        let Some((sectors, _)) = figures(a) else { continue };
        match edits::map_offset(a.span.start, splices) {
            Ok(moved) => {
                let counterpart = new
                    .accesses
                    .iter()
                    .find(|b| b.op == a.op && b.file.as_deref().unwrap_or(path) == file && b.span.start == moved);
                if let Some(after) = counterpart.and_then(figures) {
                    if after.0 > sectors + 1e-9 {
                        return Err(Declined::new(format!(
                            "the rewrite makes `{}` worse ({sectors} -> {} sectors per request)",
                            a.array, after.0
                        )));
                    }
                } else if let Some(worst) = counterpart.and_then(worst_case) {
                    // A figure that now depends on a value is judged by its worst case.
                    if worst > sectors + 1e-9 {
                        return Err(Declined::new(format!(
                            "the rewrite makes `{}` depend on a value not known statically ({sectors} -> up to {worst} sectors per request)",
                            a.array
                        )));
                    }
                } else if counterpart.is_some() {
                    return Err(Declined::new(format!(
                        "the rewrite leaves the figure of `{}` unknown",
                        a.array
                    )));
                }
            }
            Err(_) => old_region += sectors,
        }
    }
    for b in &new.accesses {
        let file = b.file.as_deref().unwrap_or(path);
        let splices = by_file.get(file).unwrap_or(&empty);
        let inside = (0..splices.len()).any(|i| edits::new_range(i, splices).contains(&b.span.start));
        if inside {
            new_region += figures(b).map(|f| f.0).or_else(|| worst_case(b)).unwrap_or(0.0);
        }
    }
    if new_region > old_region + 1e-9 {
        return Err(Declined::new(format!(
            "the rewritten accesses together touch more sectors than before ({old_region} -> {new_region} per request)"
        )));
    }
    Ok((old_region, new_region))
}
