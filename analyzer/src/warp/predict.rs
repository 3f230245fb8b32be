//! Predicting one access: every assignment of the unknowns evaluated over the warps of the
//! block, then the headline figure, the cases and the verdict.

use super::classify::{classify, is_transposed, row_length};
use super::footprint::{block_footprint, Footprint};
use super::lanes::WARP_SIZE;
use super::lanes::{warps, Warp};
use super::outcome::{known_value, LaneAddresses, Outcome, Setup};
use super::sectors::SECTOR_BYTES;
use super::unknowns::{combinations, unknowns_of, Role};
use super::verdict::{round2, round4, AccessClass, Case, Prediction, WarpSample};
use crate::algebra::{Atom, Poly, OVERFLOWS, READ_FROM_MEMORY};
use crate::interpret::{Access, UNKNOWN_LAYOUT};
use crate::model::launch::{BlockSource, ResolvedLaunch};
use std::collections::BTreeMap;

/// The outcome for one assignment of the unknowns: aligned, and at the worst misalignment that
/// fixed unknown offsets allow (with the condition that avoids it).
struct ComboResult {
    combo: BTreeMap<Atom, i64>,
    aligned: Outcome,
    misaligned: Option<(Outcome, String)>,
    /// The verdict under this assignment, at its worst alignment.
    class: AccessClass,
}

/// One assignment of the unknowns evaluated over the warps: the lanes, the outcome aligned,
/// the worst misalignment the fixed offsets allow when it costs more, and the verdict there.
struct Evaluated<'a> {
    setup: Setup<'a>,
    lanes: LaneAddresses,
    aligned: Outcome,
    worst_shift: Option<(i64, Outcome)>,
    class: AccessClass,
}

impl<'a> Evaluated<'a> {
    /// `None` when no lane runs the access, or an address cannot be evaluated.
    fn new(
        address: &Poly,
        combo: &BTreeMap<Atom, i64>,
        access: &'a Access,
        launch: &'a ResolvedLaunch,
        warps: &'a [Warp],
    ) -> Option<Evaluated<'a>> {
        let assigned = address.substitute(&|a| combo.get(a).copied());
        let setup = Setup::new(&assigned, access, launch, warps);
        let lanes = setup.lane_addresses()?;
        let aligned = setup.outcome(&lanes, 0)?;
        let worst_shift = setup
            .shifts
            .iter()
            .filter_map(|&s| setup.outcome(&lanes, s).map(|m| (s, m)))
            .max_by(|a, b| a.1.sectors.total_cmp(&b.1.sectors))
            .filter(|(_, m)| m.sectors > aligned.sectors + 1e-9);
        let worst = worst_shift.map_or(aligned, |(_, m)| m);
        let class = classify(access, &worst, &assigned, launch.block);
        Some(Evaluated {
            setup,
            lanes,
            aligned,
            worst_shift,
            class,
        })
    }

    fn worst(&self) -> Outcome {
        self.worst_shift.map_or(self.aligned, |(_, m)| m)
    }
}

/// The block footprint of the first assignment of the unknowns (the one the headline figure
/// is taken from), aligned and at the headline's misalignment.
struct HeadlineFootprint {
    aligned: Option<Footprint>,
    misaligned: Option<Footprint>,
}

/// The note that a block's tail warp costs other than a full warp's request: its threads,
/// and the average over every request of the block, as a profiler counts them.
fn tail_warp_note(e: &Evaluated<'_>) -> Option<(String, f64)> {
    let threads = e.setup.tail_warp_threads()?;
    let shift = e.worst_shift.map_or(0, |(s, _)| s);
    let full = e.worst().sectors;
    let average = round2(e.setup.block_average(&e.lanes, shift)?.sectors);
    ((average - round2(full)).abs() > 1e-9).then(|| {
        let note = format!(
            "the figure is a full warp's request; the block's last warp has {threads} threads, and over every \
             request of the block (as a profiler averages them) it is {average} sectors per request"
        );
        (note, average)
    })
}

/// Predicts what one warp does with an access under a launch.
pub fn predict(access: &Access, launch: &ResolvedLaunch) -> Prediction {
    let known = |a: &Atom| known_value(a, launch);
    let mut address = access.address.substitute(&known);
    let mut assumptions = access.notes.clone();
    if access.notes.iter().any(|n| n == UNKNOWN_LAYOUT) {
        return unknowable(AccessClass::Unknown, assumptions);
    }
    let mut gather = false;
    let mut opaque = None;
    address.visit_atoms(&mut |a| match a {
        Atom::Load { lane: true, .. } => gather = true,
        Atom::Opaque {
            lane: true,
            why: READ_FROM_MEMORY,
            ..
        } => gather = true,
        Atom::Opaque {
            lane: true, text, why, ..
        } => opaque = Some((text.clone(), *why)),
        _ => {}
    });
    // A block of one thread: each request is that lane's alone, one naturally aligned element
    // in one sector, wherever its index points.
    let one_lane = launch.block.iter().product::<u32>() == 1;
    if (gather || opaque.is_some()) && one_lane && access.width.is_power_of_two() && access.width <= 32 {
        address = address.substitute(&|a: &Atom| a.is_lane_dependent().then_some(0));
        gather = false;
        opaque = None;
    }
    if gather || opaque.is_some() {
        let (class, note) = match opaque {
            Some((text, why)) if !gather && why == OVERFLOWS => {
                (AccessClass::Unknown, format!("a {text} in the index {why}"))
            }
            Some((text, why)) if !gather => (
                AccessClass::Unknown,
                format!("the index depends on `{text}`, which {why}"),
            ),
            _ => (
                AccessClass::Gather,
                "the index is read from memory: which sectors the lanes touch depends on the data".to_string(),
            ),
        };
        assumptions.push(note);
        return unknowable(class, assumptions);
    }

    // In `x * rows + y` the unknown is a row length, not a small stride.
    let transposed = is_transposed(&access.address, access.width);
    let unknowns = unknowns_of(&address, transposed, launch.block);
    let warps = warps(launch.block);
    // The verdict and figure under one assignment, at its worst alignment: what tells the
    // unknowns that matter from those that do not.
    let verdict_under = |combo: &BTreeMap<Atom, i64>| {
        let e = Evaluated::new(&address, combo, access, launch, &warps)?;
        Some((e.class, round2(e.worst().sectors)))
    };
    let exploration = combinations(&unknowns, verdict_under);
    let mut results: Vec<ComboResult> = Vec::new();
    let mut headline_footprint = None;
    // The first assignment's first request, aligned and at its worst misalignment.
    let mut headline_sample: (Option<WarpSample>, Option<WarpSample>) = (None, None);
    let mut tail_note = None;
    for combo in exploration.combos.iter().cloned() {
        crate::budget::tick();
        let Some(e) = Evaluated::new(&address, &combo, access, launch, &warps) else {
            // Values under which no lane runs the access make no request: not a case.
            if combo != exploration.usual {
                continue;
            }
            assumptions.push("no lane runs this access under the assumed launch and parameters".into());
            return unknowable(AccessClass::Unknown, assumptions);
        };
        let (setup, lanes) = (&e.setup, &e.lanes);
        // The footprint scales with the block: under an assumed block it would be a guess.
        if results.is_empty() && launch.block_source != BlockSource::Default {
            let at = |shift| block_footprint(lanes, &setup.residues, shift, setup.width);
            headline_footprint = Some(HeadlineFootprint {
                aligned: at(0),
                misaligned: e.worst_shift.and_then(|(s, _)| at(s)),
            });
        }
        if results.is_empty() {
            tail_note = tail_warp_note(&e);
            headline_sample = (
                sample(lanes, 0, setup.width),
                e.worst_shift.and_then(|(s, _)| sample(lanes, s, setup.width)),
            );
        }
        let misaligned = e.worst_shift.map(|(_, m)| (m, setup.alignment_condition()));
        results.push(ComboResult {
            combo,
            aligned: e.aligned,
            misaligned,
            class: e.class,
        });
    }
    let worst = |r: &ComboResult| r.misaligned.as_ref().map_or(r.aligned, |m| m.0);

    let mut cases = Vec::new();
    let all_same = results
        .windows(2)
        .all(|w| (worst(&w[0]).sectors - worst(&w[1]).sectors).abs() < 1e-9);
    let has_stride = exploration.explored.iter().any(|(_, role)| role.shapes_lanes());
    let outcomes: Vec<(BTreeMap<Atom, i64>, (AccessClass, f64))> = results
        .iter()
        .map(|r| (r.combo.clone(), (r.class, round2(worst(r).sectors))))
        .collect();
    let (described, reading) = exploration.describe(&outcomes, |(_, sectors)| *sectors);
    let by_value: Vec<Case> = described
        .into_iter()
        .map(|(condition, (class, sectors_per_request))| Case {
            condition,
            class,
            sectors_per_request,
        })
        .collect();

    let mut footprint = None;
    let mut warp_sample = None;
    let headline = if all_same || !has_stride {
        // Row pitches are assumed aligned (the first candidate); the odd case is reported.
        if !all_same {
            cases = by_value.clone();
            for (atom, _) in exploration.explored.iter().filter(|(a, _)| configurable(a)) {
                assumptions.push(format!(
                    "assumes `{atom}` % 32 == 0, a row length that keeps rows sector-aligned"
                ));
            }
        }
        let first = &results[0];
        let (aligned, misaligned) = (&first.aligned, &first.misaligned);
        if let Some((m, condition)) = misaligned {
            let assigned = address.substitute(&|a| first.combo.get(a).copied());
            cases.push(Case {
                condition: condition.clone(),
                class: classify(access, aligned, &assigned, launch.block),
                sectors_per_request: round2(aligned.sectors),
            });
            assumptions.push(format!(
                "assumes {} (the start is not sector-aligned)",
                negate(condition)
            ));
            footprint = headline_footprint.and_then(|f| f.misaligned);
            warp_sample = headline_sample.1;
            Some(*m)
        } else {
            footprint = headline_footprint.and_then(|f| f.aligned);
            warp_sample = headline_sample.0;
            Some(*aligned)
        }
    } else {
        cases = by_value;
        assumptions.extend(depends_on(&exploration.explored));
        assumptions.extend(reading);
        None
    };

    let mut shown = headline.unwrap_or_else(|| {
        results
            .iter()
            .map(worst)
            .max_by(|a, b| a.sectors.total_cmp(&b.sectors))
            .expect("one combination at least")
    });
    // One address for every lane is a claim about all values, not the ones tried: it needs
    // every case to agree and the lanes' addresses to be the same expression.
    if shown.broadcast {
        let every_case = results.iter().all(|r| r.aligned.broadcast);
        let proven = every_case && Setup::new(&address, access, launch, &warps).proves_one_address(&address);
        if !proven {
            shown.broadcast = false;
            if every_case {
                assumptions.push(
                    "the lanes read one address in every case tried, but not for every value of the unknowns"
                        .to_string(),
                );
            }
        }
    }
    let mut block_average = None;
    if let (Some(_), Some((note, average))) = (headline, tail_note) {
        assumptions.push(note);
        block_average = Some(average);
    }
    let class = classify(access, &shown, &address, launch.block);
    if class == AccessClass::Transposed {
        for (atom, _) in exploration.explored.iter().filter(|(a, _)| configurable(a)) {
            assumptions.push(format!("assumes `{atom}` is a row length of at least 8 elements"));
        }
    }
    let row_length = matches!(class, AccessClass::Transposed | AccessClass::Strided)
        .then(|| row_length(&access.address, access.width))
        .flatten();
    Prediction {
        class,
        stride_bytes: shown.stride,
        sectors_per_request: headline.map(|h| round2(h.sectors)),
        block_average_sectors_per_request: block_average,
        ideal_sectors_per_request: Some(round2(shown.ideal)),
        efficiency: headline.map(|h| round4(h.ideal / h.sectors.max(1e-9)).min(1.0)),
        cases,
        assumptions,
        row_length,
        upper_bound: false,
        block_footprint_sectors: footprint.map(|f| round2(f.sectors)),
        block_footprint_ideal_sectors: footprint.map(|f| round2(f.ideal)),
        warp_sample,
    }
    .masked(access)
}

impl Prediction {
    /// Marks a figure as an upper bound when lanes are masked by values the analysis cannot
    /// know: a lane-dependent guard on data read from memory or on an unreadable condition.
    fn masked(mut self, access: &Access) -> Prediction {
        if self.sectors_per_request.is_none() && self.cases.is_empty() {
            return self;
        }
        let mut data = None;
        let mut other = None;
        for guard in &access.guards {
            guard.visit_atoms(&mut |a| match a {
                Atom::Load { lane: true, text, .. } => data = data.clone().or(Some(text.clone())),
                Atom::Opaque { lane: true, text, .. } => other = other.clone().or(Some(text.clone())),
                _ => {}
            });
        }
        let note = match (data, other) {
            (Some(text), _) => format!(
                "the lanes that run it are masked by data (`{text}`): the figure counts every lane, so each request touches at most that many sectors"
            ),
            (None, Some(text)) => format!(
                "the lanes that run it depend on `{text}`, which the analysis cannot follow: the figure counts every lane, so each request touches at most that many sectors"
            ),
            (None, None) => return self,
        };
        self.upper_bound = true;
        self.assumptions.push(note);
        self
    }
}

/// Whether a value can be given in the configuration (a parameter, a length, a launch extent):
/// a literal, a constant or a value read from memory cannot.
fn configurable(atom: &Atom) -> bool {
    !matches!(atom, Atom::Opaque { .. } | Atom::Load { .. })
}

/// What the figure depends on: the values to give in the configuration, then the rest with
/// the reason they are not known.
fn depends_on(unknowns: &[(Atom, Role)]) -> Vec<String> {
    let mut notes = Vec::new();
    let names: Vec<String> = unknowns
        .iter()
        .filter(|(a, _)| configurable(a))
        .map(|(a, _)| format!("`{a}`"))
        .collect();
    if !names.is_empty() {
        notes.push(format!(
            "the figure depends on {}: give its value in the configuration for one number",
            names.join(" and ")
        ));
    }
    for (atom, _) in unknowns {
        match atom {
            Atom::Opaque { text, why, .. } => notes.push(format!("the figure depends on `{text}`, which {why}")),
            Atom::Load { text, .. } => notes.push(format!("the figure depends on `{text}`, which is read from memory")),
            _ => {}
        }
    }
    notes
}

fn unknowable(class: AccessClass, assumptions: Vec<String>) -> Prediction {
    Prediction {
        class,
        stride_bytes: None,
        sectors_per_request: None,
        block_average_sectors_per_request: None,
        ideal_sectors_per_request: None,
        efficiency: None,
        cases: Vec::new(),
        assumptions,
        row_length: None,
        upper_bound: false,
        block_footprint_sectors: None,
        block_footprint_ideal_sectors: None,
        warp_sample: None,
    }
}

fn negate(condition: &str) -> String {
    condition.replace("== 0", "!= 0").replace(" && ", " || ")
}

/// The first request of `lanes` (the first warp that makes one, at the first point), shifted
/// by `shift` bytes, for a picture of the warp.
fn sample(lanes: &LaneAddresses, shift: i64, width: u64) -> Option<WarpSample> {
    let warp = lanes.warps.first()?;
    let lowest = warp.addresses.iter().min()? + shift;
    let base = lowest.div_euclid(SECTOR_BYTES) * SECTOR_BYTES;
    let mut lane_addresses = vec![None; WARP_SIZE];
    for (&lane, &address) in warp.lanes.iter().zip(&warp.addresses) {
        lane_addresses[lane] = Some(address + shift - base);
    }
    Some(WarpSample {
        warp: warp.index,
        lane_addresses,
        bytes_per_lane: width,
    })
}

#[cfg(test)]
mod tests {
    use crate::{analyze_source, LaunchPlan, SourceFile, WarpSample};

    fn sample(src: &str) -> Option<WarpSample> {
        let file = SourceFile::new("k.rs", src);
        let report = analyze_source(&file, &LaunchPlan::default()).expect("analyzed");
        report.kernels[0].accesses[0]
            .prediction
            .clone()
            .expect("global")
            .warp_sample
    }

    fn first_prediction(src: &str) -> crate::Prediction {
        let file = SourceFile::new("k.rs", src);
        let report = analyze_source(&file, &LaunchPlan::default()).expect("analyzed");
        report.kernels[0].accesses[0].prediction.clone().expect("global")
    }

    #[test]
    fn a_tail_warp_is_a_note_beside_the_full_warps_figure() {
        // 48 threads: one full warp reading 32 rows 64 bytes apart (32 sectors) and a tail
        // of 16 threads (16 sectors): 24 over both requests.
        let p = first_prediction(
            "// kernel-lint: block(48)
             #[kernel] pub unsafe fn k(rows: *const [f32; 16], out: *mut f32) {
                 let i = thread::index_1d() as usize;
                 *out.add(i) = (*rows.add(i))[0];
             }",
        );
        assert_eq!(p.sectors_per_request, Some(32.0), "{p:?}");
        assert_eq!(p.block_average_sectors_per_request, Some(24.0));
        assert_eq!(
            p.assumptions,
            [
                "the figure is a full warp's request; the block's last warp has 16 threads, and over every \
              request of the block (as a profiler averages them) it is 24 sectors per request"
            ]
        );
    }

    #[test]
    fn a_block_of_one_thread_touches_one_sector_wherever_its_index_points() {
        let store = |block: u32| {
            let src = format!(
                "// kernel-lint: block({block})
                 #[kernel] pub unsafe fn k(next: *const u32, out: *mut f32) {{
                     let j = *next.add(thread::index_1d() as usize) as usize;
                     *out.add(j) = 1.0;
                 }}"
            );
            let report = crate::analyze_source(&crate::SourceFile::new("k.rs", &src), &crate::LaunchPlan::default())
                .expect("parses");
            let out = report.kernels[0]
                .accesses
                .iter()
                .find(|a| a.array == "out")
                .expect("store");
            let p = out.prediction.clone().expect("global");
            (p.class, p.sectors_per_request)
        };
        // The index is read from memory, but a warp of one lane makes one 4-byte request.
        assert_eq!(store(1), (crate::AccessClass::Broadcast, Some(1.0)));
        // With a warp of lanes the same index is a gather.
        assert_eq!(store(64), (crate::AccessClass::Gather, None));
    }

    #[test]
    fn an_edge_guard_leaves_a_representative_block_whole() {
        // Without a grid the figure is an interior block's: `i > 0` only drops a lane of the
        // grid's first block.
        let p = first_prediction(
            "#[kernel] pub unsafe fn k(rows: *const [f32; 16], out: *mut f32) {
                 let i = thread::index_1d() as usize;
                 if i > 0 { *out.add(i) = (*rows.add(i - 1))[0]; }
             }",
        );
        assert_eq!(p.sectors_per_request, Some(32.0), "{p:?}");
        // An access only the first block makes is still evaluated, in that block.
        let first = first_prediction(
            "#[kernel] pub unsafe fn k(out: *mut f32) {
                 if thread::block_idx_x() == 0 { *out.add(thread::thread_idx_x() as usize) = 1.0; }
             }",
        );
        assert_eq!(first.sectors_per_request, Some(4.0), "{first:?}");
    }

    #[test]
    fn a_loop_bounded_by_an_outer_index_runs_past_the_outer_first_iteration() {
        // `j < i` holds at no single iteration shared by both loops: each is evaluated at its
        // own, the outer one further on, rather than claiming no lane runs the access.
        let p = first_prediction(
            "#[kernel] pub unsafe fn k(a: *const f32, out: *mut f32, n: usize) {
                 let t = thread::index_1d() as usize;
                 for i in 0..n { for j in 0..i { *out.add(t) = *a.add(i * n + j); } }
             }",
        );
        assert_eq!(
            (p.class, p.sectors_per_request),
            (crate::AccessClass::Broadcast, Some(1.0)),
            "{p:?}"
        );
    }

    #[test]
    fn the_sample_is_the_first_warps_request_from_its_first_sector() {
        let s = sample(
            "// kernel-lint: block(128)
             #[kernel] pub unsafe fn k(a: &[f32]) { let v = a[thread::index_1d() as usize * 2]; }",
        )
        .expect("a sample");
        assert_eq!((s.warp, s.bytes_per_lane), (0, 4));
        assert_eq!(s.lane_addresses, (0..32).map(|l| Some(l * 8)).collect::<Vec<_>>());
    }

    #[test]
    fn a_misaligned_headline_draws_the_misaligned_start_and_masked_lanes_are_none() {
        let s = sample(
            "// kernel-lint: block(128)
             #[kernel] pub unsafe fn k(a: &[f32]) { let i = thread::index_1d() as usize; if i % 32 != 0 { let v = a[i + 1]; } }",
        )
        .expect("a sample");
        assert_eq!(s.lane_addresses[0], None);
        // Lane 1 reads element 2: 8 bytes past the first sector's start.
        assert_eq!(s.lane_addresses[1], Some(8));
        assert_eq!(s.lane_addresses[31], Some(128));
    }
}
