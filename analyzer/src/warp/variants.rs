//! Launch values no launch, configuration or hint gives (the block, the extents of it a launch
//! sets at run time, the line size of a CubeCL buffer): the prediction under the values
//! assumed is a fact only where other values give the same verdict; elsewhere it is a case
//! per value.

use super::verdict::{Case, Prediction};
use crate::algebra::{Atom, Axis};
use crate::interpret::Access;
use crate::model::cubecl::line_size_key;
use crate::model::launch::{extent_names, BlockSource, Dim3, ResolvedLaunch, MAX_BLOCK_THREADS, RUNTIME_EXTENTS};

/// The two-dimensional blocks tried besides the assumed one, for kernels whose addresses use
/// a slower thread index: rows as wide as a warp, as wide as half a warp.
pub const OTHER_BLOCKS: [Dim3; 2] = [[32, 8, 1], [16, 16, 1]];

/// Line sizes tried for a CubeCL buffer of lines whose launch does not give one (1 assumed).
pub const OTHER_LINE_SIZES: [i64; 2] = [2, 4];

/// Why a figure that changes with a block nothing gives has cases instead of one number.
pub const DEPENDS_ON_BLOCK: &str = "the figure depends on the block, which no launch, configuration or hint gives: add `// kernel-lint: block(x, y)` above the kernel for one number";

/// The launches an access is predicted under: the one assumed, named by the condition that
/// holds for it, the others each named by what it changes, and why the figure may depend on
/// them.
pub struct Variants {
    pub assumed: String,
    pub others: Vec<(ResolvedLaunch, String)>,
    pub why: Vec<String>,
}

impl Variants {
    /// The variants of `launch` worth analyzing: other blocks where nothing gives the block
    /// and the addresses use a slower thread index (`spans_rows`), other values of the
    /// extents a launch sets at run time, other line sizes for the buffers whose line size
    /// was assumed. `None` when every value the analysis used is given.
    /// `build_blocks` are the blocks a kernel's attribute gives in the builds of its file
    /// ([`crate::model::kernel::Kernel::build_blocks`]), the one assumed first.
    pub fn of(
        launch: &ResolvedLaunch,
        spans_rows: bool,
        assumed_line_sizes: &[String],
        build_blocks: &[(Dim3, String)],
    ) -> Option<Variants> {
        let mut assumed = Vec::new();
        let mut others = Vec::new();
        let mut why = Vec::new();
        let from_builds = launch.block_source == BlockSource::Attribute && build_blocks.len() > 1;
        if from_builds {
            let name = |(block, condition): &(Dim3, String)| format!("{} && {condition}", block_condition(*block));
            assumed.push(name(&build_blocks[0]));
            for other in &build_blocks[1..] {
                others.push((
                    ResolvedLaunch {
                        block: other.0,
                        ..launch.clone()
                    },
                    name(other),
                ));
            }
            let each: Vec<String> = build_blocks
                .iter()
                .map(|(block, condition)| {
                    let [x, y, z] = block;
                    format!("({x}, {y}, {z}) under {condition}")
                })
                .collect();
            why.push(format!(
                "the figure depends on the workgroup size, which features not known decide: the kernel's attributes give {}",
                each.join(", ")
            ));
        } else if launch.unknown_block.iter().any(|&u| u) {
            let unknown = launch.unknown_block;
            let name = |block: Dim3| extent_condition(block, unknown);
            assumed.push(name(launch.block));
            for block in runtime_blocks(launch.block, unknown) {
                others.push((
                    ResolvedLaunch {
                        block,
                        ..launch.clone()
                    },
                    name(block),
                ));
            }
            why.push(format!(
                "the figure depends on {}, which the launch sets at run time",
                extent_names(unknown)
            ));
        } else if launch.block_source == BlockSource::Default && spans_rows {
            assumed.push(block_condition(launch.block));
            for block in OTHER_BLOCKS {
                others.push((
                    ResolvedLaunch {
                        block,
                        ..launch.clone()
                    },
                    block_condition(block),
                ));
            }
            why.push(DEPENDS_ON_BLOCK.to_string());
        }
        if !assumed_line_sizes.is_empty() {
            let buffers: Vec<String> = assumed_line_sizes.iter().map(|b| format!("`{b}`")).collect();
            let buffers = match buffers.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
                _ => buffers.join(""),
            };
            let name = |size: i64| format!("line size {size} for {buffers}");
            assumed.push(name(1));
            for size in OTHER_LINE_SIZES {
                let mut params = launch.params.clone();
                for buffer in assumed_line_sizes {
                    params.insert(line_size_key(buffer), size);
                }
                others.push((
                    ResolvedLaunch {
                        params,
                        ..launch.clone()
                    },
                    name(size),
                ));
            }
            why.push(format!(
                "the figure depends on the line size of {buffers}, which the launch does not give"
            ));
        }
        (!others.is_empty()).then(|| Variants {
            assumed: assumed.join(" && "),
            others,
            why,
        })
    }
}

/// Every block with the `unknown` extents of `assumed` at each runtime value, within the
/// thread limit, but `assumed` itself.
fn runtime_blocks(assumed: Dim3, unknown: [bool; 3]) -> Vec<Dim3> {
    let mut blocks = vec![assumed];
    for (axis, _) in unknown.iter().enumerate().filter(|(_, &u)| u) {
        blocks = blocks
            .iter()
            .flat_map(|b| {
                RUNTIME_EXTENTS.iter().map(move |&v| {
                    let mut b = *b;
                    b[axis] = v;
                    b
                })
            })
            .collect();
    }
    blocks.retain(|b| *b != assumed && b.iter().product::<u32>() <= MAX_BLOCK_THREADS);
    blocks.sort_unstable();
    blocks.dedup();
    blocks.reverse();
    blocks
}

/// `block.y == 16`: the extents flagged `unknown`, with their values in `block`.
fn extent_condition(block: Dim3, unknown: [bool; 3]) -> String {
    let parts: Vec<String> = ["x", "y", "z"]
        .iter()
        .zip(unknown)
        .zip(block)
        .filter(|&((_, u), _)| u)
        .map(|((axis, _), v)| format!("block.{axis} == {v}"))
        .collect();
    parts.join(" && ")
}

/// Whether an access's address or guard uses the y or z thread index: then the block's shape
/// decides which threads share a warp.
pub fn spans_rows(accesses: &[Access]) -> bool {
    let mut found = false;
    let mut note = |a: &Atom| found |= matches!(a, Atom::ThreadIdx(Axis::Y | Axis::Z));
    for access in accesses {
        access.address.visit_atoms(&mut note);
        for guard in &access.guards {
            guard.visit_atoms(&mut note);
        }
    }
    found
}

/// Folds the predictions of one access under the other launches of `choices` into its
/// prediction under the assumed one: unchanged when every launch gives the same verdict and
/// figure; the figure kept, with the cases that differ added, when only those differ; else one
/// case per launch (and per value where a launch's figure has cases of its own), no headline
/// figure, and the worst class.
pub fn fold_variants(prediction: &mut Prediction, choices: &Variants, others: &[Option<&Prediction>]) {
    let assumed = choices.assumed.as_str();
    let others: Vec<(&str, Option<&Prediction>)> = choices
        .others
        .iter()
        .map(|(_, name)| name.as_str())
        .zip(others.iter().copied())
        .collect();
    let same = |q: &Prediction| {
        q.class == prediction.class
            && q.sectors_per_request == prediction.sectors_per_request
            && q.cases == prediction.cases
    };
    if others.iter().all(|(_, q)| q.is_some_and(same)) {
        return;
    }
    // The same figure under every block: it stands; the cases that differ are added.
    let same_figure =
        |q: &Prediction| q.class == prediction.class && q.sectors_per_request == prediction.sectors_per_request;
    if prediction.sectors_per_request.is_some() && others.iter().all(|(_, q)| q.is_some_and(same_figure)) {
        let mut added = Vec::new();
        for (block, q) in others {
            for c in q.iter().flat_map(|q| &q.cases) {
                if !prediction.cases.contains(c) {
                    added.push(Case {
                        condition: format!("{block} && {}", c.condition),
                        class: c.class,
                        sectors_per_request: c.sectors_per_request,
                    });
                }
            }
        }
        prediction.cases.extend(added);
        return;
    }
    let mut cases = block_cases(assumed, prediction);
    let mut worst = (prediction.class, worst_sectors(prediction));
    let mut without_figure = Vec::new();
    if cases.is_empty() {
        without_figure.push(format!("{assumed} ({})", prediction.class.as_str()));
    }
    for (block, other) in others {
        match other {
            Some(q) => {
                let theirs = block_cases(block, q);
                if theirs.is_empty() {
                    without_figure.push(format!("{block} ({})", q.class.as_str()));
                }
                cases.extend(theirs);
                if worst_sectors(q) > worst.1 {
                    worst = (q.class, worst_sectors(q));
                }
            }
            None => without_figure.push(format!("{block} (the access is not made)")),
        }
    }
    if !without_figure.is_empty() {
        prediction
            .assumptions
            .push(format!("no figure under {}", without_figure.join(", ")));
    }
    prediction.class = worst.0;
    prediction.cases = cases;
    prediction.sectors_per_request = None;
    prediction.efficiency = None;
    prediction.block_footprint_sectors = None;
    prediction.block_footprint_ideal_sectors = None;
    prediction.warp_sample = None;
    prediction.assumptions.extend(choices.why.iter().cloned());
}

fn worst_sectors(p: &Prediction) -> f64 {
    p.sectors_per_request
        .into_iter()
        .chain(p.cases.iter().map(|c| c.sectors_per_request))
        .fold(0.0, f64::max)
}

fn block_condition(block: Dim3) -> String {
    let [x, y, z] = block;
    format!("block == ({x}, {y}, {z})")
}

/// The cases of one block's prediction, each conditioned on the block.
fn block_cases(condition: &str, p: &Prediction) -> Vec<Case> {
    let condition = condition.to_string();
    let headline = p.sectors_per_request.map(|sectors| Case {
        condition: condition.clone(),
        class: p.class,
        sectors_per_request: sectors,
    });
    // The headline is one of the cases or their complement: those that repeat it go.
    let repeats = |c: &Case| p.sectors_per_request == Some(c.sectors_per_request) && c.class == p.class;
    let own = p.cases.iter().filter(|c| !repeats(c)).map(|c| Case {
        condition: format!("{condition} && {}", c.condition),
        class: c.class,
        sectors_per_request: c.sectors_per_request,
    });
    headline.into_iter().chain(own).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::warp::verdict::AccessClass;
    use std::collections::BTreeMap;

    fn prediction(class: AccessClass, sectors: Option<f64>, cases: Vec<Case>) -> Prediction {
        Prediction {
            class,
            stride_bytes: None,
            sectors_per_request: sectors,
            block_average_sectors_per_request: None,
            ideal_sectors_per_request: Some(4.0),
            efficiency: sectors.map(|s| 4.0 / s),
            cases,
            assumptions: Vec::new(),
            row_length: None,
            upper_bound: false,
            block_footprint_sectors: None,
            block_footprint_ideal_sectors: None,
            warp_sample: None,
        }
    }

    fn launch(block: Dim3, source: BlockSource, unknown_block: [bool; 3]) -> ResolvedLaunch {
        ResolvedLaunch {
            block,
            grid: None,
            block_source: source,
            params: BTreeMap::new(),
            float_params: BTreeMap::new(),
            unknown_block,
        }
    }

    #[test]
    fn only_values_the_analysis_assumed_are_varied() {
        let given = launch([256, 1, 1], BlockSource::Launch, [false; 3]);
        assert!(Variants::of(&given, true, &[], &[]).is_none());
        let default = launch([256, 1, 1], BlockSource::Default, [false; 3]);
        // A kernel that uses x alone is the same under every block a warp wide.
        assert!(Variants::of(&default, false, &[], &[]).is_none());
        let rows = Variants::of(&default, true, &[], &[]).expect("other blocks");
        assert_eq!(rows.assumed, "block == (256, 1, 1)");
        let names: Vec<&str> = rows.others.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(names, ["block == (32, 8, 1)", "block == (16, 16, 1)"]);
        // Part of the block given: only the rest is varied, within the thread limit.
        let tall = launch([1, 256, 1], BlockSource::Launch, [false, true, false]);
        let heights = Variants::of(&tall, false, &["input".to_string()], &[]).expect("heights and lines");
        assert_eq!(heights.assumed, "block.y == 256 && line size 1 for `input`");
        let names: Vec<&str> = heights.others.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "block.y == 32",
                "block.y == 16",
                "line size 2 for `input`",
                "line size 4 for `input`"
            ]
        );
        assert_eq!(heights.others[3].0.params.get("input.line_size"), Some(&4));
        assert_eq!(heights.why.len(), 2);
    }

    #[test]
    fn a_figure_that_changes_becomes_a_case_per_launch() {
        let default = launch([256, 1, 1], BlockSource::Default, [false; 3]);
        let variants = Variants::of(&default, true, &[], &[]).expect("other blocks");
        let coalesced = prediction(AccessClass::Coalesced, Some(4.0), Vec::new());
        // The same under every block: unchanged.
        let mut same = coalesced.clone();
        fold_variants(&mut same, &variants, &[Some(&coalesced), Some(&coalesced)]);
        assert_eq!(same, coalesced);
        // Another figure under one block: no headline, a case per block, the worst class.
        let mut folded = coalesced.clone();
        let transposed = prediction(AccessClass::Transposed, Some(16.0), Vec::new());
        fold_variants(&mut folded, &variants, &[Some(&coalesced), Some(&transposed)]);
        assert_eq!(
            (folded.class, folded.sectors_per_request),
            (AccessClass::Transposed, None)
        );
        let cases: Vec<(&str, AccessClass, f64)> = folded
            .cases
            .iter()
            .map(|c| (c.condition.as_str(), c.class, c.sectors_per_request))
            .collect();
        assert_eq!(
            cases,
            [
                ("block == (256, 1, 1)", AccessClass::Coalesced, 4.0),
                ("block == (32, 8, 1)", AccessClass::Coalesced, 4.0),
                ("block == (16, 16, 1)", AccessClass::Transposed, 16.0)
            ]
        );
        assert_eq!(folded.assumptions, [DEPENDS_ON_BLOCK]);
        // The same figure with a case of its own under one block: the figure stands.
        let odd = Case {
            condition: "w is odd".into(),
            class: AccessClass::Misaligned,
            sectors_per_request: 5.0,
        };
        let with_case = prediction(AccessClass::Coalesced, Some(4.0), vec![odd]);
        let mut kept = coalesced.clone();
        fold_variants(&mut kept, &variants, &[Some(&coalesced), Some(&with_case)]);
        assert_eq!(kept.sectors_per_request, Some(4.0));
        assert_eq!(kept.cases.len(), 1);
        assert_eq!(kept.cases[0].condition, "block == (16, 16, 1) && w is odd");
    }
}
